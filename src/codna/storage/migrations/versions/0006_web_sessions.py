"""Browser sessions (only a hash of each secret is kept) and failed sign-ins for the throttle.
This migration only adds.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column(
            "member_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("secret_hash", name="uq_web_sessions_secret_hash"),
    )
    op.create_index("ix_web_sessions_member_id", "web_sessions", ["member_id"])
    op.create_table(
        "sign_in_failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("address", sa.String(100), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sign_in_failures_email_at", "sign_in_failures", ["email", "at"])
    op.create_index("ix_sign_in_failures_address_at", "sign_in_failures", ["address", "at"])
    op.create_index("ix_sign_in_failures_at", "sign_in_failures", ["at"])


def downgrade() -> None:
    op.drop_table("sign_in_failures")
    op.drop_table("web_sessions")
