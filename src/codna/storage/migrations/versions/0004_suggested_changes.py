"""Suggested changes (ADR 0024): the edit_suggestions table. This migration only adds.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("status IN ('pending', 'rejected')")


def upgrade() -> None:
    op.create_table(
        "edit_suggestions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("base_version", sa.Integer, nullable=False),
        sa.Column("edits", sa.JSON, nullable=False),
        sa.Column("title", sa.String(200)),
        sa.Column("title_was", sa.String(200)),
        sa.Column("tags_add", sa.JSON, nullable=False),
        sa.Column("tags_remove", sa.JSON, nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("suggester_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("via", sa.String(100)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("decided_by", sa.Integer, sa.ForeignKey("members.id")),
        sa.Column("decided_at", sa.DateTime(timezone=True)),
        sa.Column("decision_reason", sa.String(500)),
        sa.Column("accepted_version", sa.Integer),
        sa.Column("reverted_in_version", sa.Integer),
        sa.Column("diff", sa.Text, nullable=False),
        sa.Column("edits_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'accepted', 'rejected', 'withdrawn')",
            name="ck_edit_suggestions_status",
        ),
    )
    op.create_index(
        "ix_edit_suggestions_open_hash",
        "edit_suggestions",
        ["page_id", "edits_hash"],
        unique=True,
        sqlite_where=OPEN,
        postgresql_where=OPEN,
    )
    op.create_index("ix_edit_suggestions_suggester", "edit_suggestions", ["suggester_id", "status"])
    op.create_index("ix_edit_suggestions_page", "edit_suggestions", ["page_id", "status"])
    op.create_index(
        "ix_edit_suggestions_status_created", "edit_suggestions", ["status", "created_at"]
    )
    with op.batch_alter_table("notifications") as batch:
        batch.add_column(
            sa.Column(
                "edit_suggestion_id",
                sa.Integer,
                sa.ForeignKey(
                    "edit_suggestions.id",
                    ondelete="CASCADE",
                    name="fk_notifications_edit_suggestion_id_edit_suggestions",
                ),
            )
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE TRIGGER edit_suggestions_notify_inbox AFTER INSERT OR UPDATE "
            "ON edit_suggestions FOR EACH ROW EXECUTE FUNCTION codna_notify_inbox()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER edit_suggestions_notify_inbox ON edit_suggestions")
    with op.batch_alter_table("notifications") as batch:
        batch.drop_column("edit_suggestion_id")
    op.drop_table("edit_suggestions")
