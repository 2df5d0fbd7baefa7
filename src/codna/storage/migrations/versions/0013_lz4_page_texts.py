"""On PostgreSQL, a page's text and a revision kept whole are compressed with lz4 instead of
pglz, where the server has lz4: every save rewrites the page's row, text and all (PostgreSQL
never updates part of a value), and lz4 writes a 1 MB text in about 3 ms instead of 9 and reads
it in about 2 instead of 3, for a fifth more space. Texts written from then on are compressed
so; those already there stay as they are until they are written again. SQLite has no such
setting. No table or column changes.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TEXTS = (("pages", "body"), ("revisions", "body"))


def _compress(method: str) -> None:
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    has_lz4 = conn.execute(
        sa.text(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
        )
    ).scalar()
    if not has_lz4:
        return
    for table, column in TEXTS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION {method}")


def upgrade() -> None:
    _compress("lz4")


def downgrade() -> None:
    _compress("default")
