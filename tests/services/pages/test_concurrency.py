"""Writers at once on one page: never a lost update, never "database is locked"."""

from __future__ import annotations

from collections.abc import Callable

from codna.errors import Conflict
from codna.markdown.edits import parse_edits
from codna.services.pages import editing, pages, revisions
from tests.concurrency import at_once
from tests.services.conftest import Team

ADDRESS = "wiki:busy"
ROUNDS = 10


def append(team: Team, text: str, base_version: int | None = None) -> Callable[[], object]:
    return lambda: editing.edit_page(
        team.writer,
        address=ADDRESS,
        edits=parse_edits([{"op": "append", "text": text}]),
        base_version=base_version,
    )


def test_two_edits_at_once_both_land_with_consecutive_versions(team: Team) -> None:
    pages.create_page(team.writer, address=ADDRESS, title="Busy", body="start\n")
    for n in range(ROUNDS):
        results = at_once([append(team, f"a{n}"), append(team, f"b{n}")])
        assert not [r for r in results if isinstance(r, Exception)]
    page = pages.read_page(team.writer, address=ADDRESS)
    assert page.version == 1 + 2 * ROUNDS
    for n in range(ROUNDS):
        assert f"a{n}\n" in page.body and f"b{n}\n" in page.body
    versions = [r.version for r in revisions.history(team.writer, address=ADDRESS)]
    assert versions == list(range(page.version, 0, -1))


def test_two_edits_from_the_same_base_version_one_lands_one_is_a_conflict(team: Team) -> None:
    pages.create_page(team.writer, address=ADDRESS, title="Busy", body="start\n")
    for n in range(ROUNDS):
        version = pages.read_page(team.writer, address=ADDRESS).version
        results = at_once([append(team, f"a{n}", version), append(team, f"b{n}", version)])
        conflicts = [r for r in results if isinstance(r, Conflict)]
        saved = [r for r in results if isinstance(r, editing.EditResult)]
        assert len(conflicts) == 1 and len(saved) == 1, results
        assert conflicts[0].fields["current_version"] == version + 1
    page = pages.read_page(team.writer, address=ADDRESS)
    assert page.version == 1 + ROUNDS
