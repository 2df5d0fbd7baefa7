"""The search index kept in step by saves that rewrite only the sections they touched, on SQLite
and PostgreSQL: after any sequence of edits, whole new texts, reverts and restores, a page's rows
are the ones cutting its whole text would make."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codna.errors import CodnaError
from codna.markdown.edits import parse_edits
from codna.markdown.search_sections import index_sections
from codna.services.pages import editing, pages, search
from codna.services.suggestions import reverts
from codna.storage.database import Database
from codna.storage.schema import page_sections
from codna.storage.schema import pages as pages_table
from tests.services.conftest import Team

pytestmark = pytest.mark.storage

LINES = [
    "# Title\n",
    "## Context\n",
    "## Context!\n",
    "### Notes\n",
    "Decision\n",
    "===\n",
    "---\n",
    "\n",
    "  \n",
    "Some text.\n",
    "More words here.\n",
    "```\n",
    "    ## indented\n",
    "code()\n",
]
BODIES = st.lists(st.sampled_from(LINES), max_size=30).map("".join)
PIECES = st.one_of(st.sampled_from(LINES), st.sampled_from(["", "x", "#", "\n", "## ", "Avocet "]))
# (kind, place, length, piece): where a change falls is a fraction of the page.
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["splice", "splice", "edit", "title", "revert", "restore"]),
        st.floats(0, 1),
        st.integers(0, 40),
        PIECES,
    ),
    min_size=1,
    max_size=8,
)


def rows_of(db: Database, address: str) -> list[tuple[Any, ...]]:
    space, path = address.split(":")
    with db.read() as conn:
        page_id = conn.execute(
            sa.select(pages_table.c.id).where(
                pages_table.c.space == space, pages_table.c.path == path
            )
        ).scalar_one()
        columns = ("ordinal", "heading", "anchor", "digest", "text", "chars")
        query = sa.select(*(page_sections.c[c] for c in columns)).where(
            page_sections.c.page_id == page_id
        )
        return [tuple(r) for r in conn.execute(query.order_by(page_sections.c.ordinal))]


def whole(title: str, tags: tuple[str, ...], body: str) -> list[tuple[Any, ...]]:
    return [
        (s.ordinal, s.heading, s.anchor, s.digest, s.text, s.chars)
        for s in index_sections(title, list(tags), body)
    ]


def act(team: Team, address: str, page: Any, action: tuple[str, float, int, str]) -> Any:
    kind, place, length, piece = action
    body = page.body
    start = int(place * len(body))
    stop = min(len(body), start + length)
    try:
        if kind == "splice":
            text = body[:start] + piece + body[stop:]
            done = editing.write_page(
                team.writer, address=address, body=text, base_version=page.version
            )
        elif kind == "edit":  # the edit engine's own splices
            edit = {"op": "insert_after", "anchor": body[max(0, start - 8) : start], "text": piece}
            if not edit["anchor"].strip() or not piece:
                edit = {"op": "append", "text": piece or "Tail."}
            done = editing.edit_page(team.writer, address=address, edits=parse_edits([edit]))
        elif kind == "title":
            done = editing.edit_page(
                team.writer, address=address, edits=[], title=f"T {length}", tags_add=[f"t{length}"]
            )
        elif kind == "revert":
            done = reverts.revert_revision(
                team.writer, address=address, version=1 + length % page.version
            )
        else:
            done = reverts.restore_version(
                team.writer, address=address, version=1 + length % page.version
            )
    except CodnaError:
        return page
    return done.page


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=BODIES, actions=ACTIONS)
def test_after_any_saves_a_pages_rows_are_those_of_its_whole_text(
    team: Team, db: Database, body: str, actions: list[tuple[str, float, int, str]]
) -> None:
    address = f"wiki:index/{uuid.uuid4().hex[:10]}"
    page = pages.create_page(team.writer, address=address, title="Index", body=body)
    for action in actions:
        page = act(team, address, page, action)
        assert rows_of(db, address) == whole(page.title, page.tags, page.body), action


def test_a_heading_renamed_to_another_anchor_renumbers_the_repeats_after_it(
    team: Team, db: Database
) -> None:
    body = "## Notes\n\nOne.\n\n## Notes\n\nTwo.\n\n## Notes\n\nThree.\n"
    pages.create_page(team.writer, address="wiki:repeats", title="R", body=body)
    edit = [{"op": "replace", "old": "## Notes\n\nOne.", "new": "## Plan\n\nOne."}]
    done = editing.edit_page(team.writer, address="wiki:repeats", edits=parse_edits(edit))
    anchors = [row[2] for row in rows_of(db, "wiki:repeats")[1:]]
    assert anchors == ["plan", "notes", "notes-2"]
    assert rows_of(db, "wiki:repeats") == whole("R", (), done.page.body)
    [hit] = search.search(team.reader, query="three")
    assert hit.anchor == "notes-2"


def test_a_fence_opened_by_an_edit_hides_the_headings_after_it_from_the_index(
    team: Team, db: Database
) -> None:
    body = "## One\n\nText.\n\n## Two\n\nThe egret.\n"
    pages.create_page(team.writer, address="wiki:fence", title="F", body=body)
    edit = [{"op": "insert_after", "anchor": "Text.", "text": "\n\n```"}]
    done = editing.edit_page(team.writer, address="wiki:fence", edits=parse_edits(edit))
    assert [row[1] for row in rows_of(db, "wiki:fence")] == ["F", "One"]
    assert rows_of(db, "wiki:fence") == whole("F", (), done.page.body)
    [hit] = search.search(team.reader, query="egret")
    assert hit.section == "One"
