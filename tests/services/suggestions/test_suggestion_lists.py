"""Suggested changes are listed like suggested links: on a page, under a folder (its slash may
be left off) or in a space, each as the caller may see it, newest first, by status, with limit
and offset; and, on request, with the diff accepting each would make to the page now."""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest, NotFound
from codna.markdown.edits import parse_edits
from codna.services.members import access
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, reverts
from codna.services.suggestions.records import Suggestion
from tests.services.conftest import Team

A, B = "wiki:decisions/a", "wiki:decisions/b"
GUIDE = "wiki:guides/g"
BODY = "# Title\n\nWe ship on Friday.\n\nThe end.\n"


@pytest.fixture
def three_pages(team: Team) -> Team:
    for address in (A, B, GUIDE):
        pages.create_page(team.writer, address=address, title=address, body=BODY)
    return team


def suggest(who: Member, address: str, old: str, new: str) -> Suggestion:
    edits = parse_edits([{"op": "replace", "old": old, "new": new}])
    made = changes.suggest_edit(who, address=address, edits=edits, reason="Fix it.")
    assert made.suggestion is not None
    return made.suggestion


def ids(found: list[Suggestion]) -> list[int]:
    return [s.id for s in found]


def test_a_folder_or_a_space_lists_the_suggestions_on_its_pages_as_each_caller_may_see_them(
    three_pages: Team,
) -> None:
    team = three_pages
    on_a = suggest(team.agent, A, "Friday", "Monday")
    on_b = suggest(team.reader, B, "Friday", "Sunday")
    on_guide = suggest(team.agent, GUIDE, "The end.", "The very end.")
    newest_first = [on_guide.id, on_b.id, on_a.id]
    assert ids(changes.list_suggestions(team.writer, address="wiki")) == newest_first
    assert ids(changes.list_suggestions(team.admin, address="wiki:")) == newest_first
    assert ids(changes.list_suggestions(team.writer, address="wiki:decisions/")) == [
        on_b.id,
        on_a.id,
    ]
    # Not an editor: only one's own, on a page, in a folder or in a space.
    assert ids(changes.list_suggestions(team.agent, address="wiki")) == [on_guide.id, on_a.id]
    assert ids(changes.list_suggestions(team.agent, address="wiki:decisions/")) == [on_a.id]
    assert ids(changes.list_suggestions(team.reader, address="wiki:decisions/")) == [on_b.id]
    assert ids(changes.list_suggestions(team.reader, address=A)) == []
    assert ids(changes.list_suggestions(team.writer, address=A)) == [on_a.id]
    assert changes.list_suggestions(team.writer, address="output") == []


def test_a_folder_named_without_its_slash_lists_the_folder(three_pages: Team) -> None:
    team = three_pages
    on_a = suggest(team.agent, A, "Friday", "Monday")
    suggest(team.agent, GUIDE, "Friday", "Monday")
    assert ids(changes.list_suggestions(team.writer, address="wiki:decisions")) == [on_a.id]
    assert ids(changes.list_suggestions(team.agent, address="wiki:decisions")) == [on_a.id]
    # A page of that address is the page, not the folder.
    pages.create_page(team.writer, address="wiki:decisions", title="Index", body=BODY)
    on_index = suggest(team.agent, "wiki:decisions", "Friday", "Monday")
    assert ids(changes.list_suggestions(team.writer, address="wiki:decisions")) == [on_index.id]


def test_a_folder_is_matched_by_its_path_not_by_pages_whose_paths_only_start_the_same(
    three_pages: Team,
) -> None:
    team = three_pages
    pages.create_page(team.writer, address="wiki:decisions-old/c", title="C", body=BODY)
    suggest(team.agent, "wiki:decisions-old/c", "Friday", "Monday")
    on_a = suggest(team.agent, A, "Friday", "Monday")
    assert ids(changes.list_suggestions(team.writer, address="wiki:decisions/")) == [on_a.id]


def test_an_address_that_names_nothing_the_caller_can_read_is_not_found(
    three_pages: Team,
) -> None:
    team = three_pages
    admin = team.admin
    pages.create_page(admin, address="wiki:secret/s", title="S", body=BODY)
    access.share(admin, address="wiki:secret/s", member=team.stranger.email or "", level="read")
    by_stranger = suggest(team.stranger, "wiki:secret/s", "Friday", "Monday")
    for address in ("wiki:nothing-here", "wiki:decisions/zz"):
        with pytest.raises(NotFound):
            changes.list_suggestions(team.writer, address=address)
    with pytest.raises(NotFound) as refused:
        changes.list_suggestions(team.writer, address="wiki:decision")
    assert refused.value.fields.get("nearest") == "wiki:decisions/"
    # One who lost read on the page: not found there, and still listed among one's own.
    access.unshare(admin, address="wiki:secret/s", member=team.stranger.email or "")
    with pytest.raises(NotFound):
        changes.list_suggestions(team.stranger, address="wiki:secret/s")
    assert ids(changes.list_suggestions(team.stranger)) == [by_stranger.id]


def test_listing_pages_by_status_limit_and_offset(three_pages: Team) -> None:
    team = three_pages
    made = [
        suggest(team.agent, A, "Friday", "Monday"),
        suggest(team.agent, A, "The end.", "Fin."),
        suggest(team.agent, B, "Friday", "Sunday"),
    ]
    changes.decide_edit_suggestion(team.writer, suggestion_id=made[0].id, decision="reject")
    newest = [m.id for m in reversed(made)]
    folder = "wiki:decisions/"
    assert ids(changes.list_suggestions(team.writer, address=folder, limit=2)) == newest[:2]
    assert (
        ids(changes.list_suggestions(team.writer, address=folder, limit=2, offset=2))
        == (newest[2:])
    )
    assert ids(changes.list_suggestions(team.agent, offset=1)) == newest[1:]
    assert ids(changes.list_suggestions(team.writer, address=folder, status="rejected")) == [
        made[0].id
    ]
    assert ids(changes.list_suggestions(team.agent, status="pending")) == newest[:2]
    for wrong in ({"offset": -1}, {"offset": True}, {"status": "open"}, {"limit": 0}):
        with pytest.raises(InvalidRequest):
            changes.list_suggestions(team.writer, address=folder, **wrong)  # type: ignore[arg-type]


def test_diff_now_on_request_gives_what_accepting_would_do_to_the_page_now(
    three_pages: Team,
) -> None:
    team = three_pages
    made = suggest(team.agent, A, "Friday", "Monday")
    fresh = suggest(team.agent, B, "Friday", "Monday")
    edits = parse_edits([{"op": "replace", "old": "The end.", "new": "The very end."}])
    editing.edit_page(team.writer, address=A, edits=edits)
    brief = {s.id: s for s in changes.list_suggestions(team.writer, address="wiki")}
    assert brief[made.id].diff_now is None  # not asked for
    asked = {s.id: s for s in changes.list_suggestions(team.writer, address="wiki", diff_now=True)}
    diff_now = asked[made.id].diff_now
    assert diff_now is not None and diff_now.startswith(f"--- {A} v2\n+++ {A} v3\n")
    assert "+We ship on Monday.\n" in diff_now and " The very end.\n" in diff_now
    assert asked[made.id].diff == made.diff  # the diff it was written with
    assert asked[fresh.id].diff_now is None  # its page has not moved on


def test_an_accepted_change_that_a_revert_undoes_is_listed_as_reverted(three_pages: Team) -> None:
    team = three_pages
    made = suggest(team.agent, A, "Friday", "Monday")
    changes.decide_edit_suggestion(team.writer, suggestion_id=made.id, decision="accept")
    reverts.revert_revision(team.writer, address=A, version=2)  # version 3 undoes it
    [undone] = changes.list_suggestions(team.agent, address="wiki:decisions")
    assert (undone.status, undone.accepted_version, undone.reverted_in_version) == (
        "accepted",
        2,
        3,
    )
    reverts.restore_version(team.writer, address=A, version=2)  # version 4: back again
    [back] = changes.list_suggestions(team.agent, address=A)
    assert back.reverted_in_version is None
