"""The migrations build exactly the tables of schema.py, on SQLite and on PostgreSQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from codna.storage import schema
from codna.storage.database import Database

SEARCH_TABLES = {"page_search"}


def _not_search(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    if type_ == "table" and (name in SEARCH_TABLES or (name or "").startswith("page_search_")):
        return False
    return not (type_ == "index" and name == "ix_pages_search")


def test_the_migrated_database_matches_the_schema(db: Database) -> None:
    with db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": _not_search}
        )
        assert compare_metadata(context, schema.metadata) == []


def test_migrating_twice_changes_nothing(db: Database) -> None:
    db.migrate()
    with db.read() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0004"


def test_sqlite_takes_the_write_lock_at_the_start_of_a_writing_transaction(tmp_path: Path) -> None:
    path = tmp_path / "lock.db"
    db = Database(f"sqlite:///{path}")
    db.migrate()
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    with db.write() as conn:
        conn.execute(sa.text("SELECT 1"))  # a read only, yet the write lock is held already
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN IMMEDIATE")  # and released at the end
    other.execute("ROLLBACK")
    other.close()
    db.dispose()
