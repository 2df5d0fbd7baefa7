"""Keeping the search index in step with the pages: a page's rows (markdown/search_sections.py)
written when it is made, brought up to date by each save, dropped when it is deleted for good.

A save whose change is known as splices (an edit's, or a diff's for a revert or a restore)
costs what it touched: the page's section lengths, read through a narrow index, tell where each
section begins, and only the sections the splices reached are scanned and, if their text
changed, re-indexed. A change that adds or removes a heading, or renames one so that its anchor
would change, is brought in step by comparing every section of the page with its row instead.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.engine import Connection

from codna.markdown.delta import Splice
from codna.markdown.headings import plain_text
from codna.markdown.render import slug
from codna.markdown.search_sections import (
    TITLE_ORDINAL,
    IndexedSection,
    changed_sections,
    digest,
    index_sections,
    title_row,
)
from codna.markdown.sections import heading_lines
from codna.storage.derived import SECTION_COLUMNS, section_columns, section_row
from codna.storage.records import PageRow
from codna.storage.schema import page_sections

_STORED = sa.select(
    page_sections.c.id, page_sections.c.ordinal, page_sections.c.anchor, page_sections.c.digest
).where(page_sections.c.page_id == sa.bindparam("page_id"))
_MOVE = (
    page_sections.update()
    .where(page_sections.c.id == sa.bindparam("row_id"))
    .values(ordinal=sa.bindparam("new_ordinal"), anchor=sa.bindparam("new_anchor"))
)
_CHUNK = 10_000  # ids per DELETE, well under SQLite's limit on bound values

# The lengths of a page's sections, read through ix_page_sections_lengths alone and handed over
# as one row (a page of 20,000 sections would otherwise be 20,000 rows to fetch): how many, the
# first and last ordinal, and the lengths in order. PostgreSQL is told the order; SQLite 3.40
# takes no ORDER BY inside an aggregate and concatenates the ordered subquery's rows as they
# come (tests/services/pages/test_search_index.py compares every row with the whole page's).
_numbered = sa.and_(
    page_sections.c.page_id == sa.bindparam("page_id"), page_sections.c.ordinal >= 0
)
_in_order = (
    sa.select(page_sections.c.ordinal, page_sections.c.chars)
    .where(_numbered)
    .order_by(page_sections.c.ordinal)
    .subquery()
)
_LENGTHS = {
    "sqlite": sa.select(
        sa.func.count(),
        sa.func.min(_in_order.c.ordinal),
        sa.func.max(_in_order.c.ordinal),
        sa.func.group_concat(_in_order.c.chars, ","),
    ),
    "postgresql": sa.select(
        sa.func.count(),
        sa.func.min(page_sections.c.ordinal),
        sa.func.max(page_sections.c.ordinal),
        sa.func.string_agg(
            sa.cast(page_sections.c.chars, sa.Text),
            aggregate_order_by(sa.literal_column("','"), page_sections.c.ordinal),
        ),
    ).where(_numbered),
}
_at_ordinal = sa.and_(
    page_sections.c.page_id == sa.bindparam("row_page"),
    page_sections.c.ordinal == sa.bindparam("row_ordinal"),
)
_REWRITE = (
    page_sections.update()
    .where(_at_ordinal)
    .values({name: sa.bindparam(f"new_{name}") for name in SECTION_COLUMNS})
)
_DROP = page_sections.delete().where(_at_ordinal)


def index_page(
    conn: Connection,
    page_id: int,
    *,
    title: str,
    tags: Sequence[str],
    body: str,
    before: PageRow | None = None,
    splices: Sequence[Splice] | None = None,
) -> None:
    """Bring the page's rows in the search index in step with its title, tags and body, in the
    page's own transaction.

    `before` is the page as it was, and `splices` what made `body` of its body, when the save
    knows them: then only the title's row (if the title or tags changed) and the sections the
    splices reached are looked at. Otherwise every section is compared with its row: those
    gone or changed are deleted and new ones inserted (their words indexed); a kept section
    that moved (another ordinal, or its anchor renumbered) has its row renumbered.
    """
    if (
        before is None
        or splices is None
        or not _index_change(conn, page_id, before.body, body, splices)
    ):
        _index_whole(conn, page_id, index_sections(title, tags, body))
    elif (before.title, tuple(before.tags)) != (title, tuple(tags)):
        row = title_row(title, tags)
        conn.execute(
            _REWRITE, {"row_page": page_id, "row_ordinal": TITLE_ORDINAL, **_rewritten(row)}
        )


def _index_whole(conn: Connection, page_id: int, sections: list[IndexedSection]) -> None:
    stored: dict[tuple[bool, str], list[Any]] = defaultdict(list)
    for row in conn.execute(_STORED, {"page_id": page_id}):
        stored[row.ordinal == TITLE_ORDINAL, row.digest].append(row)
    added, moved = [], []
    for section in sections:
        same = stored.get((section.is_title, section.digest))
        if not same:
            added.append(section_row(page_id, section))
            continue
        row = same.pop(0)
        if (row.ordinal, row.anchor) != (section.ordinal, section.anchor):
            moved.append(
                {"row_id": row.id, "new_ordinal": section.ordinal, "new_anchor": section.anchor}
            )
    gone = [row.id for rows in stored.values() for row in rows]
    for at in range(0, len(gone), _CHUNK):
        conn.execute(page_sections.delete().where(page_sections.c.id.in_(gone[at : at + _CHUNK])))
    if moved:
        conn.execute(_MOVE, moved)
    if added:
        conn.execute(page_sections.insert(), added)


def _index_change(
    conn: Connection, page_id: int, old: str, new: str, splices: Sequence[Splice]
) -> bool:
    """Re-index the sections of `new` that `splices` (which made it of `old`) touched, and
    answer True; or write nothing and answer False where only the whole page can tell (the
    headings added, removed or renamed to another anchor; rows that do not fit `old`)."""
    count, first, last, listed = conn.execute(
        _LENGTHS[conn.dialect.name], {"page_id": page_id}
    ).one()
    opening = first == 0  # a row for the text before the first heading
    if count and (first not in (0, 1) or last - first + 1 != count):
        return False
    # Read by the JSON parser's C code rather than a Python loop over the numbers.
    lengths = _lengths(old, opening, json.loads(f"[{listed}]") if count else [])
    if lengths is None:
        return False
    rewrites = changed_sections(old, new, splices, lengths)
    if rewrites is None:
        return False
    starts = list(accumulate(lengths, initial=0))
    old_lines = "\n" + old  # for heading_lines, made once
    changed, dropped, added = [], [], []
    for rewrite in rewrites:
        for section in rewrite.sections:
            ordinal = section.ordinal
            written = old[starts[ordinal] : starts[ordinal + 1]]
            if ordinal == 0:
                kept = bool(section.text.strip())  # as index_sections keeps it
                if kept and opening and section.text != written:
                    changed.append({"row_page": page_id, "row_ordinal": 0, **_rewritten(section)})
                elif kept and not opening:
                    added.append(section_row(page_id, section))
                elif opening and not kept:
                    dropped.append({"row_page": page_id, "row_ordinal": 0})
                continue
            if section.chars == len(written) and section.digest == digest(written):
                continue  # a section the scan passed through unchanged
            raw = next(heading_lines(old, starts[ordinal], text=old_lines))[1]
            if slug(plain_text(raw)) != slug(section.heading or ""):
                return False  # its anchor, and perhaps the numbering of others, would change
            changed.append({"row_page": page_id, "row_ordinal": ordinal, **_rewritten(section)})
    if dropped:
        conn.execute(_DROP, dropped)
    if changed:
        conn.execute(_REWRITE, changed)
    if added:
        conn.execute(page_sections.insert(), added)
    return True


def _lengths(old: str, opening: bool, chars: list[int]) -> list[int] | None:
    """The lengths of `old`'s sections by ordinal from 0 (the text before the first heading,
    whatever it holds) from its rows' chars in order (the first the opening's if it has a
    row), or None where they do not fit it."""
    headed = chars[1:] if opening else chars
    before = chars[0] if opening else len(old) - sum(headed)
    if before < 0 or (not opening and old[:before].strip()):
        return None
    return [before, *headed]


def _rewritten(section: IndexedSection) -> dict[str, Any]:
    """The values of _REWRITE's parameters (named apart from the columns they set)."""
    return {f"new_{name}": value for name, value in section_columns(section).items()}


_ROWS = (
    sa.select(
        page_sections.c.ordinal,
        page_sections.c.heading,
        page_sections.c.anchor,
        page_sections.c.digest,
        page_sections.c.chars,
    )
    .where(page_sections.c.page_id == sa.bindparam("page_id"))
    .order_by(page_sections.c.ordinal)
)


def in_step(conn: Connection, page_id: int, *, title: str, tags: Sequence[str], body: str) -> bool:
    """Whether the page's rows in the index are the ones its title, tags and body make."""
    stored = [tuple(row) for row in conn.execute(_ROWS, {"page_id": page_id})]
    made = [
        (s.ordinal, s.heading, s.anchor, s.digest, s.chars)
        for s in index_sections(title, tags, body)
    ]
    return stored == made


def reindex_page(
    conn: Connection, page_id: int, *, title: str, tags: Sequence[str], body: str
) -> None:
    """Make the page's rows again from its whole text, comparing each with what is stored."""
    _index_whole(conn, page_id, index_sections(title, tags, body))


def unindex_page(conn: Connection, page_id: int) -> None:
    conn.execute(page_sections.delete().where(page_sections.c.page_id == page_id))
