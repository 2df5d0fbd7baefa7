"""The outbox (what happened to each page, for the worker) and automations (when an event
happens under a folder, run a routine as a member). On PostgreSQL a trigger wakes the workers
of every process when events are written: one notification per transaction, on the channel
the inbox's live updates use. This migration only adds.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EVENT_TYPES = "('document.created', 'document.changed')"
OPEN = sa.text("done_at IS NULL AND failed_at IS NULL")

# The same payload for every row, so that PostgreSQL folds a transaction's notifications into
# one (an import of a thousand pages wakes each worker once); the worker reads the rest.
NOTIFY_FUNCTION = """
CREATE FUNCTION codna_notify_outbox() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('codna_inbox', '{"table": "outbox", "id": 0, "op": "insert"}');
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(30), nullable=False),
        sa.Column(
            "page_id", sa.Integer, sa.ForeignKey("pages.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("available_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("taken_by", sa.String(200)),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("done_at", sa.DateTime(timezone=True)),
        sa.Column("failed_at", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.Text),
        sa.CheckConstraint(f"type IN {EVENT_TYPES}", name="ck_outbox_type"),
    )
    op.create_index("ix_outbox_open", "outbox", ["id"], sqlite_where=OPEN, postgresql_where=OPEN)
    op.create_table(
        "automations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("event_type", sa.String(30), nullable=False),
        sa.Column("space", sa.String(20), nullable=False),
        sa.Column("path", sa.String(500), nullable=False),
        sa.Column("routine", sa.String(100), nullable=False),
        sa.Column(
            "member_id",
            sa.Integer,
            sa.ForeignKey("members.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_by", sa.Integer, sa.ForeignKey("members.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("disabled_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint(f"event_type IN {EVENT_TYPES}", name="ck_automations_event_type"),
    )
    op.create_index("ix_automations_member_id", "automations", ["member_id"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(NOTIFY_FUNCTION)
        op.execute(
            "CREATE TRIGGER outbox_notify_workers AFTER INSERT ON outbox "
            "FOR EACH ROW EXECUTE FUNCTION codna_notify_outbox()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER outbox_notify_workers ON outbox")
        op.execute("DROP FUNCTION codna_notify_outbox()")
    op.drop_table("automations")
    op.drop_table("outbox")
