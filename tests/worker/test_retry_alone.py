"""A failing automation is retried alone: when one of an event's automations fails, the event
comes back for that one only, and those that finished are never run for it again."""

from __future__ import annotations

import anyio
import pytest

from codna import worker
from codna.services.clock import now
from codna.services.events import automations, events, outbox
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.storage.database import Database
from codna.storage.schema import outbox as outbox_table
from codna.worker import Worker
from tests.services.conftest import Team
from tests.worker.test_loop import FOLDER, NEVER, make_page, running, until

pytestmark = pytest.mark.anyio


def _due_now(db: Database, event_id: int) -> None:
    """The back-off over: the event may be taken again at once. The worker sleeps until the
    back-off's end (2 s, then 4 s) unless an outbox event wakes it, and this change sends
    none (the services never shorten a back-off), so one is published on the bus as a
    notification from the outbox would be: the worker looks again now."""
    with db.write() as conn:
        conn.execute(
            outbox_table.update().where(outbox_table.c.id == event_id).values(available_at=now())
        )
    events.bus.publish(events.Event("outbox", event_id, "update"))


async def test_a_retry_runs_only_the_automation_that_failed(team: Team, db: Database) -> None:
    ran: list[str] = []
    fails_left = [2]

    def steady(event: Event, automation: Automation) -> None:
        ran.append("steady")

    def flaky(event: Event, automation: Automation) -> None:
        ran.append("flaky")
        if fails_left[0]:
            fails_left[0] -= 1
            raise RuntimeError("not this time")

    worker.register("retry-steady", steady)
    worker.register("retry-flaky", flaky)
    for routine in ("retry-steady", "retry-flaky"):
        automations.add(team.writer, event="document.created", folder=FOLDER, routine=routine)
    make_page(team, "0001")
    [event] = outbox.latest(limit=1)
    doer = Worker(poll_interval=NEVER)
    async with running(db, doer):
        for failures in (1, 2):
            await until(lambda n=failures: doer.failed == n, f"failure {failures}")  # type: ignore[misc]
            await anyio.to_thread.run_sync(_due_now, db, event.id)
        await until(lambda: doer.done == 1, "the event done")
    assert ran == ["steady", "flaky", "flaky", "flaky"]
    finished = outbox.get(event.id)
    assert finished.attempts == 3 and finished.done_at is not None
    assert len(outbox.automations_done(event.id)) == 2
