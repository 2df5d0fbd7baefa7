"""Revisions: every save is one, with its author, summary and what made it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import Conflict, NotFound
from codna.markdown.limits import (
    MAX_SUMMARY_CHARS,
    check_chars,
    check_plain_text,
    normalise_newlines,
)
from codna.services import outbox, search
from codna.services.access import access_page
from codna.services.addresses import parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.limits import is_id
from codna.services.members import Member, names
from codna.storage.records import PageRow, RevisionRow
from codna.storage.schema import agent_responsibles, members, pages, revisions

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
    # For an agent's revision: the names of the people responsible for the agent.
    responsible: tuple[str, ...] = ()


def check_summary(summary: str | None) -> str | None:
    """A revision's summary, trimmed (None for none). Raises InvalidRequest, TooLarge."""
    if summary is None:
        return None
    summary = normalise_newlines(summary)
    check_plain_text(summary, field="summary")  # before trimming, which would drop some
    summary = summary.strip()
    check_chars(summary, field="summary", limit=MAX_SUMMARY_CHARS)
    return summary or None


# Built once: the page's compare-and-set (its SET from the values given) and the revision.
_SAVE_PAGE = (
    pages.update()
    .where(pages.c.id == sa.bindparam("page_id"), pages.c.version == sa.bindparam("read_version"))
    .returning(*pages.c)
)


def save_revision(
    conn: Connection,
    page: PageRow,
    actor: Member,
    *,
    title: str,
    tags: Sequence[str],
    body: str,
    summary: str,
    kind: RevisionKind,
) -> PageRow:
    """Write the next version of a locked page row, its revision and its `document.changed`
    event; returns the page's row as saved.

    The update is a compare-and-set on the version the caller read, so a writer that did not
    lock the row cannot slip a lost update through. Raises Conflict if the page moved on.
    """
    version = page.version + 1
    at = now()
    values = {"title": title, "tags": list(tags), "body": body}
    changed = {"version": version, "updated_by": actor.id, "updated_at": at, **values}
    where = {"page_id": page.id, "read_version": page.version}
    updated = conn.execute(_SAVE_PAGE, {**where, **changed}).mappings().first()
    if updated is None:
        raise Conflict(
            "The page changed while this was being saved; read it again and retry.",
            current_version=page.version + 1,
        )
    made = {"page_id": page.id, "version": version, "author_id": actor.id, "created_at": at}
    conn.execute(revisions.insert(), {**made, "summary": summary, "kind": kind, **values})
    search.index_page(conn, page.id, title=title, tags=list(tags), body=body)
    outbox.record(
        conn,
        type="document.changed",
        page_id=page.id,
        space=page.space,
        path=page.path,
        version=version,
        author_id=actor.id,
    )
    return PageRow.of(updated)


_REVISION = sa.select(revisions).where(
    revisions.c.page_id == sa.bindparam("page_id"), revisions.c.version == sa.bindparam("version")
)


def revision_row(conn: Connection, page_id: int, version: int, address: str) -> RevisionRow:
    """One version of a page. Raises NotFound (no such version)."""
    found = None
    if is_id(version):
        found = conn.execute(_REVISION, {"page_id": page_id, "version": version}).mappings().first()
    if found is None:
        raise NotFound(f"{address} has no version {version}.", field="version")
    return RevisionRow.of(found)


def _responsible(conn: Connection, author_ids: set[int]) -> dict[int, tuple[str, ...]]:
    """For the agents among `author_ids`: the names of the people responsible for each."""
    person = members.alias("person")
    rows = conn.execute(
        sa.select(agent_responsibles.c.agent_id, person.c.name)
        .join(person, person.c.id == agent_responsibles.c.person_id)
        .where(agent_responsibles.c.agent_id.in_(author_ids))
        .order_by(agent_responsibles.c.agent_id, person.c.name)
    )
    found: dict[int, tuple[str, ...]] = {}
    for agent_id, name in rows:
        found[agent_id] = (*found.get(agent_id, ()), name)
    return found


def _revision(
    row: RevisionRow,
    address: str,
    author: str,
    *,
    with_body: bool,
    responsible: tuple[str, ...] = (),
) -> Revision:
    return Revision(
        address=address,
        version=row.version,
        title=row.title,
        tags=row.tags,
        author=author,
        summary=row.summary,
        kind=row.kind,
        created_at=row.created_at,
        body=row.body if with_body else None,
        responsible=responsible,
    )


def history(actor: Member, *, address: str) -> list[Revision]:
    """A page's revisions, newest first, without bodies. Raises NotFound."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        page, _ = access_page(conn, actor, where)
        rows = (
            conn.execute(
                sa.select(
                    *(c for c in revisions.c if c.name != "body"), sa.literal("").label("body")
                )
                .where(revisions.c.page_id == page.id)
                .order_by(revisions.c.version.desc())
            )
            .mappings()
            .all()
        )
        found = [RevisionRow.of(r) for r in rows]
        ids = {r.author_id for r in found}
        authors, answering = names(conn, ids), _responsible(conn, ids)
    return [
        _revision(
            r,
            str(where),
            authors.get(r.author_id, "?"),
            with_body=False,
            responsible=answering.get(r.author_id, ()),
        )
        for r in found
    ]


def read_revision(actor: Member, *, address: str, version: int) -> Revision:
    """One revision of a page, with its body. Raises NotFound."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        page, _ = access_page(conn, actor, where)
        row = revision_row(conn, page.id, version, str(where))
        author = names(conn, {row.author_id}).get(row.author_id, "?")
        responsible = _responsible(conn, {row.author_id}).get(row.author_id, ())
    return _revision(row, str(where), author, with_body=True, responsible=responsible)
