"""Running a routine: a run and its token, an MCP session with that token, the routine, and
what became of it, recorded on the run (its token revoked however it ended).

A built-in routine talks to a CoDNA server in this process over MCP, through every tool's
checks like any agent; a command routine is a program given the MCP URL of the running
server. Importing this module registers the routines with the worker, which imports it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio
from mcp.client import Client

from codna import worker
from codna.errors import NotFound
from codna.mcp import build
from codna.routines import decision_check
from codna.routines.calls import Session
from codna.routines.command import run_command
from codna.services.events import runs
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.services.events.runs import Run
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.members.ratelimit import RateLimiter
from codna.settings import Settings, base_url
from codna.worker.handlers import describe, handle_others

log = logging.getLogger("codna.runs")

# A built-in routine: given an MCP session as its run's member, the page and the run's id and
# name; answers its run page's address.
BuiltIn = Callable[..., Awaitable[str]]
BUILT_IN: dict[str, BuiltIn] = {decision_check.NAME: decision_check.check}


async def run(
    routine: str,
    member: Member,
    on: str,
    *,
    automation_id: int | None = None,
    event_id: int | None = None,
) -> Run:
    """Run `routine` as `member` on the page at `on` until it ends; the run as it ended
    (succeeded, failed with its error, timed out). Raises NotFound (no such routine) and the
    services' refusals (such as a disabled member) before a run begins."""
    command = None
    if routine not in BUILT_IN:
        command = await anyio.to_thread.run_sync(runs.command_routine, routine)
        if command is None:
            raise NotFound(f"There is no routine {routine}.", routine=routine)
    started = await anyio.to_thread.run_sync(
        lambda: runs.start_run(
            member, routine=routine, address=on, automation_id=automation_id, event_id=event_id
        )
    )
    run_id = started.run.id
    status, page, error, output = "failed", None, None, None
    try:
        if command is None:
            page = await _built_in(routine, started.secret, on, run_id)
            status = "succeeded"
        else:
            ran = await run_command(
                command.command,
                mcp_url=f"{base_url()}/mcp",
                token=started.secret,
                on=on,
                run_id=run_id,
                routine=routine,
                timeout=command.timeout_seconds,
                spawned=lambda pgid: anyio.to_thread.run_sync(runs.record_command, run_id, pgid),
            )
            status, output = ran.status, ran.output
            if ran.status == "timed_out":
                error = f"stopped at its time limit of {command.timeout_seconds} s"
            elif ran.status == "failed":
                error = f"exit code {ran.code}"
    except Exception as failure:  # the run failed: said on it; the caller decides what next
        error = describe(failure)
        log.exception("run %s of %s on %s failed", run_id, routine, on)
    finally:  # however it ended, even cancelled: recorded, and its token revoked
        if status == "failed" and error is None:
            error = "stopped before it ended"
        with anyio.CancelScope(shield=True):
            finished = await anyio.to_thread.run_sync(
                lambda: runs.finish_run(
                    run_id, status=status, run_page=page, error=error, output=output
                )
            )
    log.info("run %s of %s on %s: %s", run_id, routine, on, finished.status)
    return finished


async def _built_in(routine: str, secret: str, on: str, run_id: int) -> str:
    settings = Settings()
    server = build.for_token(secret, RateLimiter(settings.rate_limit, settings.rate_window))
    async with Client(server) as client:
        session: Session = client
        return await BUILT_IN[routine](session, on=on, run_id=run_id, routine=routine)


async def for_automation(event: Event, automation: Automation) -> None:
    """The worker's handler: run the automation's routine as its member on the event's page."""
    member = await anyio.to_thread.run_sync(members.member_by_handle, automation.member)
    done = await run(
        automation.routine,
        member,
        f"{event.space}:{event.path}",
        automation_id=automation.id,
        event_id=event.id,
    )
    if done.status != "succeeded":  # the event is tried again after a back-off
        raise RuntimeError(f"Run {done.id} of {done.routine} {done.status}: {done.error}.")


for _name in BUILT_IN:
    worker.register(_name, for_automation)
handle_others(for_automation)  # the command routines, found by name when they run
