"""The core: members, grants, pages, revisions and the search index.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Search on PostgreSQL indexes this expression; queries must use the very same text.
PG_SEARCH_EXPRESSION = "to_tsvector('english', title || ' ' || left(body, 500000))"


def upgrade() -> None:
    op.create_table(
        "members",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("email", sa.String(320)),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("password_hash", sa.String(200)),
        sa.Column("is_admin", sa.Boolean, nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('person', 'agent')", name="ck_members_kind"),
        sa.UniqueConstraint("email", name="uq_members_email"),
    )
    op.create_index(
        "ix_members_agent_name",
        "members",
        ["name"],
        unique=True,
        sqlite_where=sa.text("kind = 'agent'"),
        postgresql_where=sa.text("kind = 'agent'"),
    )
    op.create_table(
        "agent_responsibles",
        sa.Column(
            "agent_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "person_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            primary_key=True,
        ),
    )
    op.create_table(
        "grants",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "member_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("level", sa.String(5), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("member_id", "space", "path", name="uq_grants_member_id_space_path"),
        sa.CheckConstraint("level IN ('read', 'write')", name="ck_grants_level"),
    )
    op.create_table(
        "pages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("trashed_at", sa.DateTime(timezone=True)),
        sa.Column("trashed_by", sa.Integer, sa.ForeignKey("members.id")),
        sa.UniqueConstraint("space", "path", name="uq_pages_space_path"),
        sa.CheckConstraint("space IN ('wiki', 'raw', 'output')", name="ck_pages_space"),
    )
    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "page_id",
            sa.Integer,
            sa.ForeignKey("pages.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("tags", sa.JSON, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("summary", sa.String(1000), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("page_id", "version", name="uq_revisions_page_id_version"),
        sa.CheckConstraint(
            "kind IN ('create', 'edit', 'revert', 'accept_suggestion', 'accept_link', 'import')",
            name="ck_revisions_kind",
        ),
    )
    if op.get_bind().dialect.name == "sqlite":
        # rowid is the page's id; the service keeps it in step with the page in each write.
        op.execute(
            "CREATE VIRTUAL TABLE page_search USING fts5("
            "title, tags, body, tokenize = 'porter unicode61')"
        )
    else:
        op.execute(f"CREATE INDEX ix_pages_search ON pages USING gin ({PG_SEARCH_EXPRESSION})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE page_search")
    else:
        op.execute("DROP INDEX ix_pages_search")
    op.drop_table("revisions")
    op.drop_table("pages")
    op.drop_table("grants")
    op.drop_table("agent_responsibles")
    op.drop_index("ix_members_agent_name", table_name="members")
    op.drop_table("members")
