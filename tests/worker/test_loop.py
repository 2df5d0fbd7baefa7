"""The worker in this process, on SQLite and PostgreSQL: it runs each watched event once with
the automations it matches, records a failure, runs a plain handler in a thread of its own,
wakes as soon as an event is written, keeps its lease while a routine runs, and stops after
the event it runs or abandons it when cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

import anyio
import pytest

from codna import worker
from codna.services.events import automations, events, outbox
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.services.pages import pages
from codna.storage.database import Database
from codna.worker import Worker
from tests.services.conftest import Team

pytestmark = pytest.mark.anyio

ROUTINE = "loop-test"
FOLDER = "wiki:decisions/"
DEADLINE = 30.0
# Longer than any test: a worker that handles an event in time was woken, not polling.
NEVER = 3600.0


@pytest.fixture
def watched(team: Team) -> Team:
    automations.register_routine(ROUTINE)
    automations.add(team.writer, event="document.created", folder=FOLDER, routine=ROUTINE)
    return team


def make_page(team: Team, name: str) -> None:
    pages.create_page(team.writer, address=f"{FOLDER}{name}", title=name, body=f"# {name}\n")


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for `condition` (read in a thread), failing after DEADLINE."""
    end = time.monotonic() + DEADLINE
    while not await anyio.to_thread.run_sync(condition):
        if time.monotonic() > end:
            pytest.fail(f"not within {DEADLINE:g} s: {what}")
        await anyio.sleep(0.01)


@asynccontextmanager
async def running(db: Database, *workers: Worker) -> AsyncIterator[None]:
    """The workers running on this loop, with the database's events relayed to the bus (on
    PostgreSQL its listener, as `codna serve` runs it), until the block ends."""
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(events.relay_database_events)
        with anyio.fail_after(DEADLINE):
            while not events.bus.listening.is_set():
                await anyio.sleep(0.01)
        for each in workers:
            tasks.start_soon(each.run)
        yield
        tasks.cancel_scope.cancel()


def open_events() -> list[Event]:
    return [e for e in outbox.latest(limit=1000) if e.done_at is None and e.failed_at is None]


async def test_a_worker_runs_each_watched_event_once_and_marks_every_event_done(
    watched: Team, db: Database
) -> None:
    seen: list[tuple[str, list[str]]] = []

    async def handle(event: Event, found: list[Automation]) -> None:
        seen.append((event.address, [a.routine for a in found]))

    make_page(watched, "0001")
    pages.create_page(watched.writer, address="wiki:notes/unwatched", title="U", body="")
    make_page(watched, "0002")
    doer = Worker(handle, name="w1", poll_interval=NEVER)
    async with running(db, doer):
        await until(lambda: not open_events(), "every event done")
    assert seen == [(f"{FOLDER}0001", [ROUTINE]), (f"{FOLDER}0002", [ROUTINE])]
    assert doer.done == 2
    assert all(e.done_at is not None for e in outbox.latest(limit=10))


async def test_a_worker_wakes_as_soon_as_an_event_is_written(watched: Team, db: Database) -> None:
    handled = anyio.Event()

    async def handle(event: Event, found: list[Automation]) -> None:
        handled.set()

    doer = Worker(handle, poll_interval=NEVER)
    async with running(db, doer):
        await until(lambda: doer.waiting, "the worker waiting, for an hour at most")
        await anyio.to_thread.run_sync(make_page, watched, "0001")
        with anyio.fail_after(DEADLINE):
            await handled.wait()


async def test_a_failing_handler_records_its_error_and_the_event_waits_for_its_back_off(
    watched: Team, db: Database
) -> None:
    def handle(event: Event, found: list[Automation]) -> None:
        raise ValueError("the page has no status line")

    make_page(watched, "0001")
    doer = Worker(handle, name="w1", poll_interval=NEVER)
    async with running(db, doer):
        await until(lambda: doer.failed == 1, "the failure recorded")
    [event] = outbox.latest(limit=1)
    assert event.last_error == "ValueError: the page has no status line"
    assert (event.attempts, event.done_at, event.failed_at) == (1, None, None)
    assert event.available_at > event.created_at


async def test_a_plain_handler_runs_in_a_thread_of_its_own_not_on_the_event_loop(
    watched: Team, db: Database
) -> None:
    threads: list[threading.Thread] = []
    make_page(watched, "0001")
    doer = Worker(lambda event, found: threads.append(threading.current_thread()))
    async with running(db, doer):
        await until(lambda: doer.done == 1, "the event done")
    assert threads and threads[0] is not threading.current_thread()
    assert threads[0].daemon


async def test_registered_routines_run_with_their_automation_and_one_without_a_handler_fails(
    watched: Team, db: Database
) -> None:
    ran: list[tuple[int, int]] = []
    worker.register(
        "loop-recorded", lambda event, automation: ran.append((event.id, automation.id))
    )
    automations.register_routine("loop-unhandled")
    recorded = automations.add(
        watched.writer, event="document.created", folder=FOLDER, routine="loop-recorded"
    )
    unhandled = automations.add(
        watched.writer, event="document.created", folder=FOLDER, routine="loop-unhandled"
    )
    make_page(watched, "0001")
    [event] = outbox.latest(limit=1)
    doer = Worker(poll_interval=NEVER)  # the default: each routine's registered handler
    async with running(db, doer):
        await until(lambda: doer.failed == 1, "the run failed")
    assert ran == [(event.id, recorded.id)]  # it ran, though the other had no handler
    error = outbox.get(event.id).last_error or ""
    # Without a handler of its own it is not found (by the routines' runner, where it is
    # loaded: a routine of that name is not configured either).
    assert f"automation {unhandled.id} (loop-unhandled): not_found: " in error
    assert "routine loop-unhandled" in error
    assert ROUTINE in error  # the fixture's routine has no handler here either


async def test_a_worker_keeps_its_lease_while_its_routine_runs(watched: Team, db: Database) -> None:
    release = threading.Event()
    make_page(watched, "0001")
    [event] = outbox.latest(limit=1)
    doer = Worker(lambda e, found: release.wait(DEADLINE), lease=timedelta(seconds=1.5))
    async with running(db, doer):
        await until(lambda: outbox.get(event.id).attempts == 1, "the event taken")
        first = outbox.get(event.id).lease_until
        assert first is not None
        await until(lambda: (outbox.get(event.id).lease_until or first) > first, "a renewal")
        assert outbox.claim("another", lease=timedelta(seconds=1)) is None
        release.set()
        await until(lambda: doer.done == 1, "the event done")
    assert outbox.get(event.id).attempts == 1


async def test_a_stopped_worker_finishes_the_event_it_runs_and_takes_no_more(
    watched: Team, db: Database
) -> None:
    started, release = anyio.Event(), anyio.Event()

    async def handle(event: Event, found: list[Automation]) -> None:
        started.set()
        await release.wait()

    make_page(watched, "0001")
    make_page(watched, "0002")
    doer = Worker(handle, poll_interval=NEVER)
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(doer.run)
        await started.wait()
        doer.stop()
        release.set()
    first, second = outbox.latest(limit=2)[::-1]
    assert first.done_at is not None
    assert (second.attempts, second.done_at) == (0, None)


async def test_a_cancelled_worker_abandons_its_event_to_be_taken_again_after_its_lease(
    watched: Team, db: Database
) -> None:
    started = threading.Event()
    make_page(watched, "0001")
    [event] = outbox.latest(limit=1)
    doer = Worker(lambda e, found: (started.set(), threading.Event().wait(DEADLINE)), name="w1")
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(doer.run)
        await anyio.to_thread.run_sync(started.wait, DEADLINE)
        tasks.cancel_scope.cancel()
    held = outbox.get(event.id)
    assert (held.taken_by, held.attempts, held.done_at) == ("w1", 1, None)
    assert held.lease_until is not None
    assert outbox.next_due() == held.lease_until  # another worker takes it then
