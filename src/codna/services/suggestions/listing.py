"""Listing what is suggested on pages, changes or links alike, as the one lifecycle shows it
(lifecycle.py): to a page's editors everything on it, to anyone else their own.

A listing names a page, a folder (`wiki:decisions/`, or `wiki:decisions` when no page the
member can read has that address but a folder does) or a space (`wiki`), or nothing for the
member's own; newest first, by status if asked, `limit` of them after the first `offset`.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.addresses import Address, parse_address
from codna.services.limits import SUGGESTIONS, check_limit, check_offset
from codna.services.members.access import Rights, rights
from codna.services.members.members import Member
from codna.services.pages.nearest import listing_address
from codna.services.pages.pages import address_clause
from codna.services.suggestions.lifecycle import Item, Kind, check_status
from codna.storage.schema import pages


def check_listing(
    address: str | None, status: str | None, limit: int, offset: int
) -> Address | None:
    """What a listing asks for, checked before anything is read: the address (None: one's
    own), a status, `limit` and `offset` within SUGGESTIONS. Raises InvalidRequest."""
    check_status(status)
    check_limit(limit, SUGGESTIONS)
    check_offset(offset)
    return parse_address(address) if address is not None else None


def listed(
    conn: Connection,
    actor: Member,
    kind: Kind[Item],
    where: Address | None,
    *,
    status: str | None,
    limit: int,
    offset: int,
) -> tuple[list[Item], Rights]:
    """The items of `kind` at `where` the actor may see, newest first, and the actor's rights:
    at a page, a folder or a space, those on pages there the actor decides on and the actor's
    own; without an address, the actor's own.

    The address is read as listing_address reads it (the folder of an address named without
    its slash); a page the actor cannot read is not found even when they suggested on it (only
    the list of their own shows those). Raises NotFound.
    """
    mine = rights(conn, actor)
    table = kind.table
    query = sa.select(table)
    if where is None:
        query = query.where(table.c.suggester_id == actor.id)
    else:
        there = sa.select(pages.c.id).where(address_clause(listing_address(conn, mine, where)))
        query = query.where(table.c.page_id.in_(there), mine.seen_suggestions(table))
    if status is not None:
        query = query.where(table.c.status == status)
    newest = query.order_by(table.c.created_at.desc(), table.c.id.desc())
    found = conn.execute(newest.limit(limit).offset(offset)).mappings()
    return [kind.record.of(row) for row in found], mine
