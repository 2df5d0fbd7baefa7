"""The search index holds a page's sections instead of the whole page: page_sections has a row
for the page's title and tags and one per section (markdown/search_sections.py), and the words
are indexed per row: on SQLite by a new FTS5 table page_search over the rows' heading and
text (its content read from page_sections, kept in step by triggers), on PostgreSQL by a
generated tsvector column with a GIN index, in place of the expression index over the page.
Each engine's index that search reads beside the table is named ix_page_sections_search.
The rows are made from every page's current title, tags and body, a batch of pages at a time.

Like 0008, this migration uses CoDNA's text machinery (codna.markdown, pure text, no I/O): the
rows must be the ones the search service makes, or the first save of each page would replace
them all. The index is derived from the pages, so dropping the whole-page one loses nothing;
downgrading makes it again from the pages.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from codna.markdown.search_sections import index_sections

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 100  # pages read at a time: at most 100 MiB of bodies

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
    sa.column("heading", sa.Text),
    sa.column("anchor", sa.Text),
    sa.column("digest", sa.String),
    sa.column("text", sa.Text),
)


def _fill() -> None:
    """The rows of every page, BATCH pages at a time, in the order of their ids."""
    conn = op.get_bind()
    after = 0
    while True:
        batch = conn.execute(
            sa.select(_pages).where(_pages.c.id > after).order_by(_pages.c.id).limit(BATCH)
        ).all()
        if not batch:
            return
        rows = [
            {
                "page_id": page.id,
                "ordinal": s.ordinal,
                "heading": s.heading,
                "anchor": s.anchor,
                "digest": s.digest,
                "text": s.text,
            }
            for page in batch
            for s in index_sections(page.title, list(page.tags), page.body)
        ]
        conn.execute(_sections.insert(), rows)
        after = batch[-1].id


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
        _fill()
    else:
        op.execute(
            f"ALTER TABLE page_sections ADD COLUMN search tsvector "
            f"GENERATED ALWAYS AS ({PG_SEARCH}) STORED"
        )
        _fill()
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
