"""How fast `pending_decisions` is for an editor of everything, with 10,000 pending suggested
links over 1,000 pages: its first page of 50 items and the total, median and p99, on SQLite and
PostgreSQL. Run: .venv/bin/python bench/inbox.py [--postgres URL] [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from codna.services.context import use_database
from codna.services.inbox import inbox
from codna.services.members import access, members
from codna.services.pages import pages
from codna.storage.database import Database
from codna.storage.schema import link_suggestions

PAGES = 1000
LINKS = 10_000


def seed(db: Database) -> members.Member:
    """Pages through the services; the links in bulk (making 10,000 one by one says nothing
    about reading them)."""
    use_database(db)
    admin = members.init_workspace(admin_email="admin@example.com", admin_password="bench-pass")
    editor = members.add_person(admin, email="editor@example.com", name="Editor")
    agent = members.add_agent(admin, name="bench-agent", responsible=["admin@example.com"])
    access.share(admin, address="wiki", member="editor@example.com", level="write")
    access.share(admin, address="wiki", member="bench-agent", level="read")
    ids = []
    for n in range(PAGES):
        page = pages.create_page(admin, address=f"wiki:folder{n % 10}/page{n}", title=f"Page {n}")
        ids.append(n + 1)
        del page
    start = datetime.now(UTC)
    rows = [
        {
            "page_id": ids[k % PAGES],
            "target_page_id": ids[(k % PAGES + 1 + k // PAGES) % PAGES],
            "reason": f"Link {k} is related.",
            "suggester_id": agent.id,
            "status": "pending",
            "created_at": start + timedelta(milliseconds=k),
        }
        for k in range(LINKS)
    ]
    with db.write() as conn:
        conn.execute(link_suggestions.insert(), rows)
    if not db.is_sqlite:  # what autovacuum would do soon after a bulk load
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(sa.text("ANALYZE"))
    return editor


def measure(name: str, db: Database, repeat: int) -> None:
    editor = seed(db)
    first = inbox.pending_decisions(editor, limit=50)
    assert first.total == LINKS and len(first.suggested_links.items) == 50, first.total
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        inbox.pending_decisions(editor, limit=50)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    median = statistics.median(times)
    print(f"{name:>10}  median {median:7.2f} ms   p99 {p99:7.2f} ms   ({repeat} runs)")
    db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print(f"pending_decisions, first 50 of {LINKS} pending links over {PAGES} pages")
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(f"sqlite:///{tmp}/bench.db")
        db.migrate()
        measure("SQLite", db, args.repeat)
    name = f"codna_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        db = Database(sa.make_url(args.postgres).set(database=name).render_as_string(False))
        db.migrate()
        measure("PostgreSQL", db, args.repeat)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


if __name__ == "__main__":
    main()
