"""Which database the services work on: opened once per process (or per test)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from codna.errors import NotFound
from codna.storage.database import Database, database_url, sqlite_file

_current: Database | None = None


@dataclass(frozen=True)
class Location:
    """Where a database is: its engine (`sqlite` or `postgresql`), its URL with any password
    hidden, and for SQLite its file."""

    engine: str
    url: str
    file: Path | None

    def __str__(self) -> str:
        return str(self.file) if self.file else self.url


def location(url: str | None = None) -> Location:
    """Where the database at `url` is; without `url`, the one in use, or else the configured
    one (`CODNA_DATABASE_URL`). Opens nothing."""
    if url is None and _current is not None:
        parsed = _current.url
    else:
        parsed = sa.make_url(url or database_url())
    engine = parsed.get_backend_name()
    file = sqlite_file(parsed) if engine == "sqlite" else None
    return Location(engine, parsed.render_as_string(hide_password=True), file and file.absolute())


def open_database(url: str | None = None, *, migrate: bool = True) -> Database:
    """Open the database at `url` (default `CODNA_DATABASE_URL`), migrate it, and use it; an
    SQLite file that is not there yet is made."""
    global _current
    db = Database(url or database_url())
    if migrate:
        db.migrate()
    _current = db
    return db


def open_workspace() -> Database:
    """The database in use, or else the configured one (`CODNA_DATABASE_URL`) opened, migrated
    and used, if it holds a workspace. Nothing is made on the way: an SQLite file that is not
    there stays so, and a database without CoDNA's tables gets none.

    Raises NotFound (database: where it looked, password hidden) when there is no workspace.
    """
    global _current
    if _current is not None:
        return _current
    url = database_url()
    where = location(url)
    if where.file is not None and not where.file.is_file():
        raise NotFound(f"There is no workspace at {where}: no such file.", database=where.url)
    db = Database(url, create=False)
    try:
        with db.engine.connect() as conn:
            made = sa.inspect(conn).has_table("alembic_version")
    except sa.exc.DatabaseError as error:
        db.dispose()
        reason = str(error.orig).strip().splitlines()[0] if error.orig else "it cannot be opened"
        raise NotFound(
            f"There is no workspace at {where}: {reason.rstrip('.')}.", database=where.url
        ) from None
    if not made:
        db.dispose()
        raise NotFound(
            f"There is no workspace at {where}: the database holds no CoDNA tables.",
            database=where.url,
        )
    db.migrate()
    _current = db
    return db


def use_database(db: Database | None) -> None:
    """Make `db` the database the services work on (tests switch between databases)."""
    global _current
    _current = db


def close_database() -> None:
    """Close the database in use, if one is open, and use none."""
    global _current
    if _current is not None:
        _current.dispose()
    _current = None


def database() -> Database:
    """The database in use; opens the configured one on first use."""
    if _current is None:
        return open_database()
    return _current
