"""A PostgreSQL server that cannot be reached is `unavailable`; the server answering with an
error of its own (a cancelled statement, a lock it could not take) stays that error."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from codna.errors import Unavailable
from codna.storage.database import Database


def test_a_statement_the_server_cancels_is_its_own_error_not_unavailable(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's errors: an SQLite file has no server")
    with pytest.raises(sa.exc.OperationalError) as raised, db.read() as conn:
        conn.execute(sa.text("SET LOCAL statement_timeout = '1ms'"))
        conn.execute(sa.text("SELECT pg_sleep(1)"))
    assert not isinstance(raised.value, Unavailable)
    assert getattr(raised.value.orig, "sqlstate", None) == "57014"  # query_canceled


def test_a_server_that_cannot_be_reached_is_unavailable(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's errors: an SQLite file has no server")
    gone = Database(db.url.set(port=1).render_as_string(False))  # nothing listens there
    try:
        with pytest.raises(Unavailable) as raised, gone.read() as conn:
            conn.execute(sa.text("SELECT 1"))
        assert raised.value.code == "unavailable"
    finally:
        gone.dispose()
