"""A Prepared statement answers exactly what `Connection.execute` answers for the same
statement, inside the same transaction, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from codna.storage.database import Database
from codna.storage.prepared import Prepared, together
from codna.storage.schema import members, pages

pytestmark = pytest.mark.storage

WHEN = datetime(2026, 12, 3, 9, 30, 15, 250_000, tzinfo=UTC)

# Typed columns (timestamps, JSON tags), a labelled scalar subquery, a literal the statement
# carries itself, and parameters by name.
PAGES_IN = (
    sa.select(
        pages,
        sa.select(members.c.name)
        .where(members.c.id == pages.c.created_by)
        .scalar_subquery()
        .label("author"),
    )
    .where(
        pages.c.space == sa.bindparam("space"),
        pages.c.path.startswith("guides/"),
        pages.c.version >= sa.bindparam("version"),
    )
    .order_by(pages.c.path)
)


def _fill(db: Database) -> None:
    with db.write() as conn:
        author = conn.execute(
            members.insert().values(
                kind="person", name="Ada", email="ada@example.com", created_at=WHEN
            )
        ).inserted_primary_key[0]
        for n, path in enumerate(["guides/b", "guides/a", "notes/c"]):
            conn.execute(
                pages.insert().values(
                    space="wiki",
                    path=path,
                    title=f"Page {n} — ünïcode",
                    tags=["x", f"t{n}"],
                    body="# Body\n",
                    version=n + 1,
                    created_by=author,
                    created_at=WHEN,
                    updated_by=author,
                    updated_at=WHEN + timedelta(seconds=n),
                    trashed_at=WHEN if n == 1 else None,
                )
            )


def test_rows_are_what_execute_gives(db: Database) -> None:
    _fill(db)
    prepared = Prepared(PAGES_IN)
    params = {"space": "wiki", "version": 1}
    with db.read() as conn:
        expected = [dict(row) for row in conn.execute(PAGES_IN, params).mappings()]
        got = prepared.all(conn, params)
        first = prepared.first(conn, {"space": "wiki", "version": 2})
        none = prepared.first(conn, {"space": "output", "version": 1})
        tuples = prepared.tuples(conn, params)
    assert [row["path"] for row in got] == ["guides/a", "guides/b"]
    assert got == expected
    assert got[0]["tags"] == ["x", "t1"] and got[0]["author"] == "Ada"
    assert got[0]["created_at"] == WHEN and got[0]["created_at"].tzinfo is not None
    assert got[0]["trashed_at"] == WHEN and got[1]["trashed_at"] is None
    assert first is not None and first["path"] == "guides/a"
    assert none is None
    assert tuples == [tuple(row.values()) for row in expected]


class _Undo(Exception):
    pass


def test_it_runs_inside_the_transaction_it_is_given(db: Database) -> None:
    _fill(db)
    prepared = Prepared(sa.select(pages.c.title).where(pages.c.path == sa.bindparam("path")))
    with pytest.raises(_Undo), db.write() as conn:
        conn.execute(pages.update().where(pages.c.path == "notes/c").values(title="Changed"))
        assert prepared.first(conn, {"path": "notes/c"}) == {"title": "Changed"}
        raise _Undo
    with db.read() as conn:
        assert prepared.first(conn, {"path": "notes/c"}) == {"title": "Page 2 — ünïcode"}


def test_a_statement_whose_parameters_expand_per_call_is_refused(db: Database) -> None:
    ids = Prepared(sa.select(pages.c.id).where(pages.c.id.in_(sa.bindparam("ids"))))
    with db.read() as conn, pytest.raises(ValueError, match="compiled once"):
        ids.all(conn, {"ids": [1, 2]})


TITLE_AT = Prepared(sa.select(pages.c.title).where(pages.c.path == sa.bindparam("path")))


def test_a_lookup_reads_what_is_committed_and_hands_back_a_connection_as_it_found_it(
    db: Database,
) -> None:
    _fill(db)
    with db.lookup() as lookup:
        assert TITLE_AT.first(lookup, {"path": "notes/c"}) == {"title": "Page 2 — ünïcode"}
    # The pool's connections are back in ordinary transactions: a failed write undoes itself.
    for _ in range(3):
        with pytest.raises(_Undo), db.write() as conn:
            conn.execute(pages.update().where(pages.c.path == "notes/c").values(title="Gone"))
            raise _Undo
    with db.lookup() as lookup:
        assert TITLE_AT.first(lookup, {"path": "notes/c"}) == {"title": "Page 2 — ünïcode"}


def test_a_lookup_is_one_snapshot_on_sqlite_and_read_committed_on_postgresql(
    db: Database,
) -> None:
    _fill(db)
    with db.lookup() as lookup:
        before = TITLE_AT.first(lookup, {"path": "notes/c"})
        with db.write() as conn:
            conn.execute(pages.update().where(pages.c.path == "notes/c").values(title="New"))
        seen = TITLE_AT.first(lookup, {"path": "notes/c"})
        assert seen == (before if db.is_sqlite else {"title": "New"})
    with db.lookup() as lookup:
        assert TITLE_AT.first(lookup, {"path": "notes/c"}) == {"title": "New"}


def test_statements_run_together_answer_what_each_answers_alone(db: Database) -> None:
    _fill(db)
    params = {"space": "wiki", "version": 1}
    with db.lookup() as lookup:
        pages_in, title = together(lookup, (Prepared(PAGES_IN), params), (TITLE_AT, {"path": "x"}))
        assert pages_in == Prepared(PAGES_IN).all(lookup, params)
        assert title == []
    with db.read() as conn:
        [title] = together(conn, (TITLE_AT, {"path": "notes/c"}))
        assert title == [{"title": "Page 2 — ünïcode"}]


def test_a_failing_statement_among_others_raises_and_leaves_the_connection_usable(
    db: Database,
) -> None:
    _fill(db)
    broken = Prepared(sa.select(sa.func.no_such_function(pages.c.id)))
    with db.lookup() as lookup, pytest.raises(db.engine.dialect.loaded_dbapi.Error):
        together(lookup, (TITLE_AT, {"path": "notes/c"}), (broken, {}))
    with db.lookup() as lookup:
        assert TITLE_AT.first(lookup, {"path": "notes/c"}) == {"title": "Page 2 — ünïcode"}
