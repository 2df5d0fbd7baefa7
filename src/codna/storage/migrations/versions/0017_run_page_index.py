"""Runs by their run page: a run page is read only by those who can read the page its run
looked at, so every read of a page in output asks which run wrote it. This migration only
adds.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_runs_run_page", "runs", ["run_page"])


def downgrade() -> None:
    op.drop_index("ix_runs_run_page", table_name="runs")
