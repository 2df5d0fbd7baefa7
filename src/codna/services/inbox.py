"""The inbox: what waits on a member's decision, grouped by kind, and the decisions on what
they suggested. Who decides is computed when asked, from the grants as they are then."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidRequest
from codna.services import events
from codna.services.access import rights
from codna.services.addresses import Address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events import Event
from codna.services.links import LinkSuggestion, links_from_rows
from codna.services.members import Member, names
from codna.storage.schema import link_suggestions, notifications, pages

MAX_PAGE = 200
KINDS = ("link",)


@dataclass(frozen=True)
class Pending:
    """One page of what waits on a member's decision, newest first, and how many in all."""

    total: int
    links_total: int
    links: tuple[LinkSuggestion, ...]


@dataclass(frozen=True)
class Notification:
    """A decision on something the member suggested."""

    id: int
    kind: str
    page: str
    status: str
    reason: str | None
    decided_by: str | None
    suggestion_id: int | None
    created_at: datetime
    read: bool


@dataclass(frozen=True)
class Inbox:
    """A member's inbox: the groups waiting on them, and decisions on what they suggested."""

    suggested_links: Pending
    decisions: tuple[Notification, ...]
    unread: int


def _pending_links(conn: Connection, actor: Member) -> list[sa.ColumnElement[bool]]:
    """The WHERE clause of suggested links waiting on the actor, over links joined to pages."""
    return [
        link_suggestions.c.status == "pending",
        pages.c.trashed_at.is_(None),
        rights(conn, actor).decidable(),
    ]


def pending_decisions(
    actor: Member, *, kind: str | None = None, limit: int = 50, offset: int = 0
) -> Pending:
    """Suggestions that wait on the actor: on pages they can edit, newest first.

    Raises InvalidRequest (an unknown kind, a bad limit or offset).
    """
    if kind is not None and kind not in KINDS:
        raise InvalidRequest(f"The kinds are {', '.join(KINDS)}.", field="kind")
    if not 1 <= limit <= MAX_PAGE or offset < 0:
        raise InvalidRequest(f"Ask for 1 to {MAX_PAGE} items from an offset of 0 or more.")
    with database().read() as conn:
        where = _pending_links(conn, actor)
        joined = link_suggestions.join(pages, pages.c.id == link_suggestions.c.page_id)
        total = conn.execute(
            sa.select(sa.func.count()).select_from(joined).where(*where)
        ).scalar_one()
        rows = (
            conn.execute(
                sa.select(link_suggestions)
                .select_from(joined)
                .where(*where)
                .order_by(link_suggestions.c.created_at.desc(), link_suggestions.c.id.desc())
                .limit(limit)
                .offset(offset)
            )
            .mappings()
            .all()
        )
        links = tuple(links_from_rows(conn, rows))
    return Pending(total=total, links_total=total, links=links)


def inbox(actor: Member, *, limit: int = 20) -> Inbox:
    """The actor's inbox: suggested links waiting on them, and decisions on what they
    suggested, unread first."""
    waiting = pending_decisions(actor, limit=max(1, min(limit, MAX_PAGE)))
    with database().read() as conn:
        rows = (
            conn.execute(
                sa.select(notifications, pages.c.space, pages.c.path)
                .join(pages, pages.c.id == notifications.c.page_id)
                .where(notifications.c.member_id == actor.id)
                .order_by(
                    notifications.c.read_at.is_not(None),
                    notifications.c.created_at.desc(),
                    notifications.c.id.desc(),
                )
                .limit(max(1, min(limit, MAX_PAGE)))
            )
            .mappings()
            .all()
        )
        unread = conn.execute(
            sa.select(sa.func.count()).where(
                notifications.c.member_id == actor.id, notifications.c.read_at.is_(None)
            )
        ).scalar_one()
        who = names(conn, {r["decided_by"] for r in rows if r["decided_by"]})
    decisions = tuple(
        Notification(
            id=r["id"],
            kind=r["kind"],
            page=str(Address(r["space"], r["path"])),
            status=r["status"],
            reason=r["reason"],
            decided_by=who.get(r["decided_by"]) if r["decided_by"] else None,
            suggestion_id=r["link_suggestion_id"],
            created_at=r["created_at"],
            read=r["read_at"] is not None,
        )
        for r in rows
    )
    return Inbox(suggested_links=waiting, decisions=decisions, unread=unread)


def mark_read(actor: Member, *, ids: list[int] | None = None) -> int:
    """Mark the actor's notifications read (these, or all); returns how many changed."""
    with database().write() as conn:
        where = [notifications.c.member_id == actor.id, notifications.c.read_at.is_(None)]
        if ids is not None:
            where.append(notifications.c.id.in_(ids))
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
    with database().read() as conn:
        if event.table == "notifications":
            owner = conn.execute(
                sa.select(notifications.c.member_id).where(notifications.c.id == event.id)
            ).scalar()
            return owner == member.id
        if event.table == "link_suggestions":
            row = conn.execute(
                sa.select(
                    link_suggestions.c.suggester_id, pages.c.space, pages.c.path, pages.c.created_by
                )
                .join(pages, pages.c.id == link_suggestions.c.page_id)
                .where(link_suggestions.c.id == event.id)
            ).first()
            if row is None:
                return False
            if row.suggester_id == member.id:
                return True
            return rights(conn, member).can_decide(row.space, row.path, row.created_by)
    return False
