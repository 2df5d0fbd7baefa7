"""The search index holds a page's sections instead of the whole page: page_sections has a row
for the page's title and tags and one per section (markdown/search_sections.py), and the words
are indexed per row: on SQLite by a new FTS5 table page_search over the rows' heading and
text (its content read from page_sections, kept in step by triggers), on PostgreSQL by a
generated tsvector column with a GIN index, in place of the expression index over the page.
Each engine's index that search reads beside the table is named ix_page_sections_search.

The table is left empty. Its rows are derived from the pages and must be the ones the running
code makes, or a save would not find what it changed: storage/derived.py, run after the
migrations, makes the rows of every page that has none (every page has its title's row). A
database that ran this migration in its earlier form, which made the rows itself, has them.
The index is derived from the pages, so dropping the whole-page one loses nothing;
downgrading makes it again from the pages.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# On PostgreSQL: the heading (or the title) weighs more than the text; a section's text past
# 500,000 characters is not indexed (a tsvector holds at most 1 MB).
PG_SEARCH = (
    "setweight(to_tsvector('english'::regconfig, coalesce(heading, '')), 'A') || "
    "to_tsvector('english'::regconfig, left(text, 500000))"
)
# On SQLite: FTS5 reads the rows' words from page_sections; the triggers keep it in step; a
# search reads each matching row's page and ordinal through a narrow index, not the row.
SQLITE_INDEX = [
    "CREATE INDEX ix_page_sections_search ON page_sections (id, page_id, ordinal)",
    "CREATE VIRTUAL TABLE page_search USING fts5(heading, text, content='page_sections', "
    "content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER page_sections_indexed AFTER INSERT ON page_sections BEGIN "
    "INSERT INTO page_search (rowid, heading, text) VALUES (new.id, new.heading, new.text); END",
    "CREATE TRIGGER page_sections_unindexed AFTER DELETE ON page_sections BEGIN "
    "INSERT INTO page_search (page_search, rowid, heading, text) "
    "VALUES ('delete', old.id, old.heading, old.text); END",
    "CREATE TRIGGER page_sections_reindexed AFTER UPDATE OF heading, text ON page_sections BEGIN "
    "INSERT INTO page_search (page_search, rowid, heading, text) "
    "VALUES ('delete', old.id, old.heading, old.text); "
    "INSERT INTO page_search (rowid, heading, text) VALUES (new.id, new.heading, new.text); END",
]
# The whole-page index of 0001, for the downgrade.
OLD_PG_SEARCH = "to_tsvector('english', title || ' ' || left(body, 500000))"
OLD_SQLITE_INDEX = (
    "CREATE VIRTUAL TABLE page_search USING fts5(title, tags, body, tokenize = 'porter unicode61')"
)


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        op.execute("DROP TABLE page_search")
    else:
        op.execute("DROP INDEX ix_pages_search")
    op.create_table(
        "page_sections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("ordinal", sa.Integer, nullable=False),
        sa.Column("heading", sa.Text),
        sa.Column("anchor", sa.Text),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_index("ix_page_sections_page_id", "page_sections", ["page_id"])
    if sqlite:
        for statement in SQLITE_INDEX:
            op.execute(statement)
    else:
        op.execute(
            f"ALTER TABLE page_sections ADD COLUMN search tsvector "
            f"GENERATED ALWAYS AS ({PG_SEARCH}) STORED"
        )
        op.execute("CREATE INDEX ix_page_sections_search ON page_sections USING gin (search)")


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    if sqlite:
        for trigger in ("indexed", "unindexed", "reindexed"):
            op.execute(f"DROP TRIGGER page_sections_{trigger}")
        op.execute("DROP TABLE page_search")
    op.drop_table("page_sections")
    if sqlite:
        op.execute(OLD_SQLITE_INDEX)
        op.execute(
            "INSERT INTO page_search (rowid, title, tags, body) SELECT id, title, "
            "(SELECT coalesce(group_concat(value, ' '), '') FROM json_each(pages.tags)), body "
            "FROM pages"
        )
    else:
        op.execute(f"CREATE INDEX ix_pages_search ON pages USING gin ({OLD_PG_SEARCH})")
