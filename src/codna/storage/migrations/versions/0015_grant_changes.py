"""Every change of a grant is recorded: who made it and when, the member or agent it concerns,
the space, folder or page, and the level before and after (none before: given; none after:
taken back). The services write a row in the same transaction as the change. This migration
only adds.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "grant_changes",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("changed_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("member_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("level_before", sa.String(5)),
        sa.Column("level_after", sa.String(5)),
        sa.CheckConstraint(
            "level_before IN ('read', 'write') OR level_before IS NULL",
            name="ck_grant_changes_level_before",
        ),
        sa.CheckConstraint(
            "level_after IN ('read', 'write') OR level_after IS NULL",
            name="ck_grant_changes_level_after",
        ),
        sa.CheckConstraint(
            "level_before IS NOT NULL OR level_after IS NOT NULL",
            name="ck_grant_changes_a_change",
        ),
    )
    op.create_index("ix_grant_changes_member_id", "grant_changes", ["member_id"])
    op.create_index("ix_grant_changes_changed_by", "grant_changes", ["changed_by"])


def downgrade() -> None:
    op.drop_index("ix_grant_changes_changed_by", table_name="grant_changes")
    op.drop_index("ix_grant_changes_member_id", table_name="grant_changes")
    op.drop_table("grant_changes")
