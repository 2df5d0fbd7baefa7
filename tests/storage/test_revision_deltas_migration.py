"""Migration 0012, on SQLite and PostgreSQL: revisions saved whole are converted to deltas in
batches, each checked against its hash before its full copy goes; stopped halfway, it is run
again and converts the rest; taken back, every version is whole again. What it writes, with
the code frozen in it, the running code reads (markdown/delta.py). And 0013: texts compressed
with lz4 on PostgreSQL."""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.script import ScriptDirectory

from codna.markdown import delta
from codna.markdown.edits import parse_edits
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import reverts
from codna.storage.database import MIGRATIONS, Database
from codna.storage.schema import revisions as revisions_table
from tests.services.conftest import Team
from tests.storage.migrating import downgrade

ADDRESSES = ("wiki:m/one", "wiki:m/two", "wiki:m/big")
HEAD = ScriptDirectory(str(MIGRATIONS)).get_current_head()


def load_migration() -> ModuleType:
    path = MIGRATIONS / "versions" / "0012_revisions_as_deltas.py"
    spec = importlib.util.spec_from_file_location("revisions_as_deltas", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def at_version(db: Database) -> str:
    with db.read() as conn:
        found: str = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar_one()
        return found


def columns(db: Database) -> set[str]:
    return {c["name"] for c in sa.inspect(db.engine).get_columns("revisions")}


def rows(db: Database) -> list[Any]:
    with db.read() as conn:
        return list(
            conn.execute(
                sa.text(
                    "SELECT * FROM revisions ORDER BY page_id, version"  # whatever columns
                )
            ).mappings()
        )


def saved_versions(team: Team) -> dict[tuple[str, int], str]:
    """Pages with versions made every way there is, through the services; each version's
    text as it was saved."""
    saved: dict[tuple[str, int], str] = {}
    big = "".join(f"## Part {n}\n\nParagraph {n} says a thing.\n\n" for n in range(5000))
    firsts = ("# One\n\nFirst.\n", "# Two\n\nSecond.\n", big)
    for address, body in zip(ADDRESSES, firsts, strict=True):
        page = pages.create_page(team.writer, address=address, title="M", body=body)
        saved[address, 1] = page.body
        for n in range(5):
            done = editing.edit_page(
                team.writer,
                address=address,
                edits=parse_edits([{"op": "append", "text": f"Paragraph {n} added."}]),
            )
            saved[address, done.page.version] = done.page.body
        done = reverts.revert_revision(team.writer, address=address, version=6)
        saved[address, done.page.version] = done.page.body
        done = reverts.restore_version(team.writer, address=address, version=2)
        saved[address, done.page.version] = done.page.body
    return saved


def read_back(team: Team) -> dict[tuple[str, int], str]:
    found = {}
    for address in ADDRESSES:
        for listed in revisions.history(team.reader, address=address):
            read = revisions.read_revision(team.reader, address=address, version=listed.version)
            assert read.body is not None
            found[address, listed.version] = read.body
    return found


@pytest.fixture
def migration() -> ModuleType:
    return load_migration()


@pytest.fixture
def whole(db: Database, team: Team) -> Iterator[dict[tuple[str, int], str]]:
    """The workspace as it was before 0012: each version saved whole, no hash."""
    saved = saved_versions(team)
    downgrade(db, "0011")
    assert at_version(db) == "0011"
    assert not columns(db) & {"delta", "sha256", "snapshot_version", "chain_chars"}
    texts = {(r["page_id"], r["version"]): r["body"] for r in rows(db)}
    assert sorted(texts.values()) == sorted(saved.values())  # taken back: whole again
    yield saved


def test_the_migration_stopped_after_some_batches_and_run_again_converts_every_version(
    db: Database, team: Team, whole: dict[tuple[str, int], str], migration: ModuleType
) -> None:
    with db.engine.connect() as conn:
        migration.add_columns(Operations(MigrationContext.configure(conn)), conn)
        conn.commit()
        assert migration.convert(conn, batch=4, batches=2) == 8  # stopped here
    assert at_version(db) == "0011"
    converted = [r for r in rows(db) if r["sha256"]]
    assert len(converted) == 8 and len(rows(db)) == 24
    assert all(r["sha256"] == delta.digest(whole[ADDRESSES[0], r["version"]]) for r in converted)

    db.migrate()  # run again: the columns are there, the eight converted are skipped
    assert at_version(db) == HEAD
    assert all(r["sha256"] for r in rows(db))
    assert read_back(team) == whole
    big = [r for r in rows(db) if len(r["body"]) > 100_000]
    assert len(big) == 1  # the big page's first version; every later one a small delta
    assert max(len(r["delta"] or "") for r in rows(db) if r["delta"]) < 200


def test_a_batch_cut_off_halfway_is_rolled_back_and_converted_on_the_next_run(
    db: Database,
    team: Team,
    whole: dict[tuple[str, int], str],
    migration: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = migration.store
    calls = iter(range(1000))

    def stopping(*args: Any, **kwargs: Any) -> Any:
        if next(calls) == 13:  # the second row of the fourth batch of four
            raise KeyboardInterrupt
        return stored(*args, **kwargs)

    monkeypatch.setattr(migration, "store", stopping)
    with db.engine.connect() as conn:
        migration.add_columns(Operations(MigrationContext.configure(conn)), conn)
        conn.commit()
        with pytest.raises(KeyboardInterrupt):
            migration.convert(conn, batch=4)
        conn.rollback()
    assert len([r for r in rows(db) if r["sha256"]]) == 12  # three whole batches
    monkeypatch.setattr(migration, "store", stored)
    with db.engine.connect() as conn:
        assert migration.convert(conn, batch=4) == 12
    assert read_back(team) == whole


def test_a_converted_version_that_no_longer_rebuilds_stops_the_migration_dropping_nothing(
    db: Database, team: Team, whole: dict[tuple[str, int], str], migration: ModuleType
) -> None:
    with db.engine.connect() as conn:
        migration.add_columns(Operations(MigrationContext.configure(conn)), conn)
        conn.commit()
        migration.convert(conn, batch=2, batches=1)  # the first page's versions 1 and 2
        [second] = [r for r in rows(db) if r["sha256"] and r["version"] == 2]
        assert second["delta"] is not None
        conn.execute(
            revisions_table.update()
            .where(revisions_table.c.id == second["id"])
            .values(delta='[[0,0,"Damaged. "]]')
        )
        conn.commit()
        with pytest.raises(RuntimeError, match=r"Version 2 of page \d+ does not rebuild"):
            migration.convert(conn, batch=3)
        conn.rollback()
    left = [r for r in rows(db) if not r["sha256"]]
    assert len(left) == 22 and all(r["body"] for r in left)  # every other copy kept whole


def test_what_the_frozen_migration_writes_the_running_code_reads(
    db: Database, team: Team, whole: dict[tuple[str, int], str]
) -> None:
    db.migrate()  # every version converted by the code frozen in the migration
    texts: dict[tuple[int, int], str] = {}
    chain, page = delta.Chain(), None
    for row in rows(db):
        if row["page_id"] != page:
            chain, page = delta.Chain(), row["page_id"]
        text = chain.next(row["body"], row["delta"])
        assert delta.digest(text) == row["sha256"]
        texts[row["page_id"], row["version"]] = text
        if row["delta"] is not None:  # in the form the running code writes, to the byte
            assert delta.encode(delta.decode(row["delta"])) == row["delta"]
    assert sorted(texts.values()) == sorted(whole.values())
    assert any(row["delta"] for row in rows(db))


def test_the_frozen_encoder_writes_what_it_wrote_when_it_was_frozen(migration: ModuleType) -> None:
    old = "# Steps\n\nOne, then two.\n\nThree comes last.\n"
    new = "# Steps\n\nOne, then two.\n\nÉtape deux.\n\nThree comes last.\n"
    before = migration.Before(1, old, 1, 0)
    stored = migration.store(2, new, before=before)
    assert stored.delta == '[[25,25,"Étape deux.\\n\\n"]]'  # compact JSON, UTF-8 as is
    assert (stored.body, stored.snapshot_version, stored.chain_chars) == ("", 1, 27)
    assert stored.sha256 == hashlib.sha256(new.encode()).hexdigest()
    assert delta.apply(old, delta.decode(stored.delta)) == new
    whole = migration.store(2, "x", before=before)  # a delta would outgrow the text
    assert (whole.body, whole.delta, whole.snapshot_version) == ("x", None, 2)


def test_on_postgresql_page_texts_are_compressed_with_lz4(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("SQLite has no compression setting")
    with db.read() as conn:
        methods = conn.execute(
            sa.text(
                "SELECT attrelid::regclass::text, attcompression FROM pg_attribute "
                "WHERE attname = 'body' AND attrelid IN ('pages'::regclass, 'revisions'::regclass)"
            )
        ).all()
    assert sorted(methods) == [("pages", "l"), ("revisions", "l")]
