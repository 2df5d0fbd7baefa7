"""An event is never dropped silently: a subscriber that falls behind, and every subscriber
after the PostgreSQL listener lost its connection, gets events.RESYNC (fetch again)."""

from __future__ import annotations

import asyncio

import anyio
import pytest
import sqlalchemy as sa

from codna.services.events import events
from codna.services.events.events import RESYNC, Event
from codna.storage.database import Database
from tests.services.conftest import Team

pytestmark = pytest.mark.anyio


async def test_a_subscriber_that_falls_behind_is_told_to_fetch_again() -> None:
    with events.bus.subscribe() as queue:
        for n in range(events.QUEUE_SIZE + 5):  # nobody reads meanwhile
            events.bus.publish(Event("suggestions", n + 1, "insert"))
        await anyio.sleep(0.1)  # the loop runs what publish scheduled
        held = [queue.get_nowait() for _ in range(queue.qsize())]
    # The event that found the queue full, and all it held, gave way to RESYNC: the
    # subscriber knows to fetch again, and what came after follows it.
    size = events.QUEUE_SIZE
    newer = [Event("suggestions", n, "insert") for n in range(size + 2, size + 6)]
    assert held == [RESYNC, *newer]


async def test_a_listener_that_reconnects_tells_everyone_to_fetch_again(
    team: Team, db: Database
) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's listener: SQLite publishes in process and loses nothing")
    relay = asyncio.create_task(events.relay_database_events())
    try:
        with events.bus.subscribe() as queue:
            await anyio.to_thread.run_sync(events.bus.listening.wait, 10)

            def cut_the_listener() -> int:
                with db.engine.connect() as conn:
                    cut = conn.execute(
                        sa.text(
                            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()"
                        )
                    ).scalar_one()
                    conn.commit()
                    return int(cut)

            assert await anyio.to_thread.run_sync(cut_the_listener) >= 1
            with anyio.fail_after(20):  # the listener waits half a second, then reconnects
                while (event := await queue.get()) != RESYNC:
                    pass
            assert event == RESYNC
    finally:
        relay.cancel()
        with pytest.raises(asyncio.CancelledError):
            await relay
