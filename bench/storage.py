"""What the benches of saves share: the bytes a database holds, and the time a save spends in
the search index.

The bytes are measured after a checkpoint: on SQLite `PRAGMA wal_checkpoint(TRUNCATE)` moves
the log into the file, which is then measured whole (every table, the search index, the
outbox) and the revisions table alone (with its indexes, from `dbstat`); on PostgreSQL
`pg_total_relation_size` of revisions (its TOAST and indexes) and of the whole database.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from codna.services.pages import search_index
from codna.storage.database import Database, sqlite_file


@dataclass(frozen=True)
class Size:
    """What a database holds: all of it, and its revisions (table, TOAST, indexes)."""

    total: int
    revisions: int

    def __add__(self, other: Size) -> Size:
        return Size(self.total + other.total, self.revisions + other.revisions)

    def __sub__(self, other: Size) -> Size:
        return Size(self.total - other.total, self.revisions - other.revisions)


def size(db: Database) -> Size:
    with db.engine.connect() as conn:
        if db.is_sqlite:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            revisions = conn.exec_driver_sql(
                "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema "
                "WHERE tbl_name = 'revisions')"
            ).scalar_one()
            conn.rollback()
            file = sqlite_file(db.url)
            assert file is not None
            return Size(Path(file).stat().st_size, int(revisions))
        found = conn.execute(
            sa.text(
                "SELECT pg_database_size(current_database()), pg_total_relation_size('revisions')"
            )
        ).one()
        conn.rollback()
        return Size(int(found[0]), int(found[1]))


class IndexTime:
    """The time saves spend in `search_index.index_page` (the search index's part of a save),
    summed while `measuring` is open."""

    def __init__(self) -> None:
        self.seconds = 0.0

    @contextmanager
    def measuring(self) -> Iterator[IndexTime]:
        real = search_index.index_page

        def timed(*args: Any, **kwargs: Any) -> None:
            started = time.perf_counter()
            try:
                real(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        search_index.index_page = timed  # type: ignore[assignment]
        try:
            yield self
        finally:
            search_index.index_page = real  # type: ignore[assignment]

    def take_ms(self) -> float:
        """The milliseconds summed since the last take."""
        taken, self.seconds = self.seconds, 0.0
        return taken * 1000
