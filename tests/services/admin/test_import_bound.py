"""One import holds a bounded number of documents: past IMPORT_DOCUMENTS it is refused whole,
naming the bound, before anything is parsed or written."""

from __future__ import annotations

import pytest

from codna.errors import TooLarge
from codna.services.admin import transfer
from codna.services.admin.transfer import Document
from codna.services.pages import pages
from tests.services.conftest import Team


def test_an_import_of_more_documents_than_the_bound_is_refused_whole(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "IMPORT_DOCUMENTS", 3)
    many = [Document(f"d{n}.md", "Text.\n") for n in range(4)]
    with pytest.raises(TooLarge) as refused:
        transfer.import_documents(team.admin, documents=many)
    assert refused.value.fields == {"field": "documents", "limit": 3}
    assert "at most 3 documents" in refused.value.message
    assert pages.list_pages(team.admin, address="raw") == []
    assert len(transfer.import_documents(team.admin, documents=many[:3])) == 3
