"""What one member stores in `output`, where agents and routines write without anyone
deciding (SPEC 1): the versions they wrote of pages there, trashed ones included, bounded by
OUTPUT_BYTES and checked in the transaction of every write to a page (pages.insert_page,
changes.save_change)."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import TooLarge
from codna.services.limits import OUTPUT_BYTES
from codna.services.members.members import Member
from codna.services.stored import stored_size
from codna.storage.records import PageRow
from codna.storage.schema import members, pages, revisions

OUTPUT = "output"
# What a version takes: its text or delta, and what is said of it.
_COLUMNS = ("body", "delta", "title", "tags", "summary")


def output_bytes(conn: Connection, member_id: int) -> int:
    """What the member stores in output: the revisions they wrote of pages there, in the trash
    or not, in bytes (a purged page's are gone)."""
    held, _ = _output_held(conn, member_id, page_id=0, version=0)
    return held


def _output_held(
    conn: Connection, member_id: int, *, page_id: int, version: int
) -> tuple[int, int]:
    """What the member stores in output besides version `version` of page `page_id`, and
    what that version takes: one statement over the member's revisions."""
    size = stored_size(conn, *(revisions.c[name] for name in _COLUMNS))
    this = sa.and_(revisions.c.page_id == page_id, revisions.c.version == version)
    query = (
        sa.select(
            sa.func.coalesce(sa.func.sum(size).filter(sa.not_(this)), 0),
            sa.func.coalesce(sa.func.sum(size).filter(this), 0),
        )
        .join_from(revisions, pages, pages.c.id == revisions.c.page_id)
        .where(revisions.c.author_id == member_id, pages.c.space == OUTPUT)
    )
    held, adding = conn.execute(query).one()
    return int(held), int(adding)


# The member's row, locked on PostgreSQL (SQLite's writers queue anyway), so that two of their
# writes at once are counted one after the other. NO KEY UPDATE: rows that merely refer to the
# member (the revision just written) do not wait on it.
_OUTPUT_QUEUE = (
    sa.select(members.c.id)
    .where(members.c.id == sa.bindparam("member_id"))
    .with_for_update(key_share=True)
)


def check_output(conn: Connection, actor: Member, page: PageRow) -> None:
    """Refuse the revision the actor has just written of `page` (its version as saved), in
    the write's transaction, if the page is in output and it takes what the actor stores there
    past OUTPUT_BYTES: what is counted is what was stored, a delta or a whole text. An admin
    acting as themselves is not limited; a routine's run is its person. Every create, edit,
    revert, restored version and accepted suggestion passes here (insert_page, save_change).
    Raises TooLarge (limit, stored); the transaction's rollback takes the revision back.
    """
    if page.space != OUTPUT or actor.administers:
        return
    conn.execute(_OUTPUT_QUEUE, {"member_id": actor.id})
    held, adding = _output_held(conn, actor.id, page_id=page.id, version=page.version)
    if held + adding > OUTPUT_BYTES:
        mib = 1024 * 1024
        raise TooLarge(
            f"You store {held / mib:.1f} MiB in the versions of pages you wrote in output "
            f"(trashed ones included), and this one would take it past the "
            f"{OUTPUT_BYTES / mib:g} MiB one member may store there; trash the output pages "
            "no longer needed and delete them for good, or ask an admin.",
            limit=OUTPUT_BYTES,
            stored=held,
        )
