"""A suggestion's edits_hash names each heading as the page resolves it, so that the durable
rejection and the duplicate check take `## Alternatives` and `Alternatives` for one edit: the
hash of every suggestion with a section edit is marked stale, to be worked out again against
its base version. No table or column changes.

The hash is data derived from the suggestion, worked out by the running code
(markdown/edits_hash.py): this migration only marks it, its hex in capitals (the hash it had,
so that it may stay that where another open suggestion on the page takes the new one; the
running code writes small letters), and storage/derived.py, run after the migrations, works
out each marked one. A database that ran this migration in its earlier form, which worked the
hashes out itself, has none marked.

Going back takes the marks off: a hash not yet worked out again is the one it had before; one
worked out already stays in the canonical form.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # suggestions read at a time
SECTION_OPS = ("replace_section", "delete_section")

_suggestions = sa.table(
    "edit_suggestions",
    sa.column("id", sa.Integer),
    sa.column("edits", sa.JSON),
    sa.column("edits_hash", sa.String),
)


def upgrade() -> None:
    """Mark the hash of every suggestion with a section edit, BATCH suggestions at a time."""
    conn = op.get_bind()
    table = _suggestions
    after = 0
    while True:
        batch = conn.execute(
            sa.select(table.c.id, table.c.edits)
            .where(table.c.id > after)
            .order_by(table.c.id)
            .limit(BATCH)
        ).all()
        if not batch:
            return
        marked = [
            row.id
            for row in batch
            if any(isinstance(e, dict) and e.get("op") in SECTION_OPS for e in row.edits or [])
        ]
        if marked:
            conn.execute(
                table.update()
                .where(table.c.id.in_(marked))
                .values(edits_hash=sa.func.upper(table.c.edits_hash))
            )
        after = batch[-1].id


def downgrade() -> None:
    conn = op.get_bind()
    conn.execute(
        _suggestions.update()
        .where(_suggestions.c.edits_hash != sa.func.lower(_suggestions.c.edits_hash))
        .values(edits_hash=sa.func.lower(_suggestions.c.edits_hash))
    )
