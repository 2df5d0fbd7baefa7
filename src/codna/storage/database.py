"""The engine, its transactions and the migrations that run on start.

SQLite: WAL, and the pysqlite driver's own transaction handling replaced, so that a writing
transaction takes the write lock at its start (`BEGIN IMMEDIATE`) and writers queue instead of
failing with "database is locked". PostgreSQL: ordinary transactions; the services lock the rows
they change with `SELECT … FOR UPDATE`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Connection, Engine

from codna.errors import Unavailable
from codna.storage import schema

DEFAULT_URL = "sqlite:///data/codna.db"
MIGRATIONS = Path(__file__).parent / "migrations"
# Any fixed number will do: it keeps two processes starting at once from migrating together.
_MIGRATION_LOCK = 0x0C0D4A
_AFTER_COMMIT = "codna_after_commit"
# Seconds a caller is told to wait before trying again when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = 2
# The read transaction open in this call, that reads inside it share (see Database.read).
_OPEN_READ: ContextVar[tuple[Database, Connection] | None] = ContextVar("open_read", default=None)


def database_url() -> str:
    """`CODNA_DATABASE_URL`, or an SQLite file in `data/` under the current directory."""
    return os.environ.get("CODNA_DATABASE_URL") or DEFAULT_URL


class Database:
    """One database: its engine, and the two kinds of transaction the services use."""

    def __init__(self, url: str, *, create: bool = True, **engine_options: Any) -> None:
        """The database at `url`. With `create=False` an SQLite file that is not there is never
        made (nor its folder): connecting to it fails instead."""
        self.url = sa.make_url(url)
        if self.url.get_backend_name() == "postgresql" and self.url.drivername == "postgresql":
            self.url = self.url.set(drivername="postgresql+psycopg")
        self.dialect = self.url.get_backend_name()
        self._writer_lock: AbstractContextManager[Any] = (
            threading.Lock() if self.dialect == "sqlite" else nullcontext()
        )
        # The pool owns every connection: pool_size and max_overflow bound what the database
        # sees. On PostgreSQL a connection is tested as it is taken, so one that a restart of
        # the server broke is replaced instead of failing the request that took it; an SQLite
        # file has no server to restart.
        engine_options.setdefault("pool_size", 10)
        engine_options.setdefault("max_overflow", 20)
        engine_options.setdefault("pool_pre_ping", self.dialect != "sqlite")
        if self.dialect == "sqlite":
            self.engine = _sqlite_engine(self.url, create=create, **engine_options)
        else:
            self.engine = sa.create_engine(self.url, **engine_options)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction: on SQLite one snapshot of the database throughout; on
        PostgreSQL (READ COMMITTED) each statement sees what was committed when it began.

        A read inside another read of the same call, with no write in between, is that same
        transaction: a request that checks who it is from and then reads pays for one
        transaction, and sees one snapshot. After a write, a read begins its own again, so
        that it sees what was written.

        What `after_commit` registered runs once the transaction has ended without an error.
        """
        shared = _OPEN_READ.get()
        if shared is not None and shared[0] is self:
            yield shared[1]
            return
        callbacks: list[Callable[[], None]] = []
        with self._reachable(), self.engine.connect() as conn, _transaction(conn, callbacks):
            opened = _OPEN_READ.set((self, conn))
            try:
                yield conn
            finally:
                _OPEN_READ.reset(opened)
        for callback in callbacks:
            callback()

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A writing transaction: committed at the end of the block, rolled back on any error.

        What `after_commit` registered runs once the commit is done, and never on a rollback.
        """
        # SQLite has one writer at a time. Writers of this process queue on a lock of ours,
        # handed over at once, rather than in SQLite's busy handler, which sleeps and polls
        # (seconds at the tail under load); other processes still wait in busy_timeout.
        _OPEN_READ.set(None)  # what this call reads from now on sees what this writes
        callbacks: list[Callable[[], None]] = []
        with self._reachable(), self._writer_lock, self.engine.connect() as conn:
            conn.execution_options(codna_write=True)
            with _transaction(conn, callbacks):
                yield conn
        for callback in callbacks:
            callback()

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """A PostgreSQL server that cannot be reached (stopped, restarting, the connection cut
        mid-transaction) is Unavailable, a refusal each interface answers cleanly; what the
        transaction did is rolled back. The pool tests each connection as it is taken, so the
        first request after the server is back gets a fresh one. An SQLite file has no server:
        its errors stay what they are."""
        try:
            yield
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as error:
            if self.is_sqlite or not _unreachable(error):
                raise
            raise Unavailable(
                "The database cannot be reached just now; try again in a moment.",
                retry_after=UNAVAILABLE_RETRY_AFTER,
            ) from error

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema up to the newest migration, or to `revision` (run on start; safe
        to run twice)."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": _MIGRATION_LOCK})
                conn.commit()
            try:
                config = Config()
                config.set_main_option("script_location", str(MIGRATIONS))
                config.attributes["connection"] = conn
                config.attributes["target_metadata"] = schema.metadata
                command.upgrade(config, revision)
                conn.commit()
            finally:
                if not self.is_sqlite:
                    conn.execute(
                        sa.text("SELECT pg_advisory_unlock(:key)"), {"key": _MIGRATION_LOCK}
                    )
                    conn.commit()

    def dispose(self) -> None:
        self.engine.dispose()


def _unreachable(error: sa.exc.DBAPIError) -> bool:
    """Whether PostgreSQL could not be talked to: the connection was lost, could not be made
    (no SQLSTATE: the client's own failure), or the server refused it as shutting down or
    starting (classes 08 and 57P). A deadlock, a serialization failure or a cancelled statement
    is the server answering, not gone, and stays the error it is."""
    if error.connection_invalidated:
        return True
    state = getattr(error.orig, "sqlstate", None)
    return state is None or state.startswith(("08", "57P"))


@contextmanager
def _transaction(conn: Connection, callbacks: list[Callable[[], None]]) -> Iterator[None]:
    """A transaction on `conn`; once it has ended well, what `after_commit` registered is
    handed to `callbacks`, to run after the connection is given back."""
    conn.info[_AFTER_COMMIT] = []
    try:
        with conn.begin():
            yield
        callbacks.extend(conn.info[_AFTER_COMMIT])
    finally:
        conn.info.pop(_AFTER_COMMIT, None)


def sqlite_file(url: sa.URL) -> Path | None:
    """The file an SQLite URL names, or None for an in-memory database."""
    name = url.database
    if not name or name == ":memory:" or name.startswith("file:"):
        return None
    return Path(name)


def _sqlite_engine(url: sa.URL, *, create: bool, **engine_options: Any) -> Engine:
    file = sqlite_file(url)
    if file is not None and create:
        file.parent.mkdir(parents=True, exist_ok=True)
    elif file is not None:
        # Opened as a URI with mode=rw, SQLite refuses a file that is not there rather than
        # making an empty one, even if it vanished after the caller looked for it.
        url = url.set(
            database=f"file:{quote(str(file.absolute()))}", query={"mode": "rw", "uri": "true"}
        )
    engine = sa.create_engine(url, **engine_options)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # No BEGIN of the driver's own: SQLAlchemy's `begin` event below emits it.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if is_writing(conn) else "BEGIN")

    return engine


def inserted_id(result: sa.CursorResult[Any]) -> int:
    """The primary key an INSERT made."""
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


def after_commit(conn: Connection, callback: Callable[[], None]) -> None:
    """Run `callback` after the transaction `conn` is in commits (a read: ends well)."""
    conn.info[_AFTER_COMMIT].append(callback)


def is_writing(conn: Connection) -> bool:
    """Whether `conn` is in a writing transaction (one that `Database.write` opened)."""
    return bool(conn.get_execution_options().get("codna_write", False))
