"""Whether a grant covers a page is decided once: `Held.covers` in Python and `Held.clause` in
SQL agree on every page, on SQLite and PostgreSQL, with the paths that trip up a LIKE."""

from __future__ import annotations

import itertools

import pytest
import sqlalchemy as sa

from codna.services.members.access import Held, Rights
from codna.services.pages import pages
from codna.storage.database import Database
from codna.storage.schema import pages as pages_table
from tests.services.conftest import Team

# Paths with the LIKE wildcard an address may hold (_), prefixes of each other, look-alikes.
PATHS = ["a", "ab", "a/b", "a/bc", "a/b/c", "ab/c", "a_b/c", "axb/c", "a.b/c", "a-b", "a_"]
# Grants on a space, a folder, a page, and folders whose names hold the wildcards.
GRANT_PATHS = ["", "a/", "a", "ab/", "a/b", "a/b/", "a_b/", "a%b/", "a%/", "a_", "a\\"]
SPACES = ["wiki", "output"]


@pytest.fixture
def everywhere(team: Team) -> set[tuple[str, str]]:
    """A page at every path in both spaces; their (space, path)."""
    for space, path in itertools.product(SPACES, PATHS):
        pages.create_page(team.admin, address=f"{space}:{path}", title=path, body="")
    return set(itertools.product(SPACES, PATHS))


def _selected(db: Database, where: sa.ColumnElement[bool]) -> set[tuple[str, str]]:
    with db.read() as conn:
        rows = conn.execute(sa.select(pages_table.c.space, pages_table.c.path).where(where))
        return {(space, path) for space, path in rows}


def test_a_grants_sql_clause_keeps_exactly_the_pages_it_covers(
    db: Database, everywhere: set[tuple[str, str]]
) -> None:
    for grant_path in GRANT_PATHS:
        held = Held("wiki", grant_path, "read")
        covered = {(space, path) for space, path in everywhere if held.covers(space, path)}
        assert _selected(db, held.clause()) == covered, grant_path


def test_a_members_readable_clause_agrees_with_can_read_for_any_two_grants(
    db: Database, team: Team, everywhere: set[tuple[str, str]]
) -> None:
    for first, second in itertools.combinations(GRANT_PATHS, 2):
        grants = (Held("wiki", first, "read"), Held("output", second, "write"))
        mine = Rights(team.stranger, grants)
        readable = {(space, path) for space, path in everywhere if mine.can_read(space, path)}
        assert _selected(db, mine.readable()) == readable, grants
