"""Listing suggested links through the JSON API: one's own with their status, a page's for its
editors, a folder's; withdrawing one that waits; a revert shown on the accepted link."""

from __future__ import annotations

from typing import Any

from tests.conftest import InProcessServer, unique


def listed(app: InProcessServer, role: str | None, **params: object) -> tuple[int, Any]:
    with app.api(role) as client:
        answer = client.get("/api/v1/links", params=params)
    return answer.status_code, answer.json()


def post(app: InProcessServer, role: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    with app.api(role) as client:
        answer = client.post(path, json=body)
    assert answer.status_code in (200, 201), answer.text
    made: dict[str, Any] = answer.json()
    return made


def test_links_are_listed_by_page_folder_and_status_as_each_caller_may_see_them(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:link-lists/") + "/"
    a, b, c = (f"{folder}{name}" for name in "abc")
    app.create_page(a, "# A\n\nSee the guide.\n", title="A")
    app.create_page(b, "# B\n", title="The guide")
    app.create_page(c, "# C\n", title="Words")
    by_agent = post(app, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "G."})
    by_reader = post(app, "reader", "/api/v1/links", {"address": a, "target": c, "reason": "W."})
    status, on_a = listed(app, "writer", address=a)
    assert status == 200
    assert [x["id"] for x in on_a] == [by_reader["id"], by_agent["id"]]
    assert [x["id"] for x in listed(app, "agent", address=a)[1]] == [by_agent["id"]]
    assert [x["id"] for x in listed(app, "writer", address=folder)[1]] == [
        by_reader["id"],
        by_agent["id"],
    ]
    assert [x["id"] for x in listed(app, "writer", address=folder, limit=1, offset=1)[1]] == [
        by_agent["id"]
    ]
    post(app, "agent", f"/api/v1/links/{by_agent['id']}/withdraw", {})
    [mine] = listed(app, "agent", address=a, status="withdrawn")[1]
    assert (mine["id"], mine["status"], mine["reverted_in_version"]) == (
        by_agent["id"],
        "withdrawn",
        None,
    )
    assert listed(app, "agent", address=a, status="pending")[1] == []


def test_a_reverted_link_lists_with_the_version_that_undid_it(app: InProcessServer) -> None:
    a, b = unique("wiki:link-lists/"), unique("wiki:link-lists/")
    app.create_page(a, "# A\n\nSee the guide.\n", title="A")
    app.create_page(b, "# B\n", title="The guide")
    link = post(
        app,
        "agent",
        "/api/v1/links",
        {"address": a, "target": b, "anchor": "guide", "reason": "G."},
    )
    post(app, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"})
    post(app, "writer", "/api/v1/page/revert", {"address": a, "version": 2})
    [mine] = listed(app, "agent", address=a)[1]
    assert (mine["status"], mine["accepted_version"], mine["reverted_in_version"]) == (
        "accepted",
        2,
        3,
    )
    with app.api("agent") as client:
        one = client.get(f"/api/v1/links/{link['id']}").json()
    assert one["reverted_in_version"] == 3


def test_bad_listing_requests_are_refused_with_a_stable_code(app: InProcessServer) -> None:
    hidden = unique("wiki:link-lists/")
    app.create_page(hidden, "# H\n", title="Hidden")
    cases = [
        ({"status": "waiting"}, 422, "invalid_request"),
        ({"limit": 0}, 422, "invalid_request"),
        ({"limit": 201}, 422, "invalid_request"),
        ({"offset": -1}, 422, "invalid_request"),
        ({"address": "nowhere:x"}, 422, "invalid_request"),
    ]
    for params, expected, code in cases:
        status, error = listed(app, "reader", **params)
        assert (status, error["code"]) == (expected, code), params
    status, error = listed(app, "stranger", address=hidden)
    assert (status, error["code"]) == (404, "not_found")
    assert listed(app, None, address=hidden)[0] == 401
