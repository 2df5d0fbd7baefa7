"""The engine, its transactions and the migrations that run on start.

SQLite: WAL, and the pysqlite driver's own transaction handling replaced, so that a writing
transaction takes the write lock at its start (`BEGIN IMMEDIATE`) and writers queue instead of
failing with "database is locked". PostgreSQL: ordinary transactions; the services lock the rows
they change with `SELECT … FOR UPDATE`.

A call (a request: its token or session checked, then its service) holds at most one pooled
connection at any time, whatever reads and writes it makes: see Database.scope.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine, RootTransaction

from codna.errors import TooLarge, Unavailable
from codna.settings import Settings
from codna.storage import derived, schema

DEFAULT_URL = "sqlite:///data/codna.db"
MIGRATIONS = Path(__file__).parent / "migrations"
# Any fixed number will do: it keeps two processes starting at once from migrating together.
_MIGRATION_LOCK = 0x0C0D4A
_AFTER_COMMIT = "codna_after_commit"
# Seconds a caller is told to wait before trying again when the database cannot be reached.
UNAVAILABLE_RETRY_AFTER = 2
# What this call holds of a database: its read transaction or its write (see Database.scope).
_SCOPE: ContextVar[_Scope | None] = ContextVar("codna_scope", default=None)


def database_url() -> str:
    """`CODNA_DATABASE_URL`, or an SQLite file in `data/` under the current directory."""
    return os.environ.get("CODNA_DATABASE_URL") or DEFAULT_URL


class Database:
    """One database: its engine, and the two kinds of transaction the services use."""

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        statement_timeout: float | None = None,
        **engine_options: Any,
    ) -> None:
        """The database at `url`. With `create=False` an SQLite file that is not there is never
        made (nor its folder): connecting to it fails instead. On PostgreSQL each statement
        may run `statement_timeout` seconds (default: the CODNA_STATEMENT_TIMEOUT setting; 0
        for no bound) before the server cancels it."""
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
        if statement_timeout is None:
            statement_timeout = Settings().statement_timeout
        self.statement_timeout = statement_timeout
        if self.dialect == "sqlite":
            self.engine = _sqlite_engine(self.url, create=create, **engine_options)
        else:
            # Set as the connection starts, so they hold in every transaction on it. The driver
            # prepares a statement it runs often, and PostgreSQL would then plan it once for
            # any values: blind to them, the plan of the inbox's count looks for a routine's
            # run for every waiting suggestion, where the values show it need not. Each run
            # is planned for its own values instead (bench/suggestions.py's inbox).
            connect_args = dict(engine_options.pop("connect_args", {}))
            milliseconds = max(0, round(statement_timeout * 1000))
            connect_args["options"] = (
                f"{connect_args.get('options', '')} -c statement_timeout={milliseconds}"
                " -c plan_cache_mode=force_custom_plan"
            ).strip()
            self.engine = sa.create_engine(self.url, connect_args=connect_args, **engine_options)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @contextmanager
    def scope(self) -> Iterator[None]:
        """One call's use of the database (a request's: its token or session checked, then
        its service), holding at most one pooled connection at any time.

        Its reads share one read transaction, begun by the first of them and kept once it
        ends, so that a request that checks who it is from and then reads pays for one
        transaction and sees one snapshot. A write ends that transaction first, giving its
        connection back, and takes its own; a read after the write begins its own again, so
        that it sees what was written. The read transaction open at the end of the scope ends
        with it. A read or a write outside any scope is a scope of its own.
        """
        current = _SCOPE.get()
        if current is not None and current.db is self:
            yield
            return
        mine = _Scope(self)
        entered = _SCOPE.set(mine)
        try:
            yield
        except BaseException:
            mine.end_read(ok=False)
            raise
        finally:
            _SCOPE.reset(entered)
        with self._reachable():
            callbacks = mine.end_read(ok=True)
        for callback in callbacks:
            callback()

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction: on SQLite one snapshot of the database throughout; on
        PostgreSQL (READ COMMITTED) each statement sees what was committed when it began.

        A read inside the same scope (see `scope`), with no write in between, is the same
        transaction; a read inside a write is that write's transaction, and sees what it wrote.

        What `after_commit` registered runs once the transaction has ended without an error.
        """
        current = _SCOPE.get()
        if current is None or current.db is not self:
            with self.scope(), self.read() as conn:
                yield conn
            return
        if current.writing is not None:
            yield current.writing
            return
        with self._reachable():
            conn = current.begin_read()
            current.reading += 1
            try:
                yield conn
            except BaseException:
                current.reading -= 1
                if not current.reading:  # the read that began it failed: nothing is kept
                    current.end_read(ok=False)
                raise
            current.reading -= 1

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A writing transaction: committed at the end of the block, rolled back on any error.
        The scope's read transaction, if one is open, ends first and gives its connection back:
        a call never holds two connections. A write inside an open read block is refused
        (RuntimeError): the read would hold its connection while the write took another.

        What `after_commit` registered runs once the commit is done, and never on a rollback.
        """
        current = _SCOPE.get()
        if current is None or current.db is not self:
            with self.scope(), self.write() as conn:
                yield conn
            return
        if current.writing is not None or current.reading:
            raise RuntimeError("A write began inside an open read or write of the same call.")
        with self._reachable():
            ended = current.end_read(ok=True)
        for callback in ended:
            callback()
        # SQLite has one writer at a time. Writers of this process queue on a lock of ours,
        # handed over at once, rather than in SQLite's busy handler, which sleeps and polls
        # (seconds at the tail under load); other processes still wait in busy_timeout.
        callbacks: list[Callable[[], None]] = []
        with self._reachable(), self._writer_lock, self.engine.connect() as conn:
            conn.execution_options(codna_write=True)
            with _transaction(conn, callbacks):
                current.writing = conn
                try:
                    yield conn
                finally:
                    current.writing = None
        for callback in callbacks:
            callback()

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """A PostgreSQL server that cannot be reached (stopped, restarting, the connection cut
        mid-transaction) is Unavailable, a refusal each interface answers cleanly; what the
        transaction did is rolled back. The pool tests each connection as it is taken, so the
        first request after the server is back gets a fresh one. An SQLite file has no server:
        its errors stay what they are.

        A statement PostgreSQL cancelled because it ran past the statement timeout is TooLarge:
        the call asked for more work than one call may do.
        """
        try:
            yield
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as error:
            if not self.is_sqlite and _cancelled(error):
                raise TooLarge(
                    "The database stopped this call after "
                    f"{self.statement_timeout:g} s, the most one statement may run; "
                    "ask for less, such as fewer or rarer search words or a smaller limit.",
                    limit=self.statement_timeout,
                ) from error
            if self.is_sqlite or not _unreachable(error):
                raise
            raise Unavailable(
                "The database cannot be reached just now; try again in a moment.",
                retry_after=UNAVAILABLE_RETRY_AFTER,
            ) from error

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema up to the newest migration, or to `revision` (run on start; safe
        to run twice). At the newest, what the migrations marked stale of the data derived
        from other data (the search index, the hashes of suggestions) is then made again by
        the running code, a batch at a time (storage/derived.py); with nothing stale, that is
        one statement."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                # A migration may rewrite every row: the statement timeout is for calls.
                conn.execute(sa.text("SET statement_timeout = 0"))
                conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": _MIGRATION_LOCK})
                conn.commit()
            try:
                config = Config()
                config.set_main_option("script_location", str(MIGRATIONS))
                config.attributes["connection"] = conn
                config.attributes["target_metadata"] = schema.metadata
                command.upgrade(config, revision)
                conn.commit()
                if revision in ("head", ScriptDirectory.from_config(config).get_current_head()):
                    # Each batch takes SQLite's write lock at its start (see _on_begin).
                    conn.execution_options(codna_write=True)
                    derived.bring_up_to_date(conn)
            finally:
                if not self.is_sqlite:
                    conn.execute(
                        sa.text("SELECT pg_advisory_unlock(:key)"), {"key": _MIGRATION_LOCK}
                    )
                    conn.execute(sa.text("RESET statement_timeout"))
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


def _cancelled(error: sa.exc.DBAPIError) -> bool:
    """Whether PostgreSQL cancelled the statement for running past its statement timeout
    (query_canceled, 57014); not a lost connection, and not unavailable."""
    state = getattr(error.orig, "sqlstate", None)
    return state == "57014" and "statement timeout" in str(error.orig)


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


class _Scope:
    """What one call holds of one database (see Database.scope): its read transaction while
    one is open, with how many read blocks use it now, or the connection of its write."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.reading = 0
        self.writing: Connection | None = None
        # The read transaction's connection, the transaction, and what after_commit registered.
        self._read: tuple[Connection, RootTransaction, list[Callable[[], None]]] | None = None

    def begin_read(self) -> Connection:
        """The connection of the read transaction open, begun now if none is."""
        if self._read is None:
            conn = self.db.engine.connect()
            try:
                callbacks: list[Callable[[], None]] = []
                conn.info[_AFTER_COMMIT] = callbacks
                self._read = (conn, conn.begin(), callbacks)
            except BaseException:
                conn.close()
                raise
        return self._read[0]

    def end_read(self, *, ok: bool) -> list[Callable[[], None]]:
        """End the read transaction open, if one is, and give its connection back; what
        `after_commit` registered in it, to run now (nothing unless it ended well)."""
        if self._read is None:
            return []
        conn, transaction, callbacks = self._read
        self._read = None
        try:
            if ok:
                transaction.commit()
            else:
                # The error that ended it is the one to tell, not a rollback's on a broken
                # connection (which closing then discards).
                with suppress(sa.exc.DBAPIError):
                    transaction.rollback()
        finally:
            if not conn.invalidated:  # a broken connection is discarded, its info with it
                conn.info.pop(_AFTER_COMMIT, None)
            conn.close()
        return callbacks if ok else []


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
