"""Each row of the search index keeps the length of its section as written (`chars`, heading
line included; 0 for the title row), and an index on (page_id, ordinal, chars) reads a page's
lengths without its rows: from them a save finds where each section of the page's text begins
and re-indexes only the sections its change touched, without scanning the page for headings.
The rows already there are deleted, the index left empty: its rows are derived from the
pages and must be the ones the running code makes, lengths included, so storage/derived.py,
run after the migrations, makes the rows of every page that has none (as after 0011). A
database that ran this migration in its earlier form, which worked the lengths out itself,
keeps its rows. Going back drops the column and leaves the rows as they are.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-09
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ALTERs, never a batch's copy of the table: on SQLite the full-text index's
    # triggers hang on page_sections.
    chars = sa.Column("chars", sa.Integer, nullable=False, server_default="0")
    op.add_column("page_sections", chars)
    op.create_index("ix_page_sections_lengths", "page_sections", ["page_id", "ordinal", "chars"])
    # Every row, its words with it (on SQLite the trigger takes them out of page_search).
    op.execute(sa.delete(sa.table("page_sections")))


def downgrade() -> None:
    op.drop_index("ix_page_sections_lengths", "page_sections")
    op.drop_column("page_sections", "chars")
