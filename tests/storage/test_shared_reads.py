"""A read inside a read is the same transaction; in a scope (a request) reads share one
transaction until a write, which ends it first: a call holds one connection at a time, and reads
after the write see it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from codna.errors import Unavailable
from codna.storage.database import Database, after_commit
from codna.storage.schema import members

COUNT = sa.select(sa.func.count()).select_from(members)


def _insert_member(conn: sa.Connection, name: str) -> None:
    conn.execute(
        members.insert().values(
            kind="person", name=name, email=f"{name}@e.com", created_at=datetime.now(UTC)
        )
    )


def _add_member(db: Database, name: str) -> None:
    with db.write() as conn:
        _insert_member(conn, name)


def test_a_read_inside_a_read_is_the_same_connection_and_transaction(db: Database) -> None:
    with db.read() as outer:
        outer.execute(COUNT)
        with db.read() as inner:
            assert inner is outer
            assert inner.in_transaction()
        assert outer.in_transaction()  # the inner read did not end it


def test_a_write_inside_an_open_read_is_refused_before_it_takes_a_connection(
    db: Database,
) -> None:
    with db.read() as outer:
        outer.execute(COUNT)
        taken = db.engine.pool.checkedout()
        with pytest.raises(RuntimeError, match="inside an open read"):
            _add_member(db, "written")
        assert db.engine.pool.checkedout() == taken
    with db.read() as conn:
        assert conn.execute(sa.select(members.c.name)).scalars().all() == []


def test_reads_in_a_scope_share_one_transaction_until_a_write_which_ends_it_first(
    db: Database,
) -> None:
    out: list[int] = []
    sa.event.listen(db.engine, "checkout", lambda *_: out.append(len(out) + 1))
    with db.scope():
        with db.read() as first:
            before = first.execute(COUNT).scalar_one()
        with db.read() as second:
            assert second is first and second.in_transaction()  # kept after the first ended
        assert len(out) == 1
        _add_member(db, "written")
        assert not first.in_transaction()  # ended before the write began
        assert db.engine.pool.checkedout() == 0
        with db.read() as third:
            assert third.execute(COUNT).scalar_one() == before + 1
    assert len(out) == 3  # the first read's, the write's, the read after it
    assert db.engine.pool.checkedout() == 0


def test_a_read_inside_a_write_is_the_write_and_sees_what_it_wrote(db: Database) -> None:
    with db.write() as conn:
        _insert_member(conn, "inside")
        with db.read() as inner:
            assert inner is conn
            assert inner.execute(COUNT).scalar_one() == 1


def test_a_scope_that_fails_rolls_its_read_back_and_runs_nothing_registered_after_it(
    db: Database,
) -> None:
    ran: list[str] = []
    with pytest.raises(LookupError), db.scope():
        with db.read() as conn:
            after_commit(conn, lambda: ran.append("read"))
        raise LookupError
    assert ran == []
    assert db.engine.pool.checkedout() == 0
    with db.scope():
        with db.read() as conn:
            after_commit(conn, lambda: ran.append("read"))
        assert ran == []  # the read transaction is open till the scope ends
    assert ran == ["read"]


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


def _cut(db: Database, conn: sa.Connection) -> None:
    """End the server's side of `conn`, as a restart of PostgreSQL does."""
    pid = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
    other = sa.create_engine(db.url, poolclass=sa.NullPool)
    try:
        with other.connect() as killer:
            killer.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        other.dispose()


@pytest.mark.parametrize("where", ["inside the read", "after the read, before the scope ends"])
def test_a_connection_lost_in_a_scope_is_unavailable_and_given_back(
    db: Database, where: str
) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's connections: an SQLite file has no server to lose")
    with pytest.raises(Unavailable), db.scope(), db.read() as conn:
        _cut(db, conn)
        if where == "inside the read":
            conn.execute(COUNT)
    assert db.engine.pool.checkedout() == 0
    with db.read() as conn:
        assert conn.execute(COUNT).scalar_one() == 0
