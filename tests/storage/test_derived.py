"""storage/derived.py, on SQLite and on PostgreSQL: what the migrations leave stale (0008 the
hashes of suggestions with section edits, marked in capitals; 0011 and 0014 the search index,
left empty) the running code makes again after migrating, a batch at a time, exactly as a save
makes it; stopped partway, it goes on where it stopped; with nothing stale, it is one
statement."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa

from codna.markdown.edits import parse_edits
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from codna.storage import derived
from codna.storage.database import Database
from codna.storage.schema import edit_suggestions, page_sections
from tests.services.conftest import Team
from tests.statements import StatementCounter

PAGES = 7


def body_of(n: int) -> str:
    return (
        f"Page {n} opens here.\n\n# Survey\n\n## Notes\n\nThe heron count is {n}.\n\n"
        f"## Notes\n\nLater notes of page {n}.\n\n## Sources\n\nThe log.\n"
    )


def workspace(team: Team) -> None:
    """Pages made, edited and suggested changes to, through the services; on each page one
    suggestion with section edits spelled the long way (their canonical form differs), and on
    the first a plain one too."""
    for n in range(PAGES):
        address = f"wiki:survey/{n}"
        pages.create_page(team.writer, address=address, title=f"Survey {n}", body=body_of(n))
        edits = [{"op": "append", "text": f"Seen again {n}."}]
        editing.edit_page(team.writer, address=address, edits=parse_edits(edits))
        section = [{"op": "replace_section", "heading": "# Survey > ## Sources", "body": "Kept."}]
        changes.suggest_edit(team.agent, address=address, edits=parse_edits(section), reason="r")
    plain = [{"op": "replace", "old": "opens here", "new": "begins here"}]
    changes.suggest_edit(team.agent, address="wiki:survey/0", edits=parse_edits(plain), reason="r")


def derived_data(db: Database) -> tuple[dict[int, str], list[tuple[Any, ...]]]:
    """Each suggestion's hash, and every row of the search index but its id."""
    with db.read() as conn:
        found = conn.execute(sa.select(edit_suggestions.c.id, edit_suggestions.c.edits_hash))
        hashes = {row.id: row.edits_hash for row in found}
        columns = [c for c in page_sections.c if c.name not in ("id", "search")]
        rows = [
            tuple(r)
            for r in conn.execute(
                sa.select(*columns).order_by(page_sections.c.page_id, page_sections.c.ordinal)
            )
        ]
    return hashes, rows


def leave_stale(db: Database) -> None:
    """The database as 0008 and 0014 leave it: every hash marked, the index empty."""
    with db.write() as conn:
        conn.execute(
            edit_suggestions.update().values(
                edits_hash=sa.func.upper(edit_suggestions.c.edits_hash)
            )
        )
        conn.execute(page_sections.delete())


def test_what_is_marked_stale_is_made_again_as_the_services_made_it(
    db: Database, team: Team
) -> None:
    workspace(team)
    made = derived_data(db)
    leave_stale(db)
    assert derived_data(db) != made
    with db.engine.connect() as conn:
        brought = derived.bring_up_to_date(conn, pages_per_batch=3, suggestions_per_batch=3)
    assert brought == derived.Brought(suggestions=PAGES + 1, pages=PAGES)
    assert derived_data(db) == made


def test_stopped_partway_it_goes_on_where_it_stopped(
    db: Database, team: Team, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace(team)
    made = derived_data(db)
    leave_stale(db)
    index = derived._index

    def interrupted(conn: Any, batch: int) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(derived, "_index", interrupted)
    with db.engine.connect() as conn:
        with pytest.raises(KeyboardInterrupt):
            derived.bring_up_to_date(conn, suggestions_per_batch=3)
        conn.rollback()
    hashes, rows = derived_data(db)
    assert hashes == made[0] and rows == []  # the hashes first: a page is left without rows
    calls = iter(range(100))

    def stopping(conn: Any, batch: int) -> int:
        if next(calls) == 1:
            raise KeyboardInterrupt
        return index(conn, batch)

    monkeypatch.setattr(derived, "_index", stopping)
    with db.engine.connect() as conn:
        with pytest.raises(KeyboardInterrupt):
            derived.bring_up_to_date(conn, pages_per_batch=3)
        conn.rollback()
    assert len({row[0] for row in derived_data(db)[1]}) == 3  # the first batch only
    monkeypatch.setattr(derived, "_index", index)
    db.migrate()  # as the next start does
    assert derived_data(db) == made


def test_with_nothing_stale_it_is_one_statement(
    db: Database, team: Team, statements: StatementCounter
) -> None:
    """As after migrating a database that ran the earlier forms of 0008, 0011 and 0014, which
    worked the data out themselves: nothing is marked."""
    workspace(team)
    made = derived_data(db)
    with db.engine.connect() as conn, statements() as ran:
        assert derived.bring_up_to_date(conn) == derived.Brought()
    assert len(ran) == 1, ran
    assert derived_data(db) == made
