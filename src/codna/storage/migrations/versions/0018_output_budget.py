"""Revisions by their author: what a member stored in output is summed before each of their
writes there, from the revisions they wrote (OUTPUT_BYTES). This migration only adds.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_revisions_author_id", "revisions", ["author_id"])


def downgrade() -> None:
    op.drop_index("ix_revisions_author_id", table_name="revisions")
