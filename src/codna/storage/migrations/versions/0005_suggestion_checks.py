"""Whether each pending suggestion still applies, kept per page version. This migration only
adds.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "suggestion_checks",
        sa.Column(
            "suggestion_id",
            sa.Integer,
            sa.ForeignKey("edit_suggestions.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("page_version", sa.Integer, nullable=False),
        sa.Column("applies", sa.Boolean, nullable=False),
        sa.Column("edit_index", sa.Integer),
        sa.Column("op", sa.String(20)),
        sa.Column("reason", sa.String(40)),
        sa.Column("message", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("suggestion_checks")
