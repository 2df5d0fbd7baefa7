"""Migration 0012 (revisions as deltas) on a copy of a workspace with 10,000 revisions, killed
halfway with SIGKILL and run again, on SQLite and PostgreSQL.

A workspace is made through the services (pages of 2 KB to 200 KB, each edited many times),
its text of every version kept aside by SHA-256, then taken back to 0011 (every version whole,
as a workspace saved before 0012 is) and copied. On the copy, `codna check` (which migrates
the workspace before it checks) runs in a child process; once at least a third of the
revisions are converted and before all are, the child is killed with SIGKILL. Then `codna
check` runs again to the end: it converts what is left and rebuilds every version of every
page to its SHA-256. The script also reads every version back through the services and
compares it with the text kept aside.

Printed: revisions, how many were converted when the kill came, the times of both runs, what
`codna check` said, the size of the revisions table and of the database whole and as deltas
(after VACUUM on SQLite, VACUUM FULL revisions on PostgreSQL, which give the copies' space back).

Run: .venv/bin/python bench/migration.py [--revisions 10000] [--postgres URL]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from codna.markdown import delta
from codna.markdown.edits import parse_edits
from codna.services.context import use_database
from codna.services.members import members
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import reverts
from codna.storage.database import MIGRATIONS, Database
from storage import Size, size

PAGES = 20
ADMIN = "bench@example.com"


def make_workspace(db: Database, count: int) -> dict[tuple[str, int], str]:
    """PAGES pages and `count` revisions in all, made through the services; the SHA-256 of
    every version's text, by address and version."""
    use_database(db)
    admin = members.init_workspace(admin_email=ADMIN, admin_password="bench-password")
    chance = random.Random(14)
    kept: dict[tuple[str, int], str] = {}
    addresses = []
    for n in range(PAGES):
        size = 2_000 * 10 ** (n % 3)  # 2 KB, 20 KB, 200 KB
        body = "".join(
            f"## Part {k}\n\nParagraph {k} of page {n} says a thing.\n\n" for k in range(size // 45)
        )
        address = f"wiki:migration/page-{n}"
        page = pages.create_page(admin, address=address, title=f"Page {n}", body=body)
        kept[address, 1] = delta.digest(page.body)
        addresses.append(address)
    for k in range(count - PAGES):
        address = chance.choice(addresses)
        part = chance.randrange(40)
        if k % 50 == 49:
            latest = pages.read_page(admin, address=address).version
            done = reverts.restore_version(admin, address=address, version=max(1, latest - 3))
        else:
            edit = {
                "op": "insert_after",
                "anchor": f"Paragraph {part} of page {address.rsplit('-', 1)[1]} says",
                "text": f" (edit {k})",
            }
            done = editing.edit_page(admin, address=address, edits=parse_edits([edit]))
        kept[address, done.page.version] = delta.digest(done.page.body)
    return kept


def to_0011(db: Database) -> None:
    with db.engine.connect() as conn:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = conn
        command.downgrade(config, "0011")
        conn.commit()


def converted(db: Database) -> int:
    """Revisions converted so far (0 before the columns are there)."""
    with db.engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("revisions")}
        if "sha256" not in columns:
            return 0
        found = conn.execute(sa.text("SELECT count(*) FROM revisions WHERE sha256 <> ''"))
        return int(found.scalar_one())


def codna_check(url: str) -> subprocess.Popen[str]:
    codna = Path(sys.executable).parent / "codna"
    return subprocess.Popen(
        [str(codna), "check", "--as", ADMIN],
        env={**os.environ, "CODNA_DATABASE_URL": url},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def kill_halfway(db: Database, url: str, total: int) -> tuple[int, float]:
    """Start the migration and kill it once a third is converted; how many were then, and
    after how many seconds."""
    started = time.perf_counter()
    child = codna_check(url)
    deadline = started + 3600
    while time.perf_counter() < deadline:
        done = converted(db)
        if done >= total // 3:
            break
        if child.poll() is not None:
            raise SystemExit(f"the migration ended before it could be killed: {child.stdout}")
        time.sleep(0.01)  # a poll of the database, not a wait for a result
    child.send_signal(signal.SIGKILL)
    child.wait()
    at = converted(db)
    if at >= total:
        raise SystemExit("the kill came after the last batch; run with more revisions")
    return at, time.perf_counter() - started


def read_back(db: Database, kept: dict[tuple[str, int], str]) -> int:
    """Versions whose text read through the services is not the one saved."""
    use_database(db)
    admin = members.member_by_handle(ADMIN)
    wrong = 0
    for (address, version), sha256 in kept.items():
        read = revisions.read_revision(admin, address=address, version=version)
        wrong += delta.digest(read.body or "") != sha256
    return wrong


def vacuumed(db: Database) -> Size:
    """The database's size and its revisions' (table, TOAST, indexes) once the space of the
    full copies is given back: VACUUM on SQLite, VACUUM FULL revisions on PostgreSQL."""
    if db.is_sqlite:
        path = db.url.database
        assert path is not None
        db.dispose()
        with closing(sqlite3.connect(path, isolation_level=None)) as raw:
            raw.execute("VACUUM")
    else:
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM FULL revisions")
    return size(db)


def run(name: str, db: Database, copy: Callable[[], tuple[Database, str]], count: int) -> None:
    started = time.perf_counter()
    db.migrate()
    kept = make_workspace(db, count)
    made = time.perf_counter() - started
    to_0011(db)
    db.dispose()
    target, url = copy()
    whole = vacuumed(target)
    at, killed_after = kill_halfway(target, url, len(kept))
    started = time.perf_counter()
    second = codna_check(url)
    said, _ = second.communicate()
    again = time.perf_counter() - started
    wrong = read_back(target, kept)
    print(f"\n{name}: {len(kept):,} revisions of {PAGES} pages (made in {made:.0f} s)")
    print(f"  killed with SIGKILL after {killed_after:.1f} s, {at:,} revisions converted")
    print(f"  run again: {again:.1f} s to convert the rest and check every version")
    print(f"  codna check (exit {second.returncode}): {said.strip().splitlines()[-1]}")
    print(f"  every version read back through the services: {wrong} differ from what was saved")
    deltas = vacuumed(target)
    print(
        f"  the revisions table: {whole.revisions / 1e6:.1f} MB whole, "
        f"{deltas.revisions / 1e6:.1f} MB as deltas (the database: {whole.total / 1e6:.1f} MB, "
        f"{deltas.total / 1e6:.1f} MB)"
    )
    target.dispose()


@contextmanager
def postgres_databases(url: str) -> Iterator[Callable[..., tuple[str, str]]]:
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    made: list[str] = []

    def new(template: str | None = None) -> tuple[str, str]:
        name = f"codna_bench_{uuid.uuid4().hex[:8]}"
        like = f' TEMPLATE "{template}"' if template else ""
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"{like}'))
        made.append(name)
        return name, sa.make_url(url).set(database=name).render_as_string(False)

    try:
        yield new
    finally:
        with admin.connect() as conn:
            for name in made:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--revisions", type=int, default=10_000)
    parser.add_argument(
        "--postgres", default="postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        original = Path(tmp) / "workspace.db"

        def sqlite_copy() -> tuple[Database, str]:
            shutil.copyfile(original, Path(tmp) / "copy.db")
            url = f"sqlite:///{tmp}/copy.db"
            return Database(url, create=False), url

        run("SQLite", Database(f"sqlite:///{original}"), sqlite_copy, args.revisions)
    with postgres_databases(args.postgres) as new:
        name, url = new()

        def postgres_copy() -> tuple[Database, str]:
            _, copy_url = new(name)
            return Database(copy_url, create=False), copy_url

        run("PostgreSQL", Database(url), postgres_copy, args.revisions)


if __name__ == "__main__":
    main()
