"""Migration 0011 makes the per-section search index, empty, and the running code then makes
the rows of the pages already there (storage/derived.py), on SQLite and on PostgreSQL: the
same rows a save makes. Going back makes the whole-page index again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from codna.markdown.search_sections import index_sections
from codna.services.context import use_database
from codna.services.members import members
from codna.services.pages import editing, pages, search
from codna.storage.database import Database
from tests.storage.migrating import downgrade, empty_database

PAGES = 250  # more than one batch of the migration's
_pages = sa.table(
    "pages",
    *(sa.column(c) for c in ("space", "path", "title", "body", "version", "created_at")),
    *(sa.column(c) for c in ("created_by", "updated_by", "updated_at")),
    sa.column("tags", sa.JSON),
)
_revisions = sa.table(
    "revisions",
    *(sa.column(c) for c in ("page_id", "version", "title", "body", "author_id", "summary")),
    *(sa.column(c) for c in ("kind", "created_at")),
    sa.column("tags", sa.JSON),
)


def body_of(n: int) -> str:
    return (
        f"Page {n} opens here.\n\n## Notes\n\nThe heron count is {n}.\n\n"
        f"## Notes\n\nLater notes of page {n}: a {'bittern' if n % 2 else 'egret'}.\n"
    )


@pytest.fixture(params=["sqlite", "postgresql"])
def empty(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A database with no tables at all."""
    with empty_database(request.param, tmp_path, request) as db:
        use_database(db)
        try:
            yield db
        finally:
            use_database(None)


def workspace_at_0010(db: Database) -> members.Member:
    """Pages as they were before the index by section, written as 0010's services wrote them."""
    db.migrate("0010")
    admin = members.init_workspace(admin_email="ada@example.com", admin_password="correct horse")
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with db.write() as conn:
        for n in range(PAGES):
            made = {"title": f"Survey {n}", "tags": ["birds"], "body": body_of(n)}
            page_id = conn.execute(
                _pages.insert()
                .values(space="wiki", path=f"survey/{n}", version=1, created_at=at, **made)
                .values(created_by=admin.id, updated_by=admin.id, updated_at=at)
                .returning(sa.literal_column("id"))
            ).scalar_one()
            conn.execute(
                _revisions.insert().values(
                    page_id=page_id, version=1, author_id=admin.id, summary="Created", **made
                ),
                {"kind": "create", "created_at": at},
            )
    return admin


ROWS = sa.text(
    "SELECT s.ordinal, s.heading, s.anchor, s.digest, s.text, s.chars "
    "FROM page_sections s JOIN pages p ON p.id = s.page_id WHERE p.path = :path "
    "ORDER BY s.ordinal"
)


def test_after_migrating_every_existing_page_has_the_rows_a_save_makes(empty: Database) -> None:
    admin = workspace_at_0010(empty)
    empty.migrate("0011")
    with empty.read() as conn:  # made empty: the running code makes the rows
        assert conn.execute(sa.text("SELECT count(*) FROM page_sections")).scalar() == 0
    empty.migrate()
    with empty.read() as conn:
        found = conn.execute(sa.text("SELECT count(*) FROM page_sections")).scalar()
        assert found == PAGES * 4  # the title, the opening words and two sections
        for page in conn.execute(sa.select(_pages.c.path, _pages.c.title, _pages.c.tags)):
            body = conn.execute(
                sa.text("SELECT body FROM pages WHERE path = :path"), {"path": page.path}
            ).scalar_one()
            made = index_sections(page.title, page.tags, body)
            assert [tuple(r) for r in conn.execute(ROWS, {"path": page.path})] == [
                (s.ordinal, s.heading, s.anchor, s.digest, s.text, s.chars) for s in made
            ]
        migrated = conn.execute(ROWS, {"path": "survey/7"}).all()
    hits = search.search(admin, query="bittern", limit=100)
    assert len(hits) == 100 and {(h.section, h.anchor) for h in hits} == {("Notes", "notes-2")}
    [hit] = search.search(admin, query='"heron count is 7"')
    assert (hit.address, hit.section, hit.anchor) == ("wiki:survey/7", "Notes", "notes")
    assert [h.address for h in search.search(admin, query='"survey 7"')] == ["wiki:survey/7"]
    # A page saved now with the same title, tags and text has the same rows.
    pages.create_page(
        admin, address="wiki:fresh/7", title="Survey 7", tags=["birds"], body=body_of(7)
    )
    with empty.read() as conn:
        assert conn.execute(ROWS, {"path": "fresh/7"}).all() == migrated


def test_rows_made_by_0011_in_its_earlier_form_are_made_again_after_0014(
    empty: Database,
) -> None:
    """0011 once made the rows itself, with the code of its day; 0014 gave each row its length.
    Now 0014 empties the index, and the running code makes every page's rows, lengths and all."""
    workspace_at_0010(empty)
    empty.migrate("0011")
    earlier = sa.table(
        "page_sections",
        *(sa.column(c) for c in ("page_id", "ordinal", "heading", "anchor")),
        *(sa.column(c) for c in ("digest", "text")),
    )
    with empty.write() as conn:
        pages_then = sa.table(
            "pages",
            sa.column("id"),
            sa.column("title"),
            sa.column("tags", sa.JSON),
            sa.column("body"),
        )
        found = conn.execute(sa.select(pages_then)).all()
        conn.execute(
            earlier.insert(),
            [
                {
                    "page_id": page.id,
                    "ordinal": s.ordinal,
                    "heading": s.heading,
                    "anchor": s.anchor,
                    "digest": s.digest,
                    "text": s.text,
                }
                for page in found
                for s in index_sections(page.title, page.tags, page.body)
            ],
        )
    empty.migrate()
    with empty.read() as conn:
        for page in found:
            stored = conn.execute(
                sa.text(
                    "SELECT ordinal, heading, anchor, digest, text, chars FROM page_sections "
                    "WHERE page_id = :id ORDER BY ordinal"
                ),
                {"id": page.id},
            ).all()
            made = index_sections(page.title, page.tags, page.body)
            assert [tuple(r) for r in stored] == [
                (s.ordinal, s.heading, s.anchor, s.digest, s.text, s.chars) for s in made
            ]
            assert sum(r.chars for r in stored) == len(page.body)


def test_after_the_migration_a_save_replaces_only_the_section_it_changed(
    empty: Database,
) -> None:
    admin = workspace_at_0010(empty)
    empty.migrate()
    rows = sa.text(
        "SELECT s.id, s.digest, s.chars FROM page_sections s JOIN pages p ON p.id = s.page_id "
        "WHERE p.path = 'survey/3' ORDER BY s.ordinal"
    )
    with empty.read() as conn:
        before = conn.execute(rows).all()
    edited = body_of(3).replace("a bittern", "a crane")
    editing.write_page(admin, address="wiki:survey/3", body=edited, base_version=1)
    with empty.read() as conn:
        after = conn.execute(rows).all()
    assert [r.id for r in after] == [r.id for r in before]
    assert after[:3] == before[:3] and after[3].digest != before[3].digest
    assert sum(r.chars for r in after) == len(edited)  # 0014 gave each row its length
    assert [h.address for h in search.search(admin, query="crane")] == ["wiki:survey/3"]


def test_going_back_makes_the_whole_page_index_again(empty: Database) -> None:
    workspace_at_0010(empty)
    empty.migrate("0011")
    downgrade(empty, "0010")
    with empty.read() as conn:
        if empty.dialect == "sqlite":
            match = "SELECT count(*) FROM page_search WHERE page_search MATCH 'bittern'"
            assert conn.execute(sa.text(match)).scalar() == PAGES // 2
        else:
            found = conn.execute(
                sa.text(
                    "SELECT count(*) FROM pages WHERE to_tsvector('english', title || ' ' || "
                    "left(body, 500000)) @@ to_tsquery('english', 'bittern')"
                )
            )
            assert found.scalar() == PAGES // 2
            index = "SELECT count(*) FROM pg_indexes WHERE indexname = 'ix_pages_search'"
            assert conn.execute(sa.text(index)).scalar() == 1
        assert not sa.inspect(conn).has_table("page_sections")
    empty.migrate()
    with empty.read() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM page_sections")).scalar() == PAGES * 4
