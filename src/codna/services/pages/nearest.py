"""What an address means when it is not quite right: a folder named without its trailing slash
(`wiki:decisions` for `wiki:decisions/`), and the nearest address to one that names nothing.

Only what the member can read is looked at, so neither the forgiving nor a suggestion tells
of a page or folder they cannot read: to them it is not there.
"""

from __future__ import annotations

import difflib

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import NotFound
from codna.services.addresses import Address
from codna.services.members.access import Rights, under
from codna.storage.schema import pages

# How many of the member's readable pages one suggestion compares (those in the space asked
# first): the suggestion is one bounded query, however large the wiki.
NEAREST_SCAN = 2000
# How alike an address must be to be suggested (difflib's ratio, from 0 to 1).
NEAREST_CUTOFF = 0.6


def trash_clause(in_trash: bool) -> sa.ColumnElement[bool]:
    """The pages in the trash, or those out of it."""
    return pages.c.trashed_at.is_not(None) if in_trash else pages.c.trashed_at.is_(None)


def nearest(
    conn: Connection, mine: Rights, where: Address, *, in_trash: bool = False
) -> str | None:
    """The address nearest in spelling to `where` among the pages `mine`'s member can read
    (in the trash or out of it) and the folders that hold them; None when none comes close.

    Paths are compared without their spaces (which every address of a space shares, and would
    make any two alike); of two as near, the one in `where`'s space is taken."""
    query = (
        sa.select(pages.c.space, pages.c.path)
        .where(mine.readable(), trash_clause(in_trash))
        .order_by(sa.case((pages.c.space == where.space, 0), else_=1), pages.c.space, pages.c.path)
        .limit(NEAREST_SCAN)
    )
    candidates: dict[Address, None] = {}
    for space, path in conn.execute(query):
        folders = path.split("/")[:-1]
        for depth in range(1, len(folders) + 1):
            candidates.setdefault(Address(space, "/".join(folders[:depth]) + "/"))
        candidates.setdefault(Address(space, path))
    candidates.pop(where, None)
    matcher = difflib.SequenceMatcher(b=where.path, autojunk=False)
    best, score = None, NEAREST_CUTOFF
    for candidate in candidates:
        matcher.set_seq1(candidate.path)
        if matcher.real_quick_ratio() < score or matcher.quick_ratio() < score:
            continue
        ratio = matcher.ratio()
        if ratio > score or (best is None and ratio == score):
            best, score = candidate, ratio
    return None if best is None else str(best)


def not_found(
    conn: Connection, mine: Rights, where: Address, message: str, *, in_trash: bool = False
) -> NotFound:
    """NotFound with `message`, and the nearest address the member can read when one comes
    close: in the sentence and as `nearest`."""
    near = nearest(conn, mine, where, in_trash=in_trash)
    if near is None:
        return NotFound(message, address=str(where))
    return NotFound(
        f"{message} The nearest you can read is {near}.", address=str(where), nearest=near
    )


def listing_address(
    conn: Connection, mine: Rights, where: Address, *, in_trash: bool = False
) -> Address:
    """What a listing of `where` lists: a space or a folder as given (empty or not); a page
    the member can read as given; else, when pages they can read are under `where` with a
    slash added, that folder.

    A page or folder counts whether in the trash or not; the listing then keeps those in the
    trash or out of it. Raises NotFound (nothing the member can read is there; with the
    nearest address they can read, when one comes close).
    """
    if where.kind != "page":
        return where
    folder = Address(where.space, where.path + "/")
    found = conn.execute(
        sa.select(pages.c.path)
        .where(
            mine.readable(),
            pages.c.space == where.space,
            sa.or_(pages.c.path == where.path, under(pages.c.path, folder.path)),
        )
        .order_by(sa.case((pages.c.path == where.path, 0), else_=1))
        .limit(1)
    ).first()
    if found is None:
        message = f"Nothing you can read is at {where}."
        raise not_found(conn, mine, where, message, in_trash=in_trash)
    return where if found.path == where.path else folder
