"""The worker: it takes events from the outbox one at a time and runs the automations each
matches, then marks it done, or records the failure for a later try.

It wakes as soon as an event is written: from this process's event bus, which on SQLite the
services feed after each commit and on PostgreSQL the outbox's trigger feeds through every
process's listener. Otherwise it looks again every `poll_interval` seconds (a writer in
another process on SQLite, a lease that runs out, a back-off that ends). Every database call
runs in the thread pool, never on the event loop.

While a routine runs, the worker renews its lease every third of it, so a long run keeps its
event and a worker that died loses it within one lease. As it starts, it closes the runs that
a dead owner left running (see orphans).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import ParamSpec, TypeVar

import anyio
import anyio.to_thread

from codna.services.clock import now
from codna.services.events import automations, events, outbox
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.worker.handlers import describe, dispatch, is_async
from codna.worker.orphans import close_orphaned_runs
from codna.worker.threads import in_daemon_thread

log = logging.getLogger("codna.worker")
P = ParamSpec("P")
T = TypeVar("T")

# A routine's handle on an event: every automation it matches, at once.
Handle = Callable[[Event, list[Automation]], Awaitable[None] | None]

POLL_INTERVAL = 1.0
# How often a running worker looks again for runs a dead owner left (see orphans), besides
# when it starts: another host's run is closed once its token expired, without a restart.
ORPHANS_EVERY = 600.0
LEASE = timedelta(seconds=60)
# When an event is due but another worker holds it at this instant (it is claiming it).
BUSY_PAUSE = 0.05
# After the database failed the worker: the first wait, doubled up to the last.
RETRY_PAUSE = (0.5, 30.0)


def default_name() -> str:
    """A name no other worker has: the host, the process and a random part."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class Worker:
    """Takes events from the outbox and hands each, with the automations it matches, to
    `handle` (default: each automation's routine by its registered handler)."""

    def __init__(
        self,
        handle: Handle | None = None,
        *,
        name: str | None = None,
        poll_interval: float = POLL_INTERVAL,
        lease: timedelta = LEASE,
    ) -> None:
        self.handle: Handle = handle or dispatch
        self.name = name or default_name()
        self.poll_interval = poll_interval
        self.lease = lease
        self.done = 0  # events this worker ran and marked done
        self.failed = 0  # runs that failed
        self.stopping = False
        self._sleeping: anyio.CancelScope | None = None
        self._finished: anyio.Event | None = None

    # -- running and stopping -----------------------------------------------------------

    async def run(self) -> None:
        """Run events until `stop()` (the one running finishes first). Cancelled, the worker
        abandons the one running: it is taken again once its lease runs out."""
        self._finished = anyio.Event()
        try:
            with events.bus.subscribe() as wakes:
                await self._close_orphaned_runs()
                await self._loop(wakes)
        finally:
            self._finished.set()

    async def _close_orphaned_runs(self) -> None:
        """The runs a dead owner left running, closed as the worker starts and every
        ORPHANS_EVERY seconds after (see orphans)."""
        try:
            await _in_pool(close_orphaned_runs)
        except Exception as error:  # the database is away: the next start closes them
            log.warning("worker %s: closing orphaned runs: %s", self.name, error)

    @property
    def waiting(self) -> bool:
        """Whether the worker waits for an event to be written (or for its next look)."""
        return self._sleeping is not None

    def stop(self) -> None:
        """Take no more events; the one running finishes. Call it on the worker's loop."""
        self.stopping = True
        if self._sleeping is not None:
            self._sleeping.cancel()

    async def shutdown(self, *, grace: float) -> None:
        """Stop, and wait at most `grace` seconds for the event running to finish."""
        self.stop()
        if self._finished is not None:
            with anyio.move_on_after(grace):
                await self._finished.wait()

    async def _loop(self, wakes: asyncio.Queue[events.Event]) -> None:
        claim_now, pause = True, RETRY_PAUSE[0]
        swept = time.monotonic()
        while not self.stopping:
            if time.monotonic() - swept >= ORPHANS_EVERY:
                await self._close_orphaned_runs()
                swept = time.monotonic()
            try:
                if claim_now:
                    event = await _in_pool(outbox.claim, self.name, lease=self.lease)
                    if event is not None:
                        await self.run_event(event)
                        continue
                due = await _in_pool(outbox.next_due)
            except Exception as error:  # the database went away: say so, wait, try again
                log.warning("worker %s: %s; trying again in %g s", self.name, error, pause)
                await self._sleep(wakes, pause)
                claim_now, pause = True, min(pause * 2, RETRY_PAUSE[1])
                continue
            pause = RETRY_PAUSE[0]
            delay = self.poll_interval
            if due is not None:
                delay = min(delay, (due - now()).total_seconds())
                if delay <= 0 and not claim_now:
                    claim_now = True
                    continue
                delay = max(delay, BUSY_PAUSE)
            woken = await self._sleep(wakes, delay)
            claim_now = woken or (due is not None and due <= now())

    async def _sleep(self, wakes: asyncio.Queue[events.Event], seconds: float) -> bool:
        """Wait `seconds`, or less if an event is written (True) or the worker stops."""
        with anyio.CancelScope() as scope:
            self._sleeping = scope
            if self.stopping:
                return False
            scope.deadline = anyio.current_time() + seconds
            try:
                while (await wakes.get()).table != "outbox":
                    pass
                while not wakes.empty():  # one claim serves every wake that came with it
                    wakes.get_nowait()
                return True
            finally:
                self._sleeping = None
        return False

    # -- one event ------------------------------------------------------------------------

    async def run_event(self, event: Event) -> None:
        """Run an event this worker holds: its automations, then done; or the failure
        recorded (taken again after a back-off, or failed for good)."""
        try:
            found = await _in_pool(automations.for_event, event.type, event.page)
            if found:
                await self._with_lease(event, found)
        except Exception as error:
            text = describe(error)
            self.failed += 1
            log.warning(
                "worker %s: event %s (%s) failed: %s", self.name, event.id, event.address, text
            )
            if not await _in_pool(outbox.failed, event.id, self.name, text):
                log.warning("worker %s: event %s was no longer held", self.name, event.id)
            return
        if await _in_pool(outbox.done, event.id, self.name):
            self.done += 1
        else:
            log.warning(
                "worker %s: event %s ran past its lease, and another worker took it",
                self.name,
                event.id,
            )

    async def _with_lease(self, event: Event, found: list[Automation]) -> None:
        error: Exception | None = None
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._keep_lease, event)
            try:
                if is_async(self.handle):
                    await self.handle(event, found)  # type: ignore[misc]
                else:
                    await in_daemon_thread(self.handle, event, found)
            except Exception as raised:
                error = raised
            tasks.cancel_scope.cancel()
        if error is not None:
            raise error

    async def _keep_lease(self, event: Event) -> None:
        every = self.lease.total_seconds() / 3
        while True:
            await anyio.sleep(every)
            try:
                held = await _in_pool(outbox.renew, event.id, self.name, lease=self.lease)
            except Exception as error:
                log.warning("worker %s: renewing event %s: %s", self.name, event.id, error)
                continue
            if not held:
                log.warning("worker %s: lost event %s to another worker", self.name, event.id)
                return


async def _in_pool(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`func` in the thread pool: a database call never runs on the event loop."""
    return await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))
