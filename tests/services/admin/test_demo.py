"""The demo workspace holds what the README tells: in Ada's inbox, the two changes
decision-check suggested that still wait, both from Ben's runs of it (one that applies, one the
page has moved past), and on the page a third that Ada rejected; each worth a real decision."""

from __future__ import annotations

import pytest

from codna.errors import NotFound
from codna.services.admin import demo
from codna.services.events import outbox, runs
from codna.services.inbox import inbox
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.suggestions import changes
from codna.storage.database import Database


@pytest.fixture
def ada(db: Database) -> Member:
    return demo.build_demo()


def test_adas_inbox_holds_one_change_that_applies_and_one_the_page_has_moved_past(
    ada: Member,
) -> None:
    waiting = inbox.inbox(ada)
    assert waiting.suggested_links.total == 0 and waiting.decisions == ()
    assert waiting.suggested_changes.total == 2
    by_page = {s.page: s for s in waiting.suggested_changes.items}
    assert set(by_page) == {demo.SHOWCASE, "wiki:decisions/0002-agents-suggest"}
    applies, moved_past = by_page[demo.SHOWCASE], by_page["wiki:decisions/0002-agents-suggest"]
    assert applies.applies is True and set(applies.actions) == {"accept", "reject"}
    assert moved_past.applies is False and moved_past.actions == ("reject",)
    pending = inbox.pending_decisions(ada)
    assert pending.total == 2
    assert {s.id for s in pending.suggested_changes.items} == {s.id for s in by_page.values()}


def test_every_demo_suggestion_is_bens_through_decision_check_and_none_is_a_placeholder(
    ada: Member,
) -> None:
    made = [
        s
        for address in (demo.SHOWCASE, "wiki:decisions/0002-agents-suggest")
        for s in changes.list_suggestions(ada, address=address)
    ]
    assert sorted(s.status for s in made) == ["pending", "pending", "rejected"]
    assert {(s.suggester, s.via) for s in made} == {("Ben", demo.ROUTINE)}
    for s in made:
        assert "To fill in" not in s.diff and "To fill in" not in s.reason
        assert "withdraw" not in s.actions  # Ada suggested none of them
    [rejected] = [s for s in made if s.status == "rejected"]
    assert rejected.decided_by == "Ada" and rejected.decision_reason


def test_the_routine_is_run_as_ben_and_no_agent_member_shares_its_name(ada: Member) -> None:
    done = runs.list_runs(ada)
    assert {(r.routine, r.status, r.run_page is not None) for r in done} == {
        (demo.ROUTINE, "succeeded", True)
    }
    ben = members.member_by_handle(demo.EDITOR_EMAIL)
    assert {r.id for r in runs.list_runs(ben)} == {r.id for r in done}
    with pytest.raises(NotFound):
        members.member_by_handle(demo.ROUTINE)
    assert members.member_by_handle(demo.AGENT_NAME).kind == "agent"


def test_the_records_the_demo_built_start_no_routine_when_its_automation_is_added(
    ada: Member,
) -> None:
    assert outbox.next_due() is None
