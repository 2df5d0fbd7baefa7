"""The connections lookups run on: reused, bounded, and replaced when the database drops one."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from codna.storage.database import Database
from codna.storage.prepared import Prepared
from codna.storage.schema import members

pytestmark = pytest.mark.storage

COUNT = Prepared(sa.select(sa.func.count()).select_from(members))


def _count(db: Database) -> int:
    with db.lookup() as lookup:
        row = COUNT.first(lookup, {})
    assert row is not None
    return int(next(iter(row.values())))


def test_lookups_one_after_another_reuse_one_connection(db: Database) -> None:
    seen = set()
    for _ in range(5):
        with db.lookup() as lookup:
            seen.add(id(lookup.driver))
    assert len(seen) == 1


def test_lookups_at_once_each_get_a_connection_and_only_a_few_are_kept(db: Database) -> None:
    held, release = threading.Barrier(9), threading.Event()
    drivers: list[int] = []

    def hold() -> None:
        with db.lookup() as lookup:
            drivers.append(id(lookup.driver))
            held.wait(timeout=10)
            release.wait(timeout=10)

    threads = [threading.Thread(target=hold) for _ in range(8)]
    for thread in threads:
        thread.start()
    held.wait(timeout=10)
    release.set()
    for thread in threads:
        thread.join(timeout=10)
    assert len(set(drivers)) == 8
    assert len(db._lookups._idle) == db._lookups.keep
    assert _count(db) == 0


def test_a_connection_the_database_dropped_is_replaced_after_one_refusal(db: Database) -> None:
    with db.lookup() as lookup:
        dropped = lookup.driver
    if db.is_sqlite:
        dropped.close()  # as good as the database going away under it
    else:
        with db.engine.connect() as conn:
            pid = dropped.info.backend_pid
            conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    with pytest.raises(db.engine.dialect.loaded_dbapi.Error):
        _count(db)
    assert _count(db) == 0
    with db.lookup() as lookup:
        assert lookup.driver is not dropped


def test_disposing_closes_the_kept_connections(db: Database) -> None:
    with db.lookup() as lookup:
        kept = lookup.driver
    db.dispose()
    with pytest.raises(db.engine.dialect.loaded_dbapi.Error):
        kept.execute("SELECT 1")
