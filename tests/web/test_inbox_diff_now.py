"""The web inbox shows an editor what accepting will do: for a suggestion whose page moved on
and that still applies, the diff accepting would make now beside the note, and the diff it was
written with; for one that did not move on or no longer applies, only the diff it was written
with."""

from __future__ import annotations

import html
import re

from tests.conftest import InProcessServer, unique
from tests.web.conftest import card_of, signed_in

BODY = "# Plan\n\nWe ship on Friday.\n\nThe end.\n"


def _suggest(app: InProcessServer, address: str, old: str, new: str) -> int:
    edits = [{"op": "replace", "old": old, "new": new}]
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions",
            json={"address": address, "edits": edits, "reason": "Friday is a holiday."},
        )
    assert made.status_code == 201, made.text
    suggestion_id: int = made.json()["suggestion"]["id"]
    return suggestion_id


def _diffs(item: str) -> dict[str, str]:
    """The diffs an item shows, by their accessible names, as text: a line a row, each row
    its mark ("−" removed, "+" added, "±" changed, " " kept) and its text, the changed words
    of a changed row in [-deleted-] and {+inserted+}."""
    found = re.findall(r'<figure class="hunks" aria-label="([^"]+)">(.*?)</figure>', item, re.S)
    diffs = {}
    for label, markup in found:
        rows = re.findall(r'<div class="line \w+">(.*?)</div>', markup, re.S)
        marked = [re.sub(r"</?(del|ins)>", lambda tag: _MARKS[tag.group(0)], row) for row in rows]
        diffs[label] = "".join(html.unescape(re.sub(r"<[^>]+>", "", row)) + "\n" for row in marked)
    return diffs


_MARKS = {"<del>": "[-", "</del>": "-]", "<ins>": "{+", "</ins>": "+}"}


def test_a_moved_on_suggestion_shows_what_accepting_would_do_now_beside_the_note(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="Plan")
    made = _suggest(app, address, "on Friday", "on Monday")
    app.edit_page(address, [{"op": "replace", "old": "The end.", "new": "The very end."}])
    with signed_in(app, "writer") as writer:
        item = card_of(writer.get("/inbox").text, made)
    note = item.index('<p class="note">')
    now = item.index('aria-label="What accepting does now"')
    then = item.index('<details class="diff-then">')
    assert note < now < then, "the diff of now follows the note, the diff as written a click away"
    assert "Accepting applies the edits to version 2." in item
    assert "What accepting does to version 2, the page as it is now" in item
    assert "The change as suggested, against version 1</summary>" in item
    diffs = _diffs(item)
    assert set(diffs) == {
        "What accepting does now",
        "The change as suggested",
    }
    now_diff = diffs["What accepting does now"]
    assert "±We ship on [-Friday-]{+Monday+}.\n" in now_diff
    assert " The very end.\n" in now_diff
    then_diff = diffs["The change as suggested"]
    assert "±We ship on [-Friday-]{+Monday+}.\n" in then_diff and " The end.\n" in then_diff
    assert 'value="accept"' in item


def test_a_suggestion_on_a_page_that_has_not_moved_on_shows_one_diff(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="Plan")
    made = _suggest(app, address, "on Friday", "on Monday")
    with signed_in(app, "writer") as writer:
        item = card_of(writer.get("/inbox").text, made)
    assert list(_diffs(item)) == ["The change"]
    assert "diff-then" not in item and 'class="note"' not in item


def test_a_suggestion_that_no_longer_applies_shows_no_diff_of_now(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY, title="Plan")
    made = _suggest(app, address, "on Friday", "on Monday")
    app.edit_page(address, [{"op": "replace", "old": "on Friday", "new": "on Sunday"}])
    with signed_in(app, "writer") as writer:
        item = card_of(writer.get("/inbox").text, made)
    assert "No longer applies" in item
    assert list(_diffs(item)) == ["The change as suggested"]
    assert 'value="accept"' not in item


def test_the_preview_of_a_moved_on_suggestion_shows_the_diff_of_now_too(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY, title="Plan")
    made = _suggest(app, address, "on Friday", "on Monday")
    app.edit_page(address, [{"op": "replace", "old": "The end.", "new": "The very end."}])
    with signed_in(app, "writer") as writer:
        answer = writer.get(f"/inbox/changes/{made}/preview")
    assert answer.status_code == 200
    now_diff = _diffs(answer.text)["What accepting does now"]
    assert "±We ship on [-Friday-]{+Monday+}.\n" in now_diff
