"""How a suggested change looks to whoever may see it: its suggester and the page's editors.

A pending suggestion says whether it still applies to the page as it is now: if not, which edit
and why, and only Reject is offered; if it applies but the page moved on, its stored diff (made
against its base version) comes with a note that it will be applied to the newer version and,
where asked, the diff accepting it would make to the page now (`diff_now`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.access import Rights
from codna.services.addresses import Address
from codna.services.suggestion_checks import NotApplying, Now, checks_for
from codna.storage.records import PageHead, PageRow, SuggestionRow
from codna.storage.schema import members, pages

# A page as a suggestion's view needs it: everything but the body, read only where a check
# has to be worked out anew.
PAGE_COLUMNS = tuple(c for c in pages.c if c.name != "body")


@dataclass(frozen=True)
class Suggestion:
    """A suggested change as its suggester or an editor of its page sees it."""

    id: int
    page: str
    page_title: str
    base_version: int
    current_version: int
    edits: tuple[dict[str, str], ...]
    title: str | None
    title_was: str | None
    tags_add: tuple[str, ...]
    tags_remove: tuple[str, ...]
    reason: str
    suggester: str
    suggester_kind: str
    via: str | None
    status: str
    decided_by: str | None
    decided_at: datetime | None
    decision_reason: str | None
    accepted_version: int | None
    reverted_in_version: int | None
    diff: str  # what its edits made to the version it was written against
    # For a pending one written against an older version that still applies, where asked
    # for: the diff accepting it would make to the page as it is now. None otherwise.
    diff_now: str | None
    created_at: datetime
    applies: bool | None  # for a pending one: do its edits apply to the page as it is now?
    not_applying: NotApplying | None
    note: str | None
    actions: tuple[str, ...]  # what the viewer may do now: accept, reject, withdraw


@dataclass(frozen=True)
class _Who:
    name: str
    kind: str


_IDS: sa.BindParameter[list[int]] = sa.bindparam("ids", expanding=True)
_WHO = sa.select(members.c.id, members.c.name, members.c.kind).where(members.c.id.in_(_IDS))
_HEADS = sa.select(*PAGE_COLUMNS).where(pages.c.id.in_(_IDS))


def who(conn: Connection, ids: set[int] | set[int | None]) -> dict[int, _Who]:
    """Members' names and kinds by id, in one statement."""
    wanted = sorted(i for i in ids if i is not None)
    if not wanted:
        return {}
    return {r.id: _Who(r.name, r.kind) for r in conn.execute(_WHO, {"ids": wanted})}


def page_heads(conn: Connection, page_ids: set[int]) -> dict[int, PageHead]:
    """Pages without their bodies, by id, in one statement."""
    found = conn.execute(_HEADS, {"ids": sorted(page_ids)}).mappings()
    return {r["id"]: PageHead.of(r) for r in found}


def views(
    conn: Connection,
    rows: Sequence[SuggestionRow],
    mine: Rights,
    *,
    page: PageHead | None = None,
    diff_now: bool | None = None,
) -> list[Suggestion]:
    """Suggestions as `mine.member` sees them, with a few statements for any number of rows
    (`page`: the one page they are all on, as it is now, when the caller has it already).
    Whether a pending one still applies is read from what was kept for its page's version,
    and worked out only where nothing was kept for that version yet.

    `diff_now`: work out, for each pending one written against an older version that still
    applies, the diff accepting it would make now (one statement more for the bodies, for any
    number of them). By default it is worked out only where `page` comes with its body, as
    for one suggestion read with its page, which costs no statement."""
    if not rows:
        return []
    by_page: Mapping[int, PageHead] = (
        {page.id: page} if page is not None else page_heads(conn, {r.page_id for r in rows})
    )
    if diff_now is None:
        diff_now = isinstance(page, PageRow)
    people = who(conn, {r.suggester_id for r in rows} | {r.decided_by for r in rows})
    readable = {i for i, p in by_page.items() if mine.can_read(p.space, p.path, p.created_by)}
    checks = checks_for(
        conn,
        [r for r in rows if r.status == "pending" and r.page_id in readable],
        by_page,
        diffs=diff_now,
    )
    return [
        _view(row, by_page[row.page_id], people, mine, row.page_id in readable, checks)
        for row in rows
    ]


def _view(
    row: SuggestionRow,
    page: PageHead,
    people: dict[int, _Who],
    mine: Rights,
    reads: bool,
    checks: dict[int, Now],
) -> Suggestion:
    decides = mine.can_decide(page.space, page.path, page.created_by)
    pending = row.status == "pending"
    now = checks.get(row.id) if pending and reads else None
    problem = now.problem if now else None
    note = None
    if pending and reads and problem is None and page.version != row.base_version:
        note = (
            f"Written against version {row.base_version}; the page is at version "
            f"{page.version} now. Accepting applies the edits to version {page.version}."
        )
    actions: list[str] = []
    if pending and decides and not page.in_trash:
        actions += ["reject"] if problem else ["accept", "reject"]
    if pending and row.suggester_id == mine.member.id:
        actions.append("withdraw")
    suggester = people[row.suggester_id]
    decider = people.get(row.decided_by) if row.decided_by is not None else None
    # A suggester who can no longer read the page sees only their suggestion's status.
    return Suggestion(
        id=row.id,
        page=str(Address(page.space, page.path)),
        page_title=page.title if reads else "",
        base_version=row.base_version,
        current_version=page.version if reads else row.base_version,
        edits=row.edits if reads else (),
        title=row.title if reads else None,
        title_was=row.title_was if reads else None,
        tags_add=row.tags_add,
        tags_remove=row.tags_remove,
        reason=row.reason,
        suggester=suggester.name,
        suggester_kind=suggester.kind,
        via=row.via,
        status=row.status,
        decided_by=decider.name if decider else None,
        decided_at=row.decided_at,
        decision_reason=row.decision_reason,
        accepted_version=row.accepted_version,
        reverted_in_version=row.reverted_in_version,
        diff=row.diff if reads else "",
        diff_now=now.diff if now else None,
        created_at=row.created_at,
        applies=(problem is None) if pending and reads else None,
        not_applying=problem,
        note=note,
        actions=tuple(actions),
    )
