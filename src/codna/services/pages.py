"""Pages: create, read, list, edit through the edit language, trash, restore, delete for good."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import (
    Conflict,
    Duplicate,
    InvalidRequest,
    NotFound,
    ReadOnly,
)
from codna.markdown.diff import unified_diff
from codna.markdown.edits import Edit, apply_edits, parse_edits
from codna.markdown.limits import (
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    check_body,
    check_encodable,
    normalise_newlines,
)
from codna.services import search
from codna.services.access import Rights, rights
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.members import Member
from codna.services.revisions import (
    Revision,
    RevisionKind,
    history_of,
    revision_row,
    save_revision,
)
from codna.storage.database import inserted_id
from codna.storage.records import Row
from codna.storage.schema import edit_suggestions, members, pages, revisions

Need = Literal["read", "edit", "manage"]
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


@dataclass(frozen=True)
class EditResult:
    """What an edit made, or would make on a dry run (`saved` False, `page` unchanged)."""

    page: Page
    diff: str
    saved: bool


@dataclass(frozen=True)
class Change:
    """A change to a page as the edit language describes it: edits, a new title, tag changes."""

    edits: tuple[Edit, ...] = ()
    title: str | None = None
    tags_add: tuple[str, ...] = ()
    tags_remove: tuple[str, ...] = ()


# -- access ---------------------------------------------------------------------------------


# The statements every read and edit runs, built once: building one costs more than running it.
def _locked(query: sa.Select[Any], lock: bool) -> sa.Select[Any]:
    # NO KEY UPDATE: writers queue; rows that merely refer to the page do not
    return query.with_for_update(key_share=True) if lock else query


_AT = sa.and_(pages.c.space == sa.bindparam("space"), pages.c.path == sa.bindparam("path"))
_PAGE_AT = {lock: _locked(sa.select(pages).where(_AT), lock) for lock in (False, True)}
_PAGE_BY_ID = {
    lock: _locked(sa.select(pages).where(pages.c.id == sa.bindparam("id")), lock)
    for lock in (False, True)
}


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


_ABOUT_PAGE = sa.select(
    *_about(sa.bindparam("id"), sa.bindparam("created_by"), sa.bindparam("updated_by"))
)
# A page to read and what _page needs besides, in one statement.
_PAGE_TO_READ = sa.select(pages, *_about(pages.c.id, pages.c.created_by, pages.c.updated_by)).where(
    _AT
)


def access_page(
    conn: Connection,
    actor: Member,
    address: Address | int,
    *,
    need: Need = "read",
    lock: bool = False,
    in_trash: bool | None = False,
) -> tuple[Row, Rights]:
    """Fetch a page (by address or id) and check the actor may `need` it; lock its row when
    asked.

    Raises NotFound (no such page, or the actor cannot read it; a page in or out of the trash
    when the other was wanted) and ReadOnly (the actor can read but not do this).
    """
    params: dict[str, Any]
    if isinstance(address, int):
        query, params = _PAGE_BY_ID[lock], {"id": address}
    else:
        query, params = _PAGE_AT[lock], {"space": address.space, "path": address.path}
    row = conn.execute(query, params).mappings().first()
    return _authorise(conn, actor, address, row, need=need, in_trash=in_trash)


def _authorise(
    conn: Connection,
    actor: Member,
    address: Address | int,
    row: Row | None,
    *,
    need: Need,
    in_trash: bool | None,
    mine: Rights | None = None,
) -> tuple[Row, Rights]:
    """The page `row` fetched for `address` and the actor's rights (read here unless given),
    once they are known to allow `need` on it; raises as access_page says."""
    if mine is None:
        mine = rights(conn, actor)
    if row is None or not mine.can_read(row["space"], row["path"], row["created_by"]):
        raise NotFound(f"There is no page {address}.", address=str(address))
    address = Address(row["space"], row["path"])
    if in_trash is not None and (row["trashed_at"] is not None) != in_trash:
        where = "is in the trash; restore it first" if not in_trash else "is not in the trash"
        raise NotFound(f"{address} {where}.", address=str(address))
    if need == "edit" and not mine.can_edit(row["space"], row["path"], row["created_by"]):
        raise ReadOnly(_read_only_message(address, actor), address=str(address))
    if need == "manage" and not mine.can_manage(row["space"], row["path"], row["created_by"]):
        raise ReadOnly(_read_only_message(address, actor), address=str(address))
    return row, mine


def _read_only_message(address: Address, actor: Member) -> str:
    if address.space == "raw":
        return f"{address} is in raw, which is never edited; suggest nothing there, import anew."
    if actor.is_agent:
        return (
            f"{actor.name} is an agent and may only read {address}; "
            "suggest a change instead of editing."
        )
    return f"You can read {address} but not change it."


def page_from_row(conn: Connection, row: Row, mine: Rights) -> Page:
    params = {"created_by": row["created_by"], "updated_by": row["updated_by"], "id": row["id"]}
    about = conn.execute(_ABOUT_PAGE, params).mappings().one()
    return _page(row, mine, about)


def _page(row: Row, mine: Rights, about: Row) -> Page:
    """The page `row` as `mine`'s member sees it; `about` has its authors' names and the
    number of pending suggestions (the columns of _ABOUT_PAGE)."""
    space, path, created_by = row["space"], row["path"], row["created_by"]
    return Page(
        address=str(Address(space, path)),
        title=row["title"],
        tags=tuple(row["tags"]),
        body=row["body"],
        version=row["version"],
        latest_version=row["version"],
        created_by=about["created_by_name"] or "?",
        created_at=row["created_at"],
        updated_by=about["updated_by_name"] or "?",
        updated_at=row["updated_at"],
        in_trash=row["trashed_at"] is not None,
        editable=mine.can_edit(space, path, created_by),
        pending_suggestions=int(about["pending_suggestions"])
        if mine.can_decide(space, path, created_by)
        else None,
    )


def address_clause(where: Address) -> sa.ColumnElement[bool]:
    """The pages at an address: all of a space, those under a folder, or the one page."""
    if where.kind == "space":
        return pages.c.space == where.space
    if where.kind == "folder":
        return sa.and_(
            pages.c.space == where.space, pages.c.path.startswith(where.path, autoescape=True)
        )
    return sa.and_(pages.c.space == where.space, pages.c.path == where.path)


# -- checks ---------------------------------------------------------------------------------


def check_title(title: str) -> str:
    check_encodable(title, field="title")
    title = " ".join(title.split())
    if not title:
        raise InvalidRequest("A page needs a title.", field="title")
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidRequest(
            f"A title has at most {MAX_TITLE_CHARS} characters.",
            field="title",
            limit=MAX_TITLE_CHARS,
        )
    return title


def check_tags(tags: Sequence[str], *, field: str = "tags") -> tuple[str, ...]:
    if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
        raise InvalidRequest("Tags are a list of words.", field=field)
    seen: list[str] = []
    for raw in tags:
        check_encodable(raw, field=field)
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


def check_summary(summary: str | None) -> str | None:
    if summary is None:
        return None
    check_encodable(summary, field="summary")
    summary = normalise_newlines(summary).strip()
    if len(summary) > MAX_SUMMARY_CHARS:
        raise InvalidRequest(
            f"A summary has at most {MAX_SUMMARY_CHARS} characters.",
            field="summary",
            limit=MAX_SUMMARY_CHARS,
        )
    return summary or None


def check_change(
    edits: object,
    *,
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
) -> Change:
    """Parse what `edit_document` takes into a Change. Raises InvalidRequest, TooLarge."""
    has_meta = title is not None or bool(tags_add) or bool(tags_remove)
    parsed = () if (edits in (None, []) and has_meta) else tuple(parse_edits(edits))
    return Change(
        edits=parsed,
        title=check_title(title) if title is not None else None,
        tags_add=check_tags(tags_add, field="tags_add"),
        tags_remove=check_tags(tags_remove, field="tags_remove"),
    )


@dataclass(frozen=True)
class Applied:
    title: str
    tags: list[str]
    body: str


def apply_change(row: Mapping[Any, Any], change: Change) -> Applied:
    """The page's title, tags and body after the change. Raises InvalidEdit, TooLarge."""
    body = apply_edits(row["body"], change.edits) if change.edits else row["body"]
    check_body(body)
    tags = [t for t in row["tags"] if t not in change.tags_remove]
    tags += [t for t in change.tags_add if t not in tags]
    return Applied(title=change.title or row["title"], tags=tags, body=body)


def page_diff(row: Row, body: str) -> str:
    """The unified diff from the page's current body to `body`, labelled with versions."""
    address = Address(row["space"], row["path"])
    return unified_diff(
        row["body"],
        body,
        old_label=f"{address} v{row['version']}",
        new_label=f"{address} v{row['version'] + 1}",
    )


def write_revision(
    conn: Connection,
    row: Row,
    mine: Rights,
    actor: Member,
    *,
    after: Applied,
    summary: str,
    kind: RevisionKind,
) -> EditResult:
    """Save `after` as the page's next revision and answer with the page and the diff."""
    diff = page_diff(row, after.body)
    save_applied(conn, row, actor, after=after, summary=summary, kind=kind)
    saved = conn.execute(sa.select(pages).where(pages.c.id == row["id"])).mappings().one()
    return EditResult(page_from_row(conn, saved, mine), diff, saved=True)


def save_applied(
    conn: Connection,
    row: Row,
    actor: Member,
    *,
    after: Applied,
    summary: str,
    kind: RevisionKind,
) -> int:
    """Save `after` as the next revision of the locked page `row`; returns the new version.
    For callers that answer with something other than the page (an accepted suggestion)."""
    return save_revision(
        conn,
        row,
        actor,
        title=after.title,
        tags=after.tags,
        body=after.body,
        summary=summary,
        kind=kind,
    )


def default_summary(change: Change) -> str:
    parts = []
    if change.edits:
        n = len(change.edits)
        parts.append(f"{n} edit{'s' if n != 1 else ''}")
    if change.title:
        parts.append("new title")
    if change.tags_add or change.tags_remove:
        parts.append("tags")
    return "Edited: " + ", ".join(parts)


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
    clean_tags = list(check_tags(tags))
    body = normalise_newlines(body)
    check_body(body)
    summary = check_summary(summary) or "Created"
    with database().write() as conn:
        mine = rights(conn, actor)
        if not mine.can_create(where.space, where.path):
            if where.space == "raw":
                raise ReadOnly("Pages arrive in raw by import only.", address=str(where))
            raise ReadOnly(f"You cannot create pages at {where}.", address=str(where))
        return insert_page(conn, actor, mine, where, title, clean_tags, body, summary, "create")


def insert_page(
    conn: Connection,
    actor: Member,
    mine: Rights,
    where: Address,
    title: str,
    tags: list[str],
    body: str,
    summary: str,
    kind: RevisionKind,
) -> Page:
    taken = conn.execute(
        sa.select(pages.c.id).where(pages.c.space == where.space, pages.c.path == where.path)
    ).first()
    if taken:
        raise Duplicate(f"A page {where} already exists.", address=str(where))
    at = now()
    page_id = inserted_id(
        conn.execute(
            pages.insert().values(
                space=where.space,
                path=where.path,
                title=title,
                tags=tags,
                body=body,
                version=1,
                created_by=actor.id,
                created_at=at,
                updated_by=actor.id,
                updated_at=at,
            )
        )
    )
    conn.execute(
        revisions.insert().values(
            page_id=page_id,
            version=1,
            title=title,
            tags=tags,
            body=body,
            author_id=actor.id,
            summary=summary,
            kind=kind,
            created_at=at,
        )
    )
    search.index_page(conn, page_id, title=title, tags=tags, body=body)
    row = conn.execute(sa.select(pages).where(pages.c.id == page_id)).mappings().one()
    return page_from_row(conn, row, mine)


def read_page(actor: Member, *, address: str, version: int | None = None) -> Page:
    """The page at its latest version, or at `version`. Raises NotFound, InvalidRequest."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        params = {"space": where.space, "path": where.path}
        found = conn.execute(_PAGE_TO_READ, params).mappings().first()
        row, mine = _authorise(conn, actor, where, found, need="read", in_trash=False)
        page = _page(row, mine, row)
        if version is None or version == row["version"]:
            return page
        old = revision_row(conn, row["id"], version, str(where))
        return replace(
            page, title=old["title"], tags=tuple(old["tags"]), body=old["body"], version=version
        )


def list_pages(
    actor: Member, *, address: str | None = None, in_trash: bool = False, limit: int = 500
) -> list[PageSummary]:
    """Pages the actor can read, in a space or folder (or everywhere), ordered by address."""
    where = parse_address(address) if address else None
    with database().read() as conn:
        query = sa.select(
            pages.c.space,
            pages.c.path,
            pages.c.title,
            pages.c.tags,
            pages.c.version,
            pages.c.updated_at,
        ).where(
            rights(conn, actor).readable(),
            pages.c.trashed_at.is_not(None) if in_trash else pages.c.trashed_at.is_(None),
        )
        if where is not None:
            query = query.where(address_clause(where))
        rows = conn.execute(
            query.order_by(pages.c.space, pages.c.path).limit(max(1, min(limit, 5000)))
        ).all()
    return [
        PageSummary(str(Address(r.space, r.path)), r.title, tuple(r.tags), r.version, r.updated_at)
        for r in rows
    ]


def edit_page(
    actor: Member,
    *,
    address: str,
    edits: object,
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
    summary: str | None = None,
    base_version: int | None = None,
    dry_run: bool = False,
) -> EditResult:
    """Apply edits that name their text (and a new title, tags to add or remove), all or none.

    A dry run runs every check and returns the diff without saving. Raises InvalidRequest,
    InvalidEdit, TooLarge, NotFound, ReadOnly, Conflict (a stale `base_version`).
    """
    where = parse_address(address, want="page")
    change = check_change(edits, title=title, tags_add=tags_add, tags_remove=tags_remove)
    summary = check_summary(summary) or default_summary(change)
    transaction = database().read() if dry_run else database().write()
    with transaction as conn:
        row, mine = access_page(conn, actor, where, need="edit", lock=not dry_run)
        if base_version is not None and base_version != row["version"]:
            raise Conflict(
                f"{where} is at version {row['version']}, not {base_version}; "
                "read it again and redo the edits.",
                current_version=row["version"],
            )
        after = apply_change(row, change)
        if (after.body, after.title, after.tags) == (row["body"], row["title"], list(row["tags"])):
            raise InvalidRequest(
                "These edits leave the page as it is; nothing to save.", field="edits"
            )
        if dry_run:
            return EditResult(
                page_from_row(conn, row, mine), page_diff(row, after.body), saved=False
            )
        return write_revision(conn, row, mine, actor, after=after, summary=summary, kind="edit")


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
        conn.execute(pages.update().where(pages.c.id == row["id"]).values(**values))
        saved = conn.execute(sa.select(pages).where(pages.c.id == row["id"])).mappings().one()
        return page_from_row(conn, saved, mine)


def purge_page(actor: Member, *, address: str) -> None:
    """Delete a page in the trash for good, with its revisions and all attached to it.

    Raises NotFound (also for a page not in the trash), ReadOnly.
    """
    where = parse_address(address, want="page")
    with database().write() as conn:
        row, _ = access_page(conn, actor, where, need="manage", lock=True, in_trash=None)
        if row["trashed_at"] is None:
            raise InvalidRequest(
                f"{where} is not in the trash; move it there first.", address=str(where)
            )
        search.unindex_page(conn, row["id"])
        conn.execute(pages.delete().where(pages.c.id == row["id"]))


def history(actor: Member, *, address: str) -> list[Revision]:
    """A page's revisions, newest first. Raises NotFound."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        row, _ = access_page(conn, actor, where)
        return history_of(conn, row["id"], str(where))
