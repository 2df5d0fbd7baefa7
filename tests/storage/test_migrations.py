"""The migrations build exactly the tables of schema.py, on SQLite and on PostgreSQL, and the
ones that add a feature only add."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from codna.storage import schema
from codna.storage.database import MIGRATIONS, Database
from tests.storage.migrating import empty_database

SEARCH_TABLES = {"page_search"}
HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()
# Every revision, oldest first.
REVISIONS = [s.revision for s in reversed(list(ScriptDirectory(str(MIGRATIONS)).walk_revisions()))]


def _not_search(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """Leave out what each engine adds to page_sections for its own full-text index."""
    if type_ == "table" and (name in SEARCH_TABLES or (name or "").startswith("page_search_")):
        return False
    if type_ == "column" and name == "search" and obj.table.name == "page_sections":
        return False  # PostgreSQL's generated tsvector
    return not (type_ == "index" and name == "ix_page_sections_search")


def test_the_migrated_database_matches_the_schema(db: Database) -> None:
    with db.engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": _not_search}
        )
        assert compare_metadata(context, schema.metadata) == []


def test_migrating_twice_changes_nothing(db: Database) -> None:
    db.migrate()
    with db.read() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == HEAD


def _shape(db: Database) -> dict[str, dict[str, str]]:
    inspector = sa.inspect(db.engine)
    return {
        table: {
            c["name"]: f"{c['type']} null={c['nullable']}" for c in inspector.get_columns(table)
        }
        for table in inspector.get_table_names()
        if table != "alembic_version" and not table.startswith("page_search")
    }


# The migrations that add a feature, what each adds, and the columns it adds to older tables.
ADDING = [
    ("0003", "0004", {"edit_suggestions"}, {"notifications": {"edit_suggestion_id"}}),
    ("0004", "0005", {"suggestion_checks"}, {}),
    ("0005", "0006", {"web_sessions", "sign_in_failures"}, {}),
]


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("start", "end", "tables", "columns"), ADDING)
def test_the_migrations_of_suggested_changes_only_add(
    engine: str,
    start: str,
    end: str,
    tables: set[str],
    columns: dict[str, set[str]],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    with empty_database(engine, tmp_path, request) as db:
        db.migrate(start)
        before = _shape(db)
        db.migrate(end)
        after = _shape(db)
        assert set(after) - set(before) == tables
        for table, kept_columns in before.items():
            kept = {column: after[table][column] for column in kept_columns}
            assert kept == kept_columns, table  # every table and column as it was
        added = {t: set(c) - set(before[t]) for t, c in after.items() if t in before}
        assert {t: c for t, c in added.items() if c} == columns


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_each_migration_runs_from_the_one_before_it_from_an_empty_database(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """One revision at a time, as a workspace that upgrades with every release does."""
    with empty_database(engine, tmp_path, request) as db:
        for revision in REVISIONS:
            db.migrate(revision)
            with db.engine.connect() as conn:
                assert MigrationContext.configure(conn).get_current_revision() == revision
        assert revision == HEAD


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
