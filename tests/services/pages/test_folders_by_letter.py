"""A grant on a folder reaches exactly the pages under it, letter for letter: `wiki:plans/`
never reaches `wiki:Plans/` or `wiki:planS/`, and `_` in a path is a letter, not a wildcard.
Every place that lists pages agrees, on both databases: listing, search, export, a folder's
listing, reading several, the suggestions waiting and the inbox's counts."""

from __future__ import annotations

import pytest

from codna.errors import NotFound
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.inbox import inbox
from codna.services.members import access
from codna.services.pages import pages, search
from codna.services.suggestions import changes
from tests.services.conftest import Team

FOLDERS = ["plans", "Plans", "planS", "plan_", "pla_s", "plans_x"]
WORD = "zebracorn"


def _make(team: Team) -> dict[str, str]:
    """A page in each folder, each with a suggestion by the agent; folder -> page address."""
    made = {}
    for folder in FOLDERS:
        address = f"wiki:{folder}/notes"
        pages.create_page(team.admin, address=address, title=f"Notes {folder}", body=f"{WORD}\n")
        access.share(team.admin, address=f"wiki:{folder}/", member="checker", level="read")
        changes.suggest_edit(
            team.agent,
            address=address,
            reason="Say more.",
            edits=parse_edits([{"op": "append", "text": "More."}]),
        )
        made[folder] = address
    return made


@pytest.mark.parametrize("granted", FOLDERS)
def test_a_folder_grant_reaches_its_folder_letter_for_letter(team: Team, granted: str) -> None:
    made = _make(team)
    access.share(team.admin, address=f"wiki:{granted}/", member="sam@example.com", level="write")
    sam = team.stranger
    mine = {made[granted]}
    others = set(made.values()) - mine

    assert {p.address for p in pages.list_pages(sam, address="wiki")} == mine
    assert {h.address for h in search.search(sam, query=WORD)} == mine
    assert {f.address for f in transfer.export_documents(sam, address="wiki")} == mine
    for folder, address in made.items():
        listed = {p.address for p in pages.list_pages(sam, address=f"wiki:{folder}/")}
        assert listed == ({address} if folder == granted else set()), folder
        if folder != granted:
            with pytest.raises(NotFound):
                pages.read_page(sam, address=address)
    many = pages.read_pages(sam, addresses=sorted(made.values()))
    assert {p.address for p in many.pages} == mine
    waiting = inbox.pending_decisions(sam)
    assert waiting.suggested_changes.total == 1
    assert {s.page for s in waiting.suggested_changes.items} == mine
    assert not others & {s.page for s in changes.list_suggestions(sam, address="wiki")}


def test_a_search_in_a_folder_keeps_to_that_folder_letter_for_letter(team: Team) -> None:
    made = _make(team)
    for folder, address in made.items():
        found = {h.address for h in search.search(team.admin, query=WORD, folder=f"wiki:{folder}/")}
        assert found == {address}, folder
