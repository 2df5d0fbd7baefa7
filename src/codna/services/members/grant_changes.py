"""The record of every change of a grant: given, changed, taken back; who did it and when.

Sharing writes one row per change in its own transaction (access.share and access.unshare
call `record`), so a grant never changes unrecorded. Who reads the record: an admin all of
it; anyone else the changes they made, those that concern them, and those that concern the
agents they are responsible for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.addresses import Address
from codna.services.clock import now
from codna.services.context import database
from codna.services.limits import Window, check_limit, check_offset
from codna.services.members.members import Member
from codna.storage.schema import agent_responsibles, grant_changes, members

Level = Literal["read", "write"]
Change = Literal["given", "changed", "taken_back"]

# How many changes one call lists: newest first, `limit` of them after `offset`.
CHANGES = Window(default=50, most=500)


@dataclass(frozen=True)
class GrantChange:
    """`changed_by` changed what `member` holds on `address` at `changed_at`: from `before`
    to `after` (None before: given; None after: taken back), which `change` names."""

    id: int
    changed_at: datetime
    changed_by: str
    member: str
    address: str
    change: Change
    before: Level | None
    after: Level | None


def _change(before: Level | None, after: Level | None) -> Change:
    if before is None:
        return "given"
    return "taken_back" if after is None else "changed"


def record(
    conn: Connection,
    actor: Member,
    *,
    member_id: int,
    where: Address,
    before: Level | None,
    after: Level | None,
) -> None:
    """Write down, in the caller's transaction, that `actor` changed what member `member_id`
    holds on `where` from `before` to `after`. Nothing is written when nothing changed."""
    if before == after:
        return
    conn.execute(
        grant_changes.insert().values(
            changed_at=now(),
            changed_by=actor.id,
            member_id=member_id,
            space=where.space,
            path=where.path,
            level_before=before,
            level_after=after,
        )
    )


def list_grant_changes(
    actor: Member, *, limit: int = CHANGES.default, offset: int = 0
) -> list[GrantChange]:
    """The changes of grants the actor may see, newest first: all of them for an admin; for
    anyone else those they made, those that concern them and those that concern an agent they
    are responsible for. Raises InvalidRequest (limit, offset)."""
    check_limit(limit, CHANGES)
    check_offset(offset)
    by = members.alias("by")
    to = members.alias("to")
    query = (
        sa.select(
            grant_changes,
            sa.func.coalesce(by.c.email, by.c.name).label("by_handle"),
            sa.func.coalesce(to.c.email, to.c.name).label("to_handle"),
        )
        .join(by, by.c.id == grant_changes.c.changed_by)
        .join(to, to.c.id == grant_changes.c.member_id)
    )
    if not actor.administers:
        theirs = sa.select(agent_responsibles.c.agent_id).where(
            agent_responsibles.c.person_id == actor.id
        )
        query = query.where(
            sa.or_(
                grant_changes.c.changed_by == actor.id,
                grant_changes.c.member_id == actor.id,
                grant_changes.c.member_id.in_(theirs),
            )
        )
    newest = query.order_by(grant_changes.c.id.desc()).limit(limit).offset(offset)
    with database().read() as conn:
        rows = conn.execute(newest).mappings().all()
    return [
        GrantChange(
            id=row["id"],
            changed_at=row["changed_at"],
            changed_by=row["by_handle"],
            member=row["to_handle"],
            address=str(Address(row["space"], row["path"])),
            change=_change(row["level_before"], row["level_after"]),
            before=row["level_before"],
            after=row["level_after"],
        )
        for row in rows
    ]
