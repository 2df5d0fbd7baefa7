"""How fast the edit engine, the diff and a save are on pages of 10 KB, 100 KB and 1 MB, and
what a revision of a 1 MB page costs in time and storage.

Each figure stands beside a floor measured in the same run: for the engine, finding the same
anchors with `str.find`; for a save, inserting the same body with the bare driver (sqlite3,
psycopg). Medians of repeated runs.

Then, on a 1 MB page, 1,000 one-paragraph edits one after another: the median save, the part
of it spent in the search index (timed around search.index_page) and the rest; the bytes the
database grows per revision (after a checkpoint, see storage.py) beside the size of a full
copy; and reading version 1, and the version rebuilt from the longest chain of deltas, of that
page with its 1,001 versions.

Run: .venv/bin/python bench/edits.py [--postgres URL] [--revisions N]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import psycopg
import sqlalchemy as sa

from codna.markdown import delta
from codna.markdown.apply import apply_edits
from codna.markdown.diff import unified_diff
from codna.markdown.edits import parse_edits
from codna.services.context import use_database
from codna.services.members import members
from codna.services.pages import editing, pages, revisions
from codna.storage.database import Database
from codna.storage.schema import pages as pages_table
from codna.storage.schema import revisions as revisions_table
from storage import IndexTime
from storage import size as database_size

SIZES = {"10 KB": 10_000, "100 KB": 100_000, "1 MB": 1_000_000}


def make_page(size: int) -> str:
    """A decision-record-like page: sections of a few paragraphs, some code, until `size`."""
    parts = ["# A big page\n\n"]
    n = 0
    while sum(map(len, parts)) < size:
        parts.append(f"## Section {n}\n\n")
        parts.append(f"Paragraph {n}a says something about topic {n} in plain words.\n\n")
        parts.append(f"Paragraph {n}b goes on with details, numbers {n * 7} and more.\n\n")
        if n % 5 == 0:
            parts.append(f"```\n# not a heading {n}\ncode()\n```\n\n")
        parts.append(f"### Notes {n}\n\nA note under section {n}.\n\n")
        n += 1
    return "".join(parts)


def sections_in(body: str) -> int:
    return body.count("\n## Section ")


def ten_edits(body: str) -> list[dict[str, str]]:
    n = sections_in(body)
    picks = [n // 10 * k + 1 for k in range(1, 10)]
    return [
        {"op": "replace", "old": f"Paragraph {picks[0]}a says", "new": "Paragraph now says"},
        {"op": "replace", "old": f"numbers {picks[1] * 7} and", "new": "numbers and"},
        {"op": "replace", "old": f"A note under section {picks[2]}.", "new": "A changed note."},
        {"op": "insert_after", "anchor": f"Paragraph {picks[3]}b goes", "text": " quickly"},
        {"op": "insert_after", "anchor": f"topic {picks[4]} in", "text": " short"},
        {"op": "insert_before", "anchor": f"Paragraph {picks[5]}a", "text": "New paragraph.\n\n"},
        {"op": "append", "text": "The end.\n"},
        {"op": "replace_section", "heading": f"Section {picks[6]}", "body": "Replaced section."},
        {
            "op": "replace_section",
            "heading": f"Section {picks[7]} > Notes {picks[7]}",
            "body": "New notes.",
        },
        {"op": "delete_section", "heading": f"## Section {picks[8]}"},
    ]


def anchors_of(edits: list[dict[str, str]]) -> list[str]:
    out = []
    for e in edits:
        text = e.get("old") or e.get("anchor") or e.get("heading")
        if text:
            out.append(text.split(" > ")[-1].lstrip("# "))
    return out


def find_floor(body: str, anchors: list[str]) -> None:
    for anchor in anchors:  # found once, and checked to be the only occurrence
        at = body.find(anchor)
        body.find(anchor, at + 1)


def median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_engine(repeat: int) -> None:
    print("Edit engine (median ms)")
    print(
        f"{'page':>8} {'10 edits':>10} {'str.find floor':>15} {'ratio':>6}",
        f"{'1 section edit':>15} {'diff, 1 paragraph':>18}",
    )
    for label, size in SIZES.items():
        body = make_page(size)
        edits = parse_edits(ten_edits(body))
        anchors = anchors_of(ten_edits(body))
        engine = median_ms(partial(apply_edits, body, edits), repeat)
        floor = median_ms(partial(find_floor, body, anchors), repeat)
        middle = sections_in(body) // 2
        section = parse_edits(
            [{"op": "replace_section", "heading": f"Section {middle}", "body": "New."}]
        )
        one_section = median_ms(partial(apply_edits, body, section), repeat)
        changed = body.replace(f"Paragraph {middle}a says", f"Paragraph {middle}a now says", 1)
        diff = median_ms(partial(unified_diff, body, changed), repeat)
        print(
            f"{label:>8} {engine:10.3f} {floor:15.3f} {engine / floor:6.1f}",
            f"{one_section:15.3f} {diff:18.3f}",
        )


def bench_save(
    name: str,
    database: Database,
    floor: Callable[[str], Callable[[], None]],
    repeat: int,
    revisions: int,
) -> None:
    use_database(database)
    admin = members.init_workspace(
        admin_email=f"{uuid.uuid4().hex}@example.com", admin_password="bench-password"
    )
    print(f"\nSave one edit on {name} (median ms)")
    print(f"{'page':>8} {'edit_page':>10} {'bare insert floor':>18} {'ratio':>6}")
    for label, chars in SIZES.items():
        body = make_page(chars)
        address = f"wiki:bench-{chars}"
        pages.create_page(admin, address=address, title="Bench", body=body)
        ours = median_ms(partial(save_one_edit, admin, address, iter(range(10**9))), repeat)
        bare = median_ms(floor(body), repeat)
        print(f"{label:>8} {ours:10.3f} {bare:18.3f} {ours / bare:6.1f}")
    bench_big_page(name, database, admin, repeat, revisions)
    database.dispose()


def bench_big_page(
    name: str, database: Database, admin: members.Member, repeat: int, count: int
) -> None:
    """`count` one-paragraph edits of a 1 MB page: their time, the search index's part of
    it, the storage they take; then reading its old versions."""
    body = make_page(1_000_000)
    address = "wiki:bench-revisions"
    pages.create_page(admin, address=address, title="Bench", body=body)
    sections = sections_in(body)
    index = IndexTime()
    saves: list[float] = []
    indexing: list[float] = []
    before = database_size(database)
    with index.measuring():
        for k in range(count):
            n = k * 37 % sections  # one paragraph each time, spread over the page
            edits = [
                {"op": "replace", "old": f"Paragraph {n}a says", "new": f"Paragraph {n}a said"}
            ]
            started = time.perf_counter()
            editing.edit_page(admin, address=address, edits=parse_edits(edits))
            saves.append((time.perf_counter() - started) * 1000)
            indexing.append(index.take_ms())
    grown = database_size(database) - before
    save, index_ms = statistics.median(saves), statistics.median(indexing)
    rest = statistics.median(s - i for s, i in zip(saves, indexing, strict=True))
    print(f"\n{name}: {count} one-paragraph edits of a 1 MB page ({len(body):,} characters)")
    print(
        f"  save, median {save:.2f} ms: the search index {index_ms:.2f} ms, the rest {rest:.2f} ms"
    )
    with database.read() as conn:
        chains = conn.execute(
            sa.select(
                revisions_table.c.version,
                revisions_table.c.version - revisions_table.c.snapshot_version,
                revisions_table.c.delta.is_(None),
            )
            .join(pages_table, pages_table.c.id == revisions_table.c.page_id)
            .where(pages_table.c.path == "bench-revisions")
        ).all()
    snapshots = sum(1 for _, _, whole in chains if whole)
    longest_at, longest, _ = max(chains, key=lambda row: row[1])
    full = len(body.encode())
    label = "the file" if database.is_sqlite else "the database"
    print(
        f"  storage per revision, after a checkpoint: {label} {grown.total / count:,.0f} "
        f"bytes, the revisions table {grown.revisions / count:,.0f} bytes; a full copy "
        f"{full:,} bytes ({snapshots} of the {len(chains)} versions are kept whole, one "
        f"at least every {delta.MAX_CHAIN:,})"
    )
    first = median_ms(partial(revisions.read_revision, admin, address=address, version=1), repeat)
    deepest = median_ms(
        partial(revisions.read_revision, admin, address=address, version=longest_at), repeat
    )
    print(
        f"  reading version 1: {first:.2f} ms; version {longest_at}, rebuilt through "
        f"{longest} deltas: {deepest:.2f} ms (medians of {repeat})"
    )


def save_one_edit(admin: members.Member, address: str, counter: Iterator[int]) -> None:
    line = f"Line {next(counter)}."
    editing.edit_page(admin, address=address, edits=parse_edits([{"op": "append", "text": line}]))


def sqlite_floor(path: Path) -> Callable[[str], Callable[[], None]]:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE floor (id INTEGER PRIMARY KEY, body TEXT)")

    def make(body: str) -> Callable[[], None]:
        def run() -> None:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO floor (body) VALUES (?)", (body,))
            conn.execute("COMMIT")

        return run

    return make


def postgres_floor(url: str) -> Callable[[str], Callable[[], None]]:
    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=False)
    conn.execute("CREATE TABLE floor (id serial PRIMARY KEY, body text)")
    conn.commit()

    def make(body: str) -> Callable[[], None]:
        def run() -> None:
            conn.execute("INSERT INTO floor (body) VALUES (%s)", (body,))
            conn.commit()

        return run

    return make


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--revisions", type=int, default=1000, help="edits of the 1 MB page")
    args = parser.parse_args()
    bench_engine(args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite:///{tmp}/bench.db")
        db.migrate()
        bench_save("SQLite", db, sqlite_floor(Path(tmp) / "floor.db"), args.repeat, args.revisions)
    name = f"codna_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = sa.make_url(args.postgres).set(database=name).render_as_string(False)
    try:
        db = Database(url)
        db.migrate()
        bench_save("PostgreSQL", db, postgres_floor(url), args.repeat, args.revisions)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
