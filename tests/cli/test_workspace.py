"""The command line never makes a database by reading: only `codna init` (and `codna demo`)
make a workspace, and a command where there is none says where it looked."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import sqlalchemy as sa

from codna.services import context
from tests.cli.conftest import invoke
from tests.conftest import ENGINES, POSTGRES_URL, drop_postgres

READING = [
    ["page", "list"],
    ["member", "list"],
    ["token", "list"],
    ["search", "anything"],
    ["export", "exported"],
    ["mcp", "--as", "ada@example.com"],
    ["serve"],
]


@dataclass(frozen=True)
class Nowhere:
    """A configured database that holds no workspace: an SQLite file that is not there, or a
    PostgreSQL database without CoDNA's tables. `shown` is how a message names it."""

    engine: str
    url: str
    shown: str
    file: Path | None

    def is_untouched(self) -> bool:
        if self.file is not None:
            return not self.file.parent.parent.exists()
        engine = sa.create_engine(self.url, poolclass=sa.NullPool)
        try:
            with engine.connect() as conn:
                return sa.inspect(conn).get_table_names() == []
        finally:
            engine.dispose()


@pytest.fixture
def no_database_in_use() -> Iterator[None]:
    """No database open in the services: each command opens the configured one itself."""
    context.use_database(None)
    try:
        yield
    finally:
        context.close_database()


@pytest.fixture(params=ENGINES)
def nowhere(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_database_in_use: None,
) -> Iterator[Nowhere]:
    monkeypatch.chdir(tmp_path)
    if request.param == "sqlite":
        file = tmp_path / "not" / "made" / "codna.db"
        monkeypatch.setenv("CODNA_DATABASE_URL", f"sqlite:///{file}")
        yield Nowhere("sqlite", f"sqlite:///{file}", str(file), file)
        return
    if os.environ.get("CODNA_TEST_POSTGRES") == "skip" and not os.environ.get("CI"):
        pytest.skip("PostgreSQL skipped by CODNA_TEST_POSTGRES=skip")
    name = f"codna_empty_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    url = sa.make_url(POSTGRES_URL).set(database=name)
    if url.password is None:  # the test server trusts its clients: any password will do
        url = url.set(password="never-shown")
    monkeypatch.setenv("CODNA_DATABASE_URL", url.render_as_string(hide_password=False))
    try:
        yield Nowhere(
            "postgresql",
            url.render_as_string(hide_password=False),
            url.render_as_string(hide_password=True),
            None,
        )
    finally:
        context.close_database()
        drop_postgres(name)


@pytest.mark.parametrize("command", READING, ids=lambda c: " ".join(c[:2]))
def test_a_command_where_there_is_no_workspace_says_where_it_looked_and_makes_nothing(
    nowhere: Nowhere, command: list[str]
) -> None:
    refused = invoke(command, ok=False)
    assert refused.stderr.startswith(f"not_found: There is no workspace at {nowhere.shown}: ")
    assert "Set CODNA_DATABASE_URL to your workspace's database" in refused.stderr
    assert "CODNA_DATABASE_URL is not set" not in refused.stderr
    assert nowhere.is_untouched()
    assert not Path("exported").exists()


def test_init_makes_the_workspace_and_says_where_without_its_password(nowhere: Nowhere) -> None:
    made = invoke(["init", "--admin-email", "ada@example.com", "--admin-password", "correct horse"])
    assert made.stdout == (
        f"Made the workspace at {nowhere.shown}; ada@example.com is its admin.\n"
    )
    password = sa.make_url(nowhere.url).password
    assert password is None or str(password) not in made.output
    context.close_database()  # the next command opens the workspace afresh, as a new process
    listed = json.loads(invoke(["member", "list", "--json"]).stdout)
    assert [m["member"]["email"] for m in listed] == ["ada@example.com"]


def test_without_codna_database_url_the_default_file_is_named_and_not_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_database_in_use: None
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CODNA_DATABASE_URL", raising=False)
    refused = invoke(["page", "list"], ok=False)
    assert refused.stderr.startswith(
        f"not_found: There is no workspace at {tmp_path / 'data' / 'codna.db'}: no such file. "
        "CODNA_DATABASE_URL is not set, so that is the default"
    )
    assert list(tmp_path.iterdir()) == []
    invoke(["init", "--admin-email", "ada@example.com", "--admin-password", "correct horse"])
    assert (tmp_path / "data" / "codna.db").is_file()


def test_a_file_that_is_no_workspace_is_named_and_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_database_in_use: None
) -> None:
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("Just some notes, not a database at all.\n" * 200)
    monkeypatch.setenv("CODNA_DATABASE_URL", f"sqlite:///{not_sqlite}")
    refused = invoke(["page", "list"], ok=False)
    assert refused.stderr.startswith(f"not_found: There is no workspace at {not_sqlite}: ")
    assert not_sqlite.read_text() == "Just some notes, not a database at all.\n" * 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
