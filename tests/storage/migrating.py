"""Databases for the migration tests: one with no table at all, and going back a migration."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from codna.storage.database import MIGRATIONS, Database
from tests.conftest import drop_postgres, postgres_copy


@contextmanager
def empty_database(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Database]:
    """A database with no tables on `engine`; dropped afterwards."""
    if engine == "sqlite":
        db, name = Database(f"sqlite:///{tmp_path / 'empty.db'}"), None
    else:
        # An empty copy: the template is migrated already, so its schema goes first.
        db, name = postgres_copy(request.getfixturevalue("postgres_template"))
        with db.engine.connect() as conn:
            conn.execute(sa.text("DROP SCHEMA public CASCADE"))
            conn.execute(sa.text("CREATE SCHEMA public"))
            conn.commit()
    try:
        yield db
    finally:
        db.dispose()
        if name:
            drop_postgres(name)


def downgrade(db: Database, revision: str) -> None:
    """Take `db` back to `revision`, as `alembic downgrade` would."""
    with db.engine.connect() as conn:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        command.downgrade(config, revision)
        conn.commit()
