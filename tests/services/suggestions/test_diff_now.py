"""What accepting will do: a pending suggestion written against an older version that still
applies has the diff it was written with and the diff accepting would make to the page now."""

from __future__ import annotations

import pytest

from codna.markdown.diff import unified_diff
from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes
from codna.services.suggestions.records import Suggestion
from tests.services.conftest import Team
from tests.statements import StatementCounter
from tests.statements import statements as statements  # the fixture

PAGE = "wiki:decisions/0007-caching"
BODY = "**Status:** Proposed\n\n## Context\n\nPages are slow.\n\n## Decision\n\nWe cache.\n"
FIX_STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]
ADD_NOTE = [{"op": "append", "text": "\nMemory use grows.\n"}]


@pytest.fixture
def page(team: Team) -> Team:
    pages.create_page(team.writer, address=PAGE, title="0007 Caching", body=BODY)
    return team


def suggest(who: Member, edits: list[dict[str, str]], address: str = PAGE) -> Suggestion:
    made = changes.suggest_edit(
        who, address=address, edits=parse_edits(edits), reason="It was decided."
    )
    assert made.suggestion is not None
    return made.suggestion


def edit(who: Member, edits: list[dict[str, str]], address: str = PAGE) -> None:
    editing.edit_page(who, address=address, edits=parse_edits(edits))


def waiting(who: Member) -> dict[int, Suggestion]:
    return {s.id: s for s in inbox.pending_decisions(who).suggested_changes.items}


def test_a_suggestion_on_a_page_that_has_not_moved_on_has_no_diff_now(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    assert made.diff_now is None
    assert changes.read_suggestion(page.writer, suggestion_id=made.id).diff_now is None
    assert waiting(page.writer)[made.id].diff_now is None


def test_once_the_page_moved_on_the_read_and_the_inbox_show_what_accepting_would_do_now(
    page: Team,
) -> None:
    made = suggest(page.agent, FIX_STATUS)
    edit(page.writer, ADD_NOTE)  # version 2, elsewhere on the page
    read = changes.read_suggestion(page.writer, suggestion_id=made.id)
    assert (read.applies, read.base_version, read.current_version) == (True, 1, 2)
    assert read.note is not None and "version 2" in read.note
    assert read.diff == made.diff  # the diff it was written with, against version 1
    assert read.diff.startswith(f"--- {PAGE} v1\n")
    assert read.diff_now is not None
    assert read.diff_now.startswith(f"--- {PAGE} v2\n+++ {PAGE} v3\n")
    assert "-**Status:** Proposed\n+**Status:** Accepted\n" in read.diff_now
    assert waiting(page.writer)[made.id].diff_now == read.diff_now
    # The suggester reads it too.
    assert changes.read_suggestion(page.agent, suggestion_id=made.id).diff_now == read.diff_now


def test_the_diff_now_is_exactly_what_accepting_makes(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    edit(page.writer, [{"op": "replace", "old": "Pages are slow.", "new": "Pages are slow.\n"}])
    before = pages.read_page(page.writer, address=PAGE)
    diff_now = changes.read_suggestion(page.writer, suggestion_id=made.id).diff_now
    changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    after = pages.read_page(page.writer, address=PAGE)
    assert diff_now == unified_diff(
        before.body, after.body, old_label=f"{PAGE} v2", new_label=f"{PAGE} v3"
    )


def test_a_suggestion_that_no_longer_applies_has_no_diff_now(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    edit(page.writer, [{"op": "replace", "old": "Proposed", "new": "Rejected"}])
    read = changes.read_suggestion(page.writer, suggestion_id=made.id)
    assert (read.applies, read.diff_now) == (False, None)
    assert read.not_applying is not None
    assert waiting(page.writer)[made.id].diff_now is None


def test_a_decided_or_withdrawn_suggestion_has_no_diff_now(page: Team) -> None:
    accepted = suggest(page.agent, FIX_STATUS)
    withdrawn = suggest(page.agent, ADD_NOTE)
    edit(page.writer, [{"op": "append", "text": "Later.\n"}])
    done = changes.decide_edit_suggestion(page.writer, suggestion_id=accepted.id, decision="accept")
    assert done.diff_now is None
    assert changes.withdraw_suggestion(page.agent, suggestion_id=withdrawn.id).diff_now is None
    assert changes.read_suggestion(page.agent, suggestion_id=accepted.id).diff_now is None


def test_a_suggestion_made_against_an_older_version_answers_with_both_diffs(page: Team) -> None:
    edit(page.writer, ADD_NOTE)  # version 2
    made = changes.suggest_edit(
        page.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="Read v1.", base_version=1
    )
    assert made.suggestion is not None
    assert made.diff.startswith(f"--- {PAGE} v1\n")
    assert made.suggestion.diff_now is not None
    assert made.suggestion.diff_now.startswith(f"--- {PAGE} v2\n")
    assert "+Memory use grows." not in made.suggestion.diff_now  # that is on the page already


def test_a_title_only_suggestion_on_a_moved_on_page_changes_no_body_now(page: Team) -> None:
    made = changes.suggest_edit(page.agent, address=PAGE, edits=[], title="0007 Caches", reason="r")
    assert made.suggestion is not None
    edit(page.writer, ADD_NOTE)
    read = changes.read_suggestion(page.writer, suggestion_id=made.suggestion.id)
    assert (read.applies, read.title, read.diff_now) == (True, "0007 Caches", "")


def test_the_preview_of_a_moved_on_suggestion_carries_its_diff_now(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    edit(page.writer, ADD_NOTE)
    shown = changes.preview_suggestion(page.writer, suggestion_id=made.id)
    assert shown.body.startswith("**Status:** Accepted\n")
    assert shown.suggestion.diff_now is not None
    assert "+**Status:** Accepted" in shown.suggestion.diff_now


def test_listing_what_waits_with_diffs_now_takes_as_many_statements_for_twenty_as_for_one(
    team: Team, statements: StatementCounter
) -> None:
    def make(numbers: range) -> None:
        for n in numbers:
            address = f"wiki:waiting/{n}"
            pages.create_page(team.writer, address=address, title=f"Page {n}", body=BODY)
            suggest(team.agent if n % 2 else team.reader, FIX_STATUS, address)
            edit(team.writer, ADD_NOTE, address)  # the page moves on; the suggestion applies

    def count(expected: int) -> int:
        inbox.pending_decisions(team.writer)  # keeps the checks of the new versions
        with statements() as ran:
            listed = inbox.pending_decisions(team.writer).suggested_changes
        assert len(listed.items) == expected
        assert all(s.diff_now and "+**Status:** Accepted" in s.diff_now for s in listed.items)
        return len(ran)

    make(range(1))
    one = count(1)
    make(range(1, 20))
    assert count(20) == one
