"""Each row of the search index keeps the length of its section as written (`chars`, heading
line included; 0 for the title row), and an index on (page_id, ordinal, chars) reads a page's
lengths without its rows: from them a save finds where each section of the page's text begins
and re-indexes only the sections its change touched, without scanning the page for headings.
The lengths are worked out from every page's current body, a batch of pages at a time, with
the text machinery the search service uses (as 0011 does).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-09
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from codna.markdown.search_sections import index_sections

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 100  # pages read at a time: at most 100 MiB of bodies

_pages = sa.table(
    "pages",
    sa.column("id", sa.Integer),
    sa.column("title", sa.String),
    sa.column("tags", sa.JSON),
    sa.column("body", sa.Text),
)
_sections = sa.table(
    "page_sections",
    sa.column("page_id", sa.Integer),
    sa.column("ordinal", sa.Integer),
    sa.column("chars", sa.Integer),
)
_SET = (
    _sections.update()
    .where(
        _sections.c.page_id == sa.bindparam("row_page"),
        _sections.c.ordinal == sa.bindparam("row_ordinal"),
    )
    .values(chars=sa.bindparam("row_chars"))
)


def _fill() -> None:
    """The lengths of every page's rows, BATCH pages at a time, in the order of their ids."""
    conn = op.get_bind()
    after = 0
    while True:
        batch = conn.execute(
            sa.select(_pages).where(_pages.c.id > after).order_by(_pages.c.id).limit(BATCH)
        ).all()
        if not batch:
            return
        rows = [
            {"row_page": page.id, "row_ordinal": s.ordinal, "row_chars": s.chars}
            for page in batch
            for s in index_sections(page.title, list(page.tags), page.body)
            if s.chars
        ]
        if rows:
            conn.execute(_SET, rows)
        after = batch[-1].id


def upgrade() -> None:
    # Plain ALTERs, never a batch's copy of the table: on SQLite the full-text index's
    # triggers hang on page_sections.
    chars = sa.Column("chars", sa.Integer, nullable=False, server_default="0")
    op.add_column("page_sections", chars)
    op.create_index("ix_page_sections_lengths", "page_sections", ["page_id", "ordinal", "chars"])
    _fill()


def downgrade() -> None:
    op.drop_index("ix_page_sections_lengths", "page_sections")
    op.drop_column("page_sections", "chars")
