"""The JSON API answers a domain error with the status the error carries: SPEC 2's table
tested once for this interface, over every kind of error there is."""

from __future__ import annotations

from typing import NoReturn

import pytest

from codna.errors import CodnaError
from codna.services.pages import pages
from tests.conftest import InProcessServer, domain_errors


# The translation does not depend on the engine.
@pytest.mark.parametrize("running_app", ["sqlite"], indirect=True)
@pytest.mark.parametrize("kind", domain_errors(), ids=lambda kind: kind.__name__)
def test_the_api_answers_every_domain_error_with_the_status_it_carries(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch, kind: type[CodnaError]
) -> None:
    def refuse(*_: object, **__: object) -> NoReturn:
        raise kind("A sentence.", limit=3)

    monkeypatch.setattr(pages, "read_page", refuse)
    with app.api("writer") as client:
        answer = client.get("/api/v1/page", params={"address": "wiki:anything"})
    assert answer.status_code == kind.status, answer.text
    assert answer.json() == {"code": kind.code, "message": "A sentence.", "limit": 3}
