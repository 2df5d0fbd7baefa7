"""Finding one's way around a space: the tree of its folders, what changed lately, which pages
link to a page, and the pages by tag. Every answer holds only pages the member can read,
outside the trash."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.limits import PAGES, RECENT, TAGS, check_limit, check_offset
from codna.services.members.access import Rights, rights, under
from codna.services.members.members import Member
from codna.services.pages import tags as tag_rules
from codna.services.pages.nearest import listing_address
from codna.services.pages.pages import SUMMARIES, PageSummary, address_clause, summaries
from codna.storage.schema import members, page_links, pages, revisions

# Entries one branch of the tree shows at most (folders first, then pages); the folder's own
# listing has the rest.
BRANCH_ENTRIES = 200


@dataclass(frozen=True)
class Branch:
    """One folder of the tree, open: its folders (name, how many pages under it) and its pages
    (address, title), each by name."""

    folder: Address  # a space or a folder
    folders: list[tuple[str, int]]
    pages: list[tuple[str, str]]
    more: int = 0  # entries left out past BRANCH_ENTRIES


def tree(actor: Member, *, address: str) -> list[Branch]:
    """The folders from `address`'s space down to it (a page's folder, or the folder itself),
    each open: what a tree beside a page shows, the way to the page unfolded.

    Raises InvalidRequest (a bad address)."""
    where = parse_address(address)
    path = where.path if where.kind != "page" else where.path.rpartition("/")[0] + "/"
    chain = [""] + ["/".join(path.split("/")[: n + 1]) + "/" for n in range(path.count("/"))]
    with database().read() as conn:
        mine = rights(conn, actor)
        return [
            _branch(conn, mine, Address(where.space, folder)) for folder in chain if folder != "/"
        ]


def _branch(conn: Connection, mine: Rights, folder: Address) -> Branch:
    """One folder's entries, counted by the database: each page under it is grouped by the
    first step of its path below the folder, a folder's name with its slash or a page's."""
    rest = sa.func.substr(pages.c.path, len(folder.path) + 1)
    find = sa.func.strpos if conn.dialect.name == "postgresql" else sa.func.instr
    slash = find(rest, "/")
    is_folder = slash > 0
    step = sa.case((is_folder, sa.func.substr(rest, 1, slash)), else_=rest)
    entries = sa.func.count().over()  # the entries there are, however many are shown
    rows = conn.execute(
        sa.select(step.label("step"), sa.func.count(), sa.func.max(pages.c.title), entries)
        .where(
            pages.c.space == folder.space,
            under(pages.c.path, folder.path),
            pages.c.trashed_at.is_(None),
            mine.readable(),
        )
        .group_by(step)
        .order_by(sa.func.max(sa.case((is_folder, 0), else_=1)), step)
        .limit(BRANCH_ENTRIES)
    ).all()
    folders = [(name.removesuffix("/"), count) for name, count, _, _ in rows if name[-1] == "/"]
    shown = [
        (str(Address(folder.space, folder.path + name)), title)
        for name, _, title, _ in rows
        if name[-1] != "/"
    ]
    return Branch(folder, folders, shown, rows[0][3] - len(rows) if rows else 0)


@dataclass(frozen=True)
class Change:
    """One revision in recent changes."""

    address: str
    title: str
    version: int
    kind: str
    summary: str
    author: str
    at: datetime


def recent_changes(
    actor: Member, *, address: str | None = None, limit: int = RECENT.default, offset: int = 0
) -> list[Change]:
    """The latest revisions of the pages the actor can read, newest first: everywhere, or in a
    space or folder. Raises InvalidRequest (a bad address, limit or offset), NotFound (a folder
    with no page the actor can read)."""
    where = parse_address(address) if address else None
    check_limit(limit, RECENT)
    check_offset(offset)
    with database().read() as conn:
        mine = rights(conn, actor)
        if where is not None:
            where = listing_address(conn, mine, where)
        query = (
            sa.select(
                pages.c.space,
                pages.c.path,
                pages.c.title,
                revisions.c.version,
                revisions.c.kind,
                revisions.c.summary,
                revisions.c.created_at,
                members.c.name,
            )
            .select_from(
                revisions.join(pages, pages.c.id == revisions.c.page_id).join(
                    members, members.c.id == revisions.c.author_id
                )
            )
            .where(pages.c.trashed_at.is_(None), mine.readable())
            .order_by(revisions.c.created_at.desc(), revisions.c.id.desc())
            .limit(limit)
            .offset(offset)
        )
        if where is not None:
            query = query.where(address_clause(where))
        rows = conn.execute(query).all()
    return [
        Change(
            str(Address(r.space, r.path)),
            r.title,
            r.version,
            r.kind,
            r.summary,
            r.name,
            r.created_at,
        )
        for r in rows
    ]


# The pages linking to an address (a subquery, not a join: built once, it costs nothing to
# build again for each page view).
_LINKING = sa.select(page_links.c.page_id).where(
    page_links.c.space == sa.bindparam("space"), page_links.c.path == sa.bindparam("path")
)


def backlinks(actor: Member, *, address: str) -> list[tuple[str, str]]:
    """The pages the actor can read that link to `address`, as (address, title), by title.
    Raises InvalidRequest (a bad address)."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        mine = rights(conn, actor)
        rows = conn.execute(
            sa.select(pages.c.space, pages.c.path, pages.c.title)
            .where(
                pages.c.id.in_(_LINKING),
                pages.c.trashed_at.is_(None),
                mine.readable(),
            )
            .order_by(pages.c.title, pages.c.space, pages.c.path)
            .limit(PAGES.default),
            {"space": where.space, "path": where.path},
        ).all()
    return [(str(Address(r.space, r.path)), r.title) for r in rows]


def tags(actor: Member, *, limit: int = TAGS.default) -> list[tuple[str, int]]:
    """The tags of the pages the actor can read, with how many pages have each, by name."""
    check_limit(limit, TAGS)
    with database().read() as conn:
        mine = rights(conn, actor)
        value = tag_rules.tag_values(conn)
        rows = conn.execute(
            sa.select(value.c.value, sa.func.count())
            .select_from(pages)
            .join(value, sa.true())
            .where(pages.c.trashed_at.is_(None), mine.readable())
            .group_by(value.c.value)
            .order_by(value.c.value)
            .limit(limit)
        ).all()
    return [(str(tag), int(count)) for tag, count in rows]


def tagged(
    actor: Member, *, tag: str, limit: int = PAGES.default, offset: int = 0
) -> list[PageSummary]:
    """The pages with `tag` the actor can read, by address. Raises InvalidRequest."""
    check_limit(limit, PAGES)
    check_offset(offset)
    wanted = tag_rules.check_tag(tag)
    with database().read() as conn:
        mine = rights(conn, actor)
        has_tag = tag_rules.tagged(conn, wanted)
        rows = conn.execute(
            SUMMARIES.where(pages.c.trashed_at.is_(None), mine.readable(), has_tag)
            .order_by(pages.c.space, pages.c.path)
            .limit(limit)
            .offset(offset)
        ).all()
        return summaries(rows, mine)


def may_create(actor: Member, *, address: str) -> bool:
    """Whether the actor may create a page at `address`, which holds none (not even in the
    trash): what a link to a missing page offers. Raises InvalidRequest (a bad address)."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        if not rights(conn, actor).can_create(where.space, where.path):
            return False
        taken = conn.execute(
            sa.select(pages.c.id).where(pages.c.space == where.space, pages.c.path == where.path)
        ).first()
    return taken is None


def reads(actor: Member, *, address: str) -> bool:
    """Whether the actor can read the page at `address`, out of the trash: one indexed query,
    the page's text left unread. Raises InvalidRequest (a bad address)."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        mine = rights(conn, actor)
        found = conn.execute(
            sa.select(pages.c.id).where(
                pages.c.space == where.space,
                pages.c.path == where.path,
                pages.c.trashed_at.is_(None),
                mine.readable(),
            )
        ).first()
    return found is not None
