"""How what is suggested on a page looks to whoever may see it, its suggester and the page's
editors: one record, `Suggestion`, for a suggested change and a suggested link alike, carrying
its kind.

A pending suggested change says whether it still applies to the page as it is now: if not,
which edit and why, and only Reject is offered; if it applies but the page moved on, its stored
diff (made against its base version) comes with a note that it will be applied to the newer
version and, where asked, the diff accepting it would make to the page now (`diff_now`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.addresses import Address
from codna.services.members.access import Rights, run_pages_hidden
from codna.services.suggestions.checks import NotApplying, Now, checks_for
from codna.storage.records import Decided, LinkRow, PageHead, PageRow, SuggestionRow
from codna.storage.schema import agent_responsibles, members, pages

# A page as a suggestion's view needs it: everything but the body, read only where a check
# has to be worked out anew.
PAGE_COLUMNS = tuple(c for c in pages.c if c.name != "body")


@dataclass(frozen=True)
class Suggestion:
    """A suggested change or link as its suggester or an editor of its page sees it. What
    only one kind holds is empty for the other: a link has no edits, base version or diff; a
    change has no target or anchor."""

    id: int
    kind: str  # change or link
    page: str
    page_title: str
    base_version: int | None  # a change's: the version it was written against
    current_version: int | None  # None for a suggester who can no longer read the page
    edits: tuple[dict[str, str], ...]
    title: str | None
    title_was: str | None
    tags_add: tuple[str, ...]
    tags_remove: tuple[str, ...]
    target: str | None  # a link's: the page it links to, if the viewer can read it
    target_title: str | None
    anchor: str | None  # a link's: the text on the page that becomes the link
    reason: str
    suggester: str
    suggester_kind: str
    suggester_for: tuple[str, ...]  # an agent's: the people responsible for it
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
    responsible: tuple[str, ...] = ()


_IDS: sa.BindParameter[list[int]] = sa.bindparam("ids", expanding=True)
_RESPONSIBLE = members.alias("responsible")
_WHO = (
    sa.select(members.c.id, members.c.name, members.c.kind, _RESPONSIBLE.c.name.label("person"))
    .select_from(
        members.outerjoin(
            agent_responsibles, agent_responsibles.c.agent_id == members.c.id
        ).outerjoin(_RESPONSIBLE, _RESPONSIBLE.c.id == agent_responsibles.c.person_id)
    )
    .where(members.c.id.in_(_IDS))
    .order_by(members.c.id, _RESPONSIBLE.c.name)
)
_HEADS = sa.select(*PAGE_COLUMNS).where(pages.c.id.in_(_IDS))


def who(conn: Connection, ids: set[int] | set[int | None]) -> dict[int, _Who]:
    """Members' names and kinds by id, and the people responsible for each agent among them,
    in one statement."""
    wanted = sorted(i for i in ids if i is not None)
    if not wanted:
        return {}
    found: dict[int, _Who] = {}
    for r in conn.execute(_WHO, {"ids": wanted}):
        known = found.get(r.id)
        responsible = (*known.responsible, r.person) if known else (r.person,)
        found[r.id] = _Who(r.name, r.kind, tuple(p for p in responsible if p is not None))
    return found


def page_heads(conn: Connection, page_ids: set[int]) -> dict[int, PageHead]:
    """Pages without their bodies, by id, in one statement."""
    found = conn.execute(_HEADS, {"ids": sorted(page_ids)}).mappings()
    return {r["id"]: PageHead.of(r) for r in found}


def views(
    conn: Connection,
    rows: Sequence[Decided],
    mine: Rights,
    *,
    page: PageHead | None = None,
    diff_now: bool | None = None,
) -> list[Suggestion]:
    """Suggestions of either kind as `mine.member` sees them, in the order of `rows`, with a
    few statements for any number of rows (`page`: the one page they are all on, as it is
    now, when the caller has it already). Whether a pending change still applies is read from
    what was kept for its page's version, and worked out only where nothing was kept for that
    version yet.

    `diff_now`: work out, for each pending change written against an older version that still
    applies, the diff accepting it would make now (one statement more for the bodies, for any
    number of them). By default it is worked out only where `page` comes with its body, as
    for one suggestion read with its page, which costs no statement."""
    if not rows:
        return []
    targets = {r.target_page_id for r in rows if isinstance(r, LinkRow)}
    wanted = {r.page_id for r in rows} | targets
    by_page: dict[int, PageHead] = {page.id: page} if page is not None else {}
    if wanted - by_page.keys():
        by_page |= page_heads(conn, wanted - by_page.keys())
    if diff_now is None:
        diff_now = isinstance(page, PageRow)
    people = who(conn, {r.suggester_id for r in rows} | {r.decided_by for r in rows})
    readable = {i for i, p in by_page.items() if mine.can_read(p.space, p.path, p.created_by)}
    readable -= run_pages_hidden(conn, mine, [by_page[i] for i in readable])
    checks = checks_for(
        conn,
        [
            r
            for r in rows
            if isinstance(r, SuggestionRow) and r.status == "pending" and r.page_id in readable
        ],
        by_page,
        diffs=diff_now,
    )
    return [_view(row, by_page, people, mine, readable, checks) for row in rows]


def _view(
    row: Decided,
    by_page: Mapping[int, PageHead],
    people: dict[int, _Who],
    mine: Rights,
    readable: set[int],
    checks: dict[int, Now],
) -> Suggestion:
    page = by_page[row.page_id]
    reads = row.page_id in readable
    decides = mine.can_decide(page.space, page.path, page.created_by)
    pending = row.status == "pending"
    change = row if isinstance(row, SuggestionRow) else None
    link = row if isinstance(row, LinkRow) else None
    now = checks.get(row.id) if change and pending and reads else None
    problem = now.problem if now else None
    note = None
    if change and pending and reads and problem is None and page.version != change.base_version:
        note = (
            f"Written against version {change.base_version}; the page is at version "
            f"{page.version} now. Accepting applies the edits to version {page.version}."
        )
    target = by_page[link.target_page_id] if link else None
    sees_target = target is not None and target.id in readable
    actions: list[str] = []
    if pending and decides and not page.in_trash:
        # A link to a page the decider cannot read is theirs to reject, never to accept.
        only_reject = problem or (link is not None and not sees_target)
        actions += ["reject"] if only_reject else ["accept", "reject"]
    if pending and row.suggester_id == mine.member.id:
        actions.append("withdraw")
    suggester = people[row.suggester_id]
    decider = people.get(row.decided_by) if row.decided_by is not None else None
    # A suggester who can no longer read the page sees only their suggestion's status.
    return Suggestion(
        id=row.id,
        kind="change" if change else "link",
        page=str(Address(page.space, page.path)),
        page_title=page.title if reads else "",
        base_version=change.base_version if change else None,
        current_version=page.version if reads else None,
        edits=change.edits if change and reads else (),
        title=change.title if change and reads else None,
        title_was=change.title_was if change and reads else None,
        tags_add=change.tags_add if change else (),
        tags_remove=change.tags_remove if change else (),
        target=str(Address(target.space, target.path)) if target and sees_target else None,
        target_title=target.title if target and sees_target else None,
        anchor=link.anchor if link and reads else None,
        reason=row.reason,
        suggester=suggester.name,
        suggester_kind=suggester.kind,
        suggester_for=suggester.responsible,
        via=change.via if change else None,
        status=row.status,
        decided_by=decider.name if decider else None,
        decided_at=row.decided_at,
        decision_reason=row.decision_reason,
        accepted_version=row.accepted_version,
        reverted_in_version=row.reverted_in_version,
        diff=change.diff if change and reads else "",
        diff_now=now.diff if now else None,
        created_at=row.created_at,
        applies=(problem is None) if change and pending and reads else None,
        not_applying=problem,
        note=note,
        actions=tuple(actions),
    )
