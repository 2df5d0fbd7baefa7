"""What a decision leaves behind, on both databases: a rejection that lasts after its text is
gone, `reverted_in_version` kept by every revision that undoes or restores an accepted change,
and a stale base version named in the refusal."""

from __future__ import annotations

import pytest

from codna.errors import InvalidEdit, RejectedBefore
from codna.markdown.edits import parse_edits
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, reverts
from tests.services.conftest import Team

PAGE = "wiki:decisions/0008-queues"
BODY = "**Status:** Proposed\n\n## Decision\n\nWe queue slow jobs.\n"
FIX_STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]


@pytest.fixture
def page(team: Team) -> Team:
    pages.create_page(team.writer, address=PAGE, title="0008 Queues", body=BODY)
    return team


def suggest(who: Member, edits: list[dict[str, str]], **options: object) -> int:
    made = changes.suggest_edit(who, address=PAGE, edits=parse_edits(edits), reason="r", **options)  # type: ignore[arg-type]
    assert made.suggestion is not None
    return made.suggestion.id


def test_a_rejection_lasts_after_the_text_its_edits_named_is_gone(page: Team) -> None:
    first = suggest(page.agent, FIX_STATUS)
    changes.decide_edit_suggestion(page.writer, suggestion_id=first, decision="reject")
    editing.edit_page(
        page.writer,
        address=PAGE,
        edits=parse_edits(
            [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Draft"}]
        ),
    )
    with pytest.raises(RejectedBefore) as refused:
        suggest(page.agent, FIX_STATUS)
    assert "rejected" in refused.value.message


def test_a_restore_that_undoes_an_accepted_change_marks_it_and_a_later_one_clears_it(
    page: Team,
) -> None:
    made = suggest(page.agent, FIX_STATUS)
    changes.decide_edit_suggestion(page.writer, suggestion_id=made, decision="accept")
    reverts.restore_version(page.writer, address=PAGE, version=1)  # version 3: undone
    [undone] = changes.list_suggestions(page.agent)
    assert (undone.accepted_version, undone.reverted_in_version) == (2, 3)
    reverts.restore_version(page.writer, address=PAGE, version=2)  # version 4: back again
    [back] = changes.list_suggestions(page.agent)
    assert (back.accepted_version, back.reverted_in_version) == (2, None)


def test_edits_that_apply_now_but_not_to_the_base_version_name_the_base_version(
    page: Team,
) -> None:
    editing.edit_page(
        page.writer,
        address=PAGE,
        edits=parse_edits([{"op": "append", "text": "## Limits\n\nTen jobs.\n"}]),
    )
    with pytest.raises(InvalidEdit) as refused:
        suggest(
            page.agent,
            [{"op": "replace", "old": "Ten jobs.", "new": "Twelve jobs."}],
            base_version=1,
        )
    assert "version 1" in refused.value.message
    assert refused.value.fields["base_version"] == 1
