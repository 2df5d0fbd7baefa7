"""The one lifecycle of what is suggested on a page, a change (ADR 0024) or a link (SPEC 3):
seen by its suggester and the page's editors only; pending until an editor accepts or rejects
it (one decision settles it for all, and the suggester is told) or its suggester withdraws it;
a pending or rejected one blocks the same again on the page, so a rejection is durable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import (
    AlreadyDecided,
    Duplicate,
    InvalidRequest,
    LimitReached,
    NotFound,
    ReadOnly,
    RejectedBefore,
)
from codna.markdown.limits import (
    MAX_REASON_CHARS,
    check_chars,
    check_plain_text,
    normalise_newlines,
    shows_something,
)
from codna.services.clock import now
from codna.services.events import events
from codna.services.limits import PER_PAGE_LIMIT, TOTAL_LIMIT, is_id
from codna.services.members.access import Rights, rights
from codna.services.members.members import Member
from codna.storage.records import Decided, LinkRow, PageRow, SuggestionRow
from codna.storage.schema import edit_suggestions, link_suggestions, members, notifications, pages
from codna.vocabulary import DECISIONS, STATUSES

Item = TypeVar("Item", bound=Decided)


@dataclass(frozen=True)
class Kind(Generic[Item]):
    """What is suggested: where it is kept, its record, how it is named and notified."""

    name: str  # "change" or "link": the kind a view record carries
    table: sa.Table
    record: type[Item]
    noun: str  # "suggestion 7", "suggested link 7"
    notification: str  # the kind of the suggester's notification of a decision
    notification_column: str  # the notification's column that names it


CHANGES = Kind(
    "change",
    edit_suggestions,
    SuggestionRow,
    "suggestion",
    "change_decided",
    "edit_suggestion_id",
)
LINKS = Kind(
    "link", link_suggestions, LinkRow, "suggested link", "link_decided", "link_suggestion_id"
)


def check_reason(reason: object, *, required: bool, field: str = "reason") -> str | None:
    """A reason is a sentence or two, on one line: at most MAX_REASON_CHARS characters;
    required where it must be. One that shows nothing (white space, zero-width and other
    format characters, marks alone) is none. Raises InvalidRequest, TooLarge (limit)."""
    if reason is not None and not isinstance(reason, str):
        raise InvalidRequest("A reason is text.", field=field)
    if reason is not None:
        # Before the spaces are tidied, which would drop some control characters unseen.
        check_plain_text(normalise_newlines(reason), field=field)
    if reason is None or not shows_something(reason):
        if required:
            blank = "" if not reason else " What was sent shows nothing to a reader."
            raise InvalidRequest(
                f"Say why, in a sentence or two: the reason is required.{blank}", field=field
            )
        return None
    reason = " ".join(reason.split())
    check_chars(reason, field=field, limit=MAX_REASON_CHARS)
    return reason


def check_decision(decision: str) -> str:
    """Raises InvalidRequest unless the decision is accept or reject."""
    if decision not in DECISIONS:
        raise InvalidRequest("The decision is accept or reject.", field="decision")
    return decision


def check_status(status: str | None) -> str | None:
    """A status to list by, or None for all. Raises InvalidRequest."""
    if status is not None and status not in STATUSES:
        raise InvalidRequest(f"The statuses are {', '.join(STATUSES)}.", field="status")
    return status


@cache
def _open_status(table: sa.Table, columns: tuple[str, ...]) -> sa.Select[Any]:
    same = [table.c[name] == sa.bindparam(name) for name in columns]
    found = (table.c.id, table.c.status, table.c.suggester_id, table.c.decision_reason)
    open_ = table.c.status.in_(["pending", "rejected"])
    return sa.select(*found).where(*same, open_).order_by(table.c.id).limit(1)


def check_not_open(
    conn: Connection,
    kind: Kind[Item],
    same: dict[str, object],
    what: str,
    *,
    viewer: Member | None = None,
    decides: bool = False,
) -> None:
    """Refuse what is already pending (Duplicate) or was rejected (RejectedBefore): the rows
    of `kind` whose columns hold the values `same` gives that are pending or rejected. `what`
    names it in the refusal.

    Which item it was (its id, and the reason it was rejected) is said only to whom may see
    it: the `viewer` who suggested it, or one who `decides` on its page. Anyone else learns
    only that the same was rejected or waits."""
    found = conn.execute(_open_status(kind.table, tuple(sorted(same))), same).first()
    if found is None:
        return
    sees = viewer is not None and (decides or found.suggester_id == viewer.id)
    which: dict[str, Any] = {}
    named = ""
    if sees:
        which = {"suggestion_id": found.id}
        named = f", as {kind.noun} {found.id}"
    if found.status == "rejected":
        why = ""
        if sees and found.decision_reason:
            why = f" ({found.decision_reason})"
            which["decision_reason"] = found.decision_reason
        raise RejectedBefore(
            f"{what} was rejected before{named}{why}; it is not suggested again.", **which
        )
    raise Duplicate(f"{what} waits for a decision already{named}.", **which)


_SUGGESTER_QUEUE = (
    sa.select(members.c.id)
    .where(members.c.id == sa.bindparam("member_id"))
    .with_for_update(key_share=True)
)


def queue(conn: Connection, actor: Member) -> None:
    """Wait for the actor's other suggestions being made: one suggester's queue here, so that
    the limits hold under concurrency (a lock on the member's row, on PostgreSQL)."""
    conn.execute(_SUGGESTER_QUEUE, {"member_id": actor.id})


@cache
def _pending_of(table: sa.Table) -> sa.Select[int, int]:
    on_page = sa.func.count().filter(table.c.page_id == sa.bindparam("page_id"))
    return sa.select(on_page, sa.func.count()).where(
        table.c.suggester_id == sa.bindparam("suggester_id"), table.c.status == "pending"
    )


def check_limits(conn: Connection, kind: Kind[Item], actor: Member, page_id: int) -> None:
    """Refuse a suggester's next one of `kind` past PER_PAGE_LIMIT waiting on the page or
    TOTAL_LIMIT in all (LimitReached: limit, pending)."""
    counts = {"page_id": page_id, "suggester_id": actor.id}
    on_page, in_all = conn.execute(_pending_of(kind.table), counts).one()
    plural = f"{kind.noun}s"
    if on_page >= PER_PAGE_LIMIT:
        raise LimitReached(
            f"{PER_PAGE_LIMIT} of your {plural} wait on this page already; wait for decisions "
            "or withdraw some.",
            limit=PER_PAGE_LIMIT,
            pending=on_page,
        )
    if in_all >= TOTAL_LIMIT:
        raise LimitReached(
            f"{TOTAL_LIMIT} of your {plural} wait for decisions already; wait for decisions "
            "or withdraw some.",
            limit=TOTAL_LIMIT,
            pending=in_all,
        )


@cache
def _insert(table: sa.Table) -> sa.Insert:
    return table.insert().returning(*table.c)


def insert(
    conn: Connection,
    kind: Kind[Item],
    values: dict[str, object],
    *,
    same: dict[str, object],
    what: str,
    viewer: Member,
    decides: bool,
) -> Item:
    """The new pending item, made in a savepoint, and its event. Another member's same item
    made a moment ago (the unique index over pending and rejected items says so) is refused
    as check_not_open refuses it, never as a server error. Raises Duplicate, RejectedBefore."""
    try:
        with conn.begin_nested():
            made = conn.execute(_insert(kind.table), values).mappings().one()
    except sa.exc.IntegrityError:
        check_not_open(conn, kind, same, what, viewer=viewer, decides=decides)
        # Gone again by now (withdrawn): still, the same was waiting as this was made.
        raise Duplicate(f"{what} waits for a decision already.") from None
    row = kind.record.of(made)
    events.emit(conn, table=kind.table.name, row_id=row.id, op="insert")
    return row


@cache
def _by_id(table: sa.Table) -> sa.Select[Any]:
    return sa.select(table).where(table.c.id == sa.bindparam("item_id"))


@cache
def _page_and_item(table: sa.Table, lock: bool) -> tuple[sa.Select[Any], sa.Select[Any]]:
    """The page found through an item, then the item: the order every writer takes."""
    page = sa.select(pages).join(table, table.c.page_id == pages.c.id)
    page = page.where(table.c.id == sa.bindparam("item_id"))
    item = _by_id(table)
    if lock:
        return page.with_for_update(key_share=True, of=pages), item.with_for_update()
    return page, item


@cache
def _closing(table: sa.Table) -> sa.Update:
    """The compare-and-set that closes a pending item (its SET from the values given)."""
    pending = sa.and_(table.c.id == sa.bindparam("item_id"), table.c.status == "pending")
    return table.update().where(pending).returning(*table.c)


_NOTIFY = notifications.insert().returning(notifications.c.id)


def fetch(conn: Connection, kind: Kind[Item], item_id: int) -> Item:
    """One row of `kind`, as this transaction has it."""
    return kind.record.of(conn.execute(_by_id(kind.table), {"item_id": item_id}).mappings().one())


def access_item(
    conn: Connection, actor: Member, kind: Kind[Item], item_id: int, *, lock: bool = False
) -> tuple[Item, PageRow, Rights]:
    """The item, its page and the actor's rights; both rows locked when asked. Raises
    NotFound unless the actor suggested it or decides on its page (as the grants are now)."""
    missing = NotFound(f"There is no {kind.noun} {item_id}.", suggestion_id=item_id)
    if not is_id(item_id):
        raise missing
    page_query, item_query = _page_and_item(kind.table, lock)
    page = conn.execute(page_query, {"item_id": item_id}).mappings().first()
    item = None
    if page is not None:
        item = conn.execute(item_query, {"item_id": item_id}).mappings().first()
    if page is None or item is None:
        raise missing
    row, on = kind.record.of(item), PageRow.of(page)
    mine = rights(conn, actor)
    if not mine.sees_suggestion(row.suggester_id, on.space, on.path, on.created_by):
        raise missing
    return row, on, mine


def open_decision(
    conn: Connection, actor: Member, kind: Kind[Item], item_id: int
) -> tuple[Item, PageRow, Rights]:
    """The pending item the actor is to decide, locked, with its page (for accepting to write
    to) and the actor's rights. Raises NotFound, AlreadyDecided, ReadOnly (cannot edit the
    page)."""
    row, page, mine = access_item(conn, actor, kind, item_id, lock=True)
    if row.status != "pending":
        raise AlreadyDecided(
            f"The {kind.noun} {item_id} is {row.status} already.", status=row.status
        )
    if not mine.can_decide(page.space, page.path, page.created_by):
        raise ReadOnly(f"Only someone who can edit the page decides on a {kind.noun}.")
    if page.in_trash:
        raise NotFound(f"The page of {kind.noun} {item_id} is in the trash; restore it first.")
    return row, page, mine


def settle(
    conn: Connection,
    actor: Member,
    kind: Kind[Item],
    row: Item,
    *,
    accepted: PageRow | None,
    reason: str | None,
) -> Item:
    """Close an opened item as decided: accepted (`accepted`, the page as accepting saved it)
    or rejected; its suggester is told. The item as closed."""
    status = "accepted" if accepted is not None else "rejected"
    closed = _close(
        conn,
        kind,
        row.id,
        status=status,
        decided_by=actor.id,
        decision_reason=reason,
        accepted_version=accepted.version if accepted is not None else None,
    )
    if row.suggester_id != actor.id:  # one's own decision needs no telling
        note = {
            "member_id": row.suggester_id,
            "kind": kind.notification,
            "page_id": row.page_id,
            kind.notification_column: row.id,
            "status": status,
            "reason": reason,
            "decided_by": actor.id,
            "created_at": now(),
        }
        note_id = conn.execute(_NOTIFY, note).scalar_one()
        events.emit(conn, table="notifications", row_id=note_id, op="insert")
    return closed


def withdraw(
    conn: Connection, actor: Member, kind: Kind[Item], item_id: int
) -> tuple[Item, PageRow, Rights]:
    """The suggester takes back a pending item. Raises NotFound, ReadOnly (someone else's),
    AlreadyDecided."""
    row, page, mine = access_item(conn, actor, kind, item_id, lock=True)
    if row.suggester_id != actor.id:
        raise ReadOnly(f"Only the member who made a {kind.noun} can withdraw it.")
    if row.status != "pending":
        raise AlreadyDecided(
            f"The {kind.noun} {item_id} is {row.status} already.", status=row.status
        )
    return _close(conn, kind, item_id, status="withdrawn"), page, mine


def _close(conn: Connection, kind: Kind[Item], item_id: int, **values: object) -> Item:
    """Compare-and-set: the pending item becomes decided or withdrawn, exactly once; the
    item as closed."""
    table = kind.table
    changed = {"item_id": item_id, "decided_at": now(), **values}
    closed = conn.execute(_closing(table), changed).mappings().first()
    if closed is None:  # cannot happen under the row lock; refuse rather than write twice
        raise AlreadyDecided(f"The {kind.noun} {item_id} was decided meanwhile.")
    events.emit(conn, table=table.name, row_id=item_id, op="update")
    return kind.record.of(closed)


# -- what undoing revisions does to what was accepted ---------------------------------------


def after_revert(
    conn: Connection, kind: Kind[Item], page_id: int, *, reverted: int, made: int
) -> None:
    """Reverting version `reverted` as version `made`: the item of `kind` whose acceptance
    made `reverted` is reverted in `made`; one that `reverted` had undone is back."""
    table = kind.table
    _mark(conn, kind, page_id, table.c.accepted_version == reverted, made)
    _mark(conn, kind, page_id, table.c.reverted_in_version == reverted, None)


def after_restore(
    conn: Connection, kind: Kind[Item], page_id: int, *, restored: int, made: int
) -> None:
    """Restoring version `restored` as version `made`: what of `kind` was accepted after
    `restored` is undone in `made`; what `restored` held and was undone since is back."""
    accepted = kind.table.c.accepted_version
    undone_in = kind.table.c.reverted_in_version
    _mark(conn, kind, page_id, sa.and_(accepted > restored, undone_in.is_(None)), made)
    _mark(conn, kind, page_id, sa.and_(accepted <= restored, undone_in > restored), None)


def _mark(
    conn: Connection,
    kind: Kind[Item],
    page_id: int,
    which: sa.ColumnElement[bool],
    reverted_in: int | None,
) -> None:
    table = kind.table
    where = (table.c.page_id == page_id, table.c.status == "accepted", which)
    ids = conn.execute(sa.select(table.c.id).where(*where)).scalars().all()
    if ids:
        conn.execute(
            table.update().where(table.c.id.in_(ids)).values(reverted_in_version=reverted_in)
        )
    for item_id in ids:
        events.emit(conn, table=table.name, row_id=item_id, op="update")
