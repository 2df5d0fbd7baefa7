"""The inbox: what waits on a member's decision, grouped by kind, and the decisions on what
they suggested. Who decides is computed when asked, from the grants as they are then."""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

import anyio
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest, RateLimited, Unauthenticated
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events import events
from codna.services.events.events import Event
from codna.services.limits import INBOX, PENDING, check_limit, check_offset, is_id
from codna.services.members.access import Rights, rights
from codna.services.members.members import Member, names
from codna.services.pages.nearest import listing_address
from codna.services.pages.pages import address_clause
from codna.services.suggestions.records import Suggestion, views
from codna.storage.records import LinkRow, SuggestionRow
from codna.storage.schema import (
    edit_suggestions,
    link_suggestions,
    notifications,
    outbox,
    pages,
)

KINDS = ("link", "change")


@dataclass(frozen=True)
class LinkGroup:
    """Suggested links waiting on a member: how many in all, and a page of them."""

    total: int
    items: tuple[Suggestion, ...]


@dataclass(frozen=True)
class ChangeGroup:
    """Suggested changes waiting on a member: how many in all, and a page of them, each with
    its diff and whether it still applies."""

    total: int
    items: tuple[Suggestion, ...]


@dataclass(frozen=True)
class Pending:
    """What waits on a member's decision, newest first in each group, and how many in all."""

    total: int
    suggested_links: LinkGroup
    suggested_changes: ChangeGroup


@dataclass(frozen=True)
class Notification:
    """A decision on something the member suggested: a link or a change."""

    id: int
    kind: str
    page: str
    status: str
    reason: str | None
    decided_by: str | None
    suggestion_id: int | None
    created_at: datetime
    read: bool
    suggested_because: str | None = None  # the reason the suggestion gave
    accepted_version: int | None = None  # the version accepting it made


@dataclass(frozen=True)
class Inbox:
    """A member's inbox: the groups waiting on them, and decisions on what they suggested.

    `unread` counts all their unread notifications, and `latest` is the id of their newest
    (None: none yet), whatever the inbox was asked for: a routine passes it as `after` next
    time, to see only what is new."""

    suggested_links: LinkGroup
    suggested_changes: ChangeGroup
    decisions: tuple[Notification, ...]
    unread: int
    latest: int | None = None


def _waiting(
    table: sa.Table, mine: Rights, since: datetime | None = None, at: Address | None = None
) -> tuple[sa.FromClause, list[sa.ColumnElement[bool]]]:
    joined = table.join(pages, pages.c.id == table.c.page_id)
    where = [table.c.status == "pending", pages.c.trashed_at.is_(None), mine.decidable()]
    if since is not None:
        where.append(table.c.created_at > since)
    if at is not None:
        where.append(address_clause(at))
    return joined, where


def _page_of(
    conn: Connection,
    table: sa.Table,
    mine: Rights,
    *,
    limit: int,
    offset: int,
    since: datetime | None = None,
    at: Address | None = None,
) -> tuple[int, Sequence[sa.RowMapping]]:
    joined, where = _waiting(table, mine, since, at)
    total = conn.execute(sa.select(sa.func.count()).select_from(joined).where(*where)).scalar_one()
    rows = (
        conn.execute(
            sa.select(table)
            .select_from(joined)
            .where(*where)
            .order_by(table.c.created_at.desc(), table.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        .mappings()
        .all()
    )
    return total, rows


def pending_decisions(
    actor: Member,
    *,
    kind: str | None = None,
    address: str | None = None,
    limit: int = PENDING.default,
    offset: int = 0,
) -> Pending:
    """Suggested links and changes that wait on the actor, on pages they can edit (on one page,
    or in a space or folder, at `address`), newest first; each group paged by `limit` and
    `offset`. Raises InvalidRequest, NotFound (an address with no page the actor can read)."""
    if kind is not None and kind not in KINDS:
        raise InvalidRequest(f"The kinds are {', '.join(KINDS)}.", field="kind")
    where = parse_address(address) if address is not None else None
    check_limit(limit, PENDING)
    check_offset(offset)
    with database().read() as conn:
        mine = rights(conn, actor)
        at = listing_address(conn, mine, where) if where is not None else None
        return _pending(conn, mine, kind=kind, limit=limit, offset=offset, at=at)


def _pending(
    conn: Connection,
    mine: Rights,
    *,
    kind: str | None,
    limit: int,
    offset: int,
    since: datetime | None = None,
    at: Address | None = None,
) -> Pending:
    empty: tuple[int, Sequence[sa.RowMapping]] = (0, [])
    page_of = functools.partial(
        _page_of, conn, mine=mine, limit=limit, offset=offset, since=since, at=at
    )
    links_total, link_rows = page_of(link_suggestions) if kind in (None, "link") else empty
    changes_total, change_rows = page_of(edit_suggestions) if kind in (None, "change") else empty
    return Pending(
        total=links_total + changes_total,
        suggested_links=LinkGroup(
            links_total, tuple(views(conn, [LinkRow.of(r) for r in link_rows], mine))
        ),
        suggested_changes=ChangeGroup(
            changes_total,
            tuple(views(conn, [SuggestionRow.of(r) for r in change_rows], mine, diff_now=True)),
        ),
    )


def check_since(since: object) -> datetime | None:
    """A time with its zone (None: none asked). Raises InvalidRequest."""
    if since is None:
        return None
    refused = InvalidRequest(
        "since is a date and time with its time zone, such as 2024-05-01T09:00:00Z.",
        field="since",
    )
    if not isinstance(since, datetime) or since.utcoffset() is None:
        raise refused
    try:
        return since.astimezone(UTC)
    except OverflowError:  # a zone that takes it past the years a date can hold
        raise refused from None


def inbox(
    actor: Member,
    *,
    limit: int = INBOX.default,
    since: datetime | None = None,
    after: int | None = None,
) -> Inbox:
    """The actor's inbox: suggested links and changes waiting on them, and decisions on what
    they suggested, unread first, newest first among each.

    `since` keeps the decisions made and the suggestions waiting that were made after that
    time; `after` (a notification's id, such as the last inbox's `latest`) keeps the decisions
    whose notification came after it. Raises InvalidRequest (a bad limit, a time without its
    zone, an `after` that is not an id).
    """
    check_limit(limit, INBOX)
    since = check_since(since)
    if after is not None and not is_id(after):
        raise InvalidRequest(
            "after is the id of a notification, such as the inbox's latest.", field="after"
        )
    # Theirs, on pages they can read now: a decision on a page since hidden from them shows
    # nothing of it, nor counts.
    mine_only = notifications.c.member_id == actor.id
    kept = [mine_only]
    if since is not None:
        kept.append(notifications.c.created_at > since)
    if after is not None:
        kept.append(notifications.c.id > after)
    with database().read() as conn:
        mine = rights(conn, actor)
        kept.append(mine.readable())
        waiting = _pending(conn, mine, kind=None, limit=limit, offset=0, since=since)
        rows = (
            conn.execute(
                sa.select(
                    notifications,
                    pages.c.space,
                    pages.c.path,
                    sa.func.coalesce(edit_suggestions.c.reason, link_suggestions.c.reason).label(
                        "suggested_because"
                    ),
                    sa.func.coalesce(
                        edit_suggestions.c.accepted_version, link_suggestions.c.accepted_version
                    ).label("accepted_version"),
                )
                .join(pages, pages.c.id == notifications.c.page_id)
                .outerjoin(
                    edit_suggestions, edit_suggestions.c.id == notifications.c.edit_suggestion_id
                )
                .outerjoin(
                    link_suggestions, link_suggestions.c.id == notifications.c.link_suggestion_id
                )
                .where(*kept)
                .order_by(
                    notifications.c.read_at.is_not(None),
                    notifications.c.created_at.desc(),
                    notifications.c.id.desc(),
                )
                .limit(limit)
            )
            .mappings()
            .all()
        )
        unread, latest = conn.execute(
            sa.select(
                sa.func.count(sa.case((notifications.c.read_at.is_(None), 1))),
                sa.func.max(notifications.c.id),
            )
            .select_from(notifications.join(pages, pages.c.id == notifications.c.page_id))
            .where(mine_only, mine.readable())
        ).one()
        who = names(conn, {r["decided_by"] for r in rows if r["decided_by"]})
    decisions = tuple(
        Notification(
            id=r["id"],
            kind=r["kind"],
            page=str(Address(r["space"], r["path"])),
            status=r["status"],
            reason=r["reason"],
            decided_by=who.get(r["decided_by"]) if r["decided_by"] else None,
            suggestion_id=r["edit_suggestion_id"] or r["link_suggestion_id"],
            created_at=r["created_at"],
            read=r["read_at"] is not None,
            suggested_because=r["suggested_because"],
            accepted_version=r["accepted_version"] if r["status"] == "accepted" else None,
        )
        for r in rows
    )
    return Inbox(
        suggested_links=waiting.suggested_links,
        suggested_changes=waiting.suggested_changes,
        decisions=decisions,
        unread=unread,
        latest=latest,
    )


def mark_read(actor: Member, *, ids: list[int] | None = None) -> int:
    """Mark the actor's notifications read (these, or all); returns how many changed."""
    with database().write() as conn:
        where = [notifications.c.member_id == actor.id, notifications.c.read_at.is_(None)]
        if ids is not None:
            where.append(notifications.c.id.in_([i for i in ids if is_id(i)]))
        changed = [r.id for r in conn.execute(sa.select(notifications.c.id).where(*where)).all()]
        if changed:
            conn.execute(
                notifications.update().where(notifications.c.id.in_(changed)).values(read_at=now())
            )
            for note_id in changed:
                events.emit(conn, table="notifications", row_id=note_id, op="update")
        return len(changed)


def concerns(member: Member, event: Event) -> bool:
    """Whether a change wakes this member's inbox: a suggestion they made or decide on, or a
    notification of theirs. Computed from the grants as they are now."""
    if event.table not in ("notifications", "link_suggestions", "edit_suggestions"):
        return False  # a page's event for the workers, say
    with database().read() as conn:
        if event.table == "notifications":
            owner = conn.execute(
                sa.select(notifications.c.member_id).where(notifications.c.id == event.id)
            ).scalar()
            return bool(owner == member.id)
        table = {"link_suggestions": link_suggestions, "edit_suggestions": edit_suggestions}.get(
            event.table
        )
        if table is None:
            return False
        row = conn.execute(
            sa.select(table.c.suggester_id, pages.c.space, pages.c.path, pages.c.created_by)
            .join(pages, pages.c.id == table.c.page_id)
            .where(table.c.id == event.id)
        ).first()
        if row is None:
            return False
        if row.suggester_id == member.id:  # seen without reading the grants: one read less
            return True
        return rights(conn, member).sees_suggestion(*row)


def latest_page_event() -> int:
    """The id of the newest outbox event (0: none yet): where `pages_changed` starts."""
    with database().read() as conn:
        return int(conn.execute(sa.select(sa.func.max(outbox.c.id))).scalar() or 0)


# Past this many page events at once (an import), a suggestion is looked for among them all.
_PAGE_EVENTS = 1000


def pages_changed(member: Member, after: int) -> tuple[bool, int]:
    """Whether a page changed since outbox event `after` holds a suggested change waiting that
    `member` made or decides on (it may no longer apply), and the newest event's id, to pass
    as `after` next time. Computed from the grants as they are now.

    A change to a page is told by its outbox event. On PostgreSQL the trigger folds a
    transaction's events into one notification without their ids, so the events since the last
    one seen are read, not the one announced."""
    with database().read() as conn:
        latest = int(conn.execute(sa.select(sa.func.max(outbox.c.id))).scalar() or 0)
        if latest <= after:
            return False, after
        changed = (
            sa.select(outbox.c.page_id)
            .where(outbox.c.id > after, outbox.c.id <= latest)
            .order_by(outbox.c.id.desc())
            .limit(_PAGE_EVENTS)
        )
        waiting = conn.execute(
            sa.select(
                edit_suggestions.c.suggester_id, pages.c.space, pages.c.path, pages.c.created_by
            )
            .join(pages, pages.c.id == edit_suggestions.c.page_id)
            .where(edit_suggestions.c.page_id.in_(changed), edit_suggestions.c.status == "pending")
        ).all()
        if not waiting:
            return False, latest
        if any(row.suggester_id == member.id for row in waiting):  # no grants to read
            return True, latest
        mine = rights(conn, member)
        return any(mine.sees_suggestion(*row) for row in waiting), latest


# Live streams one member may hold open in one server process (tabs, clients).
STREAMS_PER_MEMBER = 8
# How often an open stream checks that its token or session still holds, in seconds.
RECHECK_SECONDS = 5.0


class _Streams:
    """The live streams open in this process, by member."""

    def __init__(self) -> None:
        self._open: Counter[int] = Counter()
        self._lock = threading.Lock()

    def _refused(self, member: Member) -> RateLimited:
        return RateLimited(
            f"{STREAMS_PER_MEMBER} live streams are open for this member already, the most "
            "one member may hold; close one (another tab or client) and try again.",
            retry_after=RECHECK_SECONDS,
            limit=STREAMS_PER_MEMBER,
        )

    def check(self, member: Member) -> None:
        """Raises RateLimited if `member` may open no other stream now."""
        with self._lock:
            if self._open[member.id] >= STREAMS_PER_MEMBER:
                raise self._refused(member)

    @contextmanager
    def held(self, member: Member) -> Iterator[None]:
        """One stream of `member`'s, open while the block runs. Raises RateLimited."""
        with self._lock:
            if self._open[member.id] >= STREAMS_PER_MEMBER:
                raise self._refused(member)
            self._open[member.id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._open[member.id] -= 1
                if not self._open[member.id]:
                    del self._open[member.id]


streams = _Streams()


async def changes_for(
    member: Member,
    stopped: Callable[[], Awaitable[bool]],
    *,
    still_valid: Callable[[], object],
    pages_too: bool = False,
) -> AsyncIterator[Event | None]:
    """The changes that concern `member`'s inbox (`concerns`), as they happen, until
    `stopped()` says so or the credential ends: first None, once the subscription is live
    (nothing from then on is missed), then each event that concerns the member, and
    events.RESYNC whenever events may have been missed (fetch again then). With `pages_too`,
    a page event (`table` "outbox") comes too when a page changed holds a suggestion of
    theirs, or one they decide on (`pages_changed`).

    `still_valid` checks the stream's token or session (it raises Unauthenticated once
    revoked, signed out, or its member disabled); it is called every RECHECK_SECONDS and the
    stream ends when it raises. At most STREAMS_PER_MEMBER streams per member are open in a
    process (RateLimited past that: call `streams.check` before answering). The database is
    read in the thread pool."""
    with streams.held(member), events.bus.subscribe() as queue:
        with anyio.move_on_after(10):  # looked at, not waited on in a thread: those do work
            while not events.bus.listening.is_set():
                await anyio.sleep(0.01)
        seen = await anyio.to_thread.run_sync(latest_page_event) if pages_too else 0
        yield None
        checked = time.monotonic()
        while not await stopped():
            if time.monotonic() - checked >= RECHECK_SECONDS:
                try:
                    await anyio.to_thread.run_sync(still_valid)
                except Unauthenticated:
                    return
                checked = time.monotonic()
            with anyio.move_on_after(1):
                event = await queue.get()
                if event == events.RESYNC:
                    wakes = True
                elif event.table == "outbox":
                    if not pages_too:
                        continue
                    wakes, seen = await anyio.to_thread.run_sync(pages_changed, member, seen)
                else:
                    wakes = await anyio.to_thread.run_sync(concerns, member, event)
                if wakes:
                    yield event
