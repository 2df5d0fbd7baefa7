"""The driver connections lookups run on, kept apart from SQLAlchemy's pool.

Taking a connection from SQLAlchemy's pool and giving it back (the checkout, its events and
the reset on return) cost more than the indexed SELECT a lookup runs. A lookup only reads, so
it needs no reset: its connections are made by the pool (so set up like every other, by the
engine's `connect` event), detached from it, and kept here, taken and given back in a deque.
On PostgreSQL they stay in autocommit, so each statement is a single round trip.
"""

from __future__ import annotations

from collections import deque
from contextlib import suppress
from typing import Any

from sqlalchemy.engine import Engine


class LookupConnections:
    """Up to `keep` idle driver connections; more are made when lookups run at once, and
    closed when given back beyond `keep`."""

    def __init__(self, engine: Engine, *, keep: int = 4) -> None:
        self.engine, self.keep = engine, keep
        self._idle: deque[Any] = deque()  # append and pop are atomic: safe across threads
        self._closed = False

    def take(self) -> Any:
        """An idle connection, or a new one."""
        try:
            return self._idle.pop()
        except IndexError:
            pooled = self.engine.raw_connection()
            driver: Any = pooled.driver_connection
            pooled.detach()  # ours now: the pool forgets it and makes another when it needs one
            if self.engine.dialect.name == "postgresql":
                driver.autocommit = True
            return driver

    def give_back(self, driver: Any) -> None:
        """Keep a connection that is fine for the next lookup."""
        if self._closed or len(self._idle) >= self.keep:
            driver.close()
        else:
            self._idle.append(driver)

    def discard(self, driver: Any) -> None:
        """Close a connection that failed (the database went away, say), never to reuse it."""
        with suppress(self.engine.dialect.loaded_dbapi.Error):  # already broken, maybe
            driver.close()

    def close(self) -> None:
        self._closed = True
        while self._idle:
            self._idle.pop().close()
