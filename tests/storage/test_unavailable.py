"""A PostgreSQL server that cannot be reached is `unavailable`; the server answering with an
error of its own stays that error, and a statement it stopped at the statement timeout is
`too_large` (the call asked for more work than one call may do), never `unavailable`."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from codna.errors import TooLarge, Unavailable
from codna.storage.database import Database


def test_a_statement_past_the_timeout_is_too_large_not_unavailable(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's errors: an SQLite file has no server")
    with pytest.raises(TooLarge) as raised, db.read() as conn:
        conn.execute(sa.text("SET LOCAL statement_timeout = '1ms'"))
        conn.execute(sa.text("SELECT pg_sleep(1)"))
    assert raised.value.code == "too_large" and "statement may run" in raised.value.message
    cause = raised.value.__cause__
    assert isinstance(cause, sa.exc.OperationalError)
    assert getattr(cause.orig, "sqlstate", None) == "57014"  # query_canceled


def test_a_statement_cancelled_for_another_reason_is_its_own_error(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's errors: an SQLite file has no server")
    with pytest.raises(sa.exc.OperationalError) as raised, db.read() as conn:
        conn.execute(sa.text("SELECT pg_cancel_backend(pg_backend_pid())"))
    assert not isinstance(raised.value, (Unavailable, TooLarge))
    assert getattr(raised.value.orig, "sqlstate", None) == "57014"


def test_every_connection_has_the_configured_statement_timeout(db: Database) -> None:
    if db.is_sqlite:
        pytest.skip("PostgreSQL's statement timeout")
    short = Database(db.url.render_as_string(False), statement_timeout=2.5)
    try:
        with short.read() as conn:
            assert conn.execute(sa.text("SHOW statement_timeout")).scalar_one() == "2500ms"
        with short.write() as conn:
            assert conn.execute(sa.text("SHOW statement_timeout")).scalar_one() == "2500ms"
    finally:
        short.dispose()
    with db.read() as conn:  # the setting's default
        assert conn.execute(sa.text("SHOW statement_timeout")).scalar_one() == "10s"


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


def test_every_connection_plans_each_statement_for_its_own_values(db: Database) -> None:
    """A statement the driver prepared is never run on a plan made blind to its values (on
    such a plan, the inbox's count looked for a routine's run for every waiting suggestion)."""
    if db.is_sqlite:
        pytest.skip("PostgreSQL's plan cache")
    with db.read() as conn:
        assert conn.execute(sa.text("SHOW plan_cache_mode")).scalar_one() == "force_custom_plan"
    with db.write() as conn:
        assert conn.execute(sa.text("SHOW plan_cache_mode")).scalar_one() == "force_custom_plan"
