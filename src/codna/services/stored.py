"""What rows take as stored, the measure of what a member may store (suggestions/changes.py,
pages/output_budget.py)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.limits import STORED_ROW_BYTES


def stored_size(conn: Connection, *columns: sa.ColumnElement[object]) -> sa.ColumnElement[int]:
    """The bytes the columns take as stored, and a row's own: on PostgreSQL what the row holds
    on disk (compressed, and read from the values' headers alone), on SQLite the text's
    bytes."""
    if conn.dialect.name == "postgresql":
        sizes = [sa.func.coalesce(sa.func.pg_column_size(c), 0) for c in columns]
    else:
        sizes = [sa.func.coalesce(sa.func.length(sa.cast(c, sa.LargeBinary)), 0) for c in columns]
    return sum(sizes, sa.literal(STORED_ROW_BYTES))
