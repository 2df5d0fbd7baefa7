"""Suggested links as first-class as suggested changes: their suggester lists them with their
status and withdraws one that waits; an accepted link a revert or a restore undoes says so."""

from __future__ import annotations

import pytest

from codna.errors import AlreadyDecided, InvalidRequest, NotFound, ReadOnly
from codna.markdown.edits import parse_edits
from codna.services.members import access, members
from codna.services.pages import editing, pages
from codna.services.suggestions import links, reverts
from codna.services.suggestions.records import Suggestion
from tests.services.conftest import Team

A, B, C = "wiki:decisions/a", "wiki:guides/b", "wiki:guides/c"
SECRET = "wiki:secret/s"


@pytest.fixture
def three_pages(team: Team) -> Team:
    pages.create_page(team.writer, address=A, title="Page A", body="# A\n\nSee the style guide.\n")
    pages.create_page(team.writer, address=B, title="Style guide", body="# B\n")
    pages.create_page(team.writer, address=C, title="Glossary", body="# C\n")
    return team


def ids(found: list[Suggestion]) -> list[int]:
    return [link.id for link in found]


def test_a_suggester_lists_its_own_links_newest_first_with_their_status(
    three_pages: Team,
) -> None:
    team = three_pages
    first = links.suggest_link(team.agent, address=A, target=B, reason="The guide.")
    second = links.suggest_link(team.agent, address=A, target=C, reason="The words.")
    links.suggest_link(team.reader, address=B, target=C, reason="Someone else's.")
    links.decide_link(team.writer, suggestion_id=first.id, decision="reject", reason="Not now.")
    mine = links.list_links(team.agent)
    assert [(link.id, link.status) for link in mine] == [
        (second.id, "pending"),
        (first.id, "rejected"),
    ]
    assert (mine[1].decided_by, mine[1].decision_reason) == ("Wanda", "Not now.")
    assert ids(links.list_links(team.agent, status="pending")) == [second.id]
    assert ids(links.list_links(team.agent, status="accepted")) == []


def test_a_pages_editors_see_all_its_links_and_anyone_else_only_their_own(
    three_pages: Team,
) -> None:
    team = three_pages
    by_agent = links.suggest_link(team.agent, address=A, target=B, reason="The guide.")
    by_reader = links.suggest_link(team.reader, address=A, target=C, reason="The words.")
    assert ids(links.list_links(team.writer, address=A)) == [by_reader.id, by_agent.id]
    assert ids(links.list_links(team.reader, address=A)) == [by_reader.id]
    assert ids(links.list_links(team.agent, address=A)) == [by_agent.id]
    assert ids(links.list_links(team.writer, address=B)) == []


def test_a_folder_or_a_space_lists_the_links_on_its_pages_one_may_see(three_pages: Team) -> None:
    team = three_pages
    on_a = links.suggest_link(team.agent, address=A, target=B, reason="The guide.")
    on_b = links.suggest_link(team.reader, address=B, target=C, reason="The words.")
    assert ids(links.list_links(team.writer, address="wiki")) == [on_b.id, on_a.id]
    assert ids(links.list_links(team.writer, address="wiki:guides/")) == [on_b.id]
    assert ids(links.list_links(team.writer, address="wiki:decisions/")) == [on_a.id]
    assert ids(links.list_links(team.reader, address="wiki")) == [on_b.id]
    assert ids(links.list_links(team.agent, address="wiki:guides/")) == []
    assert ids(links.list_links(team.writer, address="output")) == []
    # A folder is matched by its path, not by a page whose path only starts the same.
    pages.create_page(team.writer, address="wiki:guides-old/d", title="D", body="# D\n")
    links.suggest_link(team.reader, address="wiki:guides-old/d", target=C, reason="Old.")
    assert ids(links.list_links(team.writer, address="wiki:guides/")) == [on_b.id]


def test_listing_pages_by_limit_and_offset(three_pages: Team) -> None:
    team = three_pages
    made = [
        links.suggest_link(team.reader, address=A, target=B, reason="One."),
        links.suggest_link(team.reader, address=A, target=C, reason="Two."),
        links.suggest_link(team.reader, address=B, target=C, reason="Three."),
    ]
    newest_first = ids(list(reversed(made)))
    assert ids(links.list_links(team.reader, limit=2)) == newest_first[:2]
    assert ids(links.list_links(team.reader, limit=2, offset=2)) == newest_first[2:]
    assert links.list_links(team.reader, offset=3) == []


def test_an_agent_does_not_see_links_on_a_folder_it_cannot_decide_on_but_its_own(
    three_pages: Team,
) -> None:
    team = three_pages
    pages.create_page(team.admin, address=SECRET, title="Secret", body="# S\n")
    hidden = links.suggest_link(team.admin, address=SECRET, target=B, reason="Admin's.")
    assert ids(links.list_links(team.writer, address="wiki:secret/")) == [hidden.id]
    assert links.list_links(team.agent, address="wiki:secret/") == []
    with pytest.raises(NotFound):  # a page one cannot read is not there
        links.list_links(team.stranger, address=A)
    assert links.list_links(team.stranger, address="wiki") == []


def test_bad_listing_requests_are_refused_with_their_field(three_pages: Team) -> None:
    team = three_pages
    cases = [
        ({"status": "waiting"}, "status"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
        ({"offset": -1}, "offset"),
        ({"address": "nowhere:x"}, "address"),
        ({"address": ""}, "address"),
    ]
    for asked, field in cases:
        with pytest.raises(InvalidRequest) as refused:
            links.list_links(team.reader, **asked)  # type: ignore[arg-type]
        assert refused.value.fields["field"] == field, asked


def test_a_suggester_withdraws_a_link_that_waits_and_it_lists_as_withdrawn(
    three_pages: Team,
) -> None:
    team = three_pages
    link = links.suggest_link(team.agent, address=A, target=B, reason="The guide.")
    with pytest.raises(ReadOnly):
        links.withdraw_link(team.writer, suggestion_id=link.id)
    withdrawn = links.withdraw_link(team.agent, suggestion_id=link.id)
    assert (withdrawn.status, withdrawn.decided_by, withdrawn.accepted_version) == (
        "withdrawn",
        None,
        None,
    )
    with pytest.raises(AlreadyDecided) as refused:
        links.withdraw_link(team.agent, suggestion_id=link.id)
    assert refused.value.fields["status"] == "withdrawn"
    assert [(x.id, x.status) for x in links.list_links(team.agent)] == [(link.id, "withdrawn")]
    assert links.list_links(team.writer, address=A, status="pending") == []
    assert pages.read_page(team.writer, address=A).version == 1


def test_a_suggester_who_can_no_longer_read_the_page_still_withdraws_and_lists(
    three_pages: Team,
) -> None:
    team = three_pages
    members.add_person(team.admin, email="nora@example.com", name="Nora")
    access.share(team.admin, address="wiki", member="nora@example.com", level="read")
    nora = members.member_by_handle("nora@example.com")
    link = links.suggest_link(nora, address=A, target=B, reason="The guide.")
    access.unshare(team.admin, address="wiki", member="nora@example.com")
    assert ids(links.list_links(nora)) == [link.id]
    assert links.withdraw_link(nora, suggestion_id=link.id).status == "withdrawn"


def accepted_link(team: Team) -> Suggestion:
    """A's link to B, suggested by the agent and accepted as version 2 of A."""
    link = links.suggest_link(team.agent, address=A, target=B, anchor="style guide", reason="G.")
    accepted = links.decide_link(team.writer, suggestion_id=link.id, decision="accept")
    assert (accepted.accepted_version, accepted.reverted_in_version) == (2, None)
    return accepted


def test_reverting_the_revision_that_accepted_a_link_marks_it_reverted(three_pages: Team) -> None:
    team = three_pages
    link = accepted_link(team)
    editing.edit_page(team.writer, address=A, edits=parse_edits([{"op": "append", "text": "X"}]))
    reverts.revert_revision(team.writer, address=A, version=2)
    [mine] = links.list_links(team.agent)
    assert (mine.id, mine.status, mine.accepted_version, mine.reverted_in_version) == (
        link.id,
        "accepted",
        2,
        4,
    )
    assert links.read_link(team.writer, suggestion_id=link.id).reverted_in_version == 4
    body = pages.read_page(team.writer, address=A).body
    assert "](wiki:guides/b)" not in body and "X" in body


def test_reverting_the_revert_brings_the_link_back_and_clears_the_mark(three_pages: Team) -> None:
    team = three_pages
    link = accepted_link(team)
    reverts.revert_revision(team.writer, address=A, version=2)  # version 3 undoes the link
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version == 3
    reverts.revert_revision(team.writer, address=A, version=3)  # version 4 undoes the undoing
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version is None
    assert "](wiki:guides/b)" in pages.read_page(team.writer, address=A).body


def test_restoring_to_before_an_accepted_link_marks_it_and_restoring_after_clears_it(
    three_pages: Team,
) -> None:
    team = three_pages
    link = accepted_link(team)
    reverts.restore_version(team.writer, address=A, version=1)  # version 3
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version == 3
    reverts.restore_version(team.writer, address=A, version=2)  # version 4
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version is None


def test_undoing_another_revision_leaves_an_accepted_link_alone(three_pages: Team) -> None:
    team = three_pages
    link = accepted_link(team)
    editing.edit_page(team.writer, address=A, edits=parse_edits([{"op": "append", "text": "X"}]))
    reverts.revert_revision(team.writer, address=A, version=3)  # version 4
    reverts.restore_version(team.writer, address=A, version=3)  # version 5, the link kept
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version is None
    other = links.suggest_link(team.agent, address=B, target=C, reason="Elsewhere.")
    links.decide_link(team.writer, suggestion_id=other.id, decision="accept")
    reverts.restore_version(team.writer, address=A, version=1)
    assert links.read_link(team.agent, suggestion_id=other.id).reverted_in_version is None


def test_a_refused_revert_marks_nothing(three_pages: Team) -> None:
    team = three_pages
    link = accepted_link(team)
    with pytest.raises(InvalidRequest):
        reverts.restore_version(team.writer, address=A, version=2)  # it is version 2 already
    with pytest.raises(ReadOnly):
        reverts.revert_revision(team.reader, address=A, version=2)
    assert links.read_link(team.agent, suggestion_id=link.id).reverted_in_version is None
