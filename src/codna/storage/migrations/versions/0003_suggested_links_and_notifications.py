"""Suggested links, the notifications of the inbox, and the PostgreSQL trigger that wakes it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("status IN ('pending', 'rejected')")

NOTIFY_FUNCTION = """
CREATE FUNCTION codna_notify_inbox() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify(
        'codna_inbox',
        json_build_object('table', TG_TABLE_NAME, 'id', NEW.id, 'op', lower(TG_OP))::text
    );
    RETURN NEW;
END
$$ LANGUAGE plpgsql
"""


def notify_trigger(table: str) -> str:
    return (
        f"CREATE TRIGGER {table}_notify_inbox AFTER INSERT OR UPDATE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION codna_notify_inbox()"
    )


def upgrade() -> None:
    op.create_table(
        "link_suggestions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "target_page_id",
            sa.Integer,
            sa.ForeignKey("pages.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("anchor", sa.Text),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("suggester_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
        sa.Column("decided_at", sa.DateTime(timezone=True)),
        sa.Column("decision_reason", sa.String(500)),
        sa.Column("accepted_version", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'accepted', 'rejected', 'withdrawn')",
            name="ck_link_suggestions_status",
        ),
    )
    op.create_index(
        "ix_link_suggestions_open_pair",
        "link_suggestions",
        ["page_id", "target_page_id"],
        unique=True,
        sqlite_where=OPEN,
        postgresql_where=OPEN,
    )
    op.create_index(
        "ix_link_suggestions_status_created", "link_suggestions", ["status", "created_at"]
    )
    op.create_index("ix_link_suggestions_suggester", "link_suggestions", ["suggester_id", "status"])
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "member_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "link_suggestion_id",
            sa.Integer,
            sa.ForeignKey("link_suggestions.id", ondelete="CASCADE"),
        ),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("reason", sa.String(500)),
        sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_notifications_member_read", "notifications", ["member_id", "read_at"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(NOTIFY_FUNCTION)
        op.execute(notify_trigger("link_suggestions"))
        op.execute(notify_trigger("notifications"))


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER notifications_notify_inbox ON notifications")
        op.execute("DROP TRIGGER link_suggestions_notify_inbox ON link_suggestions")
        op.execute("DROP FUNCTION codna_notify_inbox()")
    op.drop_table("notifications")
    op.drop_table("link_suggestions")
