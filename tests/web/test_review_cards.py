"""The review card's server side: who suggested it in ADR 0024's words, a title change read as
one, a refused decision shown in the card, a stale card's sentence for the editor, the
rendered view, "my suggestions" with each status, and decisions that name their suggestion
and stop counting once seen."""

from __future__ import annotations

from typing import Any

from tests.conftest import InProcessServer, unique
from tests.web.conftest import card_of, csrf_of, signed_in


def _suggest(app: InProcessServer, role: str, address: str, **change: Any) -> int:
    with app.api(role) as api:
        made = api.post("/api/v1/suggestions", json={"address": address, **change})
    assert made.status_code == 201, made.text
    suggestion_id: int = made.json()["suggestion"]["id"]
    return suggestion_id


def _replace(old: str, new: str, reason: str = "Better.") -> dict[str, Any]:
    return {"edits": [{"op": "replace", "old": old, "new": new}], "reason": reason}


def test_an_agents_card_names_it_as_an_agent_and_the_people_it_works_for(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Alpha.\n")
    made = _suggest(app, "agent", address, **_replace("Alpha.", "Beta."))
    with signed_in(app, "writer") as writer:
        card = card_of(writer.get("/inbox").text, made)
    assert '<span class="by">checker (agent), for Wanda</span>' in card
    assert "Withdraw" not in card  # the writer did not suggest it


def test_a_title_change_reads_as_one_and_shows_no_empty_diff(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Body.\n", title="Old name")
    made = _suggest(app, "agent", address, title="New name", reason="Clearer.")
    with signed_in(app, "writer") as writer:
        card = card_of(writer.get("/inbox").text, made)
    assert "<del>Old name</del> → <ins>New name</ins>" in card
    assert 'class="hunks"' not in card and "view-source" not in card


def test_a_stale_card_speaks_to_the_editor_and_offers_only_reject(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "The limit is 10.\n")
    made = _suggest(app, "agent", address, **_replace("is 10", "is 20"))
    app.edit_page(address, [{"op": "replace", "old": "is 10", "new": "is 15"}])
    with signed_in(app, "writer") as writer:
        card = card_of(writer.get("/inbox").text, made)
    assert "The page changed after this was suggested: edit 0 (replace): the text" in card
    assert "Copy it exactly" not in card  # that is the suggester's advice
    assert 'value="reject"' in card and 'value="accept"' not in card


def test_an_accept_refused_in_the_card_says_why_with_htmx_and_without(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Deploys run at noon.\n")
    made = _suggest(app, "agent", address, **_replace("at noon", "at ten"))
    with signed_in(app, "writer") as writer:
        inbox = writer.get("/inbox")  # the card still offers Accept
        assert 'value="accept"' in card_of(inbox.text, made)
        app.edit_page(address, [{"op": "replace", "old": "at noon", "new": "at one"}])
        form = {"decision": "accept", "csrf": csrf_of(inbox)}
        htmx = writer.post(
            f"/inbox/changes/{made}/decide", data=form, headers={"HX-Request": "true"}
        )
        plain = writer.post(f"/inbox/changes/{made}/decide", data=form)
    assert htmx.status_code == 200  # swapped in place: the card as it is now
    card = card_of(htmx.text, made)
    assert "Not accepted: the page changed while this was open" in card
    assert 'value="accept"' not in card and 'value="reject"' in card
    assert plain.status_code == 409  # no_longer_applies, on the card's own page
    assert '<header class="top">' in plain.text and 'href="/inbox"' in plain.text
    assert "Copy it exactly" not in plain.text
    assert "The page changed after this was suggested" in plain.text


def test_deciding_from_a_pages_list_goes_back_to_it_and_nowhere_else(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "One. Two.\n")
    first = _suggest(app, "agent", address, **_replace("One.", "1."))
    second = _suggest(app, "agent", address, **_replace("Two.", "2."))
    listed_at = "/suggestions/" + address.replace(":", "/", 1)
    with signed_in(app, "writer") as writer:
        listed = writer.get(listed_at)
        assert f'name="back" value="{listed_at}"' in card_of(listed.text, first)
        form = {"decision": "accept", "csrf": csrf_of(listed)}
        back = writer.post(f"/inbox/changes/{first}/decide", data={**form, "back": listed_at})
        away = writer.post(
            f"/inbox/changes/{second}/decide", data={**form, "back": "https://evil.example/"}
        )
    assert back.status_code == 303 and back.headers["location"] == listed_at
    assert away.status_code == 303 and away.headers["location"] == "/inbox"


def test_the_rendered_view_marks_the_words_in_the_page_as_it_will_read(
    app: InProcessServer,
) -> None:
    address = unique()
    body = "# Plan\n\nIntro.\n\nThe team's wiki is here.\n\nOld paragraph.\n\nEnd.\n"
    app.create_page(address, body)
    edits = [
        {"op": "replace", "old": "team's wiki", "new": "team's shared wiki"},
        {"op": "replace", "old": "Old paragraph.\n\n", "new": ""},
    ]
    made = _suggest(app, "agent", address, edits=edits, reason="Say shared.")
    with signed_in(app, "writer") as writer:
        fragment = writer.get(f"/inbox/changes/{made}/rendered").text
        whole = writer.get(f"/inbox/changes/{made}/preview").text
    assert "<p>The team's <ins>shared</ins> wiki is here.</p>" in fragment
    assert "<del>Old paragraph.</del>" in fragment
    assert "<h1>Plan</h1>" in whole and "Intro." in whole  # the whole page, ids dropped
    assert 'id="plan"' not in whole


def test_my_suggestions_shows_each_status_in_words(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "A. B. C. D.\n")
    waiting = _suggest(app, "reader", address, **_replace("A.", "a."))
    accepted = _suggest(app, "reader", address, **_replace("B.", "b."))
    rejected = _suggest(app, "reader", address, **_replace("C.", "c."))
    withdrawn = _suggest(app, "reader", address, **_replace("D.", "d."))
    with app.api("writer") as writer:
        for made, decision in ((accepted, "accept"), (rejected, "reject")):
            decided = writer.post(
                f"/api/v1/suggestions/{made}/decide",
                json={"decision": decision, "reason": "Not now." if decision == "reject" else None},
            )
            assert decided.status_code == 200, decided.text
    with app.api("reader") as reader:
        assert reader.post(f"/api/v1/suggestions/{withdrawn}/withdraw").status_code == 200
    with signed_in(app, "reader") as reader_web:
        mine = reader_web.get("/inbox/mine").text
        only_waiting = reader_web.get("/inbox/mine?status=pending").text
    assert "Status:</span> waiting" in card_of(mine, waiting)
    assert "Withdraw" in card_of(mine, waiting)
    assert "Status:</span> accepted by Wanda in version 2" in card_of(mine, accepted)
    assert "Status:</span> rejected by Wanda: “Not now.”" in card_of(mine, rejected)
    assert "Status:</span> withdrawn" in card_of(mine, withdrawn)
    assert (
        f'id="change-{waiting}"' in only_waiting and f'id="change-{accepted}"' not in only_waiting
    )


def test_a_decision_names_its_suggestion_and_stops_counting_once_seen(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "Keep it short.\n")
    made = _suggest(app, "reader", address, **_replace("short", "brief", "Brief is the word."))
    with app.api("writer") as writer:
        writer.post(
            f"/api/v1/suggestions/{made}/decide",
            json={"decision": "reject", "reason": "Short is ours."},
        )
    with signed_in(app, "reader") as reader:
        before = int(reader.get("/inbox/count").text or 0)
        first = reader.get("/inbox").text
        after = int(reader.get("/inbox/count").text or 0)
        again = reader.get("/inbox").text
    assert f'<a href="/inbox/changes/{made}">Your suggested change</a>' in first
    assert "“Brief is the word.”" in first and "“Short is ours.”" in first
    assert '<span class="new">New</span>' in first and '<span class="new">New</span>' not in again
    assert before >= 1 and after == 0  # the reader decides on nothing: only decisions count


def test_a_tag_change_reads_as_one(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Body.\n")
    with app.api("writer") as writer:
        tagged = writer.post(
            "/api/v1/page/edit",
            json={"address": address, "edits": [], "tags": {"add": ["draft"]}},
        )
    assert tagged.status_code == 200, tagged.text
    made = _suggest(
        app, "agent", address, tags={"add": ["policy"], "remove": ["draft"]}, reason="It is done."
    )
    with signed_in(app, "writer") as writer_web:
        card = card_of(writer_web.get("/inbox").text, made)
    assert '<span class="label">Tags:</span> <ins>+policy</ins> <del>−draft</del>' in card
