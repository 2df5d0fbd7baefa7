"""What waits on an editor, narrowed to a page, a folder or a space: the same suggestions the
whole list holds there, counted the same."""

from __future__ import annotations

import pytest

from codna.errors import NotFound
from codna.markdown.edits import Append
from codna.services.inbox import inbox
from codna.services.pages import pages
from codna.services.suggestions import changes
from tests.services.conftest import Team

PAGES = ("wiki:plans/q1", "wiki:plans/q2", "wiki:notes/n1")


def _waiting(team: Team) -> dict[str, int]:
    made = {}
    for address in PAGES:
        pages.create_page(team.writer, address=address, title=address, body="Text.\n")
        made[address] = changes.suggest_edit(
            team.reader, address=address, edits=[Append(text="More.\n")], reason="More."
        ).suggestion.id  # type: ignore[union-attr]
    return made


def test_pending_decisions_narrowed_to_a_folder_a_page_or_a_space(team: Team) -> None:
    made = _waiting(team)

    def ids(address: str | None) -> set[int]:
        found = inbox.pending_decisions(team.writer, address=address)
        assert found.suggested_changes.total == len(found.suggested_changes.items)
        return {s.id for s in found.suggested_changes.items}

    assert ids(None) == set(made.values()) == ids("wiki")
    assert ids("wiki:plans/") == ids("wiki:plans") == {made["wiki:plans/q1"], made["wiki:plans/q2"]}
    assert ids("wiki:notes/n1") == {made["wiki:notes/n1"]}
    assert ids("raw") == set()


def test_an_address_that_names_nothing_is_not_found_and_an_empty_folder_holds_nothing(
    team: Team,
) -> None:
    _waiting(team)
    with pytest.raises(NotFound):
        inbox.pending_decisions(team.writer, address="wiki:nowhere")
    assert inbox.pending_decisions(team.writer, address="wiki:nowhere/").total == 0
