"""How fast suggested changes are, at the service level, on SQLite and PostgreSQL.

1. `suggest_edit` and accepting with `decide_edit_suggestion` on pages of 10 KB and 1 MB: the
   median of repeated calls, each one transaction with everything it does (the dry run of the
   edits, the checks, the diff, the revision, the search index, the notification, the event).
   Beside each, a floor measured in the same run: the same rows written with the bare driver
   (sqlite3 / psycopg) in one transaction — for a suggestion its row; for an acceptance the
   revision, the page, the search index row, the notification and the suggestion's status.
2. `pending_decisions` for an editor of everything with 10,000 pending suggested changes from
   50 agents over 1,000 pages, a tenth of which moved on after the suggestions were made (so
   a tenth of the newest no longer apply): its first page of 50 items and the total, each item
   saying whether it still applies; median and p99, and the first call after the suggestions
   were made.

   For each size also: the part of an acceptance spent in the search index (timed around
   search.index_page) and the rest, and the bytes the database grows per acceptance, after a
   checkpoint (storage.py), beside the size of a full copy of the page.

Run: .venv/bin/python bench/suggestions.py [--postgres URL] [--repeat N] [--skip-inbox]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import psycopg
import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.context import use_database
from codna.services.inbox import inbox
from codna.services.members import access, members
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from codna.storage.database import Database
from storage import IndexTime, Size
from storage import size as database_size

SIZES = {"10 KB": 10_000, "1 MB": 1_000_000}
INBOX_PAGES = 1000
INBOX_SUGGESTIONS = 10_000
AGENTS = 50  # 200 pending each: the limit per suggester


def make_page(size: int) -> str:
    """A decision-record-like page of about `size` characters: numbered sections."""
    parts = ["# A decision\n\n"]
    n = 0
    total = len(parts[0])
    while total < size:
        part = (
            f"## Section {n}\n\nParagraph {n} says something about topic {n} in plain words, "
            f"with numbers {n * 7} and a few more words to read.\n\n"
        )
        parts.append(part)
        total += len(part)
        n += 1
    return "".join(parts)


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def median(times: list[float]) -> float:
    return statistics.median(times)


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


# -- the floors: the same rows with the bare driver ------------------------------------------


class Floor:
    """Writes the rows a suggestion and an acceptance write, with the bare driver."""

    def __init__(
        self,
        execute: Callable[[str, tuple[object, ...]], None],
        commit: Callable[[], None],
        begin: Callable[[], None],
        marker: str,
    ) -> None:
        self.execute, self.commit, self.begin, self.p = execute, commit, begin, marker

    def schema(self, serial: str) -> None:
        for statement in (
            f"CREATE TABLE page (id {serial} PRIMARY KEY, body TEXT, version INTEGER)",
            f"CREATE TABLE revision (id {serial} PRIMARY KEY, page_id INTEGER, version INTEGER,"
            " body TEXT, summary TEXT, author INTEGER, kind TEXT)",
            "CREATE TABLE search (page_id INTEGER PRIMARY KEY, body TEXT)",
            f"CREATE TABLE suggestion (id {serial} PRIMARY KEY, page_id INTEGER, edits TEXT,"
            " reason TEXT, diff TEXT, hash TEXT, status TEXT)",
            f"CREATE TABLE notification (id {serial} PRIMARY KEY, member_id INTEGER,"
            " suggestion_id INTEGER, status TEXT)",
        ):
            self.begin()
            self.execute(statement, ())
            self.commit()
        self.begin()
        self.execute(f"INSERT INTO page (id, body, version) VALUES (1, {self.p}, 1)", ("",))
        self.execute(f"INSERT INTO search (page_id, body) VALUES (1, {self.p})", ("",))
        self.commit()

    def suggest(self, edits: str, diff: str) -> None:
        p = self.p
        self.begin()
        self.execute(
            "INSERT INTO suggestion (page_id, edits, reason, diff, hash, status) "
            f"VALUES (1, {p}, {p}, {p}, {p}, 'pending')",
            (edits, "A reason for the change.", diff, uuid.uuid4().hex),
        )
        self.commit()

    def accept(self, body: str, version: int) -> None:
        p = self.p
        self.begin()
        self.execute(
            "INSERT INTO revision (page_id, version, body, summary, author, kind) "
            f"VALUES (1, {p}, {p}, {p}, 1, 'accept_suggestion')",
            (version, body, "Suggested by bench-agent (agent): a reason"),
        )
        self.execute(f"UPDATE page SET body = {p}, version = {p} WHERE id = 1", (body, version))
        self.execute(f"UPDATE search SET body = {p} WHERE page_id = 1", (body,))
        self.execute(
            "INSERT INTO notification (member_id, suggestion_id, status) VALUES (2, 1, 'accepted')",
            (),
        )
        self.execute("UPDATE suggestion SET status = 'accepted' WHERE id = 1", ())
        self.commit()


def sqlite_floor(path: Path) -> Floor:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    floor = Floor(
        lambda sql, params: conn.execute(sql, params) and None,
        lambda: conn.execute("COMMIT") and None,
        lambda: conn.execute("BEGIN IMMEDIATE") and None,
        "?",
    )
    floor.schema("INTEGER")
    return floor


def postgres_floor(url: str) -> Floor:
    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
    floor = Floor(
        lambda sql, params: conn.execute(sql, params) and None,  # type: ignore[arg-type]
        conn.commit,
        lambda: None,  # psycopg opens a transaction with the first statement
        "%s",
    )
    floor.schema("SERIAL")
    return floor


# -- suggest and accept ------------------------------------------------------------------------


def bench_suggest_and_accept(name: str, db: Database, floor: Floor, repeat: int) -> None:
    use_database(db)
    admin = members.init_workspace(admin_email="admin@example.com", admin_password="bench-pass")
    editor = members.add_person(admin, email="editor@example.com", name="Editor")
    agent = members.add_agent(admin, name="bench-agent", responsible=["admin@example.com"])
    access.share(admin, address="wiki", member="editor@example.com", level="write")
    access.share(admin, address="wiki", member="bench-agent", level="read")
    print(
        f"\n{name}: suggest and accept, median ms of {repeat} (floor: the same rows, bare driver)"
    )
    print(f"{'page':>8} {'suggest':>9} {'floor':>7} {'ratio':>6}", end="   ")
    print(f"{'accept':>8} {'floor':>7} {'ratio':>6}")
    for label, size in SIZES.items():
        body = make_page(size)
        address = f"wiki:decisions/bench-{size}"
        pages.create_page(admin, address=address, title="Bench", body=body)
        sections = body.count("\n## Section ")
        suggest_ms: list[float] = []
        accept_ms: list[float] = []
        floor_suggest: list[float] = []
        floor_accept: list[float] = []
        indexing: list[float] = []
        grown = Size(0, 0)
        with IndexTime().measuring() as index:
            for k in range(repeat):
                n = sections * k // repeat  # spread over the page
                edits = [
                    {
                        "op": "replace",
                        "old": f"Paragraph {n} says",
                        "new": f"Paragraph {n} now says",
                    }
                ]
                started = time.perf_counter()
                made = changes.suggest_edit(
                    agent, address=address, edits=parse_edits(edits), reason="Say it."
                )
                suggest_ms.append((time.perf_counter() - started) * 1000)
                assert made.suggestion is not None
                before = database_size(db)
                index.take_ms()
                started = time.perf_counter()
                changes.decide_edit_suggestion(
                    editor, suggestion_id=made.suggestion.id, decision="accept"
                )
                accept_ms.append((time.perf_counter() - started) * 1000)
                indexing.append(index.take_ms())
                grown += database_size(db) - before
                body = body.replace(f"Paragraph {n} says", f"Paragraph {n} now says", 1)
                floor_suggest.append(timed(partial(floor.suggest, json.dumps(edits), made.diff)))
                floor_accept.append(timed(partial(floor.accept, body, k + 2)))
        s, fs, a, fa = map(median, (suggest_ms, floor_suggest, accept_ms, floor_accept))
        print(f"{label:>8} {s:9.2f} {fs:7.2f} {s / fs:6.1f}   {a:8.2f} {fa:7.2f} {a / fa:6.1f}")
        rest = median([t - i for t, i in zip(accept_ms, indexing, strict=True)])
        where = "the file" if db.is_sqlite else "the database"
        print(
            f"{'':>8} accept: the search index {median(indexing):.2f} ms, the rest {rest:.2f} ms;"
            f" per acceptance {where} grows {grown.total / repeat:,.0f} bytes, the revisions "
            f"table {grown.revisions / repeat:,.0f} bytes (a full copy: {len(body.encode()):,})"
        )


# -- pending_decisions ------------------------------------------------------------------------


def seed_inbox(db: Database) -> members.Member:
    """Everything through the services, as people and agents would make it."""
    use_database(db)
    admin = members.init_workspace(admin_email="admin@example.com", admin_password="bench-pass")
    editor = members.add_person(admin, email="editor@example.com", name="Editor")
    access.share(admin, address="wiki", member="editor@example.com", level="write")
    agents = []
    for a in range(AGENTS):
        agents.append(
            members.add_agent(admin, name=f"checker-{a}", responsible=["admin@example.com"])
        )
        access.share(admin, address="wiki", member=f"checker-{a}", level="read")
    body = make_page(3000)
    for n in range(INBOX_PAGES):
        pages.create_page(
            admin, address=f"wiki:folder{n % 10}/page{n}", title=f"Page {n}", body=body
        )
    per_page = INBOX_SUGGESTIONS // INBOX_PAGES
    for k in range(INBOX_SUGGESTIONS):
        n, paragraph = k % INBOX_PAGES, k // INBOX_PAGES
        changes.suggest_edit(
            agents[k // (INBOX_SUGGESTIONS // AGENTS)],
            address=f"wiki:folder{n % 10}/page{n}",
            edits=parse_edits(
                [
                    {
                        "op": "replace",
                        "old": f"Paragraph {paragraph} says",
                        "new": f"Paragraph {paragraph} now says",
                    }
                ]
            ),
            reason=f"Suggestion {k} makes paragraph {paragraph} clearer.",
        )
    assert per_page <= 20
    # A tenth of the pages moved on: there one paragraph's suggestion no longer applies.
    for n in range(0, INBOX_PAGES, 10):
        editing.edit_page(
            editor,
            address=f"wiki:folder{n % 10}/page{n}",
            edits=parse_edits(
                [{"op": "replace", "old": "Paragraph 9 says", "new": "Paragraph nine said"}]
            ),
        )
    if not db.is_sqlite:  # what autovacuum would do soon after a bulk load
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("ANALYZE"))
    return editor


def bench_inbox(name: str, db: Database, repeat: int) -> None:
    started = time.perf_counter()
    editor = seed_inbox(db)
    seeded = time.perf_counter() - started
    first: list[inbox.Pending] = []
    cold = timed(lambda: first.append(inbox.pending_decisions(editor, limit=50)))
    [answer] = first
    waiting = answer.suggested_changes
    assert waiting.total == INBOX_SUGGESTIONS and len(waiting.items) == 50, waiting.total
    stale = sum(1 for item in waiting.items if not item.applies)
    times = [timed(lambda: inbox.pending_decisions(editor, limit=50)) for _ in range(repeat)]
    print(
        f"\n{name}: pending_decisions, first 50 of {waiting.total} pending suggested changes over "
        f"{INBOX_PAGES} pages ({stale} of the 50 no longer apply; seeded in {seeded:.0f} s)"
    )
    print(
        f"{'':>8} median {median(times):7.2f} ms   p99 {p99(times):7.2f} ms   "
        f"first call {cold:7.2f} ms   ({repeat} runs)"
    )


# -- databases --------------------------------------------------------------------------------


@contextmanager
def sqlite_database() -> Iterator[tuple[Database, Path]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite:///{tmp}/bench.db")
        db.migrate()
        try:
            yield db, Path(tmp)
        finally:
            db.dispose()


@contextmanager
def postgres_database(admin_url: str) -> Iterator[tuple[Database, str]]:
    name = f"codna_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(admin_url).set(database=name).render_as_string(False)
    db = Database(url)
    try:
        db.migrate()
        yield db, url
    finally:
        db.dispose()
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--repeat", type=int, default=41)
    parser.add_argument("--inbox-repeat", type=int, default=200)
    parser.add_argument("--skip-inbox", action="store_true")
    args = parser.parse_args()
    with sqlite_database() as (db, tmp):
        bench_suggest_and_accept("SQLite", db, sqlite_floor(tmp / "floor.db"), args.repeat)
    with postgres_database(args.postgres) as (db, url):
        bench_suggest_and_accept("PostgreSQL", db, postgres_floor(url), args.repeat)
    if args.skip_inbox:
        return
    with sqlite_database() as (db, _):
        bench_inbox("SQLite", db, args.inbox_repeat)
    with postgres_database(args.postgres) as (db, _):
        bench_inbox("PostgreSQL", db, args.inbox_repeat)


if __name__ == "__main__":
    main()
