"""Revisions are stored as deltas: a version's text is kept whole (a snapshot) or as the
splices that make it of the version before, with a snapshot whenever the deltas since the last
one would add up to more than the body (markdown/delta.py), and each version keeps the SHA-256
of its text. The four columns are added, and every revision is converted, in order of page and
version, BATCH at a time, each batch its own transaction: its hash is worked out from its full
text, its delta against the version before, and only once that delta, read back from its
stored form, rebuilds the text exactly is the full copy dropped.

It can be stopped at any point and run again: the columns are added only where they are not
yet, a row converted already (its hash set) is skipped, and the version before the first row
left is rebuilt from what is stored and checked against its hash. A batch cut off halfway is
rolled back as a whole.

The space the full copies took is reused by the database for what comes next; to give it back
to the file system, run VACUUM on SQLite (VACUUM FULL revisions on PostgreSQL) once it is done.

Like 0008 and 0011, it uses CoDNA's text machinery (codna.markdown, pure text, no I/O): the
stored form and the rule must be the ones the running code reads and writes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08
"""

from collections.abc import Sequence
from itertools import count

import sqlalchemy as sa
from alembic import op
from alembic.operations import Operations
from sqlalchemy.engine import Connection

from codna.markdown import delta

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500  # revisions per transaction: at most BATCH full texts are read in one

_revisions = sa.table(
    "revisions",
    sa.column("id", sa.Integer),
    sa.column("page_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("body", sa.Text),
    sa.column("delta", sa.Text),
    sa.column("sha256", sa.String),
    sa.column("snapshot_version", sa.Integer),
    sa.column("chain_chars", sa.Integer),
)
_STORED = (
    _revisions.c.version,
    _revisions.c.body,
    _revisions.c.delta,
    _revisions.c.sha256,
    _revisions.c.snapshot_version,
    _revisions.c.chain_chars,
)


def _columns() -> list[sa.Column[object]]:
    return [
        sa.Column("delta", sa.Text),
        sa.Column("sha256", sa.String(64), nullable=False, server_default=""),
        sa.Column("snapshot_version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("chain_chars", sa.Integer, nullable=False, server_default="0"),
    ]


def add_columns(operations: Operations, conn: Connection) -> None:
    """The four columns, each only if the table has it not (a run stopped earlier added it)."""
    present = {c["name"] for c in sa.inspect(conn).get_columns("revisions")}
    for column in _columns():
        if column.name not in present:
            operations.add_column("revisions", column)


def _before(conn: Connection, page_id: int, version: int) -> delta.Before | None:
    """The version before `version`, as it is stored: converted already (rebuilt from its
    snapshot and checked against its hash), or None if there is none or it is not converted."""
    target = _revisions.alias("target")
    rows = conn.execute(
        sa.select(*_STORED)
        .where(
            _revisions.c.page_id == page_id,
            _revisions.c.version <= version - 1,
            _revisions.c.version
            >= sa.select(target.c.snapshot_version)
            .where(target.c.page_id == page_id, target.c.version == version - 1)
            .scalar_subquery(),
        )
        .order_by(_revisions.c.version)
    ).all()
    if not rows or rows[-1].version != version - 1 or not rows[-1].sha256:
        return None
    last = rows[-1]
    try:
        if rows[0].delta is not None:
            raise delta.DeltaError("its chain starts with no whole version")
        text = delta.rebuild(rows[0].body, [delta.decode(r.delta) for r in rows[1:]])
        if delta.digest(text) != last.sha256:
            raise delta.DeltaError("its text does not match its hash")
    except delta.DeltaError as error:
        raise RuntimeError(
            f"Version {last.version} of page {page_id} does not rebuild: {error}. "
            "Nothing more is converted."
        ) from None
    return delta.Before(last.version, text, last.snapshot_version, last.chain_chars)


def convert(conn: Connection, *, batch: int = BATCH, batches: int | None = None) -> int:
    """Convert the revisions not yet converted, `batch` at a time, committing each batch on
    `conn` (no transaction of its own may be open around it); stop after `batches` batches,
    if given. Returns how many were converted."""
    converted = 0
    after = (0, 0)  # the last (page_id, version) converted by this run
    before: delta.Before | None = None
    before_page = 0
    for _ in count() if batches is None else range(batches):
        keys = conn.execute(
            sa.select(_revisions.c.id, _revisions.c.page_id, _revisions.c.version)
            .where(
                _revisions.c.sha256 == "",
                sa.tuple_(_revisions.c.page_id, _revisions.c.version) > sa.tuple_(*after),
            )
            .order_by(_revisions.c.page_id, _revisions.c.version)
            .limit(batch)
        ).all()
        if not keys:
            break
        for row_id, page_id, version in keys:
            body = conn.execute(
                sa.select(_revisions.c.body).where(_revisions.c.id == row_id)
            ).scalar_one()
            if before is None or before_page != page_id or before.version != version - 1:
                before = _before(conn, page_id, version)
            stored = delta.store(version, body, before=before)
            conn.execute(
                _revisions.update()
                .where(_revisions.c.id == row_id, _revisions.c.sha256 == "")
                .values(**stored.columns())
            )
            before = delta.Before(version, body, stored.snapshot_version, stored.chain_chars)
            before_page = page_id
        conn.commit()
        converted += len(keys)
        after = (keys[-1].page_id, keys[-1].version)
    return converted


def upgrade() -> None:
    conn = op.get_bind()
    add_columns(Operations(op.get_context()), conn)
    conn.commit()  # the columns, then each batch: what is converted stays converted
    convert(conn)


def downgrade() -> None:
    """Every version's full text back in `body`, each checked against its hash, then the
    columns dropped."""
    conn = op.get_bind()
    page_ids = conn.execute(sa.select(_revisions.c.page_id).distinct()).scalars().all()
    for page_id in page_ids:
        rows = conn.execute(
            sa.select(_revisions.c.id, *_STORED)
            .where(_revisions.c.page_id == page_id)
            .order_by(_revisions.c.version)
        ).all()
        chain = delta.Chain()
        for row in rows:
            if not row.sha256:
                chain.next(row.body, None)  # never converted: whole already
                continue
            text = chain.next(row.body, row.delta)
            if delta.digest(text) != row.sha256:
                raise RuntimeError(
                    f"version {row.version} of page {page_id} does not rebuild to its hash"
                )
            if row.delta is not None:
                conn.execute(_revisions.update().where(_revisions.c.id == row.id).values(body=text))
    with op.batch_alter_table("revisions") as table:
        for column in reversed(_columns()):
            table.drop_column(column.name)
