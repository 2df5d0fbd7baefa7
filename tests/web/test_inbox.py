"""The inbox in the web UI: what an agent suggests, shown to the page's editors with who, why
and the diff; previewed, accepted and rejected by form; a stale one offers only Reject."""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import InProcessServer, unique
from tests.web.conftest import card_of, csrf_of, signed_in


def _suggest(app: InProcessServer, address: str, old: str, new: str, reason: str) -> int:
    edits = [{"op": "replace", "old": old, "new": new}]
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": reason}
        )
    assert made.status_code == 201, made.text
    suggestion_id: int = made.json()["suggestion"]["id"]
    return suggestion_id


def _page(app: InProcessServer, address: str) -> dict[str, Any]:
    with app.api("writer") as writer:
        page: dict[str, Any] = writer.get("/api/v1/page", params={"address": address}).json()
    return page


def test_an_editor_sees_who_suggested_what_and_why_as_a_diff(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "# Plan\n\nWe ship on Friday.\n", title="Plan")
    made = _suggest(app, address, "on Friday", "on Monday", "Friday is a holiday.")
    with signed_in(app, "writer") as writer:
        item = card_of(writer.get("/inbox").text, made)
    assert "checker" in item and "(agent)" in item and "Friday is a holiday." in item
    assert '<span class="path">Plan</span>' in item
    assert '<span class="text">We ship on <del>Friday</del><ins>Monday</ins>.</span>' in item
    assert 'value="accept"' in item and 'value="reject"' in item
    with signed_in(app, "reader") as reader:
        assert f'id="change-{made}"' not in reader.get("/inbox").text


def test_the_preview_shows_the_page_as_accepting_would_leave_it_and_saves_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Colour is grey.\n")
    made = _suggest(app, address, "grey", "teal", "Brand colour.")
    with signed_in(app, "writer") as writer:
        answer = writer.get(f"/inbox/changes/{made}/preview")
    assert answer.status_code == 200
    assert "Colour is <del>grey</del><ins>teal</ins>." in answer.text
    assert _page(app, address)["version"] == 1


def test_accepting_by_form_makes_one_revision_that_names_the_agent_and_its_reason(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Deploys run at noon.\n")
    made = _suggest(app, address, "at noon", "at 10:00", "Noon collides with lunch.")
    with signed_in(app, "writer") as writer:
        inbox = writer.get("/inbox")
        answer = writer.post(
            f"/inbox/changes/{made}/decide", data={"decision": "accept", "csrf": csrf_of(inbox)}
        )
        assert answer.status_code == 303 and answer.headers["location"] == "/inbox"
        assert f'id="change-{made}"' not in writer.get("/inbox").text
    page = _page(app, address)
    assert page["version"] == 2 and "at 10:00" in page["body"]
    with app.api("writer") as api:
        [latest, _] = api.get("/api/v1/page/history", params={"address": address}).json()
    assert "checker" in latest["summary"] and "Noon collides with lunch." in latest["summary"]


def test_deciding_with_htmx_answers_the_decided_item_in_place(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Alpha beta.\n")
    made = _suggest(app, address, "beta", "gamma", "Gamma is right.")
    with signed_in(app, "writer") as writer:
        inbox = writer.get("/inbox")
        answer = writer.post(
            f"/inbox/changes/{made}/decide",
            data={"decision": "accept", "csrf": csrf_of(inbox)},
            headers={"HX-Request": "true"},
        )
    assert answer.status_code == 200
    assert (
        f'id="change-{made}"' in answer.text and "is accepted by Wanda in version 2" in answer.text
    )
    # The same said in the inbox's status line, outside the lists a live refresh replaces.
    assert 'id="settled"' in answer.text and 'hx-swap-oob="true"' in answer.text


def test_a_rejection_reaches_the_agent_with_its_reason(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Keep it short.\n")
    made = _suggest(app, address, "short", "very short", "Shorter is better.")
    with signed_in(app, "writer") as writer:
        inbox = writer.get("/inbox")
        answer = writer.post(
            f"/inbox/changes/{made}/decide",
            data={"decision": "reject", "reason": "Short is enough.", "csrf": csrf_of(inbox)},
        )
    assert answer.status_code == 303
    assert _page(app, address)["version"] == 1
    with app.api("agent") as agent:
        decisions = agent.get("/api/v1/inbox").json()["decisions"]
    mine = [d for d in decisions if d["kind"] == "change_decided" and d["suggestion_id"] == made]
    assert mine and mine[0]["status"] == "rejected" and mine[0]["reason"] == "Short is enough."


def test_a_suggestion_that_no_longer_applies_offers_only_reject(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "The limit is 10.\n")
    made = _suggest(app, address, "is 10", "is 20", "Raise it.")
    app.edit_page(address, [{"op": "replace", "old": "is 10", "new": "is 15"}])
    with signed_in(app, "writer") as writer:
        item = card_of(writer.get("/inbox").text, made)
    assert "No longer applies" in item
    assert 'value="reject"' in item and 'value="accept"' not in item and "Preview" not in item


def test_a_decision_without_the_csrf_token_is_refused_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "One two.\n")
    made = _suggest(app, address, "two", "three", "Count on.")
    with signed_in(app, "writer") as writer:
        answer = writer.post(f"/inbox/changes/{made}/decide", data={"decision": "accept"})
    assert answer.status_code == 422
    assert _page(app, address)["version"] == 1


def test_script_in_a_suggestion_is_shown_as_text(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Plain words.\n")
    payload = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    made = _suggest(app, address, "Plain words.", f"Plain {payload} words.", f"Why {payload}")
    with signed_in(app, "writer") as writer:
        html = writer.get("/inbox").text
    item = card_of(html, made)
    assert "<script>" not in item and "&lt;script&gt;alert(1)&lt;/script&gt;" in item
    assert re.search(r"<[^>]*\sonerror\s*=", item) is None


def test_a_page_tells_its_editors_what_waits_and_its_readers_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "First. Second.\n")
    _suggest(app, address, "First.", "1st.", "Shorter.")
    _suggest(app, address, "Second.", "2nd.", "Shorter too.")
    path = "/p/" + address.replace(":", "/", 1)
    with signed_in(app, "writer") as writer:
        page = writer.get(path).text
        listed = writer.get("/suggestions/" + address.replace(":", "/", 1)).text
    assert "Review 2 suggested changes waiting" in page
    assert listed.count('<li class="item card"') == 2
    with signed_in(app, "reader") as reader:
        seen = reader.get(path).text
    assert "waiting" not in seen and "Shorter" not in seen


def test_a_suggester_sees_their_own_suggestions_on_the_page_and_withdraws_one(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Red and blue.\n")
    edits = [{"op": "replace", "old": "blue", "new": "green"}]
    with app.api("reader") as reader_api:
        made = reader_api.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": "Green."}
        ).json()["suggestion"]["id"]
    path = "/p/" + address.replace(":", "/", 1)
    with signed_in(app, "reader") as reader:
        page = reader.get(path)
        item = card_of(page.text, made)
        assert "Status:</span> waiting" in item and "Withdraw" in item and "Accept" not in item
        answer = reader.post(f"/inbox/changes/{made}/withdraw", data={"csrf": csrf_of(page)})
        assert answer.status_code == 303
        again = card_of(reader.get(path).text, made)
    assert "Status:</span> withdrawn" in again and "Withdraw" not in again


def test_the_header_count_says_how_much_waits_and_the_page_listens_for_changes(
    app: InProcessServer,
) -> None:
    with signed_in(app, "writer") as writer:
        before = int(writer.get("/inbox/count").text or 0)
        address = unique()
        app.create_page(address, "Count me.\n")
        _suggest(app, address, "Count me.", "Counted.", "Past tense.")
        after = int(writer.get("/inbox/count").text or 0)
        page = writer.get("/inbox").text
    assert after == before + 1
    assert 'sse-connect="/inbox/events"' in page and 'hx-trigger="load, sse:inbox"' in page
    assert 'data-live="/inbox"' in page and "/static/inbox.js" in page
