"""Revisions: every save is one, with its author, summary and what made it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from codna.errors import Conflict, NotFound
from codna.markdown import delta
from codna.markdown.delta import Splice
from codna.markdown.limits import (
    MAX_SUMMARY_CHARS,
    check_chars,
    check_plain_text,
    normalise_newlines,
)
from codna.services.addresses import Address, parse_address
from codna.services.clock import now
from codna.services.context import database
from codna.services.events import outbox
from codna.services.limits import HISTORY, check_limit, check_offset, is_id
from codna.services.members.access import authorise
from codna.services.members.members import Member, names
from codna.services.pages import page_links, search_index
from codna.storage import versions
from codna.storage.records import PageHead, PageRow, RevisionRow, StoredVersion
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


class DamagedRevision(Exception):
    """A stored version does not rebuild to its SHA-256: its text is not given out, wrong."""

    def __init__(self, address: str, version: int, reason: str) -> None:
        super().__init__(f"Version {version} of {address} is damaged: {reason}.")
        self.address, self.version, self.reason = address, version, reason


_previous = revisions.alias("previous")


def _of_previous(column: str) -> sa.Label[int]:
    """A column of the page's revision at the version the caller read, for RETURNING (by the
    parameters: SQLite's RETURNING names no table, so a correlated `pages.id` would be read as
    the revision's own id)."""
    return (
        sa.select(_previous.c[column])
        .where(
            _previous.c.page_id == sa.bindparam("page_id"),
            _previous.c.version == sa.bindparam("read_version"),
        )
        .scalar_subquery()
        .label(f"previous_{column}")
    )


# Built once: the page's compare-and-set (its SET from the values given). It answers the page
# without its body, which the caller has, and how the version before is stored, which decides
# how this one is: one statement, where a read of the revision would be one more.
_SAVE_PAGE = (
    pages.update()
    .where(pages.c.id == sa.bindparam("page_id"), pages.c.version == sa.bindparam("read_version"))
    .returning(
        *(c for c in pages.c if c.name != "body"),
        _of_previous("snapshot_version"),
        _of_previous("chain_chars"),
    )
)


def snapshot(version: int, body: str) -> dict[str, object]:
    """The columns that store a version's text whole (a page's first)."""
    return delta.store(version, body).columns()


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
    splices: Sequence[Splice] | None = None,
) -> PageRow:
    """Write the next version of a locked page row, its revision and its `document.changed`
    event; returns the page's row as saved.

    `splices`, when the edit engine made the change, are those it made of the page's body
    (apply_edits_with_splices): the revision's delta, with no diff to work out; otherwise they
    are a diff's. The search index re-indexes only the sections they touched.

    The update is a compare-and-set on the version the caller read, so a writer that did not
    lock the row cannot slip a lost update through. Raises Conflict if the page moved on.
    """
    version = page.version + 1
    if splices is None:  # a revert, a restored version, a whole new text: a bounded diff
        splices = delta.splices_between(page.body, body) if body != page.body else []
    at = now()
    values: dict[str, object] = {"title": title, "tags": list(tags)}
    if body != page.body:  # the body only when it changed: a new title rewrites no text
        values["body"] = body
    changed = {"version": version, "updated_by": actor.id, "updated_at": at, **values}
    where = {"page_id": page.id, "read_version": page.version}
    updated = conn.execute(_SAVE_PAGE, {**where, **changed}).mappings().first()
    if updated is None:
        raise Conflict(
            "The page changed while this was being saved; read it again and retry.",
            current_version=page.version + 1,
        )
    before = None
    if updated["previous_snapshot_version"]:  # else the version before is not a chain's
        before = delta.Before(
            page.version,
            page.body,
            updated["previous_snapshot_version"],
            updated["previous_chain_chars"],
        )
    text = delta.store(version, body, before=before, splices=splices).columns()
    made = {"page_id": page.id, "version": version, "author_id": actor.id, "created_at": at}
    conn.execute(
        revisions.insert(),
        {**made, "summary": summary, "kind": kind, "title": title, "tags": list(tags), **text},
    )
    search_index.index_page(
        conn, page.id, title=title, tags=tags, body=body, before=page, splices=splices
    )
    page_links.keep_links(conn, page.id, Address(page.space, page.path), body, before=page.body)
    outbox.record(
        conn,
        type="document.changed",
        page_id=page.id,
        space=page.space,
        path=page.path,
        version=version,
        author_id=actor.id,
    )
    return PageRow.of({**updated, "body": body})


_STORED_AS = tuple(revisions.c[f.name] for f in fields(StoredVersion))
_ABOUT = tuple(
    c for c in revisions.c if c.name in {f.name for f in fields(RevisionRow)} - {"body", "version"}
)
# The versions one is rebuilt from, in order: how each is stored, and what the version asked
# for says of itself (its title, author, ...) on its own row only, so that a chain of a
# thousand rows is not a thousand of each.
_CHAIN = versions.chain(
    *_STORED_AS,
    *(
        sa.case((revisions.c.version == sa.bindparam("version"), c), else_=sa.null()).label(c.name)
        for c in _ABOUT
    ),
)


def rebuilt(chain: Sequence[StoredVersion], address: str) -> str:
    """The text of the last version of `chain` (its snapshot first, then each delta after it),
    checked against its SHA-256. Raises DamagedRevision."""
    last = chain[-1]
    try:
        text = versions.rebuild(chain)
    except delta.DeltaError as error:
        raise DamagedRevision(address, last.version, str(error)) from None
    if delta.digest(text) != last.sha256:
        raise DamagedRevision(address, last.version, "its text does not match its SHA-256")
    return text


def revision_row(conn: Connection, page_id: int, version: int, address: str) -> RevisionRow:
    """One version of a page, its text rebuilt and checked (one statement).

    Raises NotFound (no such version), DamagedRevision (it does not rebuild to its hash).
    """
    rows: Sequence[sa.Row[Any]] = ()
    if is_id(version):
        rows = conn.execute(_CHAIN, {"page_id": page_id, "version": version}).all()
    if not rows or rows[-1].version != version:
        raise NotFound(f"{address} has no version {version}.", field="version")
    stored = len(_STORED_AS)
    text = rebuilt([StoredVersion(*row[:stored]) for row in rows], address)
    return RevisionRow.of({**rows[-1]._mapping, "body": text})


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


# What a history lists of each revision: all of RevisionRow but the text.
_LISTED = {f.name for f in fields(RevisionRow)} - {"body"}
# A page's row without its text, which reading its revisions never needs.
_HEAD_AT = sa.select(*(pages.c[f.name] for f in fields(PageHead))).where(
    pages.c.space == sa.bindparam("space"), pages.c.path == sa.bindparam("path")
)


def _access_head(conn: Connection, actor: Member, where: Address) -> PageHead:
    """The page at `where`, without its text, once the actor may read it. Raises NotFound."""
    found = conn.execute(_HEAD_AT, {"space": where.space, "path": where.path}).mappings().first()
    head, _ = authorise(conn, actor, where, PageHead.of(found) if found else None)
    return head


def history(
    actor: Member, *, address: str, limit: int = HISTORY.default, offset: int = 0
) -> list[Revision]:
    """A page's revisions, newest first, without bodies: `limit` of them (within HISTORY)
    after the newest `offset`, so that a page of many revisions is read and answered a window
    at a time. Raises NotFound, InvalidRequest (limit, offset)."""
    check_limit(limit, HISTORY)
    check_offset(offset)
    where = parse_address(address, want="page")
    with database().read() as conn:
        page = _access_head(conn, actor, where)
        rows = (
            conn.execute(
                sa.select(
                    *(c for c in revisions.c if c.name in _LISTED), sa.literal("").label("body")
                )
                .where(revisions.c.page_id == page.id)
                .order_by(revisions.c.version.desc())
                .limit(limit)
                .offset(offset)
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
        page = _access_head(conn, actor, where)
        row = revision_row(conn, page.id, version, str(where))
        author = names(conn, {row.author_id}).get(row.author_id, "?")
        responsible = _responsible(conn, {row.author_id}).get(row.author_id, ())
    return _revision(row, str(where), author, with_body=True, responsible=responsible)
