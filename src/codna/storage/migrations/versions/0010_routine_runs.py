"""Routines and their runs: the command routines configured here (built-in ones need no row),
each run of a routine with what became of it, and run tokens, minted for one run and revoked
when it ends, which carry the routine's name. This migration only adds.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATUSES = "('running', 'succeeded', 'failed', 'timed_out')"


def upgrade() -> None:
    op.create_table(
        "routines",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("command", sa.Text, nullable=False),
        sa.Column("timeout_seconds", sa.Integer, nullable=False),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("routine", sa.String(100), nullable=False),
        sa.Column(
            "member_id", sa.Integer, sa.ForeignKey("members.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "automation_id", sa.Integer, sa.ForeignKey("automations.id", ondelete="SET NULL")
        ),
        sa.Column("event_id", sa.Integer, sa.ForeignKey("outbox.id", ondelete="SET NULL")),
        sa.Column("address", sa.String(521), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
        sa.Column("run_page", sa.String(521)),
        sa.Column("error", sa.Text),
        sa.Column("output", sa.Text),
        sa.CheckConstraint(f"status IN {STATUSES}", name="ck_runs_status"),
    )
    op.create_index("ix_runs_member_id", "runs", ["member_id"])
    with op.batch_alter_table("tokens") as table:
        table.add_column(sa.Column("routine", sa.String(100)))
        table.add_column(
            sa.Column(
                "run_id",
                sa.Integer,
                sa.ForeignKey("runs.id", ondelete="CASCADE", name="fk_tokens_run_id_runs"),
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("tokens") as table:
        table.drop_column("run_id")
        table.drop_column("routine")
    op.drop_table("runs")
    op.drop_table("routines")
