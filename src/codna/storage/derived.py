"""What the database holds that is worked out from other things it holds, brought up to date
with the running code after the migrations (Database.migrate, on every start).

- The search index: each page's rows in page_sections, made of its title, tags and body by
  markdown/search_sections.py and written as section_row says (services/pages/search_index.py
  writes a save's rows with it too). Every page has its title's row, so a page with no row at
  all is one whose rows are to be made.
- Each suggestion's edits_hash, made of its edits against its base version by
  markdown/edits_hash.py. A stale one is marked by its letters in capitals (hashlib gives hex in
  small letters): the hash it had, kept so that it can stay that if it must (below).

A migration never works these out itself: it would do it with the code of its day frozen in,
and a later release would find rows made in a form it no longer makes. It marks them stale
instead (0008 the hashes of suggestions with section edits; 0011 and 0014 leave the index
empty), and `bring_up_to_date` makes them with today's code: the same functions the services
use when a page is saved or a suggestion made. A database that ran an older form of those
migrations, which worked the data out themselves, has nothing marked.

Where two pending or rejected suggestions on one page come out as the same change, the first
(a rejected one before a pending one, then the older) takes the new hash and the other keeps
its own, as the unique index wants; either still blocks the same edits spelled its way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import CodnaError
from codna.markdown import delta
from codna.markdown.edits import parse_edits
from codna.markdown.edits_hash import edits_hash
from codna.markdown.search_sections import IndexedSection, index_sections
from codna.storage import versions
from codna.storage.schema import edit_suggestions, page_sections, pages, revisions

PAGES_PER_BATCH = 100  # pages read at a time: at most 100 MiB of bodies
SUGGESTIONS_PER_BATCH = 100  # suggestions, each with its base version's text
OPEN = ("pending", "rejected")  # the statuses the unique index on edits_hash covers

# What a section's text makes of its row in the search index (its ordinal and anchor say
# where it is on the page).
SECTION_COLUMNS = ("heading", "digest", "text", "chars")


def section_columns(section: IndexedSection) -> dict[str, Any]:
    """The values of SECTION_COLUMNS for the section."""
    return {name: getattr(section, name) for name in SECTION_COLUMNS}


def section_row(page_id: int, section: IndexedSection) -> dict[str, Any]:
    """The section's row in the search index, as inserted into page_sections."""
    return {
        "page_id": page_id,
        "ordinal": section.ordinal,
        "anchor": section.anchor,
        **section_columns(section),
    }


_stale_hash = edit_suggestions.c.edits_hash != sa.func.lower(edit_suggestions.c.edits_hash)
_unindexed = ~sa.exists().where(page_sections.c.page_id == pages.c.id)
# Whether anything is stale: a page without rows in the search index (read through the pages'
# narrowest index and page_sections' on page_id, never a page's row itself).
_STALE = sa.select(pages.c.id).where(_unindexed).limit(1)


@dataclass(frozen=True)
class Brought:
    """What bring_up_to_date made again: suggestions' hashes, pages' rows in the index."""

    suggestions: int = 0
    pages: int = 0


def bring_up_to_date(
    conn: Connection,
    *,
    pages_per_batch: int = PAGES_PER_BATCH,
    suggestions_per_batch: int = SUGGESTIONS_PER_BATCH,
) -> Brought:
    """Work out again what is marked stale, a batch at a time, committing each batch on `conn`
    (no transaction of its own may be open on it): the hashes first, then the index.

    With nothing stale it is one statement, whether a page has no rows in the index: a hash
    is marked only by migration 0008, which comes before 0011 and 0014 leave the index empty,
    and the hashes are worked out before any page's rows are made; so while a hash is marked,
    a page (the suggestion's, at least) has no rows.
    """
    stale = conn.execute(_STALE).first()
    conn.commit()
    if stale is None:
        return Brought()
    rehashed = indexed = 0
    while done := _rehash(conn, suggestions_per_batch):
        conn.commit()
        rehashed += done
    while done := _index(conn, pages_per_batch):
        conn.commit()
        indexed += done
    conn.commit()
    return Brought(rehashed, indexed)


# --- the search index ------------------------------------------------------------------------


def _index(conn: Connection, batch: int) -> int:
    """Make the rows of up to `batch` pages that have none; how many pages."""
    ids = (
        conn.execute(sa.select(pages.c.id).where(_unindexed).order_by(pages.c.id).limit(batch))
        .scalars()
        .all()
    )
    if not ids:
        return 0
    found = conn.execute(
        sa.select(pages.c.id, pages.c.title, pages.c.tags, pages.c.body).where(pages.c.id.in_(ids))
    ).all()
    rows = [
        section_row(page.id, section)
        for page in found
        for section in index_sections(page.title, list(page.tags), page.body)
    ]
    conn.execute(page_sections.insert(), rows)
    return len(ids)


# --- the hashes of suggestions -----------------------------------------------------------------

_rejected_first = sa.case((edit_suggestions.c.status == "rejected", 0), else_=1)
_MARKED = (
    sa.select(
        edit_suggestions.c.id,
        edit_suggestions.c.page_id,
        edit_suggestions.c.base_version,
        edit_suggestions.c.edits,
        edit_suggestions.c.title,
        edit_suggestions.c.tags_add,
        edit_suggestions.c.tags_remove,
        edit_suggestions.c.status,
        edit_suggestions.c.edits_hash,
    )
    .where(_stale_hash)
    .order_by(_rejected_first, edit_suggestions.c.id)
    .limit(sa.bindparam("batch"))
)
# Another open suggestion on the page holds the hash, or will once its own mark is taken off.
_TAKEN = sa.select(edit_suggestions.c.id).where(
    edit_suggestions.c.page_id == sa.bindparam("page_id"),
    edit_suggestions.c.status.in_(OPEN),
    edit_suggestions.c.id != sa.bindparam("id"),
    edit_suggestions.c.edits_hash.in_([sa.bindparam("hash"), sa.bindparam("marked")]),
)
_SET = (
    edit_suggestions.update()
    .where(edit_suggestions.c.id == sa.bindparam("row_id"))
    .values(edits_hash=sa.bindparam("new_hash"))
)
# The versions a version is rebuilt from: its snapshot, the deltas after it, and itself.
_CHAIN = versions.chain(
    revisions.c.version, revisions.c.body, revisions.c.delta, revisions.c.sha256
)


def _rehash(conn: Connection, batch: int) -> int:
    """Work out the hashes of up to `batch` marked suggestions, in order (rejected ones
    first, then the older), and take their marks off; how many."""
    marked = conn.execute(_MARKED, {"batch": batch}).all()
    for row in marked:
        own = row.edits_hash.lower()
        new = _worked_out(conn, row)
        if new is None:
            new = own  # no base text, or edits the edit language no longer takes
        elif new != own and row.status in OPEN:
            taken = conn.execute(
                _TAKEN, {"page_id": row.page_id, "id": row.id, "hash": new, "marked": new.upper()}
            ).first()
            if taken is not None:
                new = own  # the same change is open on the page already, as another
        conn.execute(_SET, {"row_id": row.id, "new_hash": new})
    return len(marked)


def _worked_out(conn: Connection, row: Any) -> str | None:
    """The suggestion's hash as the running code makes it, or None where it cannot be."""
    body = _text_of(conn, row.page_id, row.base_version)
    if body is None:
        return None
    try:
        edits = parse_edits(list(row.edits)) if row.edits else []
        return edits_hash(
            body, edits, title=row.title, tags_add=row.tags_add, tags_remove=row.tags_remove
        )
    except CodnaError:
        return None


def _text_of(conn: Connection, page_id: int, version: int) -> str | None:
    """The text of a version of a page, rebuilt and checked against its hash; None if there is
    no such version or it does not rebuild."""
    chain: Sequence[Any] = conn.execute(_CHAIN, {"page_id": page_id, "version": version}).all()
    if not chain or chain[-1].version != version:
        return None
    try:
        text = versions.rebuild(chain)
    except delta.DeltaError:
        return None
    last = chain[-1]
    if last.sha256 and delta.digest(text) != last.sha256:
        return None
    return text
