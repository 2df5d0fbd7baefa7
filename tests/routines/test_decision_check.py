"""decision-check: the form it checks, and a run of it through MCP as a person, on both
databases: one suggestion per gap with its reason, a run page linking them, and a second run
that suggests nothing it suggested before."""

from __future__ import annotations

import anyio
import pytest

from codna import runner
from codna.markdown.apply import apply_edits
from codna.markdown.edits import parse_edits
from codna.routines.decision_check import gaps
from codna.services import changes, pages, runs, suggestions
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


def test_each_missing_section_is_one_gap_whose_edit_puts_it_in_its_place() -> None:
    found = gaps("wiki:decisions/0002-agents", "0002 · Agents suggest", GAPPY)
    assert [g.reason for g in found] == [
        "A decision record has a Consequences section; this one has none.",
        "A decision record has an Alternatives rejected section; this one has none.",
    ]
    body = GAPPY
    for gap in found:
        body = apply_edits(body, parse_edits(list(gap.edits)))
    assert body.index("## Decision") < body.index("## Consequences")
    assert body.index("## Consequences") < body.index("## Alternatives rejected")
    assert gaps("wiki:decisions/0002-agents", "0002 · Agents suggest", body) == []


def test_a_missing_middle_section_goes_before_the_next_one() -> None:
    body = WHOLE.replace("## Consequences\n\nEverything is text.\n\n", "")
    [gap] = gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", body)
    mended = apply_edits(body, parse_edits(list(gap.edits)))
    assert mended.index("## Decision") < mended.index("## Consequences")
    assert mended.index("## Consequences") < mended.index("## Alternatives rejected")


def test_the_title_status_line_and_empty_sections_are_gaps() -> None:
    body = WHOLE.replace("**Status:** Accepted · 2026-05-04\n\n", "").replace(
        "Everything is text.\n", ""
    )
    found = gaps("wiki:decisions/0001-markdown-pages", "Markdown pages", body)
    reasons = [g.reason for g in found]
    assert reasons[0].startswith("A decision record's title is 'NNNN · what was decided'")
    assert found[0].title == "0001 · Markdown pages"
    assert "status line" in reasons[1] and found[1].edits
    assert reasons[2] == "The Consequences section is empty."
    malformed = WHOLE.replace("Accepted · 2026-05-04", "maybe")
    [odd] = gaps("wiki:decisions/0001-markdown", "0001 · Markdown pages", malformed)
    assert "reads '**Status:** maybe'" in odd.reason and not odd.mendable


@pytest.fixture
def gappy(team: Team) -> Team:
    pages.create_page(
        team.writer, address="wiki:decisions/0002-agents", title="0002 · Agents suggest", body=GAPPY
    )
    return team


def test_a_run_suggests_each_gap_writes_its_run_page_and_a_second_run_repeats_nothing(
    gappy: Team,
) -> None:
    address = "wiki:decisions/0002-agents"
    first = anyio.run(lambda: runner.run("decision-check", gappy.writer, address))
    assert (
        first.status == "succeeded" and first.run_page == f"output:decision-check/runs/{first.id}"
    )
    made = suggestions.list_suggestions(gappy.writer, address=address)
    assert {s.reason for s in made} == {
        "A decision record has an Alternatives rejected section; this one has none.",
        "A decision record has a Consequences section; this one has none.",
    }
    assert {s.via for s in made} == {"decision-check"}
    run_page = pages.read_page(gappy.writer, address=first.run_page).body
    for s in made:
        assert f"[change {s.id}](" in run_page
    assert f"[0002 · Agents suggest]({address})" in run_page
    # The editor accepts one and rejects the other; the summary names person and routine.
    [accepted] = [s for s in made if "Alternatives" in s.reason]
    [rejected] = [s for s in made if "Consequences" in s.reason]
    suggestions.decide_edit_suggestion(gappy.writer, suggestion_id=accepted.id, decision="accept")
    suggestions.decide_edit_suggestion(
        gappy.writer, suggestion_id=rejected.id, decision="reject", reason="Not for proposals."
    )
    summary = pages.read_page(gappy.writer, address=address)
    assert "## Alternatives rejected" in summary.body
    # An unrelated edit, then a second run: nothing new, and it says what became of the first.
    changes.edit_page(
        gappy.writer,
        address=address,
        edits=parse_edits([{"op": "replace", "old": "Agents find gaps.", "new": "Gaps exist."}]),
    )
    second = anyio.run(lambda: runner.run("decision-check", gappy.writer, address))
    assert len(suggestions.list_suggestions(gappy.writer, address=address)) == 2
    body = pages.read_page(gappy.writer, address=second.run_page or "").body
    assert "Nothing new to suggest." in body
    assert f"change {rejected.id} rejected: Not for proposals." in body
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
    assert suggestions.list_suggestions(team.writer, address=address) == []
    run_page = pages.read_page(team.writer, address=done.run_page or "").body
    assert "It links to wiki:decisions/0001-gone, which does not exist." in run_page
    assert "## For a person to look at" in run_page
