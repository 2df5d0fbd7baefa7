"""Counting the SQL statements a block runs: the work a call does, pinned by the tests.

`count_statements(db)` is the context manager; the `statements` fixture gives it bound to the
test's database. Other test folders import the fixture into their conftest.py:

    from tests.statements import statements  # noqa: F401
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from typing import Any

import pytest
import sqlalchemy as sa

from codna.storage.database import Database

# Transaction control, which the count leaves out: it says how a transaction is opened and
# ended (SQLite's BEGIN is a statement of ours, PostgreSQL's is the driver's), not what work
# the transaction does.
_TRANSACTION_CONTROL = re.compile(
    r"\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|END)\b", re.IGNORECASE
)


class Statements:
    """The statements a block ran, in order; `len()` is their count, `str()` lists them."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        with self._lock:
            self.texts.append(text)

    def __len__(self) -> int:
        return len(self.texts)

    def __str__(self) -> str:
        lines = [f"{len(self.texts)} statements:"]
        lines += [f"  {n}. {' '.join(text.split())}" for n, text in enumerate(self.texts, 1)]
        return "\n".join(lines)

    __repr__ = __str__


@contextmanager
def count_statements(db: Database) -> Iterator[Statements]:
    """Count the SQL statements run on `db`'s engine while the block runs, from any thread.

    Each statement sent to the driver counts once (an `executemany` too, however many rows
    it carries). Left out: transaction control (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, RELEASE)
    and the pool's pre-ping, which the driver runs without SQLAlchemy's statement events.
    """
    ran = Statements()

    def before_cursor_execute(
        _conn: sa.Connection,
        _cursor: Any,
        statement: str,
        _parameters: Any,
        _context: Any,
        _executemany: bool,
    ) -> None:
        if not _TRANSACTION_CONTROL.match(statement):
            ran.add(statement)

    sa.event.listen(db.engine, "before_cursor_execute", before_cursor_execute)
    try:
        yield ran
    finally:
        sa.event.remove(db.engine, "before_cursor_execute", before_cursor_execute)


StatementCounter = Callable[[], AbstractContextManager[Statements]]


@pytest.fixture
def statements(db: Database) -> StatementCounter:
    """`with statements() as ran: …` counts what the block runs on the test's database;
    `assert len(ran) <= 3, ran` shows the statements when it fails."""
    return partial(count_statements, db)
