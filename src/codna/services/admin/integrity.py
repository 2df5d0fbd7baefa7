"""Checking a workspace: every version of every page rebuilds to its SHA-256, each page's
text is its latest version's, its rows in the search index are the ones its text makes, and on
SQLite the database file passes its own check."""

from __future__ import annotations

from dataclasses import dataclass, fields

import sqlalchemy as sa

from codna.errors import ReadOnly
from codna.markdown import delta
from codna.services.addresses import Address
from codna.services.context import database
from codna.services.members.members import Member
from codna.services.pages import search_index
from codna.storage.records import StoredVersion
from codna.storage.schema import pages, revisions


@dataclass(frozen=True)
class Damaged:
    """A version that does not read back as it was saved, and why."""

    address: str
    version: int
    reason: str


@dataclass(frozen=True)
class Checked:
    """What a check found: how many pages and versions it read, the versions that are
    damaged, the pages whose rows in the search index are not those their text makes (and
    those whose rows were made again, when asked), and what SQLite's integrity_check said when
    it was not 'ok' (empty elsewhere)."""

    pages: int
    versions: int
    damaged: tuple[Damaged, ...]
    database: tuple[str, ...]
    unindexed: tuple[str, ...] = ()
    reindexed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.damaged and not self.database and not self.unindexed


_STORED = sa.select(*(revisions.c[f.name] for f in fields(StoredVersion)))


def check_workspace(actor: Member, *, reindex: bool = False) -> Checked:
    """Rebuild every version of every page, in the trash too, from how it is stored, and
    compare it with its SHA-256; compare each page's text with its latest version's, and its
    rows in the search index with those its text makes. A page is read with its versions at a
    time, in one read transaction (one snapshot on SQLite). With `reindex`, the rows of each
    page found out of step are then made again from its text, a page a transaction.

    Raises ReadOnly (not an admin: the check reads every page).
    """
    if not actor.administers:  # an admin's run is no admin
        raise ReadOnly("Only an admin can check the workspace: it reads every page.")
    damaged: list[Damaged] = []
    unindexed: list[tuple[int, str]] = []
    versions = 0
    with database().read() as conn:
        found = conn.execute(
            sa.select(
                pages.c.id,
                pages.c.space,
                pages.c.path,
                pages.c.version,
                pages.c.title,
                pages.c.tags,
            ).order_by(pages.c.space, pages.c.path)
        ).all()
        for page in found:  # one page's texts in memory at a time
            address = str(Address(page.space, page.path))
            body = conn.execute(sa.select(pages.c.body).where(pages.c.id == page.id)).scalar_one()
            rows = conn.execute(
                _STORED.where(revisions.c.page_id == page.id).order_by(revisions.c.version)
            ).mappings()
            stored = [StoredVersion.of(r) for r in rows]
            versions += len(stored)
            damaged += _check_page(address, page.version, body, stored)
            if not search_index.in_step(conn, page.id, title=page.title, tags=page.tags, body=body):
                unindexed.append((page.id, address))
        problems: tuple[str, ...] = ()
        if database().is_sqlite:
            said = tuple(conn.exec_driver_sql("PRAGMA integrity_check").scalars())
            problems = () if said == ("ok",) else said
    reindexed = _reindex([page_id for page_id, _ in unindexed]) if reindex else ()
    left = tuple(address for _, address in unindexed if address not in reindexed)
    return Checked(len(found), versions, tuple(damaged), problems, left, reindexed)


def _reindex(page_ids: list[int]) -> tuple[str, ...]:
    """The search index's rows of these pages made again from their text, as they are now;
    their addresses."""
    done = []
    for page_id in page_ids:
        with database().write() as conn:
            page = conn.execute(
                sa.select(pages.c.space, pages.c.path, pages.c.title, pages.c.tags, pages.c.body)
                .where(pages.c.id == page_id)
                .with_for_update()
            ).one_or_none()
            if page is None:
                continue  # deleted for good since it was checked
            search_index.reindex_page(
                conn, page_id, title=page.title, tags=page.tags, body=page.body
            )
        done.append(str(Address(page.space, page.path)))
    return tuple(done)


def _check_page(address: str, latest: int, body: str, stored: list[StoredVersion]) -> list[Damaged]:
    damaged: list[Damaged] = []
    chain = delta.Chain()
    expected = 1
    for row in stored:
        while expected < row.version:
            damaged.append(Damaged(address, expected, "the version is missing"))
            expected += 1
        expected = row.version + 1
        try:
            text = chain.next(row.body, row.delta)
        except delta.DeltaError as error:
            damaged.append(Damaged(address, row.version, f"its delta does not apply: {error}"))
            continue
        if delta.digest(text) != row.sha256:
            damaged.append(Damaged(address, row.version, "its text does not match its SHA-256"))
        elif row.version == latest and text != body:
            damaged.append(
                Damaged(address, row.version, "the page's text is not its latest version's")
            )
    if expected != latest + 1:
        damaged.append(Damaged(address, latest, "the page's latest version has no revision"))
    return damaged
