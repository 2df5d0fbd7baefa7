"""Whether a pending suggestion still applies to its page as it is now, kept per page version.

A page's versions never change and neither do a suggestion's edits, so whether they apply to a
version is kept in `suggestion_checks`, by what writes: making a suggestion keeps that it applies
to its page as it was then, and a check made in a writing transaction is kept with the rest of
it. A read never writes: listing what waits reads what was kept for each page's version, and
works out, for its own answer only, those whose page moved on since.

Where asked, a pending suggestion written against an older version that still applies also
gets the diff accepting it would make to the page now: worked out on each call, never kept,
from the bodies the check reads anyway (at most one statement for any number of them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, RowMapping

from codna.errors import InvalidEdit, NoLongerApplies
from codna.markdown.edits import parse_edits
from codna.services.pages.editing import Applied, Change, apply_change, page_diff
from codna.storage.database import is_writing
from codna.storage.records import PageHead, PageRow, SuggestionRow
from codna.storage.schema import pages, suggestion_checks

# The fact in a refusal's message, without the advice to its suggester that follows it.
_WHAT_CHANGED = re.compile(
    r"(?:Edit \d+ \(\w+\): )?(?P<what>.*?)"
    r"(?:;? only rejecting is left\.| Copy it exactly| Did you mean| Include more| Say which"
    r"| Add its level| Only rejecting is left\.|$)",
    re.DOTALL,
)


# The text an edit's refusal quotes as the nearest on the page ("Did you mean …?").
_NEAR = re.compile(r" Did you mean (?P<text>.+?)\?(?: |$)", re.DOTALL)


@dataclass(frozen=True)
class NotApplying:
    """Why a pending suggestion no longer applies: the edit (or the title) and the reason."""

    edit_index: int | None
    op: str | None
    reason: str
    message: str  # as the suggester reads it, with what to do to suggest it again

    def to_suggester(self) -> str:
        """Why, as the suggester reads it: what on the page changed, the text there now that
        comes closest when there is one, and what to do."""
        found = _WHAT_CHANGED.match(self.message)
        what = (found.group("what") if found else self.message).rstrip(";. ")
        near = _NEAR.search(self.message)
        now = f" The page has {near.group('text')} there now." if near else ""
        return (
            f"The page changed after you suggested this: {self._which()}{what[:1].lower()}"
            f"{what[1:]}.{now} Withdraw it and suggest it again against the page as it is now."
        )

    def _which(self) -> str:
        """The edit that no longer applies, as the refusal named it: `edit 0 (replace): `."""
        return f"edit {self.edit_index} ({self.op}): " if self.edit_index is not None else ""

    def to_editor(self) -> str:
        """Why, as whoever decides reads it: what on the page changed, and what is left."""
        found = _WHAT_CHANGED.match(self.message)
        what = (found.group("what") if found else self.message).rstrip(";. ")
        return (
            f"The page changed after this was suggested: {self._which()}{what[:1].lower()}"
            f"{what[1:]}. "
            "Accepting cannot guess where it went, so only Reject is left; the suggester can "
            "suggest it again against the page as it is now."
        )


def change_of(row: SuggestionRow) -> Change:
    """The suggestion's change, from its stored edits, title and tag changes."""
    return Change(
        edits=tuple(parse_edits(list(row.edits))) if row.edits else (),
        title=row.title,
        tags_add=row.tags_add,
        tags_remove=row.tags_remove,
    )


def apply_suggestion(page: PageRow, row: SuggestionRow) -> Applied:
    """The page after the suggestion, as the page is now. Raises NoLongerApplies."""
    if row.title is not None and page.title != row.title_was:
        raise NoLongerApplies(
            f"The title is no longer '{row.title_was}', the title this suggestion replaces; "
            "only rejecting is left.",
            edit_index=None,
            reason="title_changed",
        )
    try:
        return apply_change(page, change_of(row))
    except InvalidEdit as error:
        raise NoLongerApplies(
            f"{error.message} Only rejecting is left.",
            edit_index=error.fields.get("edit_index"),
            op=error.fields.get("op"),
            reason=error.fields.get("reason"),
        ) from None


@dataclass(frozen=True)
class Now:
    """A pending suggestion against its page as the page is now: why it no longer applies
    (None: it applies), and, where asked for, the diff accepting it would make now (None
    unless the page moved on since it was written and it still applies)."""

    problem: NotApplying | None
    diff: str | None = None


def _check(page: PageRow, row: SuggestionRow) -> Applied | NotApplying:
    """The page after the suggestion, or why it no longer applies."""
    try:
        return apply_suggestion(page, row)
    except NoLongerApplies as refusal:
        return NotApplying(
            refusal.fields.get("edit_index"),
            refusal.fields.get("op"),
            str(refusal.fields.get("reason")),
            refusal.message,
        )


_IDS: sa.BindParameter[list[int]] = sa.bindparam("ids", expanding=True)
_KEPT = sa.select(suggestion_checks).where(suggestion_checks.c.suggestion_id.in_(_IDS))
_BODIES = sa.select(pages.c.id, pages.c.body).where(pages.c.id.in_(_IDS))


def checks_for(
    conn: Connection,
    rows: Sequence[SuggestionRow],
    by_page: Mapping[int, PageHead],
    *,
    diffs: bool = False,
) -> dict[int, Now]:
    """For each of these pending suggestions, whether it applies to its page (in `by_page`,
    with or without its body) as the page is now, or why not; with `diffs`, also the diff
    accepting it would make now, for one written against an older version that applies."""
    if not rows:
        return {}
    ids = sorted({r.id for r in rows})
    kept = {k["suggestion_id"]: k for k in conn.execute(_KEPT, {"ids": ids}).mappings()}
    problems: dict[int, NotApplying | None] = {}
    stale = []
    for row in rows:
        known = kept.get(row.id)
        if known is not None and known["page_version"] == by_page[row.page_id].version:
            problems[row.id] = None if known["applies"] else _from_kept(known)
        else:
            stale.append(row)
    # Those whose page moved on since they were written, unless known not to apply.
    moved_on = [
        r
        for r in rows
        if diffs and r.base_version != by_page[r.page_id].version and problems.get(r.id) is None
    ]
    bodies = _bodies(conn, {r.page_id for r in [*stale, *moved_on]}, by_page)
    applied: dict[int, Applied] = {}
    fresh = []
    for row in stale:
        page = bodies[row.page_id]
        tried = _check(page, row)
        if isinstance(tried, Applied):
            applied[row.id], problems[row.id] = tried, None
        else:
            problems[row.id] = tried
        fresh.append(_kept(row.id, page.version, problems[row.id]))
    if is_writing(conn):
        remember(conn, fresh)
    diffs_now: dict[int, str] = {}
    for row in moved_on:
        if problems[row.id] is not None:
            continue
        page = bodies[row.page_id]
        try:
            after = applied.get(row.id) or apply_suggestion(page, row)
        except NoLongerApplies:  # against what was kept for this version: no diff, no failure
            continue
        diffs_now[row.id] = page_diff(page, after.body)
    return {r.id: Now(problems[r.id], diffs_now.get(r.id)) for r in rows}


def _bodies(
    conn: Connection, page_ids: set[int], by_page: Mapping[int, PageHead]
) -> dict[int, PageRow]:
    """The pages with their bodies, read (in one statement) only for those `by_page` has
    without."""
    known = {i: p for i in page_ids if isinstance(p := by_page[i], PageRow)}
    missing = page_ids - known.keys()
    if missing:
        for r in conn.execute(_BODIES, {"ids": sorted(missing)}):
            head = by_page[r.id]
            known[r.id] = PageRow(**{**vars(head), "body": r.body})
    return known


def _from_kept(known: RowMapping) -> NotApplying:
    return NotApplying(known["edit_index"], known["op"], known["reason"], known["message"])


def _kept(suggestion_id: int, version: int, problem: NotApplying | None) -> dict[str, Any]:
    return {
        "suggestion_id": suggestion_id,
        "page_version": version,
        "applies": problem is None,
        "edit_index": problem.edit_index if problem else None,
        "op": problem.op if problem else None,
        "reason": problem.reason if problem else None,
        "message": problem.message if problem else None,
    }


def applies_now(conn: Connection, suggestion_id: int, version: int) -> None:
    """Keep that a new suggestion applies to this version of its page (as making it showed)."""
    conn.execute(suggestion_checks.insert(), _kept(suggestion_id, version, None))


def remember(conn: Connection, fresh: list[dict[str, Any]]) -> None:
    """Keep checks made in the writing transaction `conn` is in."""
    if fresh:
        conn.execute(_UPSERT[conn.dialect.name], fresh)


def _upsert(insert: Any) -> sa.Executable:
    statement = insert(suggestion_checks)
    newer = {c.name: statement.excluded[c.name] for c in suggestion_checks.c if not c.primary_key}
    upsert: sa.Executable = statement.on_conflict_do_update(
        index_elements=[suggestion_checks.c.suggestion_id],
        set_=newer,
        # A check of an older version never replaces one of a newer version.
        where=suggestion_checks.c.page_version <= statement.excluded.page_version,
    )
    return upsert


# Built once: executed with a list of rows, the statement is compiled once and cached.
_UPSERT = {"postgresql": _upsert(postgresql.insert), "sqlite": _upsert(sqlite.insert)}
