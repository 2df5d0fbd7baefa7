"""An accepted suggested link remembers the revision that undid it, as a suggested change does.
This migration only adds.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("link_suggestions") as table:
        table.add_column(sa.Column("reverted_in_version", sa.Integer))


def downgrade() -> None:
    with op.batch_alter_table("link_suggestions") as table:
        table.drop_column("reverted_in_version")
