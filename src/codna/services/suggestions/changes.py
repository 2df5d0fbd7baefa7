"""Suggested changes (ADR 0024): edits kept until someone who can edit the page accepts them
(one ordinary revision, in the acceptor's name) or rejects them (for good).

Anyone who can read a page may suggest, outside `raw`; only the suggester and the page's
editors see a suggestion. Limits: PER_PAGE_LIMIT pending per suggester per page and
TOTAL_LIMIT in all (limits.py); and what a
member holds in suggestions no editor accepted, withdrawn and rejected ones included, is
bounded in bytes (check_stored, shared with links). The lifecycle it shares with suggested
links is in lifecycle.py and actions.py; this module holds what only a change has: its edits,
their diffs, and how accepting applies them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import InvalidEdit, InvalidRequest, NotFound, TooLarge
from codna.markdown.edits import Edit, edits_to_wire
from codna.markdown.edits_hash import edits_hash
from codna.markdown.limits import check_chars, check_plain_text
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.limits import STORED_ROW_BYTES, STORED_SUGGESTION_BYTES, SUGGESTIONS
from codna.services.members.access import Rights
from codna.services.members.members import Member, member_by_id_in
from codna.services.pages.editing import (
    Applied,
    Change,
    apply_change,
    check_change,
    page_diff,
    save_change,
)
from codna.services.pages.revisions import revision_row
from codna.services.stored import stored_size
from codna.services.suggestions import actions, lifecycle
from codna.services.suggestions.actions import Draft
from codna.services.suggestions.attribution import suggested_by
from codna.services.suggestions.checks import applies_now, apply_suggestion
from codna.services.suggestions.lifecycle import CHANGES, check_decision, check_reason
from codna.services.suggestions.records import Suggestion, views
from codna.storage.records import PageRow, SuggestionRow
from codna.storage.schema import edit_suggestions, link_suggestions

MAX_VIA_CHARS = 100  # the edit_suggestions.via column


@dataclass(frozen=True)
class SuggestResult:
    """The suggestion made (None on a dry run), and the diff its edits make to the base."""

    saved: bool
    diff: str
    suggestion: Suggestion | None


def stored_bytes(conn: Connection, member_id: int) -> int:
    """What the member holds in suggestions no editor accepted, changes and links: bytes."""
    total = 0
    for table, columns in (
        (edit_suggestions, ("edits", "diff", "reason")),
        (link_suggestions, ("anchor", "reason")),
    ):
        size = stored_size(conn, *(table.c[name] for name in columns))
        total += conn.execute(
            sa.select(sa.func.coalesce(sa.func.sum(size), 0)).where(
                table.c.suggester_id == member_id, table.c.status != "accepted"
            )
        ).scalar_one()
    return int(total)


def check_stored(conn: Connection, actor: Member, adding: int) -> None:
    """Refuse a suggestion of `adding` bytes that would take what the actor holds in
    suggestions no editor accepted (waiting, withdrawn or rejected) past
    STORED_SUGGESTION_BYTES; inside the suggester's queue (lifecycle.queue), so that two at
    once cannot both pass. Raises TooLarge (limit, stored)."""
    held = stored_bytes(conn, actor.id)
    if held + adding + STORED_ROW_BYTES > STORED_SUGGESTION_BYTES:
        mib = 1024 * 1024
        raise TooLarge(
            f"You hold {held / mib:.1f} MiB in suggestions no editor has accepted (waiting, "
            f"withdrawn or rejected), and this one would take it past the "
            f"{STORED_SUGGESTION_BYTES // mib} MiB one member may store; suggest a smaller "
            "change, or ask an editor to decide what waits.",
            limit=STORED_SUGGESTION_BYTES,
            stored=held,
        )


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
    via = actor.via if actor.via is not None else check_via(via)  # a run's is its routine

    def draft(conn: Connection, page: PageRow, _: Rights) -> Draft:
        asked = change.as_tag_changes(page.tags)  # kept as changes, not values (SPEC 4)

        def holds() -> dict[str, object]:
            after = apply_change(page, asked)  # refused at once if it does not apply now
            if after.same_as(page):
                raise InvalidRequest("These edits leave the page as it is; nothing to suggest.")
            base, on_base = _on_base(conn, page, asked, after, base_version)
            held = {
                "base_version": base.version,
                "edits": edits_to_wire(asked.edits),
                "title": asked.title,
                "title_was": page.title if asked.title is not None else None,
                "tags_add": list(asked.tags_add),
                "tags_remove": list(asked.tags_remove),
                "via": via,
                "diff": page_diff(base, on_base.body, new_label=f"{where} suggested"),
            }
            size = len(json.dumps(held["edits"]).encode()) + len(str(held["diff"]).encode())
            check_stored(conn, actor, size + len(reason.encode()))
            return held

        return Draft(
            # The same edits as a rejected suggestion are refused as such, even once their
            # text has gone from the page: before they are tried.
            same={
                "edits_hash": edits_hash(
                    page.body,
                    asked.edits,
                    title=asked.title,
                    tags_add=asked.tags_add,
                    tags_remove=asked.tags_remove,
                )
            },
            what="The same change to this page",
            holds=holds,
            made=lambda conn, made_id: applies_now(conn, made_id, page.version),
        )

    made = actions.suggest(
        actor, CHANGES, address=where, reason=reason, dry_run=dry_run, draft=draft
    )
    diff = str(made.holds["diff"])
    return SuggestResult(saved=made.suggestion is not None, diff=diff, suggestion=made.suggestion)


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


def _accept(conn: Connection, actor: Member, page: PageRow, row: SuggestionRow) -> PageRow:
    """The suggestion applied to the page as it is now, one revision by the actor whose
    summary names the suggester and the reason (SPEC 4). Raises NoLongerApplies."""
    after = apply_suggestion(page, row)  # NoLongerApplies: the edit and why
    suggester = member_by_id_in(conn, row.suggester_id)
    assert suggester is not None
    summary = suggested_by(suggester, row.reason, via=row.via)
    return save_change(conn, page, actor, after=after, summary=summary, kind="accept_suggestion")


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
    checked = check_reason(reason, required=False)
    with database().write() as conn:
        row, page, mine = lifecycle.open_decision(conn, actor, CHANGES, suggestion_id)
        accepted = _accept(conn, actor, page, row) if decision == "accept" else None
        closed = lifecycle.settle(conn, actor, CHANGES, row, accepted=accepted, reason=checked)
        [view] = views(conn, [closed], mine, page=accepted or page)
        return view


def withdraw_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """The suggester takes back a suggestion that still waits. Raises NotFound, ReadOnly
    (someone else's), AlreadyDecided."""
    return actions.withdraw(actor, CHANGES, suggestion_id)


def read_suggestion(actor: Member, *, suggestion_id: int) -> Suggestion:
    """One suggestion, for its suggester or an editor of its page. Raises NotFound."""
    return actions.read(actor, CHANGES, suggestion_id)


@dataclass(frozen=True)
class Preview:
    """A suggestion, and its page as accepting it would leave it now."""

    suggestion: Suggestion
    title: str
    tags: tuple[str, ...]
    body: str
    body_now: str  # the page's body as it is now, before accepting


def preview_suggestion(actor: Member, *, suggestion_id: int) -> Preview:
    """The page as accepting the suggestion would leave it, for an editor of its page or its
    suggester while they can read it; nothing is written. Raises NotFound (a suggester who can
    no longer read the page sees only the suggestion's status), NoLongerApplies (which edit
    and why)."""
    with database().read() as conn:
        row, page, mine = lifecycle.access_item(conn, actor, CHANGES, suggestion_id)
        if not mine.can_read(page.space, page.path, page.created_by):
            raise NotFound(
                f"Suggestion {suggestion_id} is on a page you can no longer read: only its "
                "status is yours to see.",
                suggestion_id=suggestion_id,
            )
        after = apply_suggestion(page, row)
        [view] = views(conn, [row], mine, page=page)
        return Preview(view, after.title, after.tags, after.body, page.body)


def list_suggestions(
    actor: Member,
    *,
    address: str | None = None,
    status: str | None = None,
    limit: int = SUGGESTIONS.default,
    offset: int = 0,
    diff_now: bool = False,
) -> list[Suggestion]:
    """Suggested changes, newest first, as actions.list_items lists them. Raises NotFound
    (a page the actor cannot read), InvalidRequest."""
    return actions.list_items(
        actor,
        CHANGES,
        address=address,
        status=status,
        limit=limit,
        offset=offset,
        diff_now=diff_now,
    )
