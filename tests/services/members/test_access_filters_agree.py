"""The SQL filters of access (Rights.readable, Rights.decidable) keep exactly the pages the
checks in Python allow (Rights.can_read, Rights.can_decide), on both databases, whatever the
grants and the pages' paths hold: letters in either case, `_`, `%`, `\\`, `//`, and a letter
with an accent written composed (NFC) or decomposed (NFD); and run pages, which only readers
of the page their run looked at read (run_pages_hidden).

The services refuse such paths in an address (parse_address), so the pages and grants here
are rows and records made directly: the filter must hold for any text a row could hold, not
only for what today's parser lets in.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Literal

import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Connection

from codna.services.members.access import Held, Level, Rights, run_pages_hidden
from codna.services.members.members import Member
from codna.storage.database import Database
from codna.storage.records import PageHead
from codna.storage.schema import pages, runs
from tests.services.conftest import Team

NFC_E = "\u00e9"  # é, one code point
NFD_E = "e\u0301"  # é, e and a combining acute accent
PIECES = ["a", "A", "_", "%", "\\", "/", "//", NFC_E, NFD_E]
AGENT = "checker"  # the team's agent: its own folder is output:checker/
OWN = [f"{AGENT}/", "Checker/", "checke_/", f"{AGENT}//", f"{AGENT}%"]
SPACES = ("wiki", "raw", "output")
ALL_PAGES = sa.select(pages.c.id, pages.c.space, pages.c.path, pages.c.created_by)

paths = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)
page_paths = st.one_of(paths, st.tuples(st.sampled_from(OWN), paths).map("".join))
page_addresses = st.sets(st.tuples(st.sampled_from(SPACES), page_paths), min_size=1, max_size=12)


@st.composite
def near(draw: st.DrawFn, path: str) -> str:
    """`path`, or a path that a filter could mistake for it: another case, the other normal
    form, a wildcard or an escape where a letter was."""
    how = draw(st.sampled_from(["same", "case", "form", "wild"]))
    if how == "case":
        return path.swapcase()
    if how == "form":
        return unicodedata.normalize(draw(st.sampled_from(["NFC", "NFD"])), path)
    if how == "wild" and path:
        at = draw(st.integers(0, len(path) - 1))
        return path[:at] + draw(st.sampled_from(["_", "%", "\\"])) + path[at + 1 :]
    return path


@st.composite
def grants(draw: st.DrawFn, addresses: list[tuple[str, str]]) -> Held:
    """A grant on a space, a folder or a page, its path often near one of `addresses`."""
    space, path = draw(st.sampled_from(addresses))
    space = draw(st.sampled_from([space, *SPACES]))
    kind = draw(st.sampled_from(["space", "folder", "page"]))
    if draw(st.booleans()):
        path = draw(page_paths)
    if kind == "space":
        path = ""
    elif kind == "folder":
        # Mostly a folder the page is in, sometimes a cut anywhere.
        ends = [i + 1 for i, c in enumerate(path) if c == "/"] or [len(path)]
        cut = draw(st.one_of(st.sampled_from(ends), st.integers(0, len(path))))
        path = draw(near(path[:cut].rstrip("/"))) + "/"
    else:
        path = draw(near(path))
    level: Level = draw(st.sampled_from(["read", "write"]))
    return Held(space, path, level)


Who = Literal["person", "agent", "run", "admin"]


def acting(team: Team, who: Who) -> Member:
    if who == "agent":
        return team.agent
    if who == "admin":
        return team.admin
    # Sam holds no grant of his own: the drawn grants are all he holds.
    return Member(**{**team.stranger.__dict__, "via": "nightly" if who == "run" else None})


@contextmanager
def undone(db: Database) -> Iterator[Connection]:
    """A transaction on `db` that is rolled back at the end, whatever it wrote."""
    with db.engine.connect() as conn, conn.begin() as transaction:
        yield conn
        transaction.rollback()


def add_pages(conn: Connection, team: Team, addresses: set[tuple[str, str]]) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for n, (space, path) in enumerate(sorted(addresses)):
        author = team.agent.id if n % 2 else team.writer.id  # the agent made some, not all
        conn.execute(
            pages.insert().values(
                space=space,
                path=path,
                title="A page",
                tags=[],
                body="",
                version=1,
                created_by=author,
                created_at=at,
                updated_by=author,
                updated_at=at,
            )
        )


def add_runs(conn: Connection, team: Team, looked_at: list[tuple[int, int]]) -> None:
    """Runs whose run page is the first page of each pair, and which looked at the second."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    by_id = {r.id: f"{r.space}:{r.path}" for r in conn.execute(ALL_PAGES)}
    for run_page, subject in looked_at:
        conn.execute(
            runs.insert().values(
                routine="decision-check",
                member_id=team.writer.id,
                address=by_id[subject],
                status="succeeded",
                started_at=at,
                run_page=by_id[run_page],
            )
        )


def check_filters_agree(conn: Connection, mine: Rights) -> None:
    """Every page kept by each filter, and only those, passes its check in Python."""
    rows = conn.execute(ALL_PAGES).all()
    heads = [PageHead.of(r._mapping) for r in conn.execute(sa.select(pages))]
    hidden = run_pages_hidden(
        conn, mine, [h for h in heads if mine.can_read(h.space, h.path, h.created_by)]
    )
    for name, clause, check in (
        ("readable", mine.readable(), mine.can_read),
        ("decidable", mine.decidable(), mine.can_decide),
    ):
        kept = {r.id for r in conn.execute(ALL_PAGES.where(clause))}
        allowed = {r.id for r in rows if check(r.space, r.path, r.created_by)} - hidden
        wrong = sorted((r.space, r.path) for r in rows if (r.id in kept) != (r.id in allowed))
        assert not wrong, f"{name} disagrees with Python on {wrong} for {mine}"


def test_what_sql_keeps_is_what_python_allows_for_any_grant_and_path(
    db: Database, team: Team, long_form: bool
) -> None:
    @settings(max_examples=400 if long_form else 40, deadline=None, database=None)
    @given(addresses=page_addresses, data=st.data())
    def agree(addresses: set[tuple[str, str]], data: st.DataObject) -> None:
        held = data.draw(st.lists(grants(sorted(addresses)), max_size=4), label="grants")
        who: Who = data.draw(st.sampled_from(["person", "agent", "run", "admin"]), label="who")
        member = acting(team, who)
        mine = Rights(member, () if member.is_admin else tuple(held))
        with undone(db) as conn:
            add_pages(conn, team, addresses)
            ids = [r.id for r in conn.execute(ALL_PAGES.order_by(pages.c.id))]
            outputs = [r.id for r in conn.execute(ALL_PAGES.where(pages.c.space == "output"))]
            if outputs:  # run pages are in output; what they looked at is anywhere
                pair = st.tuples(st.sampled_from(outputs), st.sampled_from(ids))
                add_runs(conn, team, data.draw(st.lists(pair, max_size=4), label="runs"))
            check_filters_agree(conn, mine)

    agree()
