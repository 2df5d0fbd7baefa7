"""Suggested changes (ADR 0024): edits kept until someone who can edit the page accepts them
(one ordinary revision, in the acceptor's name) or rejects them (for good).

Anyone who can read a page may suggest, outside `raw`; only the suggester and the page's
editors see a suggestion. Limits: 20 pending per suggester per page, 200 in all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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
from codna.markdown.diff import unified_diff
from codna.markdown.edits import edits_to_wire
from codna.services import events
from codna.services.access import Rights, rights
from codna.services.addresses import parse_address
from codna.services.attribution import suggested_by
from codna.services.clock import now
from codna.services.context import database
from codna.services.links import check_reason
from codna.services.members import Member, member_by_id_in
from codna.services.pages import Change, access_page, apply_change, check_change, save_applied
from codna.services.revisions import revision_row
from codna.services.suggestion_checks import applies_now, apply_suggestion
from codna.services.suggestion_views import Suggestion, views
from codna.storage.database import inserted_id
from codna.storage.records import Row
from codna.storage.schema import MAX_ID, edit_suggestions, members, notifications, pages

PER_PAGE_LIMIT = 20
TOTAL_LIMIT = 200
STATUSES = ("pending", "accepted", "rejected", "withdrawn")


@dataclass(frozen=True)
class SuggestResult:
    """The suggestion made (None on a dry run), and the diff its edits make to the base."""

    saved: bool
    diff: str
    suggestion: Suggestion | None


def edits_hash(change: Change) -> str:
    """SHA-256 over the canonical form of SPEC 4: the edits in order, each with `\\n` line
    endings and sorted keys, plus the new title and the sorted tags to add and remove."""
    canonical = {
        "edits": edits_to_wire(change.edits),  # parsing normalised the line endings
        "title": change.title,
        "tags_add": sorted(change.tags_add),
        "tags_remove": sorted(change.tags_remove),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def suggest_edit(
    actor: Member,
    *,
    address: str,
    edits: object,
    reason: str,
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
    base_version: int | None = None,
    dry_run: bool = False,
    via: str | None = None,
) -> SuggestResult:
    """Suggest edits (the language of `edit_document`), a new title or tag changes, with a
    required reason. They must apply to the page as it is now and to `base_version` (the
    version the suggester read; default the current one), whose diff is kept.

    A dry run runs every check and writes nothing. Raises InvalidRequest, InvalidEdit,
    TooLarge, NotFound, ReadOnly (raw), Duplicate, RejectedBefore, LimitReached.
    """
    where = parse_address(address, want="page")
    change = check_change(edits, title=title, tags_add=tags_add, tags_remove=tags_remove)
    checked_reason = check_reason(reason, required=True)
    assert checked_reason is not None
    digest = edits_hash(change)
    transaction = database().read() if dry_run else database().write()
    with transaction as conn:
        if not dry_run:
            # One suggester's suggestions queue here, so the limits hold under concurrency.
            conn.execute(
                sa.select(members.c.id)
                .where(members.c.id == actor.id)
                .with_for_update(key_share=True)
            )
        page, mine = access_page(conn, actor, where)
        if page["space"] == "raw":
            raise ReadOnly(f"{where} is in raw, which is never edited; nothing is suggested there.")
        base = page if base_version in (None, page["version"]) else _base(conn, page, base_version)
        after = apply_change(page, change)  # refused at once if it does not apply now
        if (after.body, after.title, after.tags) == (
            page["body"],
            page["title"],
            list(page["tags"]),
        ):
            raise InvalidRequest("These edits leave the page as it is; nothing to suggest.")
        on_base = after if base is page else apply_change(base, change)
        diff = unified_diff(
            base["body"],
            on_base.body,
            old_label=f"{where} v{base['version']}",
            new_label=f"{where} suggested",
        )
        _check_same_edits(conn, page["id"], digest)
        _check_limits(conn, actor, page["id"])
        if dry_run:
            return SuggestResult(saved=False, diff=diff, suggestion=None)
        suggestion_id = _insert(
            conn, actor, page, base["version"], change, checked_reason, diff, digest, via
        )
        applies_now(conn, suggestion_id, page["version"])
        events.emit(conn, table="edit_suggestions", row_id=suggestion_id, op="insert")
        [made] = views(conn, [_row(conn, suggestion_id)], mine, page=page)
        return SuggestResult(saved=True, diff=diff, suggestion=made)


def _base(conn: Connection, page: Row, version: int | None) -> Mapping[Any, Any]:
    if version is None or version < 1 or version > page["version"]:
        raise InvalidRequest(
            f"base_version is the version you read: 1 to {page['version']}.",
            field="base_version",
            current_version=page["version"],
        )
    old = revision_row(conn, page["id"], version, f"page {page['id']}")
    return {
        **page,
        "body": old["body"],
        "title": old["title"],
        "tags": old["tags"],
        "version": version,
    }


def _check_same_edits(conn: Connection, page_id: int, digest: str) -> None:
    status = conn.execute(
        sa.select(edit_suggestions.c.status).where(
            edit_suggestions.c.page_id == page_id,
            edit_suggestions.c.edits_hash == digest,
            edit_suggestions.c.status.in_(["pending", "rejected"]),
        )
    ).scalar()
    if status == "rejected":
        raise RejectedBefore("The same edits were suggested on this page before and rejected.")
    if status == "pending":
        raise Duplicate("The same edits already wait for a decision on this page.")


def _check_limits(conn: Connection, actor: Member, page_id: int) -> None:
    mine = sa.and_(
        edit_suggestions.c.suggester_id == actor.id, edit_suggestions.c.status == "pending"
    )
    on_page, in_all = conn.execute(
        sa.select(
            sa.func.count().filter(edit_suggestions.c.page_id == page_id),
            sa.func.count(),
        ).where(mine)
    ).one()
    if on_page >= PER_PAGE_LIMIT:
        raise LimitReached(
            f"{PER_PAGE_LIMIT} of your suggestions wait on this page already; wait for "
            "decisions or withdraw some.",
            limit=PER_PAGE_LIMIT,
            pending=on_page,
        )
    if in_all >= TOTAL_LIMIT:
        raise LimitReached(
            f"{TOTAL_LIMIT} of your suggestions wait for decisions already; wait for decisions "
            "or withdraw some.",
            limit=TOTAL_LIMIT,
            pending=in_all,
        )


def _insert(
    conn: Connection,
    actor: Member,
    page: Row,
    base_version: int,
    change: Change,
    reason: str,
    diff: str,
    digest: str,
    via: str | None,
) -> int:
    try:
        with conn.begin_nested():
            return inserted_id(
                conn.execute(
                    edit_suggestions.insert().values(
                        page_id=page["id"],
                        base_version=base_version,
                        edits=edits_to_wire(change.edits),
                        title=change.title,
                        title_was=page["title"] if change.title is not None else None,
                        tags_add=list(change.tags_add),
                        tags_remove=list(change.tags_remove),
                        reason=reason,
                        suggester_id=actor.id,
                        via=via,
                        status="pending",
                        diff=diff,
                        edits_hash=digest,
                        created_at=now(),
                    )
                )
            )
    except sa.exc.IntegrityError:
        # Another suggester's same edits landed a moment ago: the unique index says so.
        _check_same_edits(conn, page["id"], digest)
        raise


def _row(conn: Connection, suggestion_id: int) -> Row:
    return (
        conn.execute(sa.select(edit_suggestions).where(edit_suggestions.c.id == suggestion_id))
        .mappings()
        .one()
    )


def access_suggestion(
    conn: Connection, actor: Member, suggestion_id: int, *, lock: bool = False
) -> tuple[Row, Row, Rights]:
    """The suggestion, its page and the actor's rights. Raises NotFound unless the actor is its
    suggester or an editor of its page (as the grants are now)."""
    missing = NotFound(f"There is no suggestion {suggestion_id}.", suggestion_id=suggestion_id)
    if not 1 <= suggestion_id <= MAX_ID:
        raise missing
    # The page first, found through the suggestion, then the suggestion: the order every
    # writer takes them in.
    page_query = (
        sa.select(pages)
        .join(edit_suggestions, edit_suggestions.c.page_id == pages.c.id)
        .where(edit_suggestions.c.id == suggestion_id)
    )
    query = sa.select(edit_suggestions).where(edit_suggestions.c.id == suggestion_id)
    if lock:
        page_query = page_query.with_for_update(key_share=True, of=pages)
        query = query.with_for_update()
    page = conn.execute(page_query).mappings().first()
    row = conn.execute(query).mappings().first() if page is not None else None
    if page is None or row is None:
        raise missing
    mine = rights(conn, actor)
    if row["suggester_id"] != actor.id and not mine.can_decide(
        page["space"], page["path"], page["created_by"]
    ):
        raise missing
    return row, page, mine


def decide_edit_suggestion(
    actor: Member, *, suggestion_id: int, decision: str, reason: str | None = None
) -> Suggestion:
    """Accept (the edits applied to the page as it is now, one revision by the actor, with the
    summary of SPEC 4) or reject (with an optional reason the suggester reads) a suggestion.
    One decision settles it for every editor; the suggester is told.

    Raises NotFound, ReadOnly (cannot edit the page), AlreadyDecided, NoLongerApplies,
    InvalidRequest.
    """
    if decision not in ("accept", "reject"):
        raise InvalidRequest("The decision is accept or reject.", field="decision")
    checked_reason = check_reason(reason, required=False)
    with database().write() as conn:
        row, page, mine = access_suggestion(conn, actor, suggestion_id, lock=True)
        if row["status"] != "pending":
            raise AlreadyDecided(
                f"Suggestion {suggestion_id} is {row['status']} already.", status=row["status"]
            )
        if not mine.can_decide(page["space"], page["path"], page["created_by"]):
            raise ReadOnly("Only someone who can edit the page decides on its suggestions.")
        if page["trashed_at"] is not None:
            raise NotFound(
                f"The page of suggestion {suggestion_id} is in the trash; restore it first."
            )
        page_now: Mapping[Any, Any] = page
        version = None
        if decision == "accept":
            page_now = _accept(conn, actor, row, page)
            version = page_now["version"]
        status = "accepted" if decision == "accept" else "rejected"
        decided = {
            "status": status,
            "decided_by": actor.id,
            "decided_at": now(),
            "decision_reason": checked_reason,
            "accepted_version": version,
        }
        changed = conn.execute(
            edit_suggestions.update()
            .where(edit_suggestions.c.id == suggestion_id, edit_suggestions.c.status == "pending")
            .values(**decided)
        ).rowcount
        if changed != 1:  # cannot happen under the row lock; refuse rather than write twice
            raise AlreadyDecided(f"Suggestion {suggestion_id} was decided meanwhile.")
        events.emit(conn, table="edit_suggestions", row_id=suggestion_id, op="update")
        _notify(conn, actor, row, status, checked_reason)
        [seen] = views(conn, [{**row, **decided}], mine, page=page_now)
        return seen


def _accept(conn: Connection, actor: Member, row: Row, page: Row) -> Mapping[Any, Any]:
    """Apply the suggestion to the page as it is, as one revision; the page after it."""
    after = apply_suggestion(page, row)  # NoLongerApplies: the edit and why
    suggester = member_by_id_in(conn, row["suggester_id"])
    assert suggester is not None
    summary = suggested_by(suggester, row["reason"], via=row["via"])
    version = save_applied(
        conn, page, actor, after=after, summary=summary, kind="accept_suggestion"
    )
    page_now = dict(page)
    page_now.update(title=after.title, tags=after.tags, body=after.body, version=version)
    return page_now


def _notify(conn: Connection, actor: Member, row: Row, status: str, reason: str | None) -> None:
    if row["suggester_id"] == actor.id:
        return  # one's own decision needs no telling
    note_id = inserted_id(
        conn.execute(
            notifications.insert().values(
                member_id=row["suggester_id"],
                kind="change_decided",
                page_id=row["page_id"],
                edit_suggestion_id=row["id"],
                status=status,
                reason=reason,
                decided_by=actor.id,
                created_at=now(),
            )
        )
    )
    events.emit(conn, table="notifications", row_id=note_id, op="insert")


def withdraw_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """The suggester takes back a suggestion that still waits. Raises NotFound, ReadOnly
    (someone else's), AlreadyDecided."""
    with database().write() as conn:
        row, page, mine = access_suggestion(conn, actor, suggestion_id, lock=True)
        if row["suggester_id"] != actor.id:
            raise ReadOnly("Only the member who made a suggestion can withdraw it.")
        if row["status"] != "pending":
            raise AlreadyDecided(
                f"Suggestion {suggestion_id} is {row['status']} already.", status=row["status"]
            )
        conn.execute(
            edit_suggestions.update()
            .where(edit_suggestions.c.id == suggestion_id, edit_suggestions.c.status == "pending")
            .values(status="withdrawn", decided_at=now())
        )
        events.emit(conn, table="edit_suggestions", row_id=suggestion_id, op="update")
        [seen] = views(conn, [_row(conn, suggestion_id)], mine, page=page)
        return seen


def read_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """One suggestion, for its suggester or an editor of its page. Raises NotFound."""
    with database().read() as conn:
        row, page, mine = access_suggestion(conn, actor, suggestion_id)
        [seen] = views(conn, [row], mine, page=page)
        return seen


def list_suggestions(
    actor: Member, *, address: str | None = None, status: str | None = None, limit: int = 200
) -> list[Suggestion]:
    """A page's suggestions (all of them for its editors, one's own for anyone else), or
    without an address the caller's own, newest first. Raises NotFound, InvalidRequest."""
    if status is not None and status not in STATUSES:
        raise InvalidRequest(f"The statuses are {', '.join(STATUSES)}.", field="status")
    with database().read() as conn:
        query = sa.select(edit_suggestions)
        if address is not None:
            page, mine = access_page(
                conn, actor, parse_address(address, want="page"), in_trash=None
            )
            query = query.where(edit_suggestions.c.page_id == page["id"])
            if not mine.can_decide(page["space"], page["path"], page["created_by"]):
                query = query.where(edit_suggestions.c.suggester_id == actor.id)
        else:
            mine = rights(conn, actor)
            query = query.where(edit_suggestions.c.suggester_id == actor.id)
        if status is not None:
            query = query.where(edit_suggestions.c.status == status)
        rows = (
            conn.execute(
                query.order_by(
                    edit_suggestions.c.created_at.desc(), edit_suggestions.c.id.desc()
                ).limit(max(1, min(limit, 1000)))
            )
            .mappings()
            .all()
        )
        return views(conn, rows, mine) if rows else []


def mark_reverted(conn: Connection, page_id: int, version: int, reverted_in: int) -> None:
    """Record, on the suggestion whose acceptance made `version`, the version that undid it."""
    row = conn.execute(
        sa.select(edit_suggestions.c.id).where(
            edit_suggestions.c.page_id == page_id,
            edit_suggestions.c.accepted_version == version,
            edit_suggestions.c.status == "accepted",
        )
    ).first()
    if row is not None:
        conn.execute(
            edit_suggestions.update()
            .where(edit_suggestions.c.id == row.id)
            .values(reverted_in_version=reverted_in)
        )
        events.emit(conn, table="edit_suggestions", row_id=row.id, op="update")
