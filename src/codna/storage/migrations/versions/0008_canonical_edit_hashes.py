"""A suggestion's edits_hash names each heading as the page resolves it, so that the durable
rejection and the duplicate check take `## Alternatives` and `Alternatives` for one edit: the
hashes of suggestions with section edits are worked out again, against each one's base version.
No table or column changes.

Unlike the others, this migration uses CoDNA's edit language (codna.markdown, pure text, no
I/O): the canonical form is the edit language's, and the hashes must be the ones the running
code works out (services/suggestions.py's edits_hash, which the tests compare with these). The
envelope hashed around the edits is written out here as it is there.

Where two pending or rejected suggestions on one page come out as the same change, the first
(a rejected one before a pending one, then the older) takes the new hash and the other keeps
its own, as the unique index wants; either still blocks the same edits spelled its way.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from codna.errors import CodnaError
from codna.markdown.apply import canonical_edits
from codna.markdown.edits import edits_to_wire, parse_edits

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = ("pending", "rejected")
SECTION_OPS = ("replace_section", "delete_section")

_suggestions = sa.table(
    "edit_suggestions",
    sa.column("id", sa.Integer),
    sa.column("page_id", sa.Integer),
    sa.column("base_version", sa.Integer),
    sa.column("edits", sa.JSON),
    sa.column("title", sa.String),
    sa.column("tags_add", sa.JSON),
    sa.column("tags_remove", sa.JSON),
    sa.column("status", sa.String),
    sa.column("edits_hash", sa.String),
)
_revisions = sa.table(
    "revisions",
    sa.column("page_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("body", sa.Text),
)


def _digest(edits: list[dict[str, str]], row: Any) -> str:
    canonical = {
        "edits": edits,
        "title": row.title,
        "tags_add": sorted(row.tags_add),
        "tags_remove": sorted(row.tags_remove),
    }
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(body: str, edits: list[dict[str, str]]) -> list[dict[str, str]]:
    return edits_to_wire(canonical_edits(body, parse_edits(edits)))


def _as_given(body: str, edits: list[dict[str, str]]) -> list[dict[str, str]]:
    return edits_to_wire(parse_edits(edits))


def _rehash(edits_of: Callable[[str, list[dict[str, str]]], list[dict[str, str]]]) -> None:
    """Work out again the hash of every suggestion with a section edit, its edits in the form
    `edits_of` gives them against the body of its base version."""
    conn = op.get_bind()
    table = _suggestions
    rejected_first = sa.case((table.c.status == "rejected", 0), else_=1)
    rows = conn.execute(sa.select(table).order_by(rejected_first, table.c.id)).all()
    taken = {(r.page_id, r.edits_hash) for r in rows if r.status in OPEN}
    body_at = sa.select(_revisions.c.body).where(
        _revisions.c.page_id == sa.bindparam("page_id"),
        _revisions.c.version == sa.bindparam("version"),
    )
    for row in rows:
        edits = list(row.edits)
        if not any(isinstance(e, dict) and e.get("op") in SECTION_OPS for e in edits):
            continue  # the canonical form of other edits is the edits themselves
        body = conn.execute(body_at, {"page_id": row.page_id, "version": row.base_version}).scalar()
        if body is None:
            continue
        try:
            digest = _digest(edits_of(body, edits), row)
        except CodnaError:
            continue  # edits the edit language no longer takes: their hash stays
        if digest == row.edits_hash:
            continue
        if row.status in OPEN:
            if (row.page_id, digest) in taken:
                continue  # the same change is open on the page already, as another
            taken.discard((row.page_id, row.edits_hash))
            taken.add((row.page_id, digest))
        conn.execute(table.update().where(table.c.id == row.id).values(edits_hash=digest))


def upgrade() -> None:
    _rehash(_canonical)


def downgrade() -> None:
    _rehash(_as_given)
