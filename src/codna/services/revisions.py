"""Revisions: every save is one, with its author, summary and what made it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import Conflict, NotFound
from codna.services import search
from codna.services.clock import now
from codna.services.members import Member, names
from codna.storage.records import Row
from codna.storage.schema import MAX_ID, pages, revisions

RevisionKind = Literal["create", "edit", "revert", "accept_suggestion", "accept_link", "import"]


@dataclass(frozen=True)
class Revision:
    """One saved version of a page. `body` is None in a history listing."""

    address: str
    version: int
    title: str
    tags: tuple[str, ...]
    author: str
    summary: str
    kind: str
    created_at: datetime
    body: str | None = None


def revision_from_row(row: Row, address: str, author: str, *, with_body: bool) -> Revision:
    return Revision(
        address=address,
        version=row["version"],
        title=row["title"],
        tags=tuple(row["tags"]),
        author=author,
        summary=row["summary"],
        kind=row["kind"],
        created_at=row["created_at"],
        body=row["body"] if with_body else None,
    )


def save_revision(
    conn: Connection,
    page: Row,
    actor: Member,
    *,
    title: str,
    tags: list[str],
    body: str,
    summary: str,
    kind: RevisionKind,
) -> int:
    """Write the next version of a locked page row and its revision; returns the new version.

    The update is a compare-and-set on the version the caller read, so a writer that did not
    lock the row cannot slip a lost update through. Raises Conflict if the page moved on.
    """
    version: int = page["version"] + 1
    at = now()
    updated = conn.execute(
        pages.update()
        .where(pages.c.id == page["id"], pages.c.version == page["version"])
        .values(
            title=title, tags=tags, body=body, version=version, updated_by=actor.id, updated_at=at
        )
    ).rowcount
    if updated != 1:
        raise Conflict(
            "The page changed while this was being saved; read it again and retry.",
            current_version=page["version"] + 1,
        )
    conn.execute(
        revisions.insert().values(
            page_id=page["id"],
            version=version,
            title=title,
            tags=tags,
            body=body,
            author_id=actor.id,
            summary=summary,
            kind=kind,
            created_at=at,
        )
    )
    search.index_page(conn, page["id"], title=title, tags=tags, body=body)
    return version


_REVISION = sa.select(revisions).where(
    revisions.c.page_id == sa.bindparam("page_id"), revisions.c.version == sa.bindparam("version")
)


def revision_row(conn: Connection, page_id: int, version: int, address: str) -> Row:
    if not 1 <= version <= MAX_ID:
        raise NotFound(f"{address} has no version {version}.", field="version")
    row = conn.execute(_REVISION, {"page_id": page_id, "version": version}).mappings().first()
    if row is None:
        raise NotFound(f"{address} has no version {version}.", field="version")
    return row


def history_of(conn: Connection, page_id: int, address: str) -> list[Revision]:
    """A page's revisions, newest first, without bodies."""
    cols = [c for c in revisions.c if c.name != "body"]
    rows = (
        conn.execute(
            sa.select(*cols)
            .where(revisions.c.page_id == page_id)
            .order_by(revisions.c.version.desc())
        )
        .mappings()
        .all()
    )
    authors = names(conn, {r["author_id"] for r in rows})
    return [
        revision_from_row(r, address, authors.get(r["author_id"], "?"), with_body=False)
        for r in rows
    ]
