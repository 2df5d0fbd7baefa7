"""What a member does with a suggestion of either kind, a change (ADR 0024) or a link (SPEC 3):
suggesting (with a dry run), reading, listing, deciding and withdrawing, each one transaction.

A kind supplies only its own part: what the item holds and whether it applies now (a `Draft`,
made by the kind's suggest function), and what accepting it writes (its decide function, which
opens the decision and settles it with lifecycle.py). Everything else is here and in
lifecycle.py, said once: who may see and decide (the suggester and the page's editors, as
the grants are now), the duplicate and rejected-before checks, the limits, two members
suggesting the same at once, the suggester told of a decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection

from codna.errors import ReadOnly
from codna.services.addresses import Address
from codna.services.clock import now
from codna.services.context import database
from codna.services.members.access import Rights, access_page, read_only_message
from codna.services.members.members import Member
from codna.services.suggestions import lifecycle
from codna.services.suggestions.lifecycle import Item, Kind, check_reason
from codna.services.suggestions.listing import check_listing, listed
from codna.services.suggestions.records import Suggestion, views
from codna.storage.records import PageRow


@dataclass(frozen=True)
class Draft:
    """A kind's part of a new suggestion on a page: `same`, the columns that make two the
    same (checked before anything else, so a rejection is durable even once the item would no
    longer apply); `what`, how a refusal names it; `holds`, which checks that it applies to
    the page as it is now and gives the row's own columns (raising the kind's refusal if not);
    `made`, what the kind keeps beside a new row."""

    same: dict[str, object]
    what: str
    holds: Callable[[], dict[str, object]]
    made: Callable[[Connection, int], None] | None = field(default=None)


@dataclass(frozen=True)
class Made:
    """A suggestion made (None on a dry run) and the row's own columns as its kind made them
    (a change's diff, say)."""

    suggestion: Suggestion | None
    holds: dict[str, object]


def suggest(
    actor: Member,
    kind: Kind[Item],
    *,
    address: Address,
    reason: str,
    dry_run: bool,
    draft: Callable[[Connection, PageRow, Rights], Draft],
) -> Made:
    """Suggest an item of `kind` on the page at `address`, with a required reason: anyone who
    can read the page may, outside `raw`. A dry run runs every check and writes nothing.

    Raises InvalidRequest, NotFound, ReadOnly (raw), Duplicate, RejectedBefore (which one
    blocks it, to its suggester and the page's editors), LimitReached, and the kind's own
    refusals.
    """
    checked_reason = check_reason(reason, required=True)
    transaction = database().read() if dry_run else database().write()
    with transaction as conn:
        if not dry_run:
            lifecycle.queue(conn, actor)
        page, mine = access_page(conn, actor, address)
        if not mine.can_suggest(page.space, page.path, page.created_by):
            raise ReadOnly(read_only_message(address, actor), address=str(address))
        decides = mine.can_decide(page.space, page.path, page.created_by)
        item = draft(conn, page, mine)
        same = {"page_id": page.id, **item.same}
        lifecycle.check_not_open(conn, kind, same, item.what, viewer=actor, decides=decides)
        holds = item.holds()
        lifecycle.check_limits(conn, kind, actor, page.id)
        if dry_run:
            return Made(None, holds)
        values = {
            **holds,
            **same,
            "reason": checked_reason,
            "suggester_id": actor.id,
            "status": "pending",
            "created_at": now(),
        }
        row = lifecycle.insert(
            conn, kind, values, same=same, what=item.what, viewer=actor, decides=decides
        )
        if item.made is not None:
            item.made(conn, row.id)
        [view] = views(conn, [row], mine, page=page)
        return Made(view, holds)


def withdraw(actor: Member, kind: Kind[Item], suggestion_id: int) -> Suggestion:
    """The suggester takes back an item that still waits. Raises NotFound, ReadOnly (someone
    else's), AlreadyDecided."""
    with database().write() as conn:
        row, page, mine = lifecycle.withdraw(conn, actor, kind, suggestion_id)
        [view] = views(conn, [row], mine, page=page)
        return view


def read(actor: Member, kind: Kind[Item], suggestion_id: int) -> Suggestion:
    """One item, for its suggester or an editor of its page. Raises NotFound."""
    with database().read() as conn:
        row, page, mine = lifecycle.access_item(conn, actor, kind, suggestion_id)
        [view] = views(conn, [row], mine, page=page)
        return view


def list_items(
    actor: Member,
    kind: Kind[Item],
    *,
    address: str | None,
    status: str | None,
    limit: int,
    offset: int,
    diff_now: bool = False,
) -> list[Suggestion]:
    """Items of `kind`, newest first: on a page (all of them for its editors, one's own for
    anyone else), under a folder or in a space (those on pages there the actor decides on, and
    the actor's own), or without an address the actor's own; by status if given; `limit` of
    them after the first `offset` (listing.py).

    `diff_now`: each pending change written against an older version that still applies also
    carries the diff accepting it would make to the page now.

    Raises NotFound (a page the actor cannot read), InvalidRequest.
    """
    where = check_listing(address, status, limit, offset)
    with database().read() as conn:
        found, mine = listed(conn, actor, kind, where, status=status, limit=limit, offset=offset)
        return views(conn, found, mine, diff_now=diff_now)
