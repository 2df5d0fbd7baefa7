"""Which database the services work on: opened once per process (or per test)."""

from __future__ import annotations

from codna.storage.database import Database, database_url

_current: Database | None = None


def open_database(url: str | None = None, *, migrate: bool = True) -> Database:
    """Open the database at `url` (default `CODNA_DATABASE_URL`), migrate it, and use it."""
    global _current
    db = Database(url or database_url())
    if migrate:
        db.migrate()
    _current = db
    return db


def use_database(db: Database | None) -> None:
    """Make `db` the database the services work on (tests switch between databases)."""
    global _current
    _current = db


def database() -> Database:
    """The database in use; opens the configured one on first use."""
    if _current is None:
        return open_database()
    return _current
