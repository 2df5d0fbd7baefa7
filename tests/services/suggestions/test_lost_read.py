"""A suggester who loses read on a page sees only their suggestion's status: nothing of the
page's text, title or versions, through any path (SPEC 4: access is computed when asked)."""

from __future__ import annotations

import pytest

from codna.errors import NotFound
from codna.markdown.edits import parse_edits
from codna.services.inbox import inbox
from codna.services.members import access
from codna.services.pages import pages
from codna.services.suggestions import changes
from tests.services.conftest import Team

SECRET = "The launch is on the ninth."


def _suggested_then_lost(team: Team) -> int:
    pages.create_page(team.writer, address="wiki:plans/launch", title="Launch", body=SECRET + "\n")
    access.share(team.admin, address="wiki:plans/", member="sam@example.com", level="read")
    edits = parse_edits([{"op": "replace", "old": "ninth", "new": "tenth"}])
    made = changes.suggest_edit(
        team.stranger, address="wiki:plans/launch", edits=edits, reason="It moved."
    )
    access.unshare(team.admin, address="wiki:plans/", member="sam@example.com")
    return made.suggestion.id


def test_the_preview_is_refused_once_read_is_taken_back(team: Team) -> None:
    made = _suggested_then_lost(team)
    with pytest.raises(NotFound) as refused:
        changes.preview_suggestion(team.stranger, suggestion_id=made)
    assert "ninth" not in refused.value.message and "Launch" not in refused.value.message
    assert changes.preview_suggestion(team.writer, suggestion_id=made).body  # an editor's


def test_reading_and_listing_show_only_the_status(team: Team) -> None:
    made = _suggested_then_lost(team)
    seen = [
        changes.read_suggestion(team.stranger, suggestion_id=made),
        *changes.list_suggestions(team.stranger, diff_now=True),
    ]
    for view in seen:
        assert view.status == "pending"
        assert (view.page_title, view.diff, view.diff_now, view.edits) == ("", "", None, ())
        assert view.current_version is None and view.note is None and view.applies is None
        assert "ninth" not in repr(view) and "Launch" not in repr(view)


def test_a_decision_on_a_page_they_cannot_read_stays_out_of_the_inbox(team: Team) -> None:
    made = _suggested_then_lost(team)
    changes.decide_edit_suggestion(
        team.writer, suggestion_id=made, decision="reject", reason="Not ninth: launch is on."
    )
    box = inbox.inbox(team.stranger)
    assert box.decisions == () and box.unread == 0 and box.latest is None
    assert "launch" not in repr(box).lower()
    # Read given back, the decision is there again, as it was.
    access.share(team.admin, address="wiki:plans/", member="sam@example.com", level="read")
    box = inbox.inbox(team.stranger)
    assert [(d.suggestion_id, d.status) for d in box.decisions] == [(made, "rejected")]
    assert box.unread == 1
