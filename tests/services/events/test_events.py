"""Live events: published once a change commits (never on a rollback); on PostgreSQL through
the trigger and the listener, on SQLite through the in-process bus."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from codna.errors import InvalidEdit
from codna.markdown.edits import parse_edits
from codna.services.events import events
from codna.services.events.events import Event
from codna.services.pages import pages
from codna.services.suggestions import changes
from tests.services.conftest import Team

PAGE = "wiki:evented"


async def _next(queue: asyncio.Queue[Event], within: float) -> Event | None:
    with anyio.move_on_after(within):
        return await queue.get()
    return None


def test_a_suggestion_and_its_decision_are_announced_after_commit(team: Team) -> None:
    pages.create_page(team.writer, address=PAGE, title="Evented", body="Some text.\n")

    async def scenario() -> list[Event]:
        relay = asyncio.create_task(events.relay_database_events())
        try:
            with events.bus.subscribe() as queue:
                await anyio.to_thread.run_sync(events.bus.listening.wait, 10)
                with pytest.raises(InvalidEdit):  # refused: nothing is announced
                    await anyio.to_thread.run_sync(
                        lambda: changes.suggest_edit(
                            team.agent,
                            address=PAGE,
                            reason="r",
                            edits=parse_edits([{"op": "replace", "old": "absent", "new": "x"}]),
                        )
                    )
                made = await anyio.to_thread.run_sync(
                    lambda: changes.suggest_edit(
                        team.agent,
                        address=PAGE,
                        reason="r",
                        edits=parse_edits([{"op": "replace", "old": "Some", "new": "More"}]),
                    )
                )
                assert made.suggestion is not None
                suggestion_id = made.suggestion.id
                await anyio.to_thread.run_sync(
                    lambda: changes.decide_edit_suggestion(
                        team.writer, suggestion_id=suggestion_id, decision="reject"
                    )
                )
                seen = []
                while (event := await _next(queue, 3)) is not None:
                    seen.append(event)
                    if len(seen) == 3:
                        break
                return seen
        finally:
            relay.cancel()

    seen = asyncio.run(scenario())
    tables = [(e.table, e.op) for e in seen]
    assert tables[0] == ("edit_suggestions", "insert")
    assert sorted(tables[1:]) == [("edit_suggestions", "update"), ("notifications", "insert")]
