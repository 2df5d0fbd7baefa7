"""A consistent copy of an SQLite database while it is in use, with SQLite's online backup API.

The copy is read in one read transaction of the source: in WAL mode that is one snapshot of the
database (every transaction committed before it began, none after), and writers go on beside
it, appending to the log, while the pages are copied a step at a time. Without the transaction
each step would take a snapshot of its own and a write in between would start the copy over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from codna.storage.database import Database

# Pages copied per step (4 MiB of 4 KiB pages): each step is short, and a progress report
# comes after each.
PAGES_PER_STEP = 1024

Progress = Callable[[int, int], None]  # (pages copied, pages in all), after each step


def copy_sqlite(
    db: Database,
    target: Path,
    *,
    pages_per_step: int = PAGES_PER_STEP,
    progress: Progress | None = None,
) -> int:
    """Copy the SQLite database `db` into the file `target` (new or empty), as it was when
    the copy began, while others write; the number of database pages copied.

    The copy is whole on its own: one file, no log beside it, in the same journal mode as its
    source (WAL), so it opens as any workspace does.
    """
    if not db.is_sqlite:
        raise ValueError("copy_sqlite copies an SQLite database")  # the service refuses first
    raw = db.engine.raw_connection()
    try:
        source = raw.driver_connection
        assert isinstance(source, sqlite3.Connection)
        # The driver leaves transactions to us (isolation_level None): this read transaction
        # is the snapshot the copy takes; the backup's steps reuse it instead of their own.
        source.execute("BEGIN")
        try:
            source.execute("SELECT count(*) FROM sqlite_schema").fetchone()
            total = 0

            def report(_status: int, remaining: int, pages: int) -> None:
                nonlocal total
                total = pages
                if progress is not None:
                    progress(pages - remaining, pages)

            with closing(sqlite3.connect(target, isolation_level=None)) as copy:
                source.backup(copy, pages=pages_per_step, progress=report)
            return total
        finally:
            source.execute("ROLLBACK")
    finally:
        raw.close()
