"""A run ends with its owner, on SQLite and PostgreSQL: its token expires at its routine's time
limit and a margin even if nobody ends the run; a worker that starts closes the runs a dead
process of this host left running, revokes their tokens and kills their commands; it leaves
a live owner's run alone, and another host's until its token expired."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import anyio
import pytest

from codna import runner
from codna.errors import Unauthenticated
from codna.services.events import runs
from codna.services.events.runs import Owner, Started
from codna.services.members import tokens
from codna.storage.database import Database
from codna.storage.schema import runs as runs_table
from codna.worker import Worker, loop
from codna.worker.orphans import close_orphaned_runs
from tests.services.conftest import Team
from tests.waiting import eventually
from tests.worker.test_loop import DEADLINE, NEVER, running, until

ON = "wiki:decisions/0001"


def dead_pid() -> int:
    """The id of a process that has ended (and been reaped): no process has it now."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    return gone.pid


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """A command left running: `sleep 600` in a session (and process group) of its own."""
    process = subprocess.Popen(["sleep", "600"], start_new_session=True)
    yield process
    if process.poll() is None:
        process.kill()
    process.wait()


def owned_by(db: Database, run_id: int, **owner: object) -> None:
    """The run as if another process (or host) had started it: its recorded owner changed."""
    with db.write() as conn:
        conn.execute(runs_table.update().where(runs_table.c.id == run_id).values(**owner))


def start(team: Team, routine: str = "decision-check") -> Started:
    return runs.start_run(team.writer, routine=routine, address=ON)


def at(monkeypatch: pytest.MonkeyPatch, module: str, moment: datetime) -> None:
    monkeypatch.setattr(f"codna.services.{module}.now", lambda: moment)


def test_a_run_token_works_until_its_time_limit_and_margin_and_then_is_refused(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs.add_routine(team.admin, name="slow-check", command="sleep 1", timeout_seconds=30)
    started = start(team, "slow-check")
    expiry = started.run.started_at + timedelta(seconds=30) + runs.TOKEN_MARGIN
    at(monkeypatch, "members.tokens", expiry - timedelta(seconds=1))
    assert tokens.authenticate_token(started.secret).member.via == "slow-check"
    at(monkeypatch, "members.tokens", expiry)
    with pytest.raises(Unauthenticated) as refused:
        tokens.authenticate_token(started.secret)
    assert refused.value.code == "unauthenticated"
    assert refused.value.message == "The token is wrong or revoked."


def test_a_built_in_routines_token_expires_at_the_default_time_limit_and_margin(
    team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = start(team)
    limit = timedelta(seconds=runs.DEFAULT_TIMEOUT) + runs.TOKEN_MARGIN
    at(monkeypatch, "members.tokens", started.run.started_at + limit - timedelta(seconds=1))
    tokens.authenticate_token(started.secret)
    at(monkeypatch, "members.tokens", started.run.started_at + limit)
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(started.secret)


@pytest.mark.anyio
async def test_a_worker_that_starts_closes_a_run_whose_server_died_and_its_token_is_refused(
    team: Team, db: Database
) -> None:
    started = start(team)
    owned_by(db, started.run.id, pid=dead_pid())
    async with running(db, Worker(poll_interval=NEVER)):
        await until(
            lambda: runs.read_run(team.writer, run_id=started.run.id).status != "running",
            "the run closed",
        )
    closed = runs.read_run(team.writer, run_id=started.run.id)
    assert closed.status == "failed" and closed.ended_at is not None
    assert closed.error is not None and closed.error.startswith("its server stopped while it ran")
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(started.secret)


def test_the_command_a_dead_server_left_running_is_killed_with_its_group(
    team: Team, db: Database, sleeper: subprocess.Popen[bytes]
) -> None:
    started = start(team)
    owned_by(db, started.run.id, pid=dead_pid(), command_pid=sleeper.pid)
    [closed] = close_orphaned_runs()
    assert closed.id == started.run.id and closed.status == "failed"
    assert sleeper.wait(timeout=DEADLINE) == -signal.SIGKILL


def test_a_live_owners_run_and_its_command_are_left_alone(
    team: Team, sleeper: subprocess.Popen[bytes]
) -> None:
    started = start(team)  # owned by this process, which lives
    runs.record_command(started.run.id, sleeper.pid)
    assert close_orphaned_runs() == []
    assert runs.read_run(team.writer, run_id=started.run.id).status == "running"
    assert tokens.authenticate_token(started.secret).member.via == "decision-check"
    assert sleeper.poll() is None


def test_another_hosts_run_is_closed_only_once_its_token_expired_and_its_command_spared(
    team: Team, db: Database, sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    started = start(team)
    owned_by(db, started.run.id, host="elsewhere", pid=dead_pid(), command_pid=sleeper.pid)
    assert close_orphaned_runs() == []
    expiry = started.run.started_at + timedelta(seconds=runs.DEFAULT_TIMEOUT) + runs.TOKEN_MARGIN
    at(monkeypatch, "events.runs", expiry)
    [closed] = close_orphaned_runs()
    assert closed.id == started.run.id and closed.status == "failed"
    assert closed.error is not None and "its token expired" in closed.error
    assert sleeper.poll() is None  # another host's process group is not this host's to kill


@pytest.mark.anyio
async def test_a_command_routine_records_its_process_group_while_it_runs(team: Team) -> None:
    await anyio.to_thread.run_sync(
        lambda: runs.add_routine(team.admin, name="sleeper", command="sleep 600")
    )
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(runner.run, "sleeper", team.writer, ON)

        def recorded() -> bool:
            return any(o.command_pid is not None for o in runs.running_owners())

        await until(recorded, "the command's process group recorded")
        [owner] = await anyio.to_thread.run_sync(runs.running_owners)
        assert owner.command_pid is not None
        with open(f"/proc/{owner.command_pid}/cmdline", "rb") as cmdline:
            assert cmdline.read().split(b"\0")[:2] == [b"sleep", b"600"]
        tasks.cancel_scope.cancel()  # the run ends: its command killed, its end recorded
    [ended] = await anyio.to_thread.run_sync(lambda: runs.list_runs(team.writer))
    assert ended.status == "failed" and ended.error == "stopped before it ended"


def _gone(pid: int) -> bool:
    """Whether the process has ended (a zombie not yet reaped by its new parent has too)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_routine_run_whose_process_was_killed_is_closed_and_its_command_killed(
    team: Team, db: Database, tmp_path: Path
) -> None:
    keep = tmp_path / "token"  # the command keeps its token where the test can try it
    command = f"sh -c 'echo $CODNA_TOKEN > {keep}; exec sleep 600'"
    runs.add_routine(team.admin, name="sleeper", command=command)
    env = {**os.environ, "CODNA_DATABASE_URL": db.url.render_as_string(hide_password=False)}
    by_hand = [sys.executable, "-c", "from codna.cli import main; main()", "routine", "run"]
    owner = subprocess.Popen(
        [*by_hand, "sleeper", "--on", ON, "--as", team.writer.email or ""],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    found: list[Owner] = []

    def spawned() -> bool:
        found[:] = [o for o in runs.running_owners() if o.command_pid is not None]
        return bool(found)

    try:
        eventually("the run's command spawned", spawned, deadline=DEADLINE)
        [run] = found
        group = run.command_pid
        assert run.pid == owner.pid and group is not None
        eventually(
            "the token kept",
            lambda: keep.exists() and keep.read_text().endswith("\n"),
            deadline=DEADLINE,
        )
        secret = keep.read_text().strip()
        assert tokens.authenticate_token(secret).member.via == "sleeper"
        owner.kill()  # the run's server dies mid-run: nothing ends the run, nor its command
        owner.wait()
        assert not _gone(group)
        [closed] = close_orphaned_runs()
        assert closed.id == run.run_id and closed.status == "failed"
        assert closed.error == (
            f"its server stopped while it ran (process {owner.pid} on {run.host})"
        )
        eventually("the orphaned command killed", lambda: _gone(group), deadline=DEADLINE)
        with pytest.raises(Unauthenticated):
            tokens.authenticate_token(secret)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait()
        for left in found:  # the command, if the sweep did not kill it
            if left.command_pid:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(left.command_pid, signal.SIGKILL)


@pytest.mark.anyio
async def test_a_running_worker_closes_a_run_left_behind_after_it_started(
    team: Team, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "ORPHANS_EVERY", 0.2)
    doer = Worker(poll_interval=0.05)
    async with running(db, doer):
        await until(lambda: doer.waiting, "the worker waits")  # its start's sweep is done
        started = start(team)
        owned_by(db, started.run.id, pid=dead_pid())
        await until(
            lambda: runs.read_run(team.writer, run_id=started.run.id).status != "running",
            "the run left behind closed while the worker ran",
        )
    with pytest.raises(Unauthenticated):
        tokens.authenticate_token(started.secret)
