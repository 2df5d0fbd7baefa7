"""Which changes wake an inbox: with `pages_too` (the web's cards, which say whether a
suggestion still applies), a change to a page wakes whoever made or decides on a suggested
change waiting on it, and no one else."""

from __future__ import annotations

import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services import changes, inbox, pages, suggestions
from codna.services.context import database
from codna.services.events import Event
from codna.storage.schema import outbox
from tests.services.conftest import Team


def _latest_page_event() -> Event:
    with database().read() as conn:
        latest = conn.execute(sa.select(sa.func.max(outbox.c.id))).scalar_one()
    return Event(table="outbox", id=latest, op="insert")


def _edit(team: Team, address: str, old: str, new: str) -> Event:
    edits = parse_edits([{"op": "replace", "old": old, "new": new}])
    changes.edit_page(team.writer, address=address, edits=edits)
    return _latest_page_event()


def test_a_change_to_a_page_with_a_suggestion_waiting_wakes_its_suggester_and_editors(
    team: Team,
) -> None:
    pages.create_page(team.writer, address="wiki:waits", title="Waits", body="One. Two.\n")
    edits = parse_edits([{"op": "replace", "old": "One.", "new": "1."}])
    suggestions.suggest_edit(team.agent, address="wiki:waits", edits=edits, reason="Digits.")
    moved = _edit(team, "wiki:waits", "Two.", "2.")
    assert inbox.concerns(team.writer, moved, pages_too=True)  # decides on it
    assert inbox.concerns(team.agent, moved, pages_too=True)  # suggested it
    assert not inbox.concerns(team.reader, moved, pages_too=True)  # neither
    assert not inbox.concerns(team.stranger, moved, pages_too=True)
    assert not inbox.concerns(team.writer, moved)  # the API's stream: suggestions only


def test_a_change_to_a_page_with_nothing_waiting_wakes_no_one(team: Team) -> None:
    pages.create_page(team.writer, address="wiki:quiet", title="Quiet", body="One.\n")
    moved = _edit(team, "wiki:quiet", "One.", "1.")
    for member in (team.writer, team.agent, team.admin):
        assert not inbox.concerns(member, moved, pages_too=True)
