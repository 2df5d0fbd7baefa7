"""Suggested changes (ADR 0024): edits kept until someone who can edit the page accepts them
(one ordinary revision, in the acceptor's name) or rejects them (for good).

Anyone who can read a page may suggest, outside `raw`; only the suggester and the page's
editors see a suggestion. Limits: 20 pending per suggester per page, 200 in all. The lifecycle
it shares with suggested links is decisions.py's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidEdit, InvalidRequest, LimitReached, ReadOnly
from codna.markdown.apply import canonical_edits
from codna.markdown.edits import Edit, edits_to_wire
from codna.markdown.limits import check_chars, check_plain_text
from codna.services import decisions, events
from codna.services.access import access_page, read_only_message
from codna.services.addresses import Address, parse_address
from codna.services.attribution import suggested_by
from codna.services.changes import (
    Applied,
    Change,
    apply_change,
    check_change,
    page_diff,
    save_change,
)
from codna.services.clock import now
from codna.services.context import database
from codna.services.decisions import CHANGES, check_decision, check_reason
from codna.services.limits import SUGGESTIONS
from codna.services.listing import check_listing, listed
from codna.services.members import Member, member_by_id_in
from codna.services.revisions import revision_row
from codna.services.suggestion_checks import applies_now, apply_suggestion
from codna.services.suggestion_views import Suggestion, views
from codna.storage.records import PageRow, SuggestionRow
from codna.storage.schema import edit_suggestions, members

PER_PAGE_LIMIT = 20
TOTAL_LIMIT = 200
STATUSES = decisions.STATUSES
MAX_VIA_CHARS = 100  # the edit_suggestions.via column


@dataclass(frozen=True)
class SuggestResult:
    """The suggestion made (None on a dry run), and the diff its edits make to the base."""

    saved: bool
    diff: str
    suggestion: Suggestion | None


def edits_hash(change: Change, body: str) -> str:
    """SHA-256 over the canonical form of SPEC 4: the edits in order, each with `\\n` line
    endings and sorted keys, each heading named as `body` (the page they are checked against)
    resolves it (canonical_edits: `## Alternatives` and `Alternatives` are one edit there),
    plus the new title and the sorted tags to add and remove.

    Migration 0008 computes the same from a suggestion's base version; the two must agree."""
    canonical = {
        "edits": edits_to_wire(canonical_edits(body, change.edits)),
        "title": change.title,
        "tags_add": sorted(change.tags_add),
        "tags_remove": sorted(change.tags_remove),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def check_via(via: object) -> str | None:
    """The routine a suggestion came through, its spaces tidied (None for none).
    Raises InvalidRequest, TooLarge (limit)."""
    if via is None:
        return None
    if not isinstance(via, str):
        raise InvalidRequest("'via' names the routine the suggestion came through.", field="via")
    check_plain_text(via, field="via")  # before the spaces are tidied
    via = " ".join(via.split())
    check_chars(via, field="via", limit=MAX_VIA_CHARS)
    return via or None


_SUGGESTER_QUEUE = (
    sa.select(members.c.id)
    .where(members.c.id == sa.bindparam("member_id"))
    .with_for_update(key_share=True)
)


def suggest_edit(
    actor: Member,
    *,
    address: str,
    edits: Sequence[Edit],
    reason: str,
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
    tags: Sequence[str] | None = None,
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
    change = check_change(edits, title=title, tags_add=tags_add, tags_remove=tags_remove, tags=tags)
    checked_reason = check_reason(reason, required=True)
    assert checked_reason is not None
    via = actor.via if actor.via is not None else check_via(via)  # a run's is its routine
    transaction = database().read() if dry_run else database().write()
    with transaction as conn:
        if not dry_run:
            # One suggester's suggestions queue here, so the limits hold under concurrency.
            conn.execute(_SUGGESTER_QUEUE, {"member_id": actor.id})
        page, mine = access_page(conn, actor, where)
        if not mine.can_suggest(page.space, page.path, page.created_by):
            raise ReadOnly(read_only_message(where, actor), address=str(where))
        change = change.as_tag_changes(page.tags)  # kept as changes, not values (SPEC 4)
        # The same edits as a rejected suggestion are refused as such, even once their text
        # has gone from the page: before they are tried.
        digest = edits_hash(change, page.body)
        decides = mine.can_decide(page.space, page.path, page.created_by)
        _check_same_edits(conn, actor, page.id, digest, decides=decides)
        after = apply_change(page, change)  # refused at once if it does not apply now
        if after.same_as(page):
            raise InvalidRequest("These edits leave the page as it is; nothing to suggest.")
        base, on_base = _on_base(conn, page, change, after, base_version)
        diff = page_diff(base, on_base.body, new_label=f"{where} suggested")
        _check_limits(conn, actor, page.id)
        if dry_run:
            return SuggestResult(saved=False, diff=diff, suggestion=None)
        try:
            made = _insert(
                conn, actor, page, base.version, change, checked_reason, diff, digest, via=via
            )
        except sa.exc.IntegrityError:
            # Another suggester's same edits landed a moment ago: the unique index says so.
            _check_same_edits(conn, actor, page.id, digest, decides=decides)
            raise
        applies_now(conn, made.id, page.version)
        events.emit(conn, table="edit_suggestions", row_id=made.id, op="insert")
        [view] = views(conn, [made], mine, page=page)
        return SuggestResult(saved=True, diff=diff, suggestion=view)


def _on_base(
    conn: Connection, page: PageRow, change: Change, now_applied: Applied, version: int | None
) -> tuple[PageRow, Applied]:
    """The page at the version the suggester read, and the change applied to it."""
    if version is None or version == page.version:
        return page, now_applied
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version < page.version:
        raise InvalidRequest(
            f"base_version is the version you read: 1 to {page.version}.",
            field="base_version",
            current_version=page.version,
        )
    old = revision_row(conn, page.id, version, str(Address(page.space, page.path)))
    base = replace(page, title=old.title, tags=old.tags, body=old.body, version=version)
    try:
        return base, apply_change(base, change)
    except InvalidEdit as error:
        # It applies to the page as it is now, not to the version the suggester read.
        raise InvalidEdit(
            f"{error.message.removesuffix(' Copy it exactly from the page as it is now.')} "
            f"That is in version {version}, your base_version; the edits apply to version "
            f"{page.version}, the page as it is now. Suggest them against version "
            f"{page.version} (read it again), or leave base_version out.",
            **error.fields,
            base_version=version,
            current_version=page.version,
        ) from None


def _check_same_edits(
    conn: Connection, actor: Member, page_id: int, digest: str, *, decides: bool
) -> None:
    """Refuse the same change as one pending or rejected on the page (Duplicate,
    RejectedBefore); which one it was, only to its suggester and the page's editors."""
    decisions.check_not_open(
        conn,
        CHANGES,
        {"page_id": page_id, "edits_hash": digest},
        what="The same change to this page",
        viewer=actor,
        decides=decides,
    )


_PENDING_OF = sa.select(
    sa.func.count().filter(edit_suggestions.c.page_id == sa.bindparam("page_id")),
    sa.func.count(),
).where(
    edit_suggestions.c.suggester_id == sa.bindparam("suggester_id"),
    edit_suggestions.c.status == "pending",
)


def _check_limits(conn: Connection, actor: Member, page_id: int) -> None:
    counts = {"page_id": page_id, "suggester_id": actor.id}
    on_page, in_all = conn.execute(_PENDING_OF, counts).one()
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


_INSERT = edit_suggestions.insert().returning(*edit_suggestions.c)


def _insert(
    conn: Connection,
    actor: Member,
    page: PageRow,
    base_version: int,
    change: Change,
    reason: str,
    diff: str,
    digest: str,
    *,
    via: str | None,
) -> SuggestionRow:
    """The new suggestion, in a savepoint: raises IntegrityError, and leaves the transaction
    usable, when the same edits landed on the page meanwhile."""
    with conn.begin_nested():
        made = (
            conn.execute(
                _INSERT,
                {
                    "page_id": page.id,
                    "base_version": base_version,
                    "edits": edits_to_wire(change.edits),
                    "title": change.title,
                    "title_was": page.title if change.title is not None else None,
                    "tags_add": list(change.tags_add),
                    "tags_remove": list(change.tags_remove),
                    "reason": reason,
                    "suggester_id": actor.id,
                    "via": via,
                    "status": "pending",
                    "diff": diff,
                    "edits_hash": digest,
                    "created_at": now(),
                },
            )
            .mappings()
            .one()
        )  # read before the savepoint is released
    return SuggestionRow.of(made)


def decide_edit_suggestion(
    actor: Member, *, suggestion_id: int, decision: str, reason: str | None = None
) -> Suggestion:
    """Accept (the edits applied to the page as it is now, one revision by the actor, with the
    summary of SPEC 4) or reject (with an optional reason the suggester reads) a suggestion.
    One decision settles it for every editor; the suggester is told.

    Raises NotFound, ReadOnly (cannot edit the page), AlreadyDecided, NoLongerApplies,
    InvalidRequest.
    """
    check_decision(decision)
    checked_reason = check_reason(reason, required=False)
    with database().write() as conn:

        def accept(page: PageRow, row: SuggestionRow) -> PageRow:
            after = apply_suggestion(page, row)  # NoLongerApplies: the edit and why
            suggester = member_by_id_in(conn, row.suggester_id)
            assert suggester is not None
            summary = suggested_by(suggester, row.reason, via=row.via)
            return save_change(
                conn, page, actor, after=after, summary=summary, kind="accept_suggestion"
            )

        row, page, mine = decisions.decide(
            conn,
            actor,
            CHANGES,
            suggestion_id,
            decision=decision,
            reason=checked_reason,
            accept=accept,
        )
        [view] = views(conn, [row], mine, page=page)
        return view


def withdraw_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """The suggester takes back a suggestion that still waits. Raises NotFound, ReadOnly
    (someone else's), AlreadyDecided."""
    with database().write() as conn:
        row, page, mine = decisions.withdraw(conn, actor, CHANGES, suggestion_id)
        [view] = views(conn, [row], mine, page=page)
        return view


def read_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """One suggestion, for its suggester or an editor of its page. Raises NotFound."""
    with database().read() as conn:
        row, page, mine = decisions.access_item(conn, actor, CHANGES, suggestion_id)
        [view] = views(conn, [row], mine, page=page)
        return view


@dataclass(frozen=True)
class Preview:
    """A suggestion, and its page as accepting it would leave it now."""

    suggestion: Suggestion
    title: str
    tags: tuple[str, ...]
    body: str


def preview_suggestion(actor: Member, *, suggestion_id: int) -> Preview:
    """The page as accepting the suggestion would leave it, for its suggester or an editor
    of its page; nothing is written. Raises NotFound, NoLongerApplies (which edit and why)."""
    with database().read() as conn:
        row, page, mine = decisions.access_item(conn, actor, CHANGES, suggestion_id)
        after = apply_suggestion(page, row)
        [view] = views(conn, [row], mine, page=page)
        return Preview(view, after.title, after.tags, after.body)


def list_suggestions(
    actor: Member,
    *,
    address: str | None = None,
    status: str | None = None,
    limit: int = SUGGESTIONS.default,
    offset: int = 0,
    diff_now: bool = False,
) -> list[Suggestion]:
    """Suggestions, newest first: on a page (all of them for its editors, one's own for anyone
    else), under a folder or in a space (those on pages there the actor decides on, and the
    actor's own), or without an address the actor's own; by status if given; `limit` of them
    after the first `offset`. A folder may be named without its slash (listing.py).

    `diff_now`: each pending one written against an older version that still applies also
    carries the diff accepting it would make to the page now.

    Raises NotFound (a page the actor cannot read), InvalidRequest.
    """
    where = check_listing(address, status, limit, offset)
    with database().read() as conn:
        found, mine = listed(conn, actor, CHANGES, where, status=status, limit=limit, offset=offset)
        return views(conn, found, mine, diff_now=diff_now)
