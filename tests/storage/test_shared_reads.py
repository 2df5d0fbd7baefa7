"""A read inside a read is the same transaction, until a write: then reads see the write."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlalchemy as sa

from codna.storage.database import Database
from codna.storage.schema import members

COUNT = sa.select(sa.func.count()).select_from(members)


def _add_member(db: Database, name: str) -> None:
    with db.write() as conn:
        conn.execute(
            members.insert().values(
                kind="person", name=name, email=f"{name}@e.com", created_at=datetime.now(UTC)
            )
        )


def test_a_read_inside_a_read_is_the_same_connection_and_transaction(db: Database) -> None:
    with db.read() as outer:
        outer.execute(COUNT)
        with db.read() as inner:
            assert inner is outer
            assert inner.in_transaction()
        assert outer.in_transaction()  # the inner read did not end it


def test_after_a_write_a_read_inside_the_same_read_sees_what_was_written(db: Database) -> None:
    with db.read() as outer:
        before = outer.execute(COUNT).scalar_one()
        _add_member(db, "written")
        with db.read() as inner:
            assert inner is not outer
            assert inner.execute(COUNT).scalar_one() == before + 1


def test_reads_of_another_database_are_never_shared(db: Database, tmp_path: Path) -> None:
    other = Database(f"sqlite:///{tmp_path}/other.db")
    other.migrate()
    try:
        with db.read() as mine, other.read() as theirs:
            assert mine is not theirs
    finally:
        other.dispose()


def test_a_read_after_the_outer_read_ended_begins_its_own(db: Database) -> None:
    with db.read() as first:
        pass
    assert not first.in_transaction()
    with db.read() as second:
        assert second is not first
        assert second.in_transaction()
