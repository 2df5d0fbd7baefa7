"""Listing suggested changes through the JSON API, like suggested links: by page, folder (its
slash may be left off) or space, as each caller may see them, with limit and offset, and with
the diff accepting each would make now when asked."""

from __future__ import annotations

from typing import Any

from tests.conftest import InProcessServer, unique

BODY = "# Plan\n\nWe ship on Friday.\n\nThe end.\n"


def listed(app: InProcessServer, role: str, **params: object) -> tuple[int, Any]:
    with app.api(role) as client:
        answer = client.get("/api/v1/suggestions", params=params)
    return answer.status_code, answer.json()


def suggest(app: InProcessServer, role: str, address: str, old: str, new: str) -> int:
    edits = [{"op": "replace", "old": old, "new": new}]
    with app.api(role) as client:
        made = client.post(
            "/api/v1/suggestions", json={"address": address, "edits": edits, "reason": "Fix."}
        )
    assert made.status_code == 201, made.text
    suggestion_id: int = made.json()["suggestion"]["id"]
    return suggestion_id


def test_suggestions_are_listed_by_page_folder_and_space_as_each_caller_may_see_them(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:suggestion-lists/")
    a, b = f"{folder}/a", f"{folder}/b"
    app.create_page(a, BODY, title="A")
    app.create_page(b, BODY, title="B")
    by_agent = suggest(app, "agent", a, "Friday", "Monday")
    by_reader = suggest(app, "reader", b, "Friday", "Sunday")
    for address in (f"{folder}/", folder):  # the slash may be left off
        status, found = listed(app, "writer", address=address)
        assert status == 200
        assert [s["id"] for s in found] == [by_reader, by_agent]
    assert [s["id"] for s in listed(app, "agent", address=folder)[1]] == [by_agent]
    assert [s["id"] for s in listed(app, "reader", address=a)[1]] == []
    assert [s["id"] for s in listed(app, "writer", address=folder, limit=1, offset=1)[1]] == [
        by_agent
    ]
    in_space = [s["id"] for s in listed(app, "writer", address="wiki", limit=200)[1]]
    assert by_reader in in_space and by_agent in in_space
    assert listed(app, "writer", address=f"{folder}/zz")[0] == 404
    assert listed(app, "writer", address=folder, offset=-1)[0] == 422


def test_diff_now_is_answered_when_asked_for(app: InProcessServer) -> None:
    address = unique("wiki:suggestion-lists/")
    app.create_page(address, BODY, title="Plan")
    made = suggest(app, "agent", address, "Friday", "Monday")
    app.edit_page(address, [{"op": "replace", "old": "The end.", "new": "The very end."}])
    [plain] = listed(app, "writer", address=address)[1]
    assert plain["id"] == made and plain["diff_now"] is None
    [asked] = listed(app, "writer", address=address, diff_now="true")[1]
    assert asked["diff_now"].startswith(f"--- {address} v2\n+++ {address} v3\n")
    assert "+We ship on Monday.\n" in asked["diff_now"]
