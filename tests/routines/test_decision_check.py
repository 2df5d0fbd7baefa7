"""decision-check: the form it checks, and a run of it through MCP as a person, on both
databases: one suggestion per gap with its reason, a run page linking them, and a second run
that suggests nothing it suggested before."""

from __future__ import annotations

import anyio
import pytest

from codna import runner
from codna.markdown.apply import apply_edits
from codna.markdown.edits import parse_edits
from codna.routines.decision_check import gaps, is_section
from codna.services.events import runs
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from tests.services.conftest import Team

WHOLE = """\
**Status:** Accepted · 2026-05-04

## Context

Pages are Markdown.

## Decision

Keep them Markdown.

## Consequences

Everything is text.

## Alternatives rejected

A rich-text store.
"""
GAPPY = """\
**Status:** Proposed · 2026-05-05

## Context

Agents find gaps.

## Decision

Agents suggest; people decide.
"""


def test_a_record_in_the_form_has_no_gaps() -> None:
    assert gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", WHOLE) == []


def test_a_missing_or_empty_section_is_a_gap_for_a_person_never_a_placeholder() -> None:
    found = gaps("wiki:decisions/0002-agents", "0002 · Agents suggest", GAPPY)
    assert [g.reason for g in found] == [
        "A decision record has a Consequences section; this one has none.",
        "A decision record has an Alternatives rejected section; this one has none.",
    ]
    assert not any(g.mendable for g in found)
    empty = WHOLE.replace("Everything is text.\n", "")
    [gap] = gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", empty)
    assert gap.reason == "The Consequences section is empty." and not gap.mendable


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("Alternatives rejected", "Alternatives rejected"),
        ("Alternatives", "Alternatives rejected"),
        ("Alternatives considered", "Alternatives rejected"),
        ("Rejected alternatives", "Alternatives rejected"),
        ("alternatives  REJECTED", "Alternatives rejected"),
        ("consequences", "Consequences"),
        ("Background", "Context"),
    ],
)
def test_a_heading_counts_as_its_section_in_any_case_and_accepted_spelling(
    heading: str, name: str
) -> None:
    assert is_section(heading, name)


@pytest.mark.parametrize(
    ("heading", "name"),
    [("Alternative ideas", "Alternatives rejected"), ("Context", "Consequences")],
)
def test_a_heading_of_another_name_is_not_the_section(heading: str, name: str) -> None:
    assert not is_section(heading, name)


@pytest.mark.parametrize("level", ["#", "##", "###", "####"])
def test_a_section_under_any_heading_level_or_spelling_is_not_asked_for_again(level: str) -> None:
    body = (
        WHOLE.replace("## Consequences", f"{level} consequences")
        .replace("## Alternatives rejected", f"{level} Alternatives")
        .replace("## Context", f"{level} CONTEXT")
    )
    assert gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", body) == []


def test_the_title_and_status_line_are_mended_and_a_malformed_status_is_told() -> None:
    body = WHOLE.replace("**Status:** Accepted · 2026-05-04\n\n", "")
    found = gaps("wiki:decisions/0001-markdown-pages", "Markdown pages", body)
    reasons = [g.reason for g in found]
    assert reasons[0].startswith("A decision record's title is 'NNNN · what was decided'")
    assert found[0].title == "0001 · Markdown pages"
    assert "status line" in reasons[1] and found[1].edits
    mended = apply_edits(body, parse_edits(list(found[1].edits)))
    assert mended.startswith("**Status:** Proposed · ") and "To fill in" not in mended
    assert len(found) == 2
    malformed = WHOLE.replace("Accepted · 2026-05-04", "maybe")
    [odd] = gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", malformed)
    assert "reads '**Status:** maybe'" in odd.reason and not odd.mendable


TITLE_GAP = "A decision record's title is 'NNNN · what was decided'; this one is 'Agents suggest'."
STATUS_GAP = "A decision record starts with a status line; this one has none."


@pytest.fixture
def gappy(team: Team) -> Team:
    body = GAPPY.replace("**Status:** Proposed · 2026-05-05\n\n", "")
    pages.create_page(
        team.writer, address="wiki:decisions/0002-agents", title="Agents suggest", body=body
    )
    return team


def test_a_run_suggests_what_it_can_write_tells_the_rest_and_a_second_run_repeats_nothing(
    gappy: Team,
) -> None:
    address = "wiki:decisions/0002-agents"
    first = anyio.run(lambda: runner.run("decision-check", gappy.writer, address))
    assert (
        first.status == "succeeded" and first.run_page == f"output:decision-check/runs/{first.id}"
    )
    made = changes.list_suggestions(gappy.writer, address=address)
    assert {s.reason for s in made} == {TITLE_GAP, STATUS_GAP}
    assert {s.via for s in made} == {"decision-check"}
    run_page = pages.read_page(gappy.writer, address=first.run_page).body
    for s in made:
        assert f"[change {s.id}](" in run_page
    assert f"[Agents suggest]({address})" in run_page
    # The sections it cannot write are told for a person, not suggested as placeholders.
    person = run_page[run_page.index("## For a person to look at") :]
    assert "- A decision record has a Consequences section; this one has none." in person
    assert "- A decision record has an Alternatives rejected section; this one has none." in person
    # The editor accepts one and rejects the other; the summary names person and routine.
    [accepted] = [s for s in made if s.reason == STATUS_GAP]
    [rejected] = [s for s in made if s.reason == TITLE_GAP]
    changes.decide_edit_suggestion(gappy.writer, suggestion_id=accepted.id, decision="accept")
    changes.decide_edit_suggestion(
        gappy.writer, suggestion_id=rejected.id, decision="reject", reason="Not numbered yet."
    )
    assert pages.read_page(gappy.writer, address=address).body.startswith("**Status:** Proposed")
    # An unrelated edit, then a second run: nothing new, and it says what became of the first.
    editing.edit_page(
        gappy.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "Agents find gaps.", "new": "Gaps exist."}]),
    )
    second = anyio.run(lambda: runner.run("decision-check", gappy.writer, address))
    assert len(changes.list_suggestions(gappy.writer, address=address)) == 2
    body = pages.read_page(gappy.writer, address=second.run_page or "").body
    assert "Nothing new to suggest." in body
    assert f"change {rejected.id} rejected: Not numbered yet." in body
    assert f"change {accepted.id} accepted" in body
    assert [r.status for r in runs.list_runs(gappy.writer)] == ["succeeded", "succeeded"]


def test_a_link_to_a_record_that_does_not_exist_is_told_on_the_run_page_for_a_person(
    team: Team,
) -> None:
    address = "wiki:decisions/0004-amends"
    body = WHOLE.replace(
        "Keep them Markdown.", "Keep them Markdown. Amends [0001](wiki:decisions/0001-gone)."
    )
    pages.create_page(team.writer, address=address, title="0004 · Amends", body=body)
    done = anyio.run(lambda: runner.run("decision-check", team.writer, address))
    assert done.status == "succeeded"
    assert changes.list_suggestions(team.writer, address=address) == []
    run_page = pages.read_page(team.writer, address=done.run_page or "").body
    assert "It links to wiki:decisions/0001-gone, which does not exist." in run_page
    assert "## For a person to look at" in run_page
