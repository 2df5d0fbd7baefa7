"""Suggested links (SPEC 3): a member who can read pages A and B proposes a link from A to B;
anyone who can edit A accepts (an ordinary edit of A) or rejects (for good) it; the suggester
may withdraw it while it waits, and lists their own with their status.

The lifecycle is the one suggested changes have (lifecycle.py, actions.py): the same
visibility, dry run, duplicate and rejected-before checks, limits (PER_PAGE_LIMIT and
TOTAL_LIMIT, counted apart from changes) and concurrency; and the bytes a member may hold in
suggestions no editor accepted, counted with changes (changes.check_stored). This module
holds what only a link has: its target and anchor, and the edit accepting it makes.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from codna.errors import Duplicate, InvalidEdit, InvalidRequest, NoLongerApplies
from codna.markdown.apply import apply_edits
from codna.markdown.limits import check_text, normalise_newlines
from codna.markdown.links import link_edits, links_to
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.limits import SUGGESTIONS
from codna.services.members.access import Rights, access_page, rights
from codna.services.members.members import Member, member_by_id_in
from codna.services.pages.editing import Change, apply_change, save_change
from codna.services.suggestions import actions, lifecycle
from codna.services.suggestions.actions import Draft
from codna.services.suggestions.attribution import suggested_by
from codna.services.suggestions.changes import check_stored
from codna.services.suggestions.lifecycle import LINKS, check_decision, check_reason
from codna.services.suggestions.records import Suggestion, page_heads, views
from codna.storage.records import LinkRow, PageRow


def suggest_link(
    actor: Member,
    *,
    address: str,
    target: str,
    reason: str,
    anchor: str | None = None,
    dry_run: bool = False,
) -> Suggestion | None:
    """Suggest a link from the page at `address` to `target`, with a reason and optionally the
    text on the page that should become the link; None on a dry run, which runs every check.

    Raises InvalidRequest, NotFound (either page unreadable), ReadOnly (A in raw), InvalidEdit
    (the anchor is not once on the page), Duplicate (the same link waits, or A links to B
    already), RejectedBefore (this link was rejected), LimitReached.
    """
    source_at = parse_address(address, want="page")
    target_at = parse_address(target, want="page")
    if source_at == target_at:
        raise InvalidRequest("A page cannot link to itself.", field="target")
    if anchor is not None:
        anchor = normalise_newlines(anchor)
        check_text(anchor, field="anchor")

    def draft(conn: Connection, page: PageRow, _: Rights) -> Draft:
        other, _ = access_page(conn, actor, target_at)

        def holds() -> dict[str, object]:
            if links_to(page.body, str(target_at)):
                raise Duplicate(
                    f"{source_at} links to {target_at} already.", address=str(source_at)
                )
            edits = link_edits(
                page.body, target=str(target_at), label=other.title, anchor=anchor or None
            )
            apply_edits(page.body, edits)  # refused at once if the anchor is not once on A
            check_stored(conn, actor, len((anchor or "").encode()) + len(reason.encode()))
            return {"anchor": anchor or None}

        return Draft(
            same={"target_page_id": other.id},
            what=f"A link from {source_at} to {target_at}",
            holds=holds,
        )

    made = actions.suggest(
        actor, LINKS, address=source_at, reason=reason, dry_run=dry_run, draft=draft
    )
    return made.suggestion


def _accept(conn: Connection, actor: Member, page: PageRow, row: LinkRow) -> PageRow:
    """The link made on the page as it is now, one revision by the actor whose summary names
    the suggester and the reason. Raises NoLongerApplies (the anchor text is gone)."""
    [target] = page_heads(conn, {row.target_page_id}).values()
    if not rights(conn, actor).can_read(target.space, target.path, target.created_by):
        # Accepting would write the target's title and address where the acceptor's readers
        # see them, on the word of someone who cannot read it.
        raise NoLongerApplies(
            "The page this link points to is not one you can read now, so you cannot put a "
            "link to it on this page; only rejecting is left.",
            edit_index=0,
            reason="target_unreadable",
        )
    target_at = Address(target.space, target.path)
    edits = link_edits(page.body, target=str(target_at), label=target.title, anchor=row.anchor)
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


def decide_link(
    actor: Member, *, suggestion_id: int, decision: str, reason: str | None = None
) -> Suggestion:
    """Accept (an edit of A, one revision by the actor) or reject a suggested link; one decision
    settles it for every editor, and its suggester is told.

    Raises NotFound, ReadOnly (cannot edit A), AlreadyDecided, NoLongerApplies (the anchor text
    is gone), InvalidRequest.
    """
    check_decision(decision)
    checked = check_reason(reason, required=False)
    with database().write() as conn:
        row, page, mine = lifecycle.open_decision(conn, actor, LINKS, suggestion_id)
        accepted = _accept(conn, actor, page, row) if decision == "accept" else None
        closed = lifecycle.settle(conn, actor, LINKS, row, accepted=accepted, reason=checked)
        [view] = views(conn, [closed], mine, page=accepted or page)
        return view


def withdraw_link(actor: Member, *, suggestion_id: int) -> Suggestion:
    """The suggester takes back a suggested link that still waits.

    Raises NotFound, ReadOnly (someone else's), AlreadyDecided.
    """
    return actions.withdraw(actor, LINKS, suggestion_id)


def read_link(actor: Member, *, suggestion_id: int) -> Suggestion:
    """One suggested link, for its suggester or an editor of its page. Raises NotFound."""
    return actions.read(actor, LINKS, suggestion_id)


def list_links(
    actor: Member,
    *,
    address: str | None = None,
    status: str | None = None,
    limit: int = SUGGESTIONS.default,
    offset: int = 0,
) -> list[Suggestion]:
    """Suggested links, newest first, as actions.list_items lists them. Raises NotFound (a
    page the actor cannot read), InvalidRequest."""
    return actions.list_items(
        actor, LINKS, address=address, status=status, limit=limit, offset=offset
    )
