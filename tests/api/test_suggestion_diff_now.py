"""Through the JSON API, a suggestion whose page moved on and that still applies answers with
the diff it was written with and the diff accepting would make now."""

from __future__ import annotations

from typing import Any

from tests.conftest import InProcessServer, unique


def suggest(app: InProcessServer, address: str, old: str, new: str) -> dict[str, Any]:
    edits = [{"op": "replace", "old": old, "new": new}]
    with app.api("agent") as agent:
        made = agent.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": "Fix."}
        )
    assert made.status_code == 201, made.text
    suggestion: dict[str, Any] = made.json()["suggestion"]
    return suggestion


def test_the_single_read_and_pending_carry_diff_now_once_the_page_moved_on(
    app: InProcessServer,
) -> None:
    address = unique("wiki:diff-now/")
    app.create_page(address, "# Plan\n\nWe ship on Friday.\n\nThe end.\n", title="Plan")
    made = suggest(app, address, "on Friday", "on Monday")
    assert made["diff_now"] is None
    app.edit_page(address, [{"op": "replace", "old": "The end.", "new": "The very end."}])
    with app.api("writer") as writer:
        read = writer.get(f"/api/v1/suggestions/{made['id']}").json()
        pending = writer.get("/api/v1/pending", params={"kind": "change", "limit": 200}).json()
    assert read["diff"] == made["diff"] and read["diff"].startswith(f"--- {address} v1\n")
    assert read["diff_now"].startswith(f"--- {address} v2\n+++ {address} v3\n")
    assert "-We ship on Friday.\n+We ship on Monday.\n" in read["diff_now"]
    assert " The very end.\n" in read["diff_now"] and " The end.\n" in read["diff"]  # context
    [item] = [s for s in pending["suggested_changes"]["items"] if s["id"] == made["id"]]
    assert item["diff_now"] == read["diff_now"]


def test_a_suggestion_that_no_longer_applies_answers_diff_now_null(app: InProcessServer) -> None:
    address = unique("wiki:diff-now/")
    app.create_page(address, "We ship on Friday.\n", title="Plan")
    made = suggest(app, address, "on Friday", "on Monday")
    app.edit_page(address, [{"op": "replace", "old": "on Friday", "new": "on Sunday"}])
    with app.api("writer") as writer:
        read = writer.get(f"/api/v1/suggestions/{made['id']}").json()
    assert (read["applies"], read["diff_now"]) == (False, None)
