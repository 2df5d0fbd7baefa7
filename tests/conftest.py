"""Fixtures: every storage test runs on a fresh SQLite file and a fresh PostgreSQL database.

PostgreSQL is migrated once per test run into a template; each test gets a copy of it
(`CREATE DATABASE … TEMPLATE`). A missing PostgreSQL fails the run; set
CODNA_TEST_POSTGRES=skip to run on SQLite alone (never in CI).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from codna.services.context import use_database
from codna.storage.database import Database

POSTGRES_URL = os.environ.get(
    "CODNA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
ENGINES = ["sqlite", "postgresql"]


def _admin_engine() -> sa.Engine:
    return sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """A migrated PostgreSQL database to copy per test; its name."""
    if os.environ.get("CODNA_TEST_POSTGRES") == "skip" and not os.environ.get("CI"):
        pytest.skip("PostgreSQL skipped by CODNA_TEST_POSTGRES=skip")
    name = f"codna_tpl_{uuid.uuid4().hex[:10]}"
    admin = _admin_engine()
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as error:
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_URL}: {error}")
    db = Database(sa.make_url(POSTGRES_URL).set(database=name).render_as_string(False))
    db.migrate()
    db.dispose()
    yield name
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def postgres_copy(template: str) -> tuple[Database, str]:
    name = f"codna_t_{uuid.uuid4().hex[:12]}"
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    url = sa.make_url(POSTGRES_URL).set(database=name).render_as_string(False)
    return Database(url), name


def drop_postgres(name: str) -> None:
    admin = _admin_engine()
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=ENGINES)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """A fresh, migrated database the services use for this test: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "codna.db"
        database = Database(f"sqlite:///{path}")
        database.migrate()
        name = None
    else:
        template = request.getfixturevalue("postgres_template")
        database, name = postgres_copy(template)
    use_database(database)
    try:
        yield database
    finally:
        use_database(None)
        database.dispose()
        if name:
            drop_postgres(name)
