"""Which page changes wake an inbox (the web's cards say whether a suggestion still applies):
a change to a page wakes whoever made or decides on a suggested change waiting on it, and no
one else. The events since the last one seen are read, as PostgreSQL announces a
transaction's page events as one, without their ids."""

from __future__ import annotations

from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from tests.services.conftest import Team


def _edit(team: Team, address: str, old: str, new: str) -> None:
    edits = parse_edits([{"op": "replace", "old": old, "new": new}])
    editing.edit_page(team.writer, address=address, edits=edits)


def test_a_change_to_a_page_with_a_suggestion_waiting_wakes_its_suggester_and_editors(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:waits", title="Waits", body="One. Two.\n")
    edits = parse_edits([{"op": "replace", "old": "One.", "new": "1."}])
    changes.suggest_edit(team.agent, address="wiki:waits", edits=edits, reason="Digits.")
    before = inbox.latest_page_event()
    _edit(team, "wiki:waits", "Two.", "2.")
    assert inbox.pages_changed(team.writer, before)[0]  # decides on it
    assert inbox.pages_changed(team.agent, before)[0]  # suggested it
    assert not inbox.pages_changed(team.reader, before)[0]  # neither
    assert not inbox.pages_changed(team.stranger, before)[0]
    _, seen = inbox.pages_changed(team.writer, before)
    assert seen == inbox.latest_page_event() and not inbox.pages_changed(team.writer, seen)[0]


def test_a_change_to_a_page_with_nothing_waiting_wakes_no_one(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:quiet", title="Quiet", body="One.\n")
    before = inbox.latest_page_event()
    _edit(team, "wiki:quiet", "One.", "1.")
    for member in (team.writer, team.agent, team.admin):
        assert inbox.pages_changed(member, before) == (False, inbox.latest_page_event())
