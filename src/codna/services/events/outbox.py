"""The outbox: what happened to each page, written in the same transaction as the change, for
the worker to run the automations it matches.

A page's creation writes `document.created`, each new revision `document.changed` (edits,
reverts, restored versions, accepted suggestions and links); suggesting writes nothing.

A worker claims one event at a time for a lease: on PostgreSQL with `FOR UPDATE SKIP
LOCKED`, so that workers in several processes never take the same one; on SQLite in the one
writer's transaction. The event is done only once its routines have finished, and only by
the worker that holds it. Each automation that finishes is recorded for the event; a failure
is recorded and the event comes back after a back-off, up to MAX_ATTEMPTS, to run only the
automations that have not finished; a worker that stops mid-run leaves its lease to run out,
and the event is taken again. Events that no automation watches are marked done as they are met.

These functions are the worker's, which acts for no member: they take a worker's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import NotFound
from codna.services.addresses import Address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events import automations, events
from codna.services.limits import is_id
from codna.storage.database import inserted_id
from codna.storage.schema import outbox, outbox_automations_done

EventType = Literal["document.created", "document.changed"]
# Runs of one event before it is failed for good; the back-off before each next one doubles.
MAX_ATTEMPTS = 5
MAX_BACKOFF = timedelta(minutes=5)
# How many open events one claim looks at, and at most sweeps past (marking done those that no
# automation watches) before it gives up for this call.
BATCH = 50
SWEEP = 1000
MAX_ERROR_CHARS = 4000
ABANDONED = "Its worker stopped before the routine finished, {attempts} times."


@dataclass(frozen=True)
class Event:
    """Something that happened to a page, and how far the worker has got with it."""

    id: int
    type: str
    page_id: int
    space: str
    path: str
    version: int  # the version the change made (1 for a new page)
    author_id: int  # who made the change
    created_at: datetime
    available_at: datetime  # not taken before this (a back-off after a failure)
    attempts: int  # how many times a worker took it
    taken_by: str | None
    lease_until: datetime | None
    done_at: datetime | None
    failed_at: datetime | None  # failed for good, after MAX_ATTEMPTS
    last_error: str | None

    @property
    def page(self) -> Address:
        return Address(self.space, self.path)

    @property
    def address(self) -> str:
        return str(self.page)


def _event(row: Any) -> Event:
    return Event(**{name: row[name] for name in Event.__dataclass_fields__})


def record(
    conn: Connection,
    *,
    type: EventType,
    page_id: int,
    space: str,
    path: str,
    version: int,
    author_id: int,
) -> int:
    """Write an event in the writing transaction `conn`; the workers wake once it commits.
    Returns its id."""
    at = now()
    made = conn.execute(
        outbox.insert().values(
            type=type,
            page_id=page_id,
            space=space,
            path=path,
            version=version,
            author_id=author_id,
            created_at=at,
            available_at=at,
            attempts=0,
        )
    )
    event_id = inserted_id(made)
    events.emit(conn, table="outbox", row_id=event_id, op="insert")
    return event_id


_OPEN = sa.and_(outbox.c.done_at.is_(None), outbox.c.failed_at.is_(None))


def _due(at: datetime) -> sa.ColumnElement[bool]:
    """Open events a worker may take at `at`: available, and never taken or their lease out."""
    return sa.and_(
        _OPEN,
        outbox.c.available_at <= at,
        sa.or_(outbox.c.lease_until.is_(None), outbox.c.lease_until <= at),
    )


def claim(worker: str, *, lease: timedelta) -> Event | None:
    """Take the oldest event that is due and that an enabled automation watches, for `lease`:
    its attempts counted, held by `worker`. On the way, events no automation watches are
    marked done, and events whose workers stopped mid-run MAX_ATTEMPTS times are failed.
    None when nothing is due (or after SWEEP events met, none to take).

    Only the rows it changes are locked, each skipped if another worker holds it: the one
    taken, and those marked done or failed."""
    with database().write() as conn:
        at = now()
        watched = automations.watches(conn)
        after, met = 0, 0
        while met < SWEEP:
            rows = conn.execute(
                sa.select(
                    outbox.c.id, outbox.c.type, outbox.c.space, outbox.c.path, outbox.c.attempts
                )
                .where(_due(at), outbox.c.id > after)
                .order_by(outbox.c.id)
                .limit(BATCH)
            ).all()
            if not rows:
                return None
            unwatched: list[int] = []
            taken = None
            for row in rows:
                met, after = met + 1, row.id
                if row.attempts >= MAX_ATTEMPTS:
                    error = ABANDONED.format(attempts=row.attempts)
                    conn.execute(_finish([row.id], at, failed_at=at, last_error=error))
                elif any(w.covers(row.type, row.space, row.path) for w in watched):
                    taken = _take(conn, row.id, worker, at, lease)
                    if taken is not None:
                        break
                else:
                    unwatched.append(row.id)
            if unwatched:
                conn.execute(_finish(unwatched, at, done_at=at, taken_by=worker))
            if taken is not None:
                return taken
        return None


def _free(ids: list[int], at: datetime) -> sa.Select[tuple[int]]:
    """Those of `ids` still due at `at`, locked, leaving out any another worker holds."""
    return (
        sa.select(outbox.c.id)
        .where(outbox.c.id.in_(ids), _due(at))
        .with_for_update(skip_locked=True)
    )


def _finish(ids: list[int], at: datetime, **values: Any) -> sa.Update:
    return outbox.update().where(outbox.c.id.in_(_free(ids, at))).values(lease_until=None, **values)


def _take(
    conn: Connection, event_id: int, worker: str, at: datetime, lease: timedelta
) -> Event | None:
    taken = conn.execute(
        outbox.update()
        .where(outbox.c.id.in_(_free([event_id], at)))
        .values(taken_by=worker, lease_until=at + lease, attempts=outbox.c.attempts + 1)
        .returning(*outbox.c)
    ).mappings()
    row = taken.first()
    return _event(row) if row is not None else None


def _give_up(conn: Connection, event_id: int, error: str, at: datetime) -> None:
    conn.execute(
        outbox.update()
        .where(outbox.c.id == event_id)
        .values(failed_at=at, lease_until=None, last_error=error[:MAX_ERROR_CHARS])
    )


def _held(event_id: int, worker: str) -> sa.ColumnElement[bool]:
    return sa.and_(outbox.c.id == event_id, outbox.c.taken_by == worker, _OPEN)


def renew(event_id: int, worker: str, *, lease: timedelta) -> bool:
    """Hold the event for `lease` from now, while its routine runs. False: the worker no
    longer holds it (its lease ran out and another took it, or it is done or failed)."""
    with database().write() as conn:
        changed = conn.execute(
            outbox.update().where(_held(event_id, worker)).values(lease_until=now() + lease)
        )
        return changed.rowcount == 1


def done(event_id: int, worker: str) -> bool:
    """Mark the event done, if `worker` still holds it (False otherwise: another took it
    after this one's lease ran out, and runs it)."""
    with database().write() as conn:
        changed = conn.execute(
            outbox.update().where(_held(event_id, worker)).values(done_at=now(), lease_until=None)
        )
        return changed.rowcount == 1


def backoff(attempts: int) -> timedelta:
    """How long an event waits after its `attempts`-th run failed: 2, 4, 8, … seconds, at
    most MAX_BACKOFF."""
    return min(timedelta(seconds=2 ** min(attempts, 30)), MAX_BACKOFF)


def failed(event_id: int, worker: str, error: str) -> bool:
    """Record why the event's run failed, if `worker` still holds it: it is taken again after
    `backoff(attempts)`, or, after MAX_ATTEMPTS runs, failed for good. False when the worker
    no longer holds it."""
    with database().write() as conn:
        row = (
            conn.execute(
                sa.select(outbox.c.attempts).where(_held(event_id, worker)).with_for_update()
            )
            .mappings()
            .first()
        )
        if row is None:
            return False
        at = now()
        if row["attempts"] >= MAX_ATTEMPTS:
            _give_up(conn, event_id, error, at)
        else:
            conn.execute(
                outbox.update()
                .where(outbox.c.id == event_id)
                .values(
                    available_at=at + backoff(row["attempts"]),
                    lease_until=None,
                    last_error=error[:MAX_ERROR_CHARS],
                )
            )
        return True


def next_due() -> datetime | None:
    """When the next open event may be taken (in the past if one may be now); None when
    every event is done or failed."""
    free_at = sa.case(
        (outbox.c.lease_until > outbox.c.available_at, outbox.c.lease_until),
        else_=outbox.c.available_at,
    )
    with database().read() as conn:
        found = conn.execute(
            sa.select(outbox.c.available_at, outbox.c.lease_until)
            .where(_OPEN)
            .order_by(free_at)
            .limit(1)
        ).first()
    if found is None:
        return None
    available_at: datetime = found.available_at
    lease_until: datetime | None = found.lease_until
    return max(available_at, lease_until) if lease_until is not None else available_at


def get(event_id: int) -> Event:
    """One event as it stands. Raises NotFound."""
    with database().read() as conn:
        row = None
        if is_id(event_id):
            row = conn.execute(sa.select(outbox).where(outbox.c.id == event_id)).mappings().first()
    if row is None:
        raise NotFound(f"There is no event {event_id}.", field="event_id")
    return _event(row)


def latest(*, limit: int = 20) -> list[Event]:
    """The newest events, newest first."""
    with database().read() as conn:
        rows = conn.execute(sa.select(outbox).order_by(outbox.c.id.desc()).limit(limit))
        return [_event(row) for row in rows.mappings()]


def automations_done(event_id: int) -> frozenset[int]:
    """The automations that already finished for the event: a retry leaves them out."""
    with database().read() as conn:
        rows = conn.execute(
            sa.select(outbox_automations_done.c.automation_id).where(
                outbox_automations_done.c.event_id == event_id
            )
        )
        return frozenset(rows.scalars())


def automation_done(event_id: int, automation_id: int) -> None:
    """Record that the automation finished for the event, so it is never run for it again
    when another automation of the same event fails and the event is retried."""
    with database().write() as conn:
        done_already = conn.execute(
            sa.select(outbox_automations_done.c.event_id).where(
                outbox_automations_done.c.event_id == event_id,
                outbox_automations_done.c.automation_id == automation_id,
            )
        ).first()
        if done_already is None:
            conn.execute(
                outbox_automations_done.insert().values(
                    event_id=event_id, automation_id=automation_id, done_at=now()
                )
            )
