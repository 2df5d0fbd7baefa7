"""Revisions stored as deltas, on both databases: every version reads back as it was saved,
whatever made it; a one-paragraph edit of a big page stores that paragraph; a damaged version
is refused, never read wrong."""

from __future__ import annotations

import uuid
from dataclasses import fields
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codna.errors import CodnaError
from codna.markdown import delta
from codna.markdown.edits import parse_edits
from codna.services.pages import editing, pages, revisions
from codna.services.pages.revisions import DamagedRevision
from codna.services.suggestions import reverts
from codna.storage.database import Database
from codna.storage.records import StoredVersion
from codna.storage.schema import pages as pages_table
from codna.storage.schema import revisions as revisions_table
from tests.services.conftest import Team


def make_body(lines: int) -> str:
    parts = ["# A page\n\n"]
    for n in range(lines):
        if n % 10 == 0:
            parts.append(f"## Section {n // 10}\n\n")
        parts.append(f"Line {n} says something about topic {n}.\n")
    return "".join(parts)


def stored(db: Database, address: str) -> list[StoredVersion]:
    space, path = address.split(":", 1)
    with db.read() as conn:
        rows = conn.execute(
            sa.select(*(revisions_table.c[f.name] for f in fields(StoredVersion)))
            .join(pages_table, pages_table.c.id == revisions_table.c.page_id)
            .where(pages_table.c.space == space, pages_table.c.path == path)
            .order_by(revisions_table.c.version)
        ).mappings()
        return [StoredVersion.of(r) for r in rows]


def damage(db: Database, address: str, version: int, **values: Any) -> None:
    space, path = address.split(":", 1)
    with db.write() as conn:
        page_id = conn.execute(
            sa.select(pages_table.c.id).where(
                pages_table.c.space == space, pages_table.c.path == path
            )
        ).scalar_one()
        conn.execute(
            revisions_table.update()
            .where(revisions_table.c.page_id == page_id, revisions_table.c.version == version)
            .values(**values)
        )


def edit(team: Team, address: str, *edits: dict[str, str]) -> editing.EditResult:
    return editing.edit_page(team.writer, address=address, edits=parse_edits(list(edits)))


# -- any sequence of changes ------------------------------------------------------------------

ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["replace", "insert", "append", "section", "write", "title", "revert"]),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=12,
)


def act(team: Team, address: str, page: pages.Page, action: tuple[str, int, int]) -> pages.Page:
    """One change to the page, as a member would make it; refusals leave it as it was."""
    kind, a, b = action
    lines = [line for line in page.body.splitlines(keepends=True) if line.startswith("Line ")]
    line = lines[a % len(lines)] if lines else None
    try:
        if kind == "replace" and line:
            done = edit(team, address, {"op": "replace", "old": line, "new": f"Changed {b}.\n"})
        elif kind == "insert" and line:
            done = edit(team, address, {"op": "insert_after", "anchor": line, "text": f"New {b}."})
        elif kind == "append":
            done = edit(team, address, {"op": "append", "text": f"Appended {b}."})
        elif kind == "section":
            heading = f"Section {a % 30}"
            done = edit(team, address, {"op": "replace_section", "heading": heading, "body": "S."})
        elif kind == "write":  # the whole new text, as the web editor sends it: a diff's delta
            text = page.body.splitlines(keepends=True)
            for at in (a % max(1, len(text)), b % max(1, len(text))):
                text.insert(at, f"Written {a} {b}.\n")
            done = editing.write_page(
                team.writer, address=address, body="".join(text), base_version=page.version
            )
        elif kind == "title":
            done = editing.edit_page(team.writer, address=address, edits=[], title=f"Title {a}")
        elif b % 2:
            done = reverts.revert_revision(
                team.writer, address=address, version=1 + a % page.version
            )
        else:
            done = reverts.restore_version(
                team.writer, address=address, version=1 + a % page.version
            )
    except CodnaError:
        return page
    return done.page


@pytest.mark.parametrize("lines", [40, 400])
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(actions=ACTIONS)
def test_any_sequence_of_edits_reverts_and_restores_reads_back_every_version_as_saved(
    team: Team,
    db: Database,
    monkeypatch: pytest.MonkeyPatch,
    lines: int,
    actions: list[tuple[str, int, int]],
) -> None:
    monkeypatch.setattr(delta, "MAX_CHAIN", 3)  # chains are cut often, as well as by size
    address = f"wiki:deltas/{uuid.uuid4().hex[:10]}"
    page = pages.create_page(team.writer, address=address, title="Deltas", body=make_body(lines))
    saved = {1: (page.title, page.body)}
    for action in actions:
        page = act(team, address, page, action)
        saved[page.version] = (page.title, page.body)
    for version, (title, body) in saved.items():
        read = revisions.read_revision(team.reader, address=address, version=version)
        assert (read.title, read.body) == (title, body), version
        old = pages.read_page(team.reader, address=address, version=version)
        assert old.body == body, version
    kept = stored(db, address)
    assert [s.version for s in kept] == sorted(saved)
    assert all(s.sha256 == delta.digest(saved[s.version][1]) for s in kept)
    assert len(kept) == 1 or any(s.delta is not None for s in kept)


# -- what a save stores -----------------------------------------------------------------------


def test_a_one_paragraph_edit_of_a_big_page_stores_that_paragraph_not_the_page(
    team: Team, db: Database
) -> None:
    body = make_body(22_000)  # about a megabyte
    address = "wiki:big"
    pages.create_page(team.writer, address=address, title="Big", body=body)
    done = edit(
        team, address, {"op": "replace", "old": "Line 12345 says", "new": "Line 12345 now says"}
    )
    first, second = stored(db, address)
    assert (first.body, first.delta, first.snapshot_version) == (body, None, 1)
    assert second.body == "" and second.delta is not None and len(second.delta) < 60
    assert (second.snapshot_version, second.chain_chars) == (1, len(second.delta))
    assert second.sha256 == delta.digest(done.page.body)
    assert revisions.read_revision(team.reader, address=address, version=1).body == body


def test_a_new_title_stores_an_empty_delta(team: Team, db: Database) -> None:
    pages.create_page(team.writer, address="wiki:titled", title="Old", body=make_body(20))
    editing.edit_page(team.writer, address="wiki:titled", edits=[], title="New")
    assert stored(db, "wiki:titled")[1].delta == "[]"
    read = revisions.read_revision(team.reader, address="wiki:titled", version=2)
    assert (read.title, read.body) == ("New", make_body(20))


def test_a_chain_starts_again_with_a_snapshot_once_its_deltas_outgrow_the_body(
    team: Team, db: Database
) -> None:
    address = "wiki:small"
    pages.create_page(team.writer, address=address, title="Small", body="Short.\n")
    for n in range(6):
        edit(team, address, {"op": "append", "text": f"Line {n}, long enough to count."})
    for kept in stored(db, address):
        body = revisions.read_revision(team.reader, address=address, version=kept.version).body
        if kept.delta is None:
            assert (kept.body, kept.snapshot_version, kept.chain_chars) == (body, kept.version, 0)
        else:
            assert kept.snapshot_version < kept.version
            assert kept.chain_chars <= len(body)  # never more deltas than the body's size
    whole = [k.version for k in stored(db, address) if k.delta is None]
    assert whole == [1, 2, 5]  # each time the deltas would have outgrown the body


# -- damage -----------------------------------------------------------------------------------


def test_a_version_whose_delta_was_damaged_is_refused_and_never_read_wrong(
    team: Team, db: Database
) -> None:
    address = "wiki:damaged"
    pages.create_page(team.writer, address=address, title="D", body=make_body(200))
    for n in range(4):
        edit(team, address, {"op": "replace", "old": f"Line {n} says", "new": f"Line {n} said"})
    third = stored(db, address)[2]
    assert third.delta is not None
    start, stop, text = delta.decode(third.delta)[0]
    damage(db, address, 3, delta=delta.encode([(start, stop, text.upper())]))
    for version in (3, 4, 5):  # the damaged one, and those rebuilt through it
        with pytest.raises(DamagedRevision, match=f"Version {version} of {address} is damaged"):
            revisions.read_revision(team.reader, address=address, version=version)
    with pytest.raises(DamagedRevision):
        pages.read_page(team.reader, address=address, version=4)
    assert revisions.read_revision(team.reader, address=address, version=2).body.count(" said") == 1
    latest = pages.read_page(team.reader, address=address)  # the page's own text, not rebuilt
    assert (latest.version, latest.body.count(" said")) == (5, 4)
