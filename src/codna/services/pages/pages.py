"""Pages: create, read (one, several, or an outline), list, trash, restore, delete for good.
Changing a page's text is in editing.py, its revisions in revisions.py, who may do what in
members/access.py, what a not-quite-right address means in nearest.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, RowMapping

from codna.errors import Duplicate, InvalidRequest, NotFound
from codna.markdown.limits import (
    MAX_TITLE_CHARS,
    check_body,
    check_chars,
    check_plain_text,
    normalise_newlines,
)
from codna.services.addresses import Address, check_new_page_address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events import outbox
from codna.services.limits import PAGES, READ_MANY, check_limit, check_offset, is_id
from codna.services.members.access import (
    Rights,
    access_page,
    authorise,
    create_refused,
    rights,
    under,
)
from codna.services.members.members import Member
from codna.services.pages import output_budget, page_links, search_index
from codna.services.pages.nearest import listing_address, not_found, trash_clause
from codna.services.pages.outlines import Outline, outline_of
from codna.services.pages.revisions import RevisionKind, check_summary, revision_row, snapshot
from codna.storage.records import PageRow
from codna.storage.schema import edit_suggestions, members, pages, revisions

MAX_TAGS = 50
MAX_TAG_CHARS = 50


@dataclass(frozen=True)
class Page:
    """A page as one member sees it, at its latest version or the one asked for."""

    address: str
    title: str
    tags: tuple[str, ...]
    body: str
    version: int
    latest_version: int
    created_by: str
    created_at: datetime
    updated_by: str
    updated_at: datetime
    in_trash: bool
    editable: bool
    # For the page's editors: how many suggested changes wait on it (None for anyone else).
    pending_suggestions: int | None = None


@dataclass(frozen=True)
class PageSummary:
    address: str
    title: str
    tags: tuple[str, ...]
    version: int
    updated_at: datetime
    manageable: bool = False  # whether the member may trash, restore or purge it


def _about(page_id: Any, created_by: Any, updated_by: Any) -> list[sa.Label[Any]]:
    """The names of a page's authors and how many suggestions wait on it, as columns."""
    return [
        sa.select(members.c.name)
        .where(members.c.id == created_by)
        .scalar_subquery()
        .label("created_by_name"),
        sa.select(members.c.name)
        .where(members.c.id == updated_by)
        .scalar_subquery()
        .label("updated_by_name"),
        sa.select(sa.func.count())
        .where(edit_suggestions.c.page_id == page_id, edit_suggestions.c.status == "pending")
        .scalar_subquery()
        .label("pending_suggestions"),
    ]


@dataclass(frozen=True)
class ReadMany:
    """Pages read in one call, in the order asked, each once; `missing`, the addresses asked
    that name no page the member can read out of the trash, in the order asked."""

    pages: tuple[Page, ...]
    missing: tuple[str, ...]


# Built once, at import: what a page view needs besides the page, alone or with the page.
_ABOUT_PAGE = sa.select(
    *_about(sa.bindparam("id"), sa.bindparam("created_by"), sa.bindparam("updated_by"))
)
_PAGES_WITH_ABOUT = sa.select(pages, *_about(pages.c.id, pages.c.created_by, pages.c.updated_by))
_AT_ADDRESS = sa.and_(pages.c.space == sa.bindparam("space"), pages.c.path == sa.bindparam("path"))
_PAGE_TO_READ = _PAGES_WITH_ABOUT.where(_AT_ADDRESS)
# The same for a version asked for by number: the page's text only if that is its latest
# version (neither database reads a text the statement does not use), else the old version's
# comes from its revision.
_PAGE_AT_VERSION = sa.select(
    *(c for c in pages.c if c.name != "body"),
    sa.case((pages.c.version == sa.bindparam("version"), pages.c.body), else_="").label("body"),
    *_about(pages.c.id, pages.c.created_by, pages.c.updated_by),
).where(_AT_ADDRESS)


def page_view(conn: Connection, row: PageRow, mine: Rights) -> Page:
    """The page `row` as `mine`'s member sees it (one statement for its authors' names)."""
    params = {"created_by": row.created_by, "updated_by": row.updated_by, "id": row.id}
    return _page(row, mine, conn.execute(_ABOUT_PAGE, params).mappings().one())


def _page(row: PageRow, mine: Rights, about: RowMapping) -> Page:
    """`about` holds the columns of _ABOUT_PAGE: authors' names, the pending count."""
    decides = mine.can_decide(row.space, row.path, row.created_by)
    return Page(
        address=str(Address(row.space, row.path)),
        title=row.title,
        tags=row.tags,
        body=row.body,
        version=row.version,
        latest_version=row.version,
        created_by=about["created_by_name"] or "?",
        created_at=row.created_at,
        updated_by=about["updated_by_name"] or "?",
        updated_at=row.updated_at,
        in_trash=row.in_trash,
        editable=mine.can_edit(row.space, row.path, row.created_by),
        pending_suggestions=int(about["pending_suggestions"]) if decides else None,
    )


def address_clause(where: Address) -> sa.ColumnElement[bool]:
    """The pages at an address: all of a space, those under a folder, or the one page."""
    if where.kind == "space":
        return pages.c.space == where.space
    if where.kind == "folder":
        return sa.and_(pages.c.space == where.space, under(pages.c.path, where.path))
    return sa.and_(pages.c.space == where.space, pages.c.path == where.path)


# -- checks ---------------------------------------------------------------------------------


def check_title(title: str) -> str:
    """A title on one line, with spaces tidied. Raises InvalidRequest, TooLarge (limit)."""
    # Checked before the spaces are tidied, which would drop some control characters unseen.
    check_plain_text(normalise_newlines(title), field="title")
    title = " ".join(title.split())
    if not title:
        raise InvalidRequest("A page needs a title.", field="title")
    check_chars(title, field="title", limit=MAX_TITLE_CHARS)
    return title


def check_tags(tags: Sequence[str], *, field: str = "tags") -> tuple[str, ...]:
    """Tags in lower case, each once. Raises InvalidRequest."""
    if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
        raise InvalidRequest("Tags are a list of words.", field=field)
    seen: list[str] = []
    for raw in tags:
        check_plain_text(normalise_newlines(raw), field=field)
        tag = " ".join(raw.split()).lower()
        if not tag or len(tag) > MAX_TAG_CHARS or "," in tag:
            raise InvalidRequest(
                f"A tag has 1 to {MAX_TAG_CHARS} characters and no commas: '{raw}'.", field=field
            )
        if tag not in seen:
            seen.append(tag)
    if len(seen) > MAX_TAGS:
        raise InvalidRequest(f"A page has at most {MAX_TAGS} tags.", field=field, limit=MAX_TAGS)
    return tuple(seen)


# -- operations -----------------------------------------------------------------------------


def create_page(
    actor: Member,
    *,
    address: str,
    title: str,
    body: str = "",
    tags: Sequence[str] = (),
    summary: str | None = None,
) -> Page:
    """Create a page at version 1. Raises InvalidRequest, TooLarge, ReadOnly, Duplicate."""
    where = parse_address(address, want="page")
    title = check_title(title)
    clean_tags = check_tags(tags)
    body = normalise_newlines(body)
    check_body(body)
    summary = check_summary(summary) or "Created"
    with database().write() as conn:
        mine = rights(conn, actor)
        if not mine.can_create(where.space, where.path):
            raise create_refused(mine, where)
        return insert_page(conn, actor, mine, where, title, clean_tags, body, summary, "create")


def insert_page(
    conn: Connection,
    actor: Member,
    mine: Rights,
    where: Address,
    title: str,
    tags: Sequence[str],
    body: str,
    summary: str,
    kind: RevisionKind,
) -> Page:
    """Insert a checked page, its first revision and its `document.created` event, whatever
    made it (a new page, an import).

    Raises InvalidRequest (the address cannot be a file name), Duplicate (it is taken),
    TooLarge (what the actor stores in output: output_budget.check_output).
    """
    check_new_page_address(where)
    taken = conn.execute(
        sa.select(pages.c.id).where(pages.c.space == where.space, pages.c.path == where.path)
    ).first()
    if taken:
        raise Duplicate(f"A page {where} already exists.", address=str(where))
    at = now()
    first = {"title": title, "tags": list(tags)}
    made = (
        conn.execute(
            pages.insert()
            .values(
                space=where.space,
                path=where.path,
                version=1,
                created_by=actor.id,
                created_at=at,
                updated_by=actor.id,
                updated_at=at,
                body=body,
                **first,
            )
            .returning(*(c for c in pages.c if c.name != "body"))  # the body is here already
        )
        .mappings()
        .one()
    )
    inserted = PageRow.of({**made, "body": body})
    page_id = inserted.id
    conn.execute(
        revisions.insert().values(
            page_id=page_id,
            version=1,
            author_id=actor.id,
            summary=summary,
            kind=kind,
            created_at=at,
            **first,
            **snapshot(1, body),
        )
    )
    output_budget.check_output(conn, actor, inserted)  # before the index and event: may refuse
    search_index.index_page(conn, page_id, title=title, tags=list(tags), body=body)
    page_links.keep_links(conn, page_id, where, body)
    outbox.record(
        conn,
        type="document.created",
        page_id=page_id,
        space=where.space,
        path=where.path,
        version=1,
        author_id=actor.id,
    )
    return page_view(conn, inserted, mine)


def read_page(actor: Member, *, address: str, version: int | None = None) -> Page:
    """The page at its latest version, or at `version`.

    Raises InvalidRequest, NotFound (no page the actor can read: with `nearest`, the nearest
    address they can read, when one comes close; a page in the trash; no such version).
    """
    where = parse_address(address, want="page")
    with database().read() as conn:
        return _read_page(conn, actor, where, version)


def _read_page(conn: Connection, actor: Member, where: Address, version: int | None) -> Page:
    params = {"space": where.space, "path": where.path}
    if version is None:
        found = conn.execute(_PAGE_TO_READ, params).mappings().first()
    else:
        # A version no row can have (0, 10**20) matches none, and is not found below.
        at = version if is_id(version) else 0
        found = conn.execute(_PAGE_AT_VERSION, {**params, "version": at}).mappings().first()
    row = PageRow.of(found) if found else None
    try:
        row, mine = authorise(conn, actor, where, row)
    except NotFound:
        mine = rights(conn, actor)  # only on the way out: a read pays for none of this
        if row is not None and mine.can_read(row.space, row.path, row.created_by):
            raise  # the page is there for the actor, in the trash
        raise not_found(conn, mine, where, f"There is no page {where}.") from None
    assert found is not None  # authorise refuses a page that is not there
    page = _page(row, mine, found)
    if version is None or version == row.version:
        return page
    old = revision_row(conn, row.id, version, str(where))
    return replace(page, title=old.title, tags=old.tags, body=old.body, version=version)


def outline(actor: Member, *, address: str, version: int | None = None) -> Outline:
    """A page's headings (level, text, anchor, size of the section) and the size of its body,
    at its latest version or at `version`, without the body.

    Raises as read_page does.
    """
    where = parse_address(address, want="page")
    with database().read() as conn:
        page = _read_page(conn, actor, where, version)
    return outline_of(page.address, page.title, page.version, page.body)


def read_pages(actor: Member, *, addresses: Sequence[str]) -> ReadMany:
    """Several pages at their latest versions, at most READ_MANY, in one read: those the actor
    can read out of the trash in the order asked, each once, and the others as `missing`
    (whether absent, unreadable or in the trash, all alike).

    Raises InvalidRequest (not a list of page addresses, none, or more than READ_MANY).
    """
    if isinstance(addresses, str) or not isinstance(addresses, Sequence):
        raise InvalidRequest("addresses is a list of page addresses.", field="addresses")
    if not 1 <= len(addresses) <= READ_MANY:
        raise InvalidRequest(
            f"Give 1 to {READ_MANY} page addresses to read at once.",
            field="addresses",
            limit=READ_MANY,
        )
    asked = (parse_address(a, want="page", field="addresses") for a in addresses)
    wanted = list(dict.fromkeys(asked))
    with database().read() as conn:
        mine = rights(conn, actor)
        at = sa.or_(*(sa.and_(pages.c.space == w.space, pages.c.path == w.path) for w in wanted))
        query = _PAGES_WITH_ABOUT.where(at, mine.readable(), trash_clause(False))
        found = {(r["space"], r["path"]): r for r in conn.execute(query).mappings()}
    read = [
        _page(PageRow.of(found[w.space, w.path]), mine, found[w.space, w.path])
        for w in wanted
        if (w.space, w.path) in found
    ]
    missing = [str(w) for w in wanted if (w.space, w.path) not in found]
    return ReadMany(tuple(read), tuple(missing))


def list_pages(
    actor: Member,
    *,
    address: str | None = None,
    in_trash: bool = False,
    limit: int = PAGES.default,
    offset: int = 0,
) -> list[PageSummary]:
    """Pages the actor can read, in a space or folder (or everywhere), ordered by address,
    `limit` of them after the first `offset`.

    A folder named without its slash (`wiki:decisions`) is listed as the folder, unless a page
    the actor can read has that address. A space or a folder with its slash may be empty.

    Raises InvalidRequest (a bad address, limit or offset), NotFound (an address that names
    neither a page nor a folder with a page the actor can read: with `nearest`, the nearest
    address they can read, when one comes close).
    """
    where = parse_address(address) if address else None
    check_limit(limit, PAGES)
    check_offset(offset)
    with database().read() as conn:
        mine = rights(conn, actor)
        if where is not None:
            where = listing_address(conn, mine, where, in_trash=in_trash)
        query = SUMMARIES.where(mine.readable(), trash_clause(in_trash))
        if where is not None:
            query = query.where(address_clause(where))
        query = query.order_by(pages.c.space, pages.c.path).limit(limit).offset(offset)
        return summaries(conn.execute(query).all(), mine)


# What a listing shows of each page (summaries).
SUMMARIES = sa.select(
    pages.c.space,
    pages.c.path,
    pages.c.title,
    pages.c.tags,
    pages.c.version,
    pages.c.updated_at,
    pages.c.created_by,
)


def summaries(rows: Sequence[Any], mine: Rights) -> list[PageSummary]:
    """The pages of rows of SUMMARIES, as `mine`'s member sees them in a listing."""
    return [
        PageSummary(
            str(Address(r.space, r.path)),
            r.title,
            tuple(r.tags),
            r.version,
            r.updated_at,
            mine.can_manage(r.space, r.path, r.created_by),
        )
        for r in rows
    ]


def trash_page(actor: Member, *, address: str) -> Page:
    """Move a page to the trash. Raises NotFound, ReadOnly."""
    return _set_trashed(actor, address, trash=True)


def restore_page(actor: Member, *, address: str) -> Page:
    """Bring a page back from the trash. Raises NotFound, ReadOnly."""
    return _set_trashed(actor, address, trash=False)


def _set_trashed(actor: Member, address: str, *, trash: bool) -> Page:
    where = parse_address(address, want="page")
    with database().write() as conn:
        row, mine = access_page(conn, actor, where, need="manage", lock=True, in_trash=not trash)
        values = (
            {"trashed_at": now(), "trashed_by": actor.id}
            if trash
            else {"trashed_at": None, "trashed_by": None}
        )
        changed = conn.execute(
            pages.update().where(pages.c.id == row.id).values(**values).returning(*pages.c)
        )
        return page_view(conn, PageRow.of(changed.mappings().one()), mine)


def purge_page(actor: Member, *, address: str) -> None:
    """Delete a page in the trash for good, with its revisions and all attached to it.

    Raises NotFound, ReadOnly, InvalidRequest (not in the trash).
    """
    where = parse_address(address, want="page")
    with database().write() as conn:
        row, _ = access_page(conn, actor, where, need="manage", lock=True, in_trash=None)
        if not row.in_trash:
            raise InvalidRequest(
                f"{where} is not in the trash; move it there first.", address=str(where)
            )
        search_index.unindex_page(conn, row.id)
        conn.execute(pages.delete().where(pages.c.id == row.id))
