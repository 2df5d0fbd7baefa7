"""Workers as real processes: two `codna worker` processes share one PostgreSQL outbox and
run each of 1,000 events exactly once; a worker killed with SIGKILL mid-run loses no event;
`codna serve` runs a worker of its own unless CODNA_WORKER=0; SIGTERM stops a worker cleanly.

The routine they run is tests/worker/recording.py, named to each process in
CODNA_WORKER_HANDLERS: it appends each event it finished to a file.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa

from codna.services.admin import transfer
from codna.services.context import use_database
from codna.services.events import automations
from codna.services.members import members
from codna.storage.database import Database
from codna.storage.schema import outbox as outbox_table
from tests.conftest import ROLES, Workspace, fresh_database, seed, unique
from tests.server.conftest import CODNA, running_server, server_env, stop
from tests.waiting import eventually
from tests.worker import recording

ROOT = Path(__file__).parents[2]
FOLDER = "raw:load/"
EVENTS = 1000
# How long a wait may go without getting anywhere (see wait_for).
DEADLINE = 120.0
# A lease short enough that a killed worker's event is soon taken again; only for the test of
# that. Elsewhere the lease is long, so that no stall of a busy machine lets the other worker
# take an event still running, which would run it twice.
SHORT_LEASE = "2"
LEASE = "60"


@contextmanager
def services_on(url: str) -> Iterator[Database]:
    database = Database(url)
    use_database(database)
    try:
        yield database
    finally:
        use_database(None)
        database.dispose()


def watch(url: str, folder: str = FOLDER) -> None:
    """The writer's automation: `record` on every page created under `folder`."""
    with services_on(url):
        writer = members.member_by_handle(ROLES["writer"])
        automations.add(writer, event="document.created", folder=folder, routine=recording.ROUTINE)


def import_pages(url: str, names: list[str], folder: str = FOLDER) -> None:
    """Import one page per name, in one transaction, as the writer."""
    with services_on(url):
        writer = members.member_by_handle(ROLES["writer"])
        documents = [transfer.Document(f"{name}.md", f"# {name}\n") for name in names]
        transfer.import_documents(writer, documents=documents, folder=folder)


def event_rows(url: str) -> list[sa.Row[tuple[int, str | None, int, bool]]]:
    with services_on(url) as database, database.read() as conn:
        return list(
            conn.execute(
                sa.select(
                    outbox_table.c.id,
                    outbox_table.c.taken_by,
                    outbox_table.c.attempts,
                    outbox_table.c.done_at.is_not(None),
                ).order_by(outbox_table.c.id)
            )
        )


def recorded(path: Path) -> list[tuple[int, int]]:
    """Each finished run: its event's id and the process that ran it."""
    if not path.exists():
        return []
    return [(int(e), int(p)) for e, p in (line.split() for line in path.read_text().splitlines())]


def wait_for(
    condition: Callable[[], bool],
    what: str,
    logs: Path,
    *,
    alive: Sequence[subprocess.Popen[bytes]] = (),
    progress: Callable[[], object] | None = None,
) -> None:
    """Wait until `condition()` holds; a failure shows the processes' logs. It fails at once
    if one of the processes `alive` names has exited (waiting on would only wait out the
    deadline), and, with `progress`, only once that has stopped changing for DEADLINE
    seconds: how long a thousand events take depends on how busy the machine is."""

    def shown() -> str:
        return "\n".join(f"{p.name}:\n{p.read_text()}" for p in sorted(logs.glob("*.log")))

    def probe() -> bool:
        for process in alive:
            if process.poll() is not None:
                pytest.fail(
                    f"{what}: process {process.pid} exited with {process.returncode}\n{shown()}"
                )
        return condition()

    eventually(what, probe, deadline=DEADLINE, explain=shown, progress=progress)


def handler_env(record: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {
        "CODNA_WORKER_HANDLERS": "tests.worker.recording",
        recording.RECORD: str(record),
        "PYTHONPATH": str(ROOT),
        **(extra or {}),
    }


@contextmanager
def worker_processes(
    url: str, record: Path, logs: Path, *names: str, lease: str = LEASE
) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`codna worker --name NAME` for each name, on the workspace at `url`, all started at
    once, until the block ends."""
    processes = []
    try:
        for name in names:
            with (logs / f"{name}.log").open("wb") as out:
                processes.append(
                    subprocess.Popen(
                        [CODNA, "worker", "--name", name, "--lease", lease, "--poll", "0.2"],
                        env=server_env(url, handler_env(record)),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                        cwd=ROOT,
                    )
                )
        for name, process in zip(names, processes, strict=True):
            log = logs / f"{name}.log"
            wait_for(
                lambda log=log: "CoDNA worker" in log.read_text(),  # type: ignore[misc]
                f"{name} starting",
                logs,
                alive=[process],
            )
        yield processes
    finally:
        for process in processes:
            stop(process)


@pytest.fixture
def workspace(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workspace]:
    """A fresh PostgreSQL workspace with the team and the writer's automation on raw:load/."""
    with fresh_database("postgresql", request, tmp_path_factory) as url:
        made = seed(url, spare=())
        watch(url)
        yield made


def test_two_worker_processes_run_each_of_a_thousand_events_exactly_once(
    workspace: Workspace, tmp_path: Path
) -> None:
    record = tmp_path / "record.txt"
    url = workspace.url
    with worker_processes(url, record, tmp_path, "one", "two") as both:
        for batch in range(10):
            import_pages(url, [f"b{batch}-{n}" for n in range(EVENTS // 10)])
        wait_for(
            lambda: len(recorded(record)) >= EVENTS,
            "every event recorded",
            tmp_path,
            alive=both,
            progress=lambda: len(recorded(record)),
        )
        wait_for(
            lambda: all(row[3] for row in event_rows(url)),
            "every event done",
            tmp_path,
            alive=both,
        )
        pids = {process.pid for process in both}
    runs = recorded(record)
    ids = [row[0] for row in event_rows(url)]
    assert len(ids) == EVENTS
    assert Counter(event_id for event_id, _ in runs) == Counter(ids)  # each once, none more
    assert {pid for _, pid in runs} == pids  # both took part
    assert {row[1] for row in event_rows(url)} == {"one", "two"}
    assert {row[2] for row in event_rows(url)} == {1}


def test_a_worker_killed_mid_run_loses_no_event_and_the_other_runs_it_after_the_lease(
    workspace: Workspace, tmp_path: Path
) -> None:
    record = tmp_path / "record.txt"
    marker = recording.hang_marker(record)
    url = workspace.url
    with worker_processes(url, record, tmp_path, "one", "two", lease=SHORT_LEASE) as both:
        one, two = both
        import_pages(url, ["hang"])
        wait_for(marker.exists, "a worker running the hanging routine", tmp_path, alive=both)
        wait_for(lambda: marker.read_text().endswith("\n"), "its process id", tmp_path)
        hung = int(marker.read_text())
        survivor = {one.pid: two, two.pid: one}[hung]
        os.kill(hung, signal.SIGKILL)
        import_pages(url, [f"after-{n}" for n in range(100)])
        wait_for(
            lambda: len(recorded(record)) >= 101,
            "every event recorded",
            tmp_path,
            alive=[survivor],
            progress=lambda: len(recorded(record)),
        )
        wait_for(
            lambda: all(row[3] for row in event_rows(url)),
            "every event done",
            tmp_path,
            alive=[survivor],
        )
    rows = event_rows(url)
    runs = recorded(record)
    assert Counter(event_id for event_id, _ in runs) == Counter(row[0] for row in rows)
    assert {pid for _, pid in runs} == {survivor.pid}
    hang_event = rows[0]
    assert hang_event[2] == 2  # taken by the killed worker, then again after its lease


def test_a_worker_stops_on_sigterm_with_a_clean_exit(workspace: Workspace, tmp_path: Path) -> None:
    record = tmp_path / "record.txt"
    with worker_processes(workspace.url, record, tmp_path, "alone") as [process]:
        import_pages(workspace.url, ["one"])
        wait_for(
            lambda: len(recorded(record)) == 1, "the event recorded", tmp_path, alive=[process]
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=DEADLINE) == 0
    assert "CoDNA worker stopped: 1 done, 0 failed." in (tmp_path / "alone.log").read_text()


@pytest.mark.parametrize("engine", ["sqlite"])
def test_codna_serve_runs_a_worker_unless_told_not_to(
    engine: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
) -> None:
    record = tmp_path / "record.txt"
    with fresh_database(engine, request, tmp_path_factory) as url:
        workspace = seed(url, spare=())
        watch(url, "wiki:watched/")
        with running_server(workspace, engine, tmp_path, env=handler_env(record)) as server:
            server.create_page(unique("wiki:watched/"), "# One\n")
            wait_for(lambda: len(recorded(record)) == 1, "serve's worker ran it", tmp_path)
            [(_, pid)] = recorded(record)
            assert pid == server.process.pid
        off = handler_env(record, {"CODNA_WORKER": "0"})
        with running_server(workspace, engine, tmp_path, env=off) as server:
            server.create_page(unique("wiki:watched/"), "# Two\n")
            with worker_processes(url, record, tmp_path, "alone") as alone:
                wait_for(
                    lambda: len(recorded(record)) == 2,
                    "the worker alone ran it",
                    tmp_path,
                    alive=alone,
                )
        last = event_rows(url)[-1]
        assert last[1] == "alone"


def test_a_handlers_module_that_cannot_be_imported_is_refused_before_serving(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'codna.db'}"
    subprocess.run(
        [CODNA, "init", "--admin-email", "a@example.com", "--admin-password", "correct horse"],
        env=server_env(url),
        check=True,
        capture_output=True,
    )
    # Both at once: each costs seconds of start-up before it refuses.
    started = [
        subprocess.Popen(
            [CODNA, *command],
            env=server_env(url, {"CODNA_WORKER_HANDLERS": "tests.no_such_module"}),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        for command in (["worker"], ["serve", "--port", "0"])
    ]
    for refused in started:
        try:
            stderr = refused.communicate(timeout=60)[1].decode()
        finally:
            stop(refused)  # a no-op once it has exited
        assert refused.returncode == 1, stderr
        assert stderr.startswith(
            "invalid_request: The handlers' module tests.no_such_module cannot be imported"
        ), stderr
