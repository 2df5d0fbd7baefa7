"""Suggested links: a member who can read pages A and B proposes a link from A to B; anyone who
can edit A accepts (an ordinary edit of A) or rejects (for good) it; the suggester may withdraw.

Only the suggester and A's editors see a suggested link; to anyone else it does not exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import (
    AlreadyDecided,
    Duplicate,
    InvalidEdit,
    InvalidRequest,
    NoLongerApplies,
    NotFound,
    ReadOnly,
    RejectedBefore,
)
from codna.markdown.edits import apply_edits
from codna.markdown.limits import (
    MAX_REASON_CHARS,
    check_encodable,
    check_text,
    normalise_newlines,
)
from codna.markdown.links import link_edits
from codna.services import events
from codna.services.access import Rights, rights
from codna.services.addresses import Address, parse_address
from codna.services.attribution import suggested_by
from codna.services.clock import now
from codna.services.context import database
from codna.services.members import Member, member_by_id_in
from codna.services.pages import Applied, Change, access_page, apply_change, save_applied
from codna.settings import base_url
from codna.storage.database import inserted_id
from codna.storage.records import Row
from codna.storage.schema import MAX_ID, link_suggestions, members, notifications, pages

Decision = Literal["accept", "reject"]


@dataclass(frozen=True)
class LinkSuggestion:
    """A suggested link from `page` to `target`, as its suggester or an editor of `page` sees it."""

    id: int
    page: str
    target: str
    target_title: str
    anchor: str | None
    reason: str
    suggester: str
    suggester_kind: str
    status: str
    decided_by: str | None
    decided_at: datetime | None
    decision_reason: str | None
    accepted_version: int | None
    created_at: datetime
    url: str


def check_reason(reason: object, *, required: bool, field: str = "reason") -> str | None:
    """A reason is a sentence or two: at most 500 characters; required where it must be."""
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        if required:
            raise InvalidRequest(
                "Say why, in a sentence or two: the reason is required.", field=field
            )
        return None
    if not isinstance(reason, str):
        raise InvalidRequest("A reason is text.", field=field)
    check_encodable(reason, field=field)
    reason = " ".join(normalise_newlines(reason).split())
    if len(reason) > MAX_REASON_CHARS:
        raise InvalidRequest(
            f"A reason has at most {MAX_REASON_CHARS} characters.",
            field=field,
            limit=MAX_REASON_CHARS,
        )
    return reason


def link_url(link_id: int) -> str:
    return f"{base_url()}/api/v1/links/{link_id}"


def links_from_rows(conn: Connection, rows: Sequence[Row]) -> list[LinkSuggestion]:
    """Suggested links as their readers see them, with two queries for any number of rows."""
    page_ids = {r["page_id"] for r in rows} | {r["target_page_id"] for r in rows}
    member_ids = {r["suggester_id"] for r in rows} | {r["decided_by"] for r in rows}
    page_rows = conn.execute(
        sa.select(pages.c.id, pages.c.space, pages.c.path, pages.c.title).where(
            pages.c.id.in_(page_ids)
        )
    ).all()
    member_rows = conn.execute(
        sa.select(members.c.id, members.c.name, members.c.kind).where(
            members.c.id.in_(member_ids - {None})
        )
    ).all()
    by_page = {r.id: r for r in page_rows}
    by_member = {r.id: r for r in member_rows}
    found = []
    for row in rows:
        page, target = by_page[row["page_id"]], by_page[row["target_page_id"]]
        suggester = by_member[row["suggester_id"]]
        decider = by_member.get(row["decided_by"])
        found.append(
            LinkSuggestion(
                id=row["id"],
                page=str(Address(page.space, page.path)),
                target=str(Address(target.space, target.path)),
                target_title=target.title,
                anchor=row["anchor"],
                reason=row["reason"],
                suggester=suggester.name,
                suggester_kind=suggester.kind,
                status=row["status"],
                decided_by=decider.name if decider else None,
                decided_at=row["decided_at"],
                decision_reason=row["decision_reason"],
                accepted_version=row["accepted_version"],
                created_at=row["created_at"],
                url=link_url(row["id"]),
            )
        )
    return found


def link_from_row(conn: Connection, row: Row) -> LinkSuggestion:
    return links_from_rows(conn, [row])[0]


def _visible(mine: Rights, page: Row, row: Row) -> bool:
    return row["suggester_id"] == mine.member.id or mine.can_decide(
        page["space"], page["path"], page["created_by"]
    )


def access_link(
    conn: Connection, actor: Member, link_id: int, *, lock: bool = False
) -> tuple[Row, Row, Rights]:
    """The suggestion, its page A and the actor's rights. Raises NotFound unless the actor is
    its suggester or decides on A."""
    query = sa.select(link_suggestions).where(link_suggestions.c.id == link_id)
    row = conn.execute(query).mappings().first() if 1 <= link_id <= MAX_ID else None
    missing = NotFound(f"There is no suggested link {link_id}.", suggestion_id=link_id)
    if row is None:
        raise missing
    page_query = sa.select(pages).where(pages.c.id == row["page_id"])
    if lock:  # the page first, then the suggestion: the order every writer takes them in
        page_query = page_query.with_for_update(key_share=True)
    page = conn.execute(page_query).mappings().one()
    if lock:
        row = conn.execute(query.with_for_update()).mappings().one()
    mine = rights(conn, actor)
    if not _visible(mine, page, row):
        raise missing
    return row, page, mine


def suggest_link(
    actor: Member, *, address: str, target: str, reason: str, anchor: str | None = None
) -> LinkSuggestion:
    """Suggest a link from the page at `address` to `target`, with a reason and optionally the
    text on the page that should become the link.

    Raises InvalidRequest, NotFound (either page unreadable), ReadOnly (A in raw), InvalidEdit
    (the anchor is not once on the page), Duplicate (the same link waits, or A links to B
    already), RejectedBefore (this link was rejected).
    """
    source_at = parse_address(address, want="page")
    target_at = parse_address(target, want="page")
    if source_at == target_at:
        raise InvalidRequest("A page cannot link to itself.", field="target")
    checked_reason = check_reason(reason, required=True)
    if anchor is not None:
        anchor = normalise_newlines(anchor)
        check_text(anchor, field="anchor")
    with database().write() as conn:
        page, _ = access_page(conn, actor, source_at)
        if page["space"] == "raw":
            raise ReadOnly(f"{source_at} is in raw, which is never edited.", address=str(source_at))
        other, _ = access_page(conn, actor, target_at)
        if f"]({target_at})" in page["body"]:
            raise Duplicate(f"{source_at} links to {target_at} already.", address=str(source_at))
        edits = link_edits(
            page["body"], target=str(target_at), label=other["title"], anchor=anchor or None
        )
        apply_edits(page["body"], edits)  # refused at once if the anchor is not once on A
        _check_open_pair(conn, page["id"], other["id"], source_at, target_at)
        link_id = inserted_id(
            conn.execute(
                link_suggestions.insert().values(
                    page_id=page["id"],
                    target_page_id=other["id"],
                    anchor=anchor or None,
                    reason=checked_reason,
                    suggester_id=actor.id,
                    status="pending",
                    created_at=now(),
                )
            )
        )
        events.emit(conn, table="link_suggestions", row_id=link_id, op="insert")
        row = (
            conn.execute(sa.select(link_suggestions).where(link_suggestions.c.id == link_id))
            .mappings()
            .one()
        )
        return link_from_row(conn, row)


def _check_open_pair(
    conn: Connection, page_id: int, target_id: int, a: Address, b: Address
) -> None:
    status = conn.execute(
        sa.select(link_suggestions.c.status).where(
            link_suggestions.c.page_id == page_id,
            link_suggestions.c.target_page_id == target_id,
            link_suggestions.c.status.in_(["pending", "rejected"]),
        )
    ).scalar()
    if status == "rejected":
        raise RejectedBefore(
            f"A link from {a} to {b} was rejected before; it is not suggested again."
        )
    if status == "pending":
        raise Duplicate(f"A link from {a} to {b} waits for a decision already.")


def decide_link(
    actor: Member, *, suggestion_id: int, decision: str, reason: str | None = None
) -> LinkSuggestion:
    """Accept (an edit of A, one revision by the actor) or reject a suggested link; one decision
    settles it for every editor, and its suggester is told.

    Raises NotFound, ReadOnly (cannot edit A), AlreadyDecided, NoLongerApplies (the anchor text
    is gone), InvalidRequest.
    """
    if decision not in ("accept", "reject"):
        raise InvalidRequest("The decision is accept or reject.", field="decision")
    checked_reason = check_reason(reason, required=False)
    with database().write() as conn:
        row, page, mine = access_link(conn, actor, suggestion_id, lock=True)
        if row["status"] != "pending":
            raise AlreadyDecided(
                f"Suggested link {suggestion_id} is {row['status']} already.", status=row["status"]
            )
        if not mine.can_decide(page["space"], page["path"], page["created_by"]):
            raise ReadOnly("Only someone who can edit the page decides on its suggested links.")
        if page["trashed_at"] is not None:
            raise NotFound(f"The page of suggested link {suggestion_id} is in the trash.")
        version = None
        if decision == "accept":
            version = _accept(conn, actor, mine, row, page)
        decided = conn.execute(
            link_suggestions.update()
            .where(link_suggestions.c.id == suggestion_id, link_suggestions.c.status == "pending")
            .values(
                status="accepted" if decision == "accept" else "rejected",
                decided_by=actor.id,
                decided_at=now(),
                decision_reason=checked_reason,
                accepted_version=version,
            )
        ).rowcount
        if decided != 1:  # cannot happen under the row lock; refuse rather than write twice
            raise AlreadyDecided(f"Suggested link {suggestion_id} was decided meanwhile.")
        events.emit(conn, table="link_suggestions", row_id=suggestion_id, op="update")
        _notify_suggester(conn, actor, row, page["id"], decision, checked_reason)
        fresh = (
            conn.execute(sa.select(link_suggestions).where(link_suggestions.c.id == suggestion_id))
            .mappings()
            .one()
        )
        return link_from_row(conn, fresh)


def _accept(conn: Connection, actor: Member, mine: Rights, row: Row, page: Row) -> int:
    target = (
        conn.execute(sa.select(pages).where(pages.c.id == row["target_page_id"])).mappings().one()
    )
    target_at = Address(target["space"], target["path"])
    edits = link_edits(
        page["body"], target=str(target_at), label=target["title"], anchor=row["anchor"]
    )
    try:
        after: Applied = apply_change(page, Change(edits=tuple(edits)))
    except InvalidEdit as error:
        raise NoLongerApplies(
            "The text that should become the link is no longer on the page as it is; "
            "only rejecting is left.",
            edit_index=error.fields.get("edit_index", 0),
            reason=error.fields.get("reason"),
        ) from None
    suggester = member_by_id_in(conn, row["suggester_id"])
    assert suggester is not None
    summary = suggested_by(suggester, row["reason"])
    return save_applied(conn, page, actor, after=after, summary=summary, kind="accept_link")


def _notify_suggester(
    conn: Connection,
    actor: Member,
    row: Row,
    page_id: int,
    decision: str,
    reason: str | None,
) -> None:
    if row["suggester_id"] == actor.id:
        return  # one's own decision needs no telling
    note_id = inserted_id(
        conn.execute(
            notifications.insert().values(
                member_id=row["suggester_id"],
                kind="link_decided",
                page_id=page_id,
                link_suggestion_id=row["id"],
                status="accepted" if decision == "accept" else "rejected",
                reason=reason,
                decided_by=actor.id,
                created_at=now(),
            )
        )
    )
    events.emit(conn, table="notifications", row_id=note_id, op="insert")


def withdraw_link(actor: Member, *, suggestion_id: int) -> LinkSuggestion:
    """The suggester takes back a suggested link that still waits.

    Raises NotFound, ReadOnly (someone else's), AlreadyDecided.
    """
    with database().write() as conn:
        row, _, _ = access_link(conn, actor, suggestion_id, lock=True)
        if row["suggester_id"] != actor.id:
            raise ReadOnly("Only the member who suggested a link can withdraw it.")
        if row["status"] != "pending":
            raise AlreadyDecided(
                f"Suggested link {suggestion_id} is {row['status']} already.", status=row["status"]
            )
        conn.execute(
            link_suggestions.update()
            .where(link_suggestions.c.id == suggestion_id, link_suggestions.c.status == "pending")
            .values(status="withdrawn", decided_at=now())
        )
        events.emit(conn, table="link_suggestions", row_id=suggestion_id, op="update")
        fresh = (
            conn.execute(sa.select(link_suggestions).where(link_suggestions.c.id == suggestion_id))
            .mappings()
            .one()
        )
        return link_from_row(conn, fresh)


def read_link(actor: Member, *, suggestion_id: int) -> LinkSuggestion:
    """One suggested link, for its suggester or an editor of its page. Raises NotFound."""
    with database().read() as conn:
        row, _, _ = access_link(conn, actor, suggestion_id)
        return link_from_row(conn, row)
