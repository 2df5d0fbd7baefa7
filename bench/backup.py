"""`codna backup` on SQLite while edits go on: how long the copy of a workspace takes, and what
the edits made meanwhile wait, beside the same edits with no backup running.

A workspace of --pages pages of --page-kb KiB each is made through the services in a temporary
folder; a thread edits one page through the services without pause (one append per
transaction), first alone for --baseline seconds, then while the backup service copies the
database into a new file. The copy is then checked with SQLite's integrity_check and the
workspace check (every version rebuilds to its SHA-256).

    .venv/bin/python bench/backup.py [--pages 2000] [--page-kb 32]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path

from codna.markdown.edits import parse_edits
from codna.services.admin import backup, integrity
from codna.services.context import close_database, open_database
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.pages import editing, pages

BUSY = "wiki:busy"


def page_body(n: int, kib: int) -> str:
    """A page of about `kib` KiB: sections of a few paragraphs."""
    section = f"## Section {{}} of page {n}\n\n" + "A line of text that says little. " * 30 + "\n\n"
    count = max(1, kib * 1024 // len(section))
    return "".join(section.format(s) for s in range(count))


class Editor:
    """Edits the busy page, one append per transaction, recording how long each took."""

    def __init__(self, actor: Member) -> None:
        self.actor = actor
        self.latencies: list[tuple[float, float]] = []  # (start, seconds)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        n = 0
        while not self.stop.is_set():
            n += 1
            edits = parse_edits([{"op": "append", "text": f"Edit {n}."}])
            started = time.perf_counter()
            editing.edit_page(self.actor, address=BUSY, edits=edits)
            self.latencies.append((started, time.perf_counter() - started))

    def between(self, start: float, end: float) -> list[float]:
        return [took for at, took in self.latencies if start <= at < end]


def describe(name: str, took: list[float]) -> str:
    ms = sorted(t * 1000 for t in took)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{name:28} {len(ms):6} edits  p50 {statistics.median(ms):6.1f} ms  "
        f"p99 {p99:6.1f} ms  max {ms[-1]:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--page-kb", type=int, default=32)
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds of edits alone")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(f"sqlite:///{folder}/codna.db")
        ada = members.init_workspace(admin_email="ada@example.com", admin_password="x" * 12)
        made = time.perf_counter()
        for n in range(options.pages):
            body = page_body(n, options.page_kb)
            pages.create_page(ada, address=f"wiki:filler/{n:05}", title=f"Page {n}", body=body)
        pages.create_page(ada, address=BUSY, title="Busy", body="# Busy\n")
        print(
            f"Made {options.pages} pages of {options.page_kb} KiB in "
            f"{time.perf_counter() - made:.1f} s."
        )
        with db.engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        size = Path(folder, "codna.db").stat().st_size
        editor = Editor(ada)
        editor.thread.start()
        alone_from = time.perf_counter()
        time.sleep(options.baseline)  # a bench, not a test: the edits run for this long
        alone_to = began = time.perf_counter()
        copied = backup.backup_workspace(ada, target=Path(folder, "copy.db"))
        ended = time.perf_counter()
        editor.stop.set()
        editor.thread.join()
        seconds = ended - began
        print(
            f"Backed up {size / 2**20:,.1f} MiB ({copied.pages:,} pages of the database) in "
            f"{seconds:.2f} s: {size / 2**20 / seconds:,.0f} MiB/s, while edits went on."
        )
        print(describe("edits alone", editor.between(alone_from, alone_to)))
        print(describe("edits during the backup", editor.between(began, ended)))
        with closing(sqlite3.connect(copied.file)) as conn:
            said = conn.execute("PRAGMA integrity_check").fetchall()
        close_database()
        open_database(f"sqlite:///{copied.file}")
        checked = integrity.check_workspace(members.first_admin())
        close_database()
        print(
            f"The copy: integrity_check {said[0][0]}; codna check "
            f"{'ok' if checked.ok else 'DAMAGED'} ({checked.versions:,} versions of "
            f"{checked.pages:,} pages)."
        )


if __name__ == "__main__":
    main()
