"""Suggested links: a member who can read pages A and B proposes a link from A to B; anyone who
can edit A accepts (an ordinary edit of A) or rejects (for good) it; the suggester may withdraw
it while it waits, and lists their own with their status. An accepted link that a revert or a
restore undoes says which version undid it, as a suggested change does.

Only the suggester and A's editors see a suggested link; to anyone else it does not exist. The
lifecycle it shares with suggested changes is decisions.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.engine import Connection

from codna.errors import Duplicate, InvalidEdit, InvalidRequest, NoLongerApplies, ReadOnly
from codna.markdown.apply import apply_edits
from codna.markdown.limits import check_text, normalise_newlines
from codna.markdown.links import link_edits
from codna.services import decisions, events
from codna.services.access import access_page, read_only_message
from codna.services.addresses import Address, parse_address
from codna.services.attribution import suggested_by
from codna.services.changes import Change, apply_change, save_change
from codna.services.clock import now
from codna.services.context import database
from codna.services.decisions import LINKS, check_decision, check_reason
from codna.services.limits import SUGGESTIONS
from codna.services.listing import check_listing, listed
from codna.services.members import Member, member_by_id_in
from codna.services.suggestion_views import page_heads, who
from codna.storage.database import inserted_id
from codna.storage.records import LinkRow, PageRow
from codna.storage.schema import link_suggestions


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
    reverted_in_version: int | None  # the version that undid the accepted link, if any
    created_at: datetime


def link_views(conn: Connection, rows: Sequence[LinkRow]) -> list[LinkSuggestion]:
    """Suggested links as their readers see them, with two statements for any number of rows."""
    if not rows:
        return []
    by_page = page_heads(conn, {r.page_id for r in rows} | {r.target_page_id for r in rows})
    people = who(conn, {r.suggester_id for r in rows} | {r.decided_by for r in rows})
    found = []
    for row in rows:
        page, target = by_page[row.page_id], by_page[row.target_page_id]
        suggester = people[row.suggester_id]
        decider = people.get(row.decided_by) if row.decided_by is not None else None
        found.append(
            LinkSuggestion(
                id=row.id,
                page=str(Address(page.space, page.path)),
                target=str(Address(target.space, target.path)),
                target_title=target.title,
                anchor=row.anchor,
                reason=row.reason,
                suggester=suggester.name,
                suggester_kind=suggester.kind,
                status=row.status,
                decided_by=decider.name if decider else None,
                decided_at=row.decided_at,
                decision_reason=row.decision_reason,
                accepted_version=row.accepted_version,
                reverted_in_version=row.reverted_in_version,
                created_at=row.created_at,
            )
        )
    return found


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
        page, mine = access_page(conn, actor, source_at)
        if not mine.can_suggest(page.space, page.path, page.created_by):
            raise ReadOnly(read_only_message(source_at, actor), address=str(source_at))
        other, _ = access_page(conn, actor, target_at)
        # A rejection is durable: refused as such before anything else is tried.
        decisions.check_not_open(
            conn,
            LINKS,
            {"page_id": page.id, "target_page_id": other.id},
            what=f"A link from {source_at} to {target_at}",
        )
        if f"]({target_at})" in page.body:
            raise Duplicate(f"{source_at} links to {target_at} already.", address=str(source_at))
        edits = link_edits(
            page.body, target=str(target_at), label=other.title, anchor=anchor or None
        )
        apply_edits(page.body, edits)  # refused at once if the anchor is not once on A
        made = conn.execute(
            link_suggestions.insert().values(
                page_id=page.id,
                target_page_id=other.id,
                anchor=anchor or None,
                reason=checked_reason,
                suggester_id=actor.id,
                status="pending",
                created_at=now(),
            )
        )
        link_id = inserted_id(made)
        events.emit(conn, table="link_suggestions", row_id=link_id, op="insert")
        return link_views(conn, [decisions.fetch(conn, LINKS, link_id)])[0]


def decide_link(
    actor: Member, *, suggestion_id: int, decision: str, reason: str | None = None
) -> LinkSuggestion:
    """Accept (an edit of A, one revision by the actor) or reject a suggested link; one decision
    settles it for every editor, and its suggester is told.

    Raises NotFound, ReadOnly (cannot edit A), AlreadyDecided, NoLongerApplies (the anchor text
    is gone), InvalidRequest.
    """
    check_decision(decision)
    checked_reason = check_reason(reason, required=False)
    with database().write() as conn:

        def accept(page: PageRow, row: LinkRow) -> PageRow:
            [target] = page_heads(conn, {row.target_page_id}).values()
            target_at = Address(target.space, target.path)
            edits = link_edits(
                page.body, target=str(target_at), label=target.title, anchor=row.anchor
            )
            try:
                after = apply_change(page, Change(edits=tuple(edits)))
            except InvalidEdit as error:
                raise NoLongerApplies(
                    "The text that should become the link is no longer on the page as it is; "
                    "only rejecting is left.",
                    edit_index=error.fields.get("edit_index", 0),
                    reason=error.fields.get("reason"),
                ) from None
            suggester = member_by_id_in(conn, row.suggester_id)
            assert suggester is not None
            summary = suggested_by(suggester, row.reason)
            return save_change(conn, page, actor, after=after, summary=summary, kind="accept_link")

        row, _, _ = decisions.decide(
            conn,
            actor,
            LINKS,
            suggestion_id,
            decision=decision,
            reason=checked_reason,
            accept=accept,
        )
        return link_views(conn, [row])[0]


def withdraw_link(actor: Member, *, suggestion_id: int) -> LinkSuggestion:
    """The suggester takes back a suggested link that still waits.

    Raises NotFound, ReadOnly (someone else's), AlreadyDecided.
    """
    with database().write() as conn:
        row, _, _ = decisions.withdraw(conn, actor, LINKS, suggestion_id)
        return link_views(conn, [row])[0]


def read_link(actor: Member, *, suggestion_id: int) -> LinkSuggestion:
    """One suggested link, for its suggester or an editor of its page. Raises NotFound."""
    with database().read() as conn:
        row, _, _ = decisions.access_item(conn, actor, LINKS, suggestion_id)
        return link_views(conn, [row])[0]


def list_links(
    actor: Member,
    *,
    address: str | None = None,
    status: str | None = None,
    limit: int = SUGGESTIONS.default,
    offset: int = 0,
) -> list[LinkSuggestion]:
    """Suggested links, newest first: on a page (all of them for its editors, one's own for
    anyone else), under a folder or in a space (those on pages there the actor decides on,
    and the actor's own), or without an address the actor's own; by status if given. A folder
    may be named without its slash (listing.py).

    Raises NotFound (a page the actor cannot read), InvalidRequest.
    """
    where = check_listing(address, status, limit, offset)
    with database().read() as conn:
        found, _ = listed(conn, actor, LINKS, where, status=status, limit=limit, offset=offset)
        return link_views(conn, found)
