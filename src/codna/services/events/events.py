"""Live updates: a change to a suggestion or a notification, published to whoever listens.

Every process has one bus. On SQLite (one process) the services publish after commit; on
PostgreSQL a trigger sends each change with `pg_notify` and every process's listener publishes
it, so several processes behind a load balancer all see every change.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection

from codna.services.context import database
from codna.storage import notify
from codna.storage.database import after_commit

QUEUE_SIZE = 1000


@dataclass(frozen=True)
class Event:
    """A row of `table` was made (`insert`) or changed (`update`)."""

    table: str
    id: int
    op: str


# Events may have been missed (a subscriber fell behind, or the database's notifications were
# lost while its listener reconnected): whoever listens must fetch what it shows again.
RESYNC = Event("resync", 0, "resync")


class Bus:
    """Fans events out to the subscribers of this process; safe to publish from any thread."""

    def __init__(self) -> None:
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Event]]] = set()
        self._lock = threading.Lock()
        self.listening = threading.Event()  # set once events from the database can arrive

    def publish(self, event: Event) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for loop, queue in subscribers:
            loop.call_soon_threadsafe(_offer, queue, event)

    @contextmanager
    def subscribe(self) -> Iterator[asyncio.Queue[Event]]:
        """A queue of every event from now on, for the running event loop's task."""
        entry = (asyncio.get_running_loop(), asyncio.Queue[Event](QUEUE_SIZE))
        with self._lock:
            self._subscribers.add(entry)
        try:
            yield entry[1]
        finally:
            with self._lock:
                self._subscribers.discard(entry)


def _offer(queue: asyncio.Queue[Event], event: Event) -> None:
    """Queue the event; a subscriber that fell behind never blocks the others, and is told to
    fetch again instead of missing events unawares."""
    if queue.full():
        while not queue.empty():
            queue.get_nowait()
        event = RESYNC
    queue.put_nowait(event)


bus = Bus()


def emit(conn: Connection, *, table: str, row_id: int, op: str) -> None:
    """Announce a change made in the writing transaction `conn`, once it commits."""
    if conn.dialect.name == "sqlite":
        after_commit(conn, lambda: bus.publish(Event(table, row_id, op)))
    # On PostgreSQL the trigger on the table sends it at commit.


async def relay_database_events() -> None:
    """Publish the database's notifications on this process's bus (PostgreSQL; on SQLite
    the services publish directly). Runs until cancelled."""
    db = database()
    if db.is_sqlite:
        bus.listening.set()
        return
    bus.listening.clear()  # until this process's listener is in place

    def handle(payload: dict[str, Any]) -> None:
        bus.publish(Event(str(payload["table"]), int(payload["id"]), str(payload["op"])))

    def ready() -> None:
        if bus.listening.is_set():  # listening again: what was sent meanwhile is lost
            bus.publish(RESYNC)
        bus.listening.set()

    await notify.listen(db.url, handle, ready=ready)
