"""How many events a worker runs per second, and how soon a routine starts after a page is saved.

Throughput: a backlog of events under a folder an automation watches, run by one worker in
this process; the figure is events run and marked done per second, for a routine that does
nothing (a registered handler, run in a thread of its own as every plain routine is) and for
a coroutine handle that does nothing (no thread), beside the rate at which a claim marks done
events that no automation watches.

Delay: `codna serve` on a loopback port with its own worker, and an automation on the folder
a page is created in; each page is made through the JSON API one after another, and the
figure is the time from sending the request to the routine's start (the handler writes the
moment it starts; the clock is the machine's monotonic one, the same in both processes).
Median and p90, beside the save's own round trip.

This file is also the handlers' module the server imports (CODNA_WORKER_HANDLERS=outbox).

Run: .venv/bin/python bench/outbox.py [--events 2000] [--saves 50] [--postgres [URL]]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import anyio
import httpx

sys.path.insert(0, str(Path(__file__).parent))
from codna import worker
from codna.services.admin import transfer
from codna.services.context import use_database
from codna.services.events import automations, outbox
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.services.members import access, members, tokens
from codna.storage.database import Database
from server import free_port, throwaway_postgres

ROUTINE = "bench-nothing"
STARTS = "CODNA_BENCH_STARTS"
POSTGRES_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
CODNA = str(Path(sys.executable).parent / "codna")
BATCH = 500  # pages per import
WARMUP_SAVES = 5


def nothing(event: Event, automation: Automation) -> None:
    """The routine that does nothing; in the server, it writes when it started."""
    starts = os.environ.get(STARTS)
    if starts:
        with open(starts, "a") as out:
            out.write(f"{event.path} {time.monotonic()}\n")


worker.register(ROUTINE, nothing)


# -- the workspace ----------------------------------------------------------------------------


@contextmanager
def services_on(url: str) -> Iterator[Database]:
    database = Database(url)
    use_database(database)
    try:
        yield database
    finally:
        use_database(None)
        database.dispose()


def seed(url: str) -> str:
    """A writer on wiki and raw with a token (its secret), and their automations on
    raw:bench/ and wiki:watched/."""
    with services_on(url) as database:
        database.migrate()
        admin = members.init_workspace(admin_email="ada@example.com", admin_password="bench-pw")
        writer = members.add_person(admin, email="wanda@example.com", name="Wanda")
        for space in ("wiki", "raw"):
            access.share(admin, address=space, member="wanda@example.com", level="write")
        for folder in ("raw:bench/", "wiki:watched/"):
            automations.add(writer, event="document.created", folder=folder, routine=ROUTINE)
        return tokens.create_token(admin, member="wanda@example.com", name="bench").secret


def backlog(url: str, folder: str, count: int) -> None:
    """`count` new pages under `folder` (imports of BATCH pages each): as many events."""
    with services_on(url):
        writer = members.member_by_handle("wanda@example.com")
        for start in range(0, count, BATCH):
            names = range(start, min(start + BATCH, count))
            documents = [transfer.Document(f"{uuid.uuid4().hex}.md", f"# {n}\n") for n in names]
            transfer.import_documents(writer, documents=documents, folder=folder)


# -- throughput -------------------------------------------------------------------------------


async def drain(handle: worker.Handle | None, count: int, unwatched: bool = False) -> float:
    """Seconds one worker takes to run `count` waiting events."""
    doer = worker.Worker(handle, lease=timedelta(seconds=60))
    begun = time.perf_counter()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(doer.run)
        if unwatched:  # swept by the claims, never run: none counts as done by the worker
            while await anyio.to_thread.run_sync(outbox.next_due) is not None:
                await anyio.sleep(0.002)
        else:
            while doer.done < count:
                await anyio.sleep(0.002)
        ended = time.perf_counter()
        tasks.cancel_scope.cancel()
    return ended - begun


async def coroutine_nothing(event: Event, found: list[Automation]) -> None:
    return None


def throughput(label: str, url: str, count: int) -> list[str]:
    lines = []
    runs: list[tuple[str, str, worker.Handle | None, bool]] = [
        ("routine that does nothing (thread)", "raw:bench/", None, False),
        ("coroutine that does nothing", "raw:bench/", coroutine_nothing, False),
        ("events no automation watches", "raw:other/", None, True),
    ]
    for name, folder, handle, unwatched in runs:
        backlog(url, folder, count)
        with services_on(url):
            seconds = anyio.run(drain, handle, count, unwatched)
        lines.append(f"{label:10} {name:38} {count:>6} {count / seconds:>9,.0f}")
    return lines


# -- delay through a real server --------------------------------------------------------------


@contextmanager
def serving(url: str, starts: Path, log: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
    env.update(
        {
            "CODNA_DATABASE_URL": url,
            "CODNA_RATE_LIMIT": "1000000000",
            "CODNA_WORKER_HANDLERS": "outbox",
            STARTS: str(starts),
            "PYTHONPATH": str(Path(__file__).parent),
        }
    )
    with log.open("wb") as out:
        process = subprocess.Popen(
            [CODNA, "serve", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 60
        while True:
            if process.poll() is not None or time.monotonic() > end:
                raise SystemExit(f"codna serve did not start:\n{log.read_text()}")
            try:
                httpx.get(f"{base}/api/v1/me", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def started_at(starts: Path) -> dict[str, float]:
    if not starts.exists():
        return {}
    found = {}
    for line in starts.read_text().splitlines():
        path, at = line.split()
        found[path] = float(at)
    return found


def delays(label: str, url: str, secret: str, saves: int, logs: Path) -> list[str]:
    starts = logs / f"starts-{uuid.uuid4().hex}.txt"
    delay_ms, save_ms = [], []
    with (
        serving(url, starts, logs / f"serve-{label}.log") as base,
        httpx.Client(base_url=base, headers={"Authorization": f"Bearer {secret}"}) as client,
    ):
        for n in range(WARMUP_SAVES + saves):
            path = f"watched/{uuid.uuid4().hex}"
            sent = time.monotonic()
            made = client.post(
                "/api/v1/pages", json={"address": f"wiki:{path}", "title": "T", "body": "# T\n"}
            )
            answered = time.monotonic()
            assert made.status_code == 201, made.text
            end = answered + 10
            while path not in (seen := started_at(starts)):
                if time.monotonic() > end:
                    raise SystemExit(f"the routine did not start for {path}")
                time.sleep(0.0005)
            if n >= WARMUP_SAVES:
                delay_ms.append((seen[path] - sent) * 1000)
                save_ms.append((answered - sent) * 1000)
    return [
        f"{label:10} save to routine's start {median(delay_ms):>8.1f} {p90(delay_ms):>8.1f}"
        f"   (the save's own round trip: {median(save_ms):.1f} / {p90(save_ms):.1f})"
    ]


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


# -- the run ----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="events in each backlog")
    parser.add_argument("--saves", type=int, default=50, help="pages saved to time the delay")
    parser.add_argument("--postgres", nargs="?", const=POSTGRES_ADMIN, metavar="ADMIN_URL")
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores. Target: a routine starts within 1 s (median) of a save.\n")
    throughputs, delayed = [], []
    with tempfile.TemporaryDirectory() as tmp, postgres(options.postgres) as pg:
        logs = Path(tmp)
        engines = [("sqlite", f"sqlite:///{logs / 'bench.db'}")]
        engines += [("postgresql", pg)] if pg else []
        for label, url in engines:
            secret = seed(url)
            throughputs += throughput(label, url, options.events)
            delayed += delays(label, url, secret, options.saves, logs)
    print(f"{'database':10} {'one worker runs':38} {'events':>6} {'events/s':>9}")
    print("\n".join(throughputs))
    print(f"\n{'database':10} {'delay, ms':24} {'median':>8} {'p90':>8}")
    print("\n".join(delayed))


@contextmanager
def postgres(admin_url: str | None) -> Iterator[str | None]:
    """A throwaway PostgreSQL database when asked for one, else None."""
    if not admin_url:
        yield None
        return
    with throwaway_postgres(admin_url) as url:
        yield url


if __name__ == "__main__":
    main()
