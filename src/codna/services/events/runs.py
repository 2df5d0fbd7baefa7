"""Routines and their runs: a run is one routine's job as a member, on one page, with a token
minted for it and revoked when it ends (ADR 0024 step 3, SPEC 6).

A run's token reads what its member reads and suggests, but never decides, never edits outside
`output` and manages nothing (access.Rights and Member.via); suggestions made with it carry the
routine's name. Command routines (a command line run with the skill, the MCP URL and the
token in its environment) are configured here by an admin; built-in ones need no row.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import RowMapping

from codna.errors import Duplicate, InvalidRequest, NotFound, ReadOnly
from codna.markdown.limits import check_plain_text
from codna.services.addresses import parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.limits import RUNS, check_limit, is_id
from codna.services.members import tokens
from codna.services.members.members import Member, member_by_id_in
from codna.storage.database import inserted_id
from codna.storage.schema import RUN_STATUSES, members, routines, runs
from codna.storage.schema import tokens as tokens_table

_NAME = re.compile(r"[a-z][a-z0-9-]{0,99}")
MAX_OUTPUT = 64 * 1024  # characters of a command's output kept on its run (its end)
MAX_TIMEOUT = 24 * 3600
BUILT_IN = ("decision-check",)  # routines that ship with CoDNA, run in the worker's process
DEFAULT_TIMEOUT = 600  # seconds: a command routine's time limit unless given, a built-in's
# A run's token expires this long after its time limit: time to spawn the command, stop it at
# the limit and record the end. Past it, the run's owner is gone or stuck.
TOKEN_MARGIN = timedelta(seconds=60)


@dataclass(frozen=True)
class Run:
    """One run of a routine, as listed."""

    id: int
    routine: str
    member: str
    address: str
    status: str  # running, succeeded, failed, timed_out
    started_at: datetime
    ended_at: datetime | None
    run_page: str | None
    error: str | None
    output: str | None
    automation_id: int | None
    event_id: int | None


@dataclass(frozen=True)
class Started:
    """A run just begun: the run and its token's secret (given to the routine only)."""

    run: Run
    secret: str


@dataclass(frozen=True)
class CommandRoutine:
    name: str
    command: str
    timeout_seconds: int


def check_routine_name(name: object) -> str:
    """A routine's name: lowercase letters, digits and '-', starting with a letter."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidRequest(
            f"{name!r} is not a routine's name: lowercase letters, digits and '-', starting "
            "with a letter, such as decision-check.",
            field="routine",
        )
    return name


_RUN = sa.select(runs, members.c.email, members.c.name.label("member_name")).join(
    members, members.c.id == runs.c.member_id
)


def _run(row: RowMapping) -> Run:
    return Run(
        id=row["id"],
        routine=row["routine"],
        member=row["email"] or row["member_name"],
        address=row["address"],
        status=row["status"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        run_page=row["run_page"],
        error=row["error"],
        output=row["output"],
        automation_id=row["automation_id"],
        event_id=row["event_id"],
    )


def start_run(
    member: Member,
    *,
    routine: str,
    address: str,
    automation_id: int | None = None,
    event_id: int | None = None,
) -> Started:
    """Begin a run of `routine` as `member` on the page at `address`: its row and its token,
    in one transaction. The run records this host and process as its owner, and its token
    expires at the routine's time limit and TOKEN_MARGIN, so that neither outlives an owner
    that dies mid-run. Raises InvalidRequest, ReadOnly (a run cannot start runs)."""
    check_routine_name(routine)
    where = parse_address(address, want="page")
    if member.via is not None:
        raise ReadOnly("A routine's run cannot start another run.")
    if member.disabled:
        raise ReadOnly(f"{member.handle} is disabled; their routines do not run.")
    with database().write() as conn:
        limit = conn.execute(
            sa.select(routines.c.timeout_seconds).where(routines.c.name == routine)
        ).scalar()
        started_at = now()
        run_id = inserted_id(
            conn.execute(
                runs.insert().values(
                    routine=routine,
                    member_id=member.id,
                    automation_id=automation_id,
                    event_id=event_id,
                    address=str(where),
                    status="running",
                    started_at=started_at,
                    host=socket.gethostname(),
                    pid=os.getpid(),
                )
            )
        )
        expires_at = started_at + timedelta(seconds=limit or DEFAULT_TIMEOUT) + TOKEN_MARGIN
        secret = tokens.mint_run_token(
            conn, member_id=member.id, routine=routine, run_id=run_id, expires_at=expires_at
        )
        row = conn.execute(_RUN.where(runs.c.id == run_id)).mappings().one()
    return Started(_run(row), secret)


def finish_run(
    run_id: int,
    *,
    status: str,
    run_page: str | None = None,
    error: str | None = None,
    output: str | None = None,
) -> Run:
    """End a run with what became of it, and revoke its token, in one transaction."""
    if status not in RUN_STATUSES or status == "running":
        raise InvalidRequest(f"A run ends as {', '.join(RUN_STATUSES[1:])}.", field="status")
    with database().write() as conn:
        conn.execute(
            runs.update()
            .where(runs.c.id == run_id)
            .values(
                status=status,
                ended_at=now(),
                run_page=run_page,
                error=error,
                output=output[-MAX_OUTPUT:] if output else output,
            )
        )
        tokens.revoke_run_token(conn, run_id)
        return _run(conn.execute(_RUN.where(runs.c.id == run_id)).mappings().one())


@dataclass(frozen=True)
class Owner:
    """A run still running and who runs it: its server's host and process, its command's
    process group (once spawned), and whether its token's expiry passed."""

    run_id: int
    host: str | None
    pid: int | None
    command_pid: int | None
    expired: bool


def record_command(run_id: int, command_pid: int) -> None:
    """Record the process group of a running run's command, once spawned: a start after its
    owner died kills it."""
    with database().write() as conn:
        conn.execute(
            runs.update()
            .where(runs.c.id == run_id, runs.c.status == "running")
            .values(command_pid=command_pid)
        )


def running_owners() -> list[Owner]:
    """Every run still running, oldest first, with its owner. A run from before runs had
    owners and expiries expires at the longest time limit there can be."""
    query = (
        sa.select(runs, tokens_table.c.expires_at)
        .outerjoin(tokens_table, tokens_table.c.run_id == runs.c.id)
        .where(runs.c.status == "running")
        .order_by(runs.c.id)
    )
    with database().read() as conn:
        rows = conn.execute(query).mappings().all()
    at, longest = now(), timedelta(seconds=MAX_TIMEOUT) + TOKEN_MARGIN
    return [
        Owner(
            r["id"],
            r["host"],
            r["pid"],
            r["command_pid"],
            (r["expires_at"] or r["started_at"] + longest) <= at,
        )
        for r in rows
    ]


def close_orphaned_run(run_id: int, *, error: str) -> Run | None:
    """End a run its owner left running as failed with `error`, and revoke its token, in one
    transaction; None if it had ended meanwhile (its owner, or another process, ended it)."""
    with database().write() as conn:
        closed = conn.execute(
            runs.update()
            .where(runs.c.id == run_id, runs.c.status == "running")
            .values(status="failed", ended_at=now(), error=error)
        )
        if closed.rowcount != 1:
            return None
        tokens.revoke_run_token(conn, run_id)
        return _run(conn.execute(_RUN.where(runs.c.id == run_id)).mappings().one())


def list_runs(actor: Member, *, routine: str | None = None, limit: int = RUNS.default) -> list[Run]:
    """Runs, newest first: one's own, or everyone's for an admin."""
    check_limit(limit, RUNS)
    query = _RUN.order_by(runs.c.id.desc()).limit(limit)
    if not actor.administers:
        query = query.where(runs.c.member_id == actor.id)
    if routine is not None:
        query = query.where(runs.c.routine == check_routine_name(routine))
    with database().read() as conn:
        return [_run(r) for r in conn.execute(query).mappings().all()]


def read_run(actor: Member, *, run_id: int) -> Run:
    """One run: its member's, or an admin's to see. Raises NotFound."""
    missing = NotFound(f"There is no run {run_id}.", run_id=run_id)
    if not is_id(run_id):
        raise missing
    with database().read() as conn:
        row = conn.execute(_RUN.where(runs.c.id == run_id)).mappings().first()
    if row is None or not (actor.administers or row["member_id"] == actor.id):
        raise missing
    return _run(row)


def run_member(run: Run) -> Member:
    """The member a run runs as."""
    with database().read() as conn:
        member_id = conn.execute(sa.select(runs.c.member_id).where(runs.c.id == run.id)).scalar()
        found = member_by_id_in(conn, member_id) if member_id else None
    if found is None:
        raise NotFound(f"There is no run {run.id}.", run_id=run.id)
    return found


# -- command routines ----------------------------------------------------------------------


def add_routine(
    actor: Member, *, name: str, command: str, timeout_seconds: int = DEFAULT_TIMEOUT
) -> CommandRoutine:
    """Configure a command routine (an admin's to do: it runs a command on the server).
    Raises ReadOnly, InvalidRequest, Duplicate."""
    if not actor.administers:
        raise ReadOnly("Only an admin can add a command routine: it runs on the server.")
    check_routine_name(name)
    if name in BUILT_IN:
        raise Duplicate(f"{name} is built in.", field="routine")
    check_plain_text(command, field="command")
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise InvalidRequest(f"The command cannot be split into words: {error}.") from None
    if not words:
        raise InvalidRequest("Give the command line to run.", field="command")
    if not isinstance(timeout_seconds, int) or not 1 <= timeout_seconds <= MAX_TIMEOUT:
        raise InvalidRequest(
            f"A time limit is 1 to {MAX_TIMEOUT} seconds.", field="timeout_seconds"
        )
    with database().write() as conn:
        taken = conn.execute(sa.select(routines.c.id).where(routines.c.name == name)).first()
        if taken is not None:
            raise Duplicate(f"There is a routine {name} already.", field="routine")
        conn.execute(
            routines.insert().values(
                name=name,
                command=command,
                timeout_seconds=timeout_seconds,
                created_by=actor.id,
                created_at=now(),
            )
        )
    return CommandRoutine(name, command, timeout_seconds)


def command_routines() -> list[CommandRoutine]:
    """Every command routine, by name."""
    with database().read() as conn:
        rows = conn.execute(sa.select(routines).order_by(routines.c.name)).mappings().all()
    return [CommandRoutine(r["name"], r["command"], r["timeout_seconds"]) for r in rows]


def command_routine(name: str) -> CommandRoutine | None:
    """The command routine named `name`, if there is one."""
    return next((r for r in command_routines() if r.name == name), None)
