"""A run ends with its owner: a run's token carries an expiry (its routine's time limit and a
margin), so it stops working even if the server was killed mid-run; a run records the host and
process that run it and the process group of its command, so the next start closes the run and
kills the command its dead owner left; and an event records each automation that finished for
it, so a retry runs only the ones that failed. This migration only adds.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tokens", sa.Column("expires_at", sa.DateTime(timezone=True)))
    op.add_column("runs", sa.Column("host", sa.String(255)))
    op.add_column("runs", sa.Column("pid", sa.Integer))
    op.add_column("runs", sa.Column("command_pid", sa.Integer))
    op.create_index("ix_runs_status", "runs", ["status"])
    op.create_table(
        "outbox_automations_done",
        sa.Column(
            "event_id",
            sa.Integer,
            sa.ForeignKey("outbox.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "automation_id",
            sa.Integer,
            sa.ForeignKey("automations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("outbox_automations_done")
    op.drop_index("ix_runs_status", table_name="runs")
    op.drop_column("runs", "command_pid")
    op.drop_column("runs", "pid")
    op.drop_column("runs", "host")
    op.drop_column("tokens", "expires_at")
