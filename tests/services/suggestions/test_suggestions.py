"""Suggested changes (ADR 0024, SPEC 4), rule by rule, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from codna.errors import (
    AlreadyDecided,
    Duplicate,
    InvalidEdit,
    InvalidRequest,
    LimitReached,
    NoLongerApplies,
    NotFound,
    ReadOnly,
    RejectedBefore,
    TooLarge,
)
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.inbox import inbox
from codna.services.members import access, members
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import changes, reverts
from tests.services.conftest import Team

PAGE = "wiki:decisions/0007-caching"
BODY = """\
**Status:** Proposed

## Context

Pages are slow to render.

## Decision

We cache rendered pages.

## Consequences

Memory use grows.
"""
ADD_WHAT_CHANGED = [
    {"op": "insert_before", "anchor": "## Consequences", "text": "## What changed\n\nNothing.\n\n"}
]
FIX_STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]


@pytest.fixture
def page(team: Team) -> Team:
    pages.create_page(team.writer, address=PAGE, title="0007 Caching", body=BODY, tags=["decision"])
    return team


def suggest(who: Member, edits: list[dict[str, str]], reason: str = "It is needed.", **kw: object):  # type: ignore[no-untyped-def]
    result = changes.suggest_edit(who, address=PAGE, edits=parse_edits(edits), reason=reason, **kw)  # type: ignore[arg-type]
    assert result.saved and result.suggestion is not None
    return result.suggestion


def test_a_suggestion_holds_its_edits_reason_suggester_base_and_diff(page: Team) -> None:
    made = suggest(page.agent, ADD_WHAT_CHANGED, reason="Add the What changed section.")
    assert (made.status, made.suggester, made.suggester_kind, made.base_version) == (
        "pending",
        "checker",
        "agent",
        1,
    )
    assert made.edits == tuple(ADD_WHAT_CHANGED)
    assert "+## What changed\n" in made.diff
    assert pages.read_page(page.writer, address=PAGE).version == 1  # nothing reached the page


def test_the_reason_is_required(page: Team) -> None:
    for reason in ("", "   ", None):
        with pytest.raises(InvalidRequest) as refused:
            changes.suggest_edit(
                page.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason=reason
            )  # type: ignore[arg-type]
        assert refused.value.fields["field"] == "reason"
    with pytest.raises(TooLarge) as too_long:
        changes.suggest_edit(
            page.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="x" * 501
        )
    assert too_long.value.fields["limit"] == 500


def test_edits_that_do_not_apply_now_are_refused_at_once_with_the_engines_reason(
    page: Team,
) -> None:
    with pytest.raises(InvalidEdit) as refused:
        changes.suggest_edit(
            page.agent,
            address=PAGE,
            reason="x",
            edits=parse_edits([FIX_STATUS[0], {"op": "delete_section", "heading": "Nope"}]),
        )
    assert (refused.value.fields["edit_index"], refused.value.fields["reason"]) == (
        1,
        "section_not_found",
    )
    assert changes.list_suggestions(page.agent) == []


def test_a_whole_body_is_not_a_suggestion(page: Team) -> None:
    with pytest.raises(InvalidRequest):
        changes.suggest_edit(
            page.agent, address=PAGE, reason="x", edits=parse_edits([{"op": "body", "text": "all"}])
        )


def test_a_dry_run_runs_every_check_and_writes_nothing(page: Team) -> None:
    dry = changes.suggest_edit(
        page.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="x", dry_run=True
    )
    assert (dry.saved, dry.suggestion) == (False, None) and "+**Status:** Accepted" in dry.diff
    assert changes.list_suggestions(page.agent) == []
    suggest(page.agent, FIX_STATUS)
    with pytest.raises(Duplicate):
        changes.suggest_edit(
            page.agent, address=PAGE, edits=parse_edits(FIX_STATUS), reason="x", dry_run=True
        )


def test_who_may_suggest_readers_editors_agents_never_in_raw(page: Team) -> None:
    for who in (page.reader, page.writer, page.admin, page.agent):
        edits = [{"op": "append", "text": f"From {who.name}."}]
        assert suggest(who, edits).status == "pending"
    with pytest.raises(NotFound):
        suggest(page.stranger, FIX_STATUS)
    transfer.import_documents(page.admin, documents=[transfer.Document("src.md", "Source text.\n")])
    with pytest.raises(ReadOnly):
        changes.suggest_edit(
            page.reader,
            address="raw:src",
            reason="x",
            edits=parse_edits([{"op": "append", "text": "y"}]),
        )


def test_only_the_suggester_and_the_pages_editors_see_a_suggestion(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    pages.create_page(page.admin, address="wiki:other", title="Other")
    members.add_person(page.admin, email="olga@example.com", name="Olga")
    access.share(page.admin, address="wiki:other", member="olga@example.com", level="write")
    access.share(page.admin, address=PAGE, member="olga@example.com", level="read")
    olga = members.member_by_handle("olga@example.com")
    members.add_agent(page.admin, name="other-bot", responsible=["wanda@example.com"])
    other_bot = members.member_by_handle("other-bot")
    for stranger in (page.reader, olga, other_bot, page.stranger):
        with pytest.raises(NotFound):
            changes.read_suggestion(stranger, suggestion_id=made.id)
        with pytest.raises(NotFound):
            changes.decide_edit_suggestion(stranger, suggestion_id=made.id, decision="reject")
    assert [s.id for s in changes.list_suggestions(page.reader, address=PAGE)] == []
    for seer in (page.agent, page.writer, page.admin):
        assert changes.read_suggestion(seer, suggestion_id=made.id).id == made.id
    assert [s.id for s in changes.list_suggestions(page.writer, address=PAGE)] == [made.id]


def test_accepting_applies_the_edits_as_one_revision_by_the_acceptor(page: Team) -> None:
    made = suggest(page.agent, ADD_WHAT_CHANGED, reason="add the What changed section")
    decided = changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    assert (decided.status, decided.decided_by, decided.accepted_version) == (
        "accepted",
        "Wanda",
        2,
    )
    newest = revisions.history(page.writer, address=PAGE)[0]
    assert (newest.version, newest.kind, newest.author, newest.summary) == (
        2,
        "accept_suggestion",
        "Wanda",
        "Suggested by checker (agent): add the What changed section",
    )
    assert (
        "## What changed\n\nNothing.\n\n## Consequences"
        in pages.read_page(page.writer, address=PAGE).body
    )


def test_the_summary_names_a_person_plainly_and_a_routine_in_brackets(page: Team) -> None:
    by_person = suggest(page.reader, FIX_STATUS, reason="It was accepted")
    changes.decide_edit_suggestion(page.writer, suggestion_id=by_person.id, decision="accept")
    assert (
        revisions.history(page.writer, address=PAGE)[0].summary
        == "Suggested by Rita: It was accepted"
    )
    by_routine = suggest(page.writer, ADD_WHAT_CHANGED, reason="add it", via="decision-check")
    changes.decide_edit_suggestion(page.admin, suggestion_id=by_routine.id, decision="accept")
    assert (
        revisions.history(page.writer, address=PAGE)[0].summary
        == "Suggested by Wanda (decision-check): add it"
    )


def test_accepting_onto_a_moved_on_page_keeps_the_other_edits(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    editing.edit_page(
        page.writer,
        address=PAGE,
        edits=parse_edits([{"op": "replace", "old": "slow", "new": "very slow"}]),
    )
    editing.edit_page(
        page.writer, address=PAGE, edits=[], title="0007 Page cache", tags_add=["perf"]
    )
    [seen] = changes.list_suggestions(page.writer, address=PAGE)
    assert seen.applies and seen.actions == ("accept", "reject")
    assert seen.note is not None and "version 3" in seen.note
    assert "-**Status:** Proposed" in seen.diff  # the stored diff, against version 1
    changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    after = pages.read_page(page.writer, address=PAGE)
    assert "very slow" in after.body and "**Status:** Accepted" in after.body
    assert (after.title, after.tags) == ("0007 Page cache", ("decision", "perf"))


def test_a_stale_suggestion_names_the_edit_that_no_longer_applies_and_offers_only_reject(
    page: Team,
) -> None:
    made = suggest(page.agent, [ADD_WHAT_CHANGED[0], FIX_STATUS[0]])
    editing.edit_page(
        page.writer,
        address=PAGE,
        edits=parse_edits([{"op": "replace", "old": "Proposed", "new": "Draft"}]),
    )
    [seen] = changes.list_suggestions(page.writer, address=PAGE)
    assert (seen.applies, seen.actions) == (False, ("reject",))
    assert seen.not_applying is not None
    assert (seen.not_applying.edit_index, seen.not_applying.reason) == (1, "text_not_found")
    with pytest.raises(NoLongerApplies) as refused:
        changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    assert (refused.value.fields["edit_index"], refused.value.fields["reason"]) == (
        1,
        "text_not_found",
    )
    assert pages.read_page(page.writer, address=PAGE).version == 2
    assert (
        changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="reject").status
        == "rejected"
    )


def test_a_new_title_no_longer_applies_once_the_title_changed(page: Team) -> None:
    made = changes.suggest_edit(
        page.agent, address=PAGE, edits=[], title="0007 Caching pages", reason="Clearer."
    ).suggestion
    assert made is not None and made.title_was == "0007 Caching"
    editing.edit_page(page.writer, address=PAGE, edits=[], title="0007 Cache")
    with pytest.raises(NoLongerApplies) as refused:
        changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    assert refused.value.fields["reason"] == "title_changed"


def test_tags_are_changes_applied_to_the_tags_as_they_are_when_accepted(page: Team) -> None:
    made = changes.suggest_edit(
        page.agent,
        address=PAGE,
        edits=[],
        tags_add=["cache"],
        tags_remove=["decision"],
        reason="Tags.",
    ).suggestion
    assert made is not None
    editing.edit_page(page.writer, address=PAGE, edits=[], tags_add=["perf"])
    changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    assert pages.read_page(page.writer, address=PAGE).tags == ("perf", "cache")


def test_rejection_is_durable_even_with_reordered_keys_crlf_or_another_suggester(
    page: Team,
) -> None:
    made = suggest(
        page.agent, [{"op": "replace", "old": "Memory use grows.", "new": "Memory\nuse grows."}]
    )
    changes.decide_edit_suggestion(
        page.writer, suggestion_id=made.id, decision="reject", reason="No."
    )
    variants = [
        [{"new": "Memory\nuse grows.", "old": "Memory use grows.", "op": "replace"}],
        [{"op": "replace", "old": "Memory use grows.", "new": "Memory\r\nuse grows."}],
    ]
    for who in (page.agent, page.reader):
        for edits in variants:
            with pytest.raises(RejectedBefore):
                changes.suggest_edit(who, address=PAGE, edits=parse_edits(edits), reason="Again.")


def test_the_same_pending_edits_are_a_duplicate_from_anyone_but_withdrawn_ones_do_not_block(
    page: Team,
) -> None:
    made = suggest(page.agent, FIX_STATUS)
    with pytest.raises(Duplicate):
        suggest(page.reader, FIX_STATUS)
    changes.withdraw_suggestion(page.agent, suggestion_id=made.id)
    assert suggest(page.reader, FIX_STATUS).status == "pending"


def test_withdraw_is_the_suggesters_alone_and_only_while_pending(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    with pytest.raises(ReadOnly):
        changes.withdraw_suggestion(page.writer, suggestion_id=made.id)
    with pytest.raises(NotFound):
        changes.withdraw_suggestion(page.reader, suggestion_id=made.id)
    assert changes.withdraw_suggestion(page.agent, suggestion_id=made.id).status == "withdrawn"
    with pytest.raises(AlreadyDecided):
        changes.withdraw_suggestion(page.agent, suggestion_id=made.id)


def test_deciding_a_decided_or_withdrawn_suggestion_is_refused_with_its_status(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    for decision in ("accept", "reject"):
        with pytest.raises(AlreadyDecided) as refused:
            changes.decide_edit_suggestion(page.admin, suggestion_id=made.id, decision=decision)
        assert refused.value.fields["status"] == "accepted"
    other = suggest(page.agent, ADD_WHAT_CHANGED)
    changes.withdraw_suggestion(page.agent, suggestion_id=other.id)
    with pytest.raises(AlreadyDecided) as refused:
        changes.decide_edit_suggestion(page.writer, suggestion_id=other.id, decision="reject")
    assert refused.value.fields["status"] == "withdrawn"


def test_an_agent_never_decides_and_a_reader_cannot(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    with pytest.raises(ReadOnly):
        changes.decide_edit_suggestion(page.agent, suggestion_id=made.id, decision="accept")
    own = suggest(page.reader, ADD_WHAT_CHANGED)
    with pytest.raises(ReadOnly):
        changes.decide_edit_suggestion(page.reader, suggestion_id=own.id, decision="accept")


def test_the_twenty_first_pending_on_one_page_is_refused(page: Team) -> None:
    for n in range(20):
        suggest(page.agent, [{"op": "append", "text": f"Line {n}."}])
    with pytest.raises(LimitReached) as refused:
        suggest(page.agent, [{"op": "append", "text": "Line 20."}])
    assert (refused.value.fields["limit"], refused.value.fields["pending"]) == (20, 20)
    assert suggest(page.reader, [{"op": "append", "text": "Line 20."}]).status == "pending"


def test_the_two_hundred_and_first_pending_in_all_is_refused(page: Team) -> None:
    for n in range(10):
        pages.create_page(page.writer, address=f"wiki:many/{n}", title=f"Many {n}", body="Text.\n")
    for n in range(200):
        changes.suggest_edit(
            page.agent,
            address=f"wiki:many/{n % 10}",
            edits=parse_edits([{"op": "append", "text": f"L{n}"}]),
            reason="r",
        )
    with pytest.raises(LimitReached) as refused:
        suggest(page.agent, FIX_STATUS)
    assert (refused.value.fields["limit"], refused.value.fields["pending"]) == (200, 200)
    first = changes.list_suggestions(page.agent, status="pending")[0]
    changes.withdraw_suggestion(page.agent, suggestion_id=first.id)
    assert suggest(page.agent, FIX_STATUS).status == "pending"


def test_an_editor_granted_write_later_sees_what_waits_and_a_revoked_one_no_longer_does(
    page: Team,
) -> None:
    made = suggest(page.agent, FIX_STATUS)
    with pytest.raises(NotFound):
        changes.read_suggestion(page.reader, suggestion_id=made.id)
    access.share(page.admin, address=PAGE, member="rita@example.com", level="write")
    assert changes.read_suggestion(page.reader, suggestion_id=made.id).id == made.id
    assert inbox.pending_decisions(page.reader).suggested_changes.total == 1
    access.unshare(page.admin, address=PAGE, member="rita@example.com")
    with pytest.raises(NotFound):
        changes.read_suggestion(page.reader, suggestion_id=made.id)
    assert inbox.pending_decisions(page.reader).suggested_changes.total == 0


def test_reverting_an_accepted_suggestion_shows_in_its_suggesters_list(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    accepted = changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept")
    editing.edit_page(
        page.writer, address=PAGE, edits=parse_edits([{"op": "append", "text": "Later."}])
    )
    reverts.revert_revision(page.writer, address=PAGE, version=accepted.accepted_version or 0)
    [mine] = changes.list_suggestions(page.agent)
    assert (mine.status, mine.accepted_version, mine.reverted_in_version) == ("accepted", 2, 4)
    body = pages.read_page(page.writer, address=PAGE).body
    assert "**Status:** Proposed" in body and "Later." in body


def test_the_suggester_is_told_of_the_decision_with_its_reason(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    changes.decide_edit_suggestion(
        page.writer, suggestion_id=made.id, decision="reject", reason="Too early."
    )
    box = inbox.inbox(page.agent)
    [note] = box.decisions
    assert (note.kind, note.status, note.reason, note.suggestion_id, box.unread) == (
        "change_decided",
        "rejected",
        "Too early.",
        made.id,
        1,
    )
    [mine] = changes.list_suggestions(page.agent, status="rejected")
    assert (mine.decision_reason, mine.decided_by) == ("Too early.", "Wanda")


def test_read_document_tells_an_editor_how_many_wait(page: Team) -> None:
    suggest(page.agent, FIX_STATUS)
    suggest(page.reader, ADD_WHAT_CHANGED)
    assert pages.read_page(page.writer, address=PAGE).pending_suggestions == 2
    assert pages.read_page(page.reader, address=PAGE).pending_suggestions is None


def test_nothing_is_suggested_on_a_page_in_the_trash_and_what_waits_comes_back(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    pages.trash_page(page.writer, address=PAGE)
    with pytest.raises(NotFound):
        suggest(page.agent, ADD_WHAT_CHANGED)
    assert inbox.pending_decisions(page.writer).suggested_changes.total == 0
    pages.restore_page(page.writer, address=PAGE)
    assert [s.id for s in inbox.pending_decisions(page.writer).suggested_changes.items] == [made.id]


def test_a_pages_suggestions_go_when_it_is_deleted_for_good_and_are_not_exported(
    page: Team,
) -> None:
    made = suggest(page.agent, FIX_STATUS)
    exported = transfer.export_documents(page.admin)
    assert all("Accepted" not in f.text for f in exported)
    pages.trash_page(page.writer, address=PAGE)
    pages.purge_page(page.writer, address=PAGE)
    with pytest.raises(NotFound):
        changes.read_suggestion(page.agent, suggestion_id=made.id)
    assert changes.list_suggestions(page.agent) == []


def test_a_disabled_agents_suggestions_can_still_be_decided(page: Team) -> None:
    made = suggest(page.agent, FIX_STATUS)
    members.set_disabled(page.admin, handle="checker", disabled=True)
    assert (
        changes.decide_edit_suggestion(page.writer, suggestion_id=made.id, decision="accept").status
        == "accepted"
    )


def test_a_suggester_who_can_no_longer_read_the_page_sees_only_the_status(page: Team) -> None:
    members.add_person(page.admin, email="tim@example.com", name="Tim")
    access.share(page.admin, address=PAGE, member="tim@example.com", level="read")
    tim = members.member_by_handle("tim@example.com")
    made = suggest(tim, FIX_STATUS)
    access.unshare(page.admin, address=PAGE, member="tim@example.com")
    [seen] = changes.list_suggestions(tim)
    assert (seen.id, seen.status, seen.diff, seen.edits) == (made.id, "pending", "", ())
