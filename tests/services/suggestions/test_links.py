"""Suggested links: who may suggest, who decides, what accepting writes, what is durable."""

from __future__ import annotations

import pytest

from codna.errors import (
    AlreadyDecided,
    Duplicate,
    InvalidEdit,
    InvalidRequest,
    NoLongerApplies,
    NotFound,
    ReadOnly,
    RejectedBefore,
    TooLarge,
)
from codna.markdown.edits import parse_edits
from codna.services.admin.transfer import Document, import_documents
from codna.services.inbox import inbox
from codna.services.members import access, members
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import links
from codna.services.suggestions.records import Suggestion
from tests.concurrency import at_once
from tests.services.conftest import Team

A, B = "wiki:decisions/a", "wiki:guides/b"


@pytest.fixture
def two_pages(team: Team) -> Team:
    pages.create_page(team.writer, address=A, title="Page A", body="# A\n\nSee the style guide.\n")
    pages.create_page(team.writer, address=B, title="Style guide", body="# B\n")
    return team


def test_accepting_a_link_with_an_anchor_links_that_text_in_one_revision(two_pages: Team) -> None:
    team = two_pages
    link = links.suggest_link(
        team.agent, address=A, target=B, anchor="style guide", reason="It is the guide."
    )
    assert (link.status, link.suggester, link.suggester_kind) == ("pending", "checker", "agent")
    decided = links.decide_link(team.writer, suggestion_id=link.id, decision="accept")
    assert (decided.status, decided.decided_by, decided.accepted_version) == (
        "accepted",
        "Wanda",
        2,
    )
    page = pages.read_page(team.writer, address=A)
    assert "See the [style guide](wiki:guides/b).\n" in page.body
    newest = revisions.history(team.writer, address=A)[0]
    assert (newest.kind, newest.author, newest.summary) == (
        "accept_link",
        "Wanda",
        "Suggested by checker (agent): It is the guide.",
    )


def test_a_link_without_an_anchor_goes_under_a_related_heading(two_pages: Team) -> None:
    team = two_pages
    link = links.suggest_link(team.reader, address=A, target=B, reason="Related reading.")
    links.decide_link(team.writer, suggestion_id=link.id, decision="accept")
    body = pages.read_page(team.writer, address=A).body
    assert body.endswith("## Related\n\n- [Style guide](wiki:guides/b)\n")
    pages.create_page(team.writer, address="wiki:c", title="C")
    second = links.suggest_link(team.reader, address=A, target="wiki:c", reason="Also related.")
    links.decide_link(team.writer, suggestion_id=second.id, decision="accept")
    body = pages.read_page(team.writer, address=A).body
    assert body.endswith("## Related\n\n- [Style guide](wiki:guides/b)\n- [C](wiki:c)\n")


def test_a_rejected_link_is_never_suggested_again_but_a_withdrawn_one_may_be(
    two_pages: Team,
) -> None:
    team = two_pages
    link = links.suggest_link(team.reader, address=A, target=B, reason="Good.")
    with pytest.raises(Duplicate):
        links.suggest_link(team.agent, address=A, target=B, reason="Good too.")
    links.decide_link(team.writer, suggestion_id=link.id, decision="reject", reason="Not relevant.")
    with pytest.raises(RejectedBefore):
        links.suggest_link(team.agent, address=A, target=B, reason="Try again.")
    pages.create_page(team.writer, address="wiki:c", title="C")
    other = links.suggest_link(team.reader, address=A, target="wiki:c", reason="Maybe.")
    links.withdraw_link(team.reader, suggestion_id=other.id)
    again = links.suggest_link(team.reader, address=A, target="wiki:c", reason="Yes, really.")
    assert again.status == "pending"


def test_the_refusals_of_suggesting(two_pages: Team) -> None:
    team = two_pages
    pages.create_page(team.admin, address="wiki:secret/s", title="Secret")
    import_documents(team.admin, documents=[Document("src.md", "Source.\n")])
    members.add_person(team.admin, email="nora@example.com", name="Nora")
    access.share(team.admin, address=A, member="nora@example.com", level="read")
    nora = members.member_by_handle("nora@example.com")
    cases = [
        (lambda: links.suggest_link(nora, address=A, target=B, reason="x"), NotFound),
        (
            lambda: links.suggest_link(team.reader, address="raw:src", target=B, reason="x"),
            ReadOnly,
        ),
        (lambda: links.suggest_link(team.reader, address=A, target=B, reason=" "), InvalidRequest),
        (lambda: links.suggest_link(team.reader, address=A, target=A, reason="x"), InvalidRequest),
        (
            lambda: links.suggest_link(team.reader, address=A, target=B, anchor="nope", reason="x"),
            InvalidEdit,
        ),
        (
            lambda: links.suggest_link(team.reader, address=A, target=B, reason="x" * 501),
            TooLarge,
        ),
    ]
    for run, error in cases:
        with pytest.raises(error):
            run()
    access.share(team.admin, address="wiki:secret/", member="rita@example.com", level="read")
    assert (
        links.suggest_link(team.reader, address=A, target="wiki:secret/s", reason="ok").status
        == "pending"
    )


def test_only_editors_of_the_page_decide_and_only_the_suggester_withdraws(two_pages: Team) -> None:
    team = two_pages
    link = links.suggest_link(team.agent, address=A, target=B, reason="Good.")
    with pytest.raises(NotFound):  # a reader does not see someone else's suggestion at all
        links.decide_link(team.reader, suggestion_id=link.id, decision="accept")
    with pytest.raises(NotFound):
        links.withdraw_link(team.reader, suggestion_id=link.id)
    with pytest.raises(ReadOnly):  # an editor sees it, but only the suggester withdraws
        links.withdraw_link(team.writer, suggestion_id=link.id)
    with pytest.raises(ReadOnly):  # the agent sees its own, but never decides
        links.decide_link(team.agent, suggestion_id=link.id, decision="accept")
    links.decide_link(team.admin, suggestion_id=link.id, decision="reject")
    with pytest.raises(AlreadyDecided) as refused:
        links.decide_link(team.writer, suggestion_id=link.id, decision="accept")
    assert refused.value.fields["status"] == "rejected"
    with pytest.raises(AlreadyDecided):
        links.withdraw_link(team.agent, suggestion_id=link.id)


def test_accepting_when_the_anchor_text_is_gone_no_longer_applies(two_pages: Team) -> None:
    team = two_pages
    link = links.suggest_link(
        team.reader, address=A, target=B, anchor="style guide", reason="Guide."
    )
    editing.edit_page(
        team.writer,
        address=A,
        edits=parse_edits([{"op": "replace", "old": "style guide", "new": "rules"}]),
    )
    with pytest.raises(NoLongerApplies):
        links.decide_link(team.writer, suggestion_id=link.id, decision="accept")
    assert links.read_link(team.writer, suggestion_id=link.id).status == "pending"
    assert (
        links.decide_link(team.writer, suggestion_id=link.id, decision="reject").status
        == "rejected"
    )


def test_the_inbox_shows_waiting_links_to_editors_and_decisions_to_the_suggester(
    two_pages: Team,
) -> None:
    team = two_pages
    link = links.suggest_link(team.agent, address=A, target=B, reason="Good.")
    for editor in (team.writer, team.admin):
        waiting = inbox.pending_decisions(editor)
        assert (waiting.total, [w.id for w in waiting.suggested_links.items]) == (1, [link.id])
    for bystander in (team.reader, team.stranger, team.agent):
        assert inbox.pending_decisions(bystander).total == 0
    links.decide_link(team.writer, suggestion_id=link.id, decision="reject", reason="Not now.")
    assert inbox.pending_decisions(team.admin).total == 0  # one decision settles it for all
    box = inbox.inbox(team.agent)
    assert box.unread == 1
    [note] = box.decisions
    assert (note.status, note.reason, note.decided_by, note.page) == (
        "rejected",
        "Not now.",
        "Wanda",
        A,
    )
    assert inbox.mark_read(team.agent) == 1
    assert inbox.inbox(team.agent).unread == 0


def test_who_decides_follows_the_grants_as_they_are_when_asked(two_pages: Team) -> None:
    team = two_pages
    links.suggest_link(team.agent, address=A, target=B, reason="Good.")
    assert inbox.pending_decisions(team.reader).total == 0
    access.share(team.admin, address="wiki:decisions/", member="rita@example.com", level="write")
    assert inbox.pending_decisions(team.reader).total == 1
    access.unshare(team.admin, address="wiki:decisions/", member="rita@example.com")
    assert inbox.pending_decisions(team.reader).total == 0


def test_deleting_a_page_for_good_takes_its_suggested_links_and_notifications(
    two_pages: Team,
) -> None:
    team = two_pages
    link = links.suggest_link(team.agent, address=A, target=B, reason="Good.")
    links.decide_link(team.writer, suggestion_id=link.id, decision="reject")
    pages.trash_page(team.writer, address=B)
    pages.purge_page(team.writer, address=B)
    with pytest.raises(NotFound):
        links.read_link(team.agent, suggestion_id=link.id)
    assert inbox.inbox(team.agent).decisions == ()


def test_sixteen_decisions_at_once_make_one_revision_and_one_decision(two_pages: Team) -> None:
    team = two_pages
    link = links.suggest_link(team.agent, address=A, target=B, reason="Good.")
    results = at_once(
        [
            lambda n=n: links.decide_link(
                team.writer, suggestion_id=link.id, decision="accept" if n % 2 else "reject"
            )
            for n in range(16)
        ]
    )
    done = [r for r in results if isinstance(r, Suggestion)]
    refused = [r for r in results if isinstance(r, AlreadyDecided)]
    assert (len(done), len(refused)) == (1, 15)
    history = revisions.history(team.writer, address=A)
    assert len(history) == (2 if done[0].status == "accepted" else 1)
    assert len(inbox.inbox(team.agent).decisions) == 1


def test_an_editor_who_cannot_read_the_target_can_only_reject(two_pages: Team) -> None:
    team = two_pages
    access.share(team.admin, address="wiki:decisions/", member="sam@example.com", level="write")
    link = links.suggest_link(team.agent, address=A, target=B, reason="It is the guide.")
    seen = links.read_link(team.stranger, suggestion_id=link.id)
    assert (seen.target, seen.target_title, seen.actions) == (None, None, ("reject",))
    with pytest.raises(NoLongerApplies) as refused:
        links.decide_link(team.stranger, suggestion_id=link.id, decision="accept")
    assert "Style guide" not in refused.value.message and B not in refused.value.message
    page = pages.read_page(team.writer, address=A)
    assert page.version == 1 and B not in page.body
    rejected = links.decide_link(team.stranger, suggestion_id=link.id, decision="reject")
    assert rejected.status == "rejected"
