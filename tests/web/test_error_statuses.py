"""The web answers a domain error with the status the error carries, the one the API answers
it with: SPEC 2's table tested once for this interface, over every kind of error there is."""

from __future__ import annotations

from typing import NoReturn

import pytest

from codna.errors import AlreadyDecided, CodnaError
from codna.services.pages import pages
from tests.conftest import InProcessServer, domain_errors, unique
from tests.web.conftest import csrf_of, signed_in


# The translation does not depend on the engine.
@pytest.mark.parametrize("running_app", ["sqlite"], indirect=True)
@pytest.mark.parametrize("kind", domain_errors(), ids=lambda kind: kind.__name__)
def test_the_web_answers_every_domain_error_with_the_status_it_carries(
    app: InProcessServer, monkeypatch: pytest.MonkeyPatch, kind: type[CodnaError]
) -> None:
    def refuse(*_: object, **__: object) -> NoReturn:
        raise kind("A sentence.")

    with signed_in(app, "writer") as browser:
        monkeypatch.setattr(pages, "read_page", refuse)
        answer = browser.get("/p/wiki/anything")
    if kind.status == 401:
        # A browser's answer to 401: the sign-in page, and back here after.
        assert answer.status_code == 303, answer.text
        assert answer.headers["location"] == "/?next=/p/wiki/anything"
    else:
        assert answer.status_code == kind.status, answer.text
        assert "A sentence." in answer.text


def test_deciding_a_decided_suggestion_again_by_form_answers_as_the_api_does(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Deploys run at noon.\n")
    edits = [{"op": "replace", "old": "at noon", "new": "at 10:00"}]
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": "Lunch."}
        )
    assert made.status_code == 201, made.text
    suggestion_id = made.json()["suggestion"]["id"]
    decide = f"/inbox/changes/{suggestion_id}/decide"
    with signed_in(app, "writer") as browser:
        token = csrf_of(browser.get("/inbox"))
        accepted = browser.post(decide, data={"decision": "accept", "csrf": token})
        again = browser.post(decide, data={"decision": "reject", "csrf": token})
    with app.api("writer") as api:
        over_the_api = api.post(
            f"/api/v1/suggestions/{suggestion_id}/decide", json={"decision": "reject"}
        )
    assert accepted.status_code == 303, accepted.text
    assert again.status_code == 409, again.text
    assert "accepted" in again.text
    assert over_the_api.status_code == 409, over_the_api.text
    assert over_the_api.json()["code"] == AlreadyDecided.code
