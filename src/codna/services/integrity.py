"""Checking a workspace: every version of every page rebuilds to its SHA-256, each page's
text is its latest version's, and on SQLite the database file passes its own check."""

from __future__ import annotations

from dataclasses import dataclass, fields

import sqlalchemy as sa

from codna.errors import ReadOnly
from codna.markdown import delta
from codna.services.addresses import Address
from codna.services.context import database
from codna.services.members import Member
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
    damaged, and what SQLite's integrity_check said when it was not 'ok' (empty elsewhere)."""

    pages: int
    versions: int
    damaged: tuple[Damaged, ...]
    database: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.damaged and not self.database


_STORED = sa.select(*(revisions.c[f.name] for f in fields(StoredVersion)))


def check_workspace(actor: Member) -> Checked:
    """Rebuild every version of every page, in the trash too, from how it is stored, and
    compare it with its SHA-256; compare each page's text with its latest version's. A page
    is read with its versions at a time, in one read transaction (one snapshot on SQLite).

    Raises ReadOnly (not an admin: the check reads every page).
    """
    if not actor.is_admin:
        raise ReadOnly("Only an admin can check the workspace: it reads every page.")
    damaged: list[Damaged] = []
    versions = 0
    with database().read() as conn:
        found = conn.execute(
            sa.select(pages.c.id, pages.c.space, pages.c.path, pages.c.version).order_by(
                pages.c.space, pages.c.path
            )
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
        problems: tuple[str, ...] = ()
        if database().is_sqlite:
            said = tuple(conn.exec_driver_sql("PRAGMA integrity_check").scalars())
            problems = () if said == ("ok",) else said
    return Checked(len(found), versions, tuple(damaged), problems)


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
