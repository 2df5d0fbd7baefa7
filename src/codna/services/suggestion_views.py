"""How a suggested change looks to whoever may see it: its suggester and the page's editors.

A pending suggestion says whether it still applies to the page as it is now: if not, which edit
and why, and only Reject is offered; if it applies but the page moved on, its stored diff (made
against its base version) comes with a note that it will be applied to the newer version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, RowMapping

from codna.errors import InvalidEdit, NoLongerApplies
from codna.markdown.edits import parse_edits
from codna.services.access import Rights
from codna.services.addresses import Address
from codna.services.pages import Applied, Change, apply_change
from codna.settings import base_url
from codna.storage.schema import members, pages


@dataclass(frozen=True)
class NotApplying:
    """Why a pending suggestion no longer applies: the edit (or the title) and the reason."""

    edit_index: int | None
    op: str | None
    reason: str
    message: str


@dataclass(frozen=True)
class Suggestion:
    """A suggested change as its suggester or an editor of its page sees it."""

    id: int
    page: str
    page_title: str
    base_version: int
    current_version: int
    edits: tuple[dict[str, Any], ...]
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
    diff: str
    created_at: datetime
    url: str
    applies: bool | None  # for a pending one: do its edits apply to the page as it is now?
    not_applying: NotApplying | None
    note: str | None
    actions: tuple[str, ...]  # what the viewer may do now: accept, reject, withdraw


def suggestion_url(suggestion_id: int) -> str:
    return f"{base_url()}/api/v1/suggestions/{suggestion_id}"


def change_of(row: RowMapping) -> Change:
    """The suggestion's change, from its stored edits, title and tag changes."""
    return Change(
        edits=tuple(parse_edits(row["edits"])) if row["edits"] else (),
        title=row["title"],
        tags_add=tuple(row["tags_add"]),
        tags_remove=tuple(row["tags_remove"]),
    )


def apply_suggestion(page: RowMapping, row: RowMapping) -> Applied:
    """The page after the suggestion, as the page is now. Raises NoLongerApplies."""
    if row["title"] is not None and page["title"] != row["title_was"]:
        raise NoLongerApplies(
            f"The title is no longer '{row['title_was']}', the title this suggestion replaces.",
            edit_index=None,
            reason="title_changed",
        )
    try:
        return apply_change(page, change_of(row))
    except InvalidEdit as error:
        raise NoLongerApplies(
            f"It no longer applies: {error.message}",
            edit_index=error.fields.get("edit_index"),
            op=error.fields.get("op"),
            reason=error.fields.get("reason"),
        ) from None


def _check(page: RowMapping, row: RowMapping) -> NotApplying | None:
    try:
        apply_suggestion(page, row)
    except NoLongerApplies as refusal:
        return NotApplying(
            refusal.fields.get("edit_index"),
            refusal.fields.get("op"),
            str(refusal.fields.get("reason")),
            refusal.message,
        )
    return None


def views(conn: Connection, rows: Sequence[RowMapping], mine: Rights) -> list[Suggestion]:
    """Suggestions as `mine.member` sees them, with two queries for any number of rows."""
    page_rows = (
        conn.execute(sa.select(pages).where(pages.c.id.in_({r["page_id"] for r in rows})))
        .mappings()
        .all()
    )
    people = {r["suggester_id"] for r in rows} | {r["decided_by"] for r in rows}
    member_rows = conn.execute(
        sa.select(members.c.id, members.c.name, members.c.kind).where(
            members.c.id.in_(people - {None})
        )
    ).all()
    by_page = {r["id"]: r for r in page_rows}
    by_member = {r.id: r for r in member_rows}
    return [_view(row, by_page[row["page_id"]], by_member, mine) for row in rows]


def _view(row: RowMapping, page: RowMapping, by_member: dict[int, Any], mine: Rights) -> Suggestion:
    decides = mine.can_decide(page["space"], page["path"], page["created_by"])
    reads = decides or mine.can_read(page["space"], page["path"], page["created_by"])
    mine_own = row["suggester_id"] == mine.member.id
    pending = row["status"] == "pending"
    problem = _check(page, row) if pending and reads else None
    note = None
    if pending and reads and problem is None and page["version"] != row["base_version"]:
        note = (
            f"Written against version {row['base_version']}; the page is at version "
            f"{page['version']} now. Accepting applies the edits to version {page['version']}."
        )
    actions: list[str] = []
    if pending and decides and page["trashed_at"] is None:
        actions += ["reject"] if problem else ["accept", "reject"]
    if pending and mine_own:
        actions.append("withdraw")
    suggester, decider = by_member[row["suggester_id"]], by_member.get(row["decided_by"])
    # A suggester who can no longer read the page sees only their suggestion's status.
    return Suggestion(
        id=row["id"],
        page=str(Address(page["space"], page["path"])),
        page_title=page["title"] if reads else "",
        base_version=row["base_version"],
        current_version=page["version"] if reads else row["base_version"],
        edits=tuple(row["edits"]) if reads else (),
        title=row["title"] if reads else None,
        title_was=row["title_was"] if reads else None,
        tags_add=tuple(row["tags_add"]),
        tags_remove=tuple(row["tags_remove"]),
        reason=row["reason"],
        suggester=suggester.name,
        suggester_kind=suggester.kind,
        via=row["via"],
        status=row["status"],
        decided_by=decider.name if decider else None,
        decided_at=row["decided_at"],
        decision_reason=row["decision_reason"],
        accepted_version=row["accepted_version"],
        reverted_in_version=row["reverted_in_version"],
        diff=row["diff"] if reads else "",
        created_at=row["created_at"],
        url=suggestion_url(row["id"]),
        applies=(problem is None) if pending and reads else None,
        not_applying=problem,
        note=note,
        actions=tuple(actions),
    )
