"""Suggested links and the inbox through the JSON API: every rule and refusal, and sixteen
decisions at once."""

from __future__ import annotations

from typing import Any

from tests.concurrency import at_once, unexpected
from tests.conftest import InProcessServer, unique


def two_pages(app: InProcessServer) -> tuple[str, str]:
    a, b = unique("wiki:links/"), unique("wiki:links/")
    app.create_page(a, "# A\n\nSee the guide.\n", title="A")
    app.create_page(b, "# B\n", title="The guide")
    return a, b


def post(
    app: InProcessServer, role: str, path: str, body: dict[str, Any]
) -> tuple[int, dict[str, Any]]:
    with app.api(role) as client:
        answer = client.post(path, json=body)
    return answer.status_code, answer.json()


def test_a_link_suggested_accepted_and_told_through_the_api(app: InProcessServer) -> None:
    a, b = two_pages(app)
    status, link = post(
        app,
        "agent",
        "/api/v1/links",
        {"address": a, "target": b, "anchor": "guide", "reason": "It is the guide."},
    )
    assert (status, link["status"]) == (201, "pending")
    with app.api("writer") as client:
        waiting = client.get("/api/v1/pending", params={"kind": "link", "limit": 200}).json()
    assert link["id"] in [item["id"] for item in waiting["suggested_links"]["items"]]
    status, decided = post(
        app, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"}
    )
    assert (status, decided["status"], decided["accepted_version"]) == (200, "accepted", 2)
    with app.api("writer") as client:
        page = client.get("/api/v1/page", params={"address": a}).json()
        history = client.get("/api/v1/page/history", params={"address": a}).json()
    assert f"See the [guide]({b})." in page["body"]
    assert (history[0]["kind"], history[0]["summary"]) == (
        "accept_link",
        "Suggested by checker (agent): It is the guide.",
    )
    with app.api("agent") as client:
        inbox = client.get("/api/v1/inbox").json()
    assert any(
        (d["kind"], d["suggestion_id"], d["status"]) == ("link_decided", link["id"], "accepted")
        for d in inbox["decisions"]
    )


def test_the_refusals_of_links_through_the_api(app: InProcessServer) -> None:
    a, b = two_pages(app)
    raw = app.import_raw(f"{unique('')}.md", "Source.\n")
    hidden = unique("wiki:links/")
    with app.api("admin") as client:
        client.post("/api/v1/pages", json={"address": hidden, "title": "Hidden"})
        client.post(
            "/api/v1/grants", json={"address": a, "member": "sam@example.com", "level": "read"}
        )
    cases = [
        ("stranger", {"address": a, "target": hidden, "reason": "r"}, 404),  # no read on B
        ("agent", {"address": raw["address"], "target": b, "reason": "r"}, 403),  # raw
        ("agent", {"address": a, "target": b, "reason": ""}, 422),  # no reason
    ]
    for role, body, expected in cases:
        status, error = post(app, role, "/api/v1/links", body)
        assert status == expected, error
    with app.api("admin") as client:  # the stranger reads nothing again, for the other tests
        taken = {"address": a, "member": "sam@example.com"}
        assert client.post("/api/v1/grants/delete", json=taken).status_code == 200
    status, link = post(
        app, "reader", "/api/v1/links", {"address": a, "target": b, "reason": "Good."}
    )
    assert status == 201
    assert (
        post(app, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "x"})[1]["code"]
        == "duplicate"
    )
    # someone else's: invisible to a reader, read only to an editor; deciding needs write on A
    assert post(app, "agent", f"/api/v1/links/{link['id']}/withdraw", {})[0] == 404
    assert post(app, "writer", f"/api/v1/links/{link['id']}/withdraw", {})[1]["code"] == (
        "read_only"
    )
    assert (
        post(app, "reader", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"})[1]["code"]
        == "read_only"
    )
    assert (
        post(
            app,
            "writer",
            f"/api/v1/links/{link['id']}/decide",
            {"decision": "reject", "reason": "No."},
        )[0]
        == 200
    )
    status, twice = post(
        app, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"}
    )
    assert (status, twice["code"], twice["status"]) == (409, "already_decided", "rejected")
    status, again = post(
        app, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "Again."}
    )
    assert (status, again["code"]) == (409, "rejected_before")


def test_sixteen_decisions_at_once_over_http_make_one_revision_and_no_5xx(
    app: InProcessServer,
) -> None:
    a, b = two_pages(app)
    _, link = post(app, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "Related."})

    def decide(n: int) -> tuple[int, dict[str, Any]]:
        decision = "accept" if n % 2 else "reject"
        return post(app, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": decision})

    # Sixteen requests in flight at once: the app answers each on its loop, and their service
    # calls run in its thread pool side by side, as under a real server.
    results = at_once([lambda n=n: decide(n) for n in range(16)])
    assert unexpected(results) == []
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * 15
    assert all(body["code"] == "already_decided" for status, body in results if status == 409)
    with app.api("writer") as client:
        history = client.get("/api/v1/page/history", params={"address": a}).json()
    winner = next(body for status, body in results if status == 200)
    assert len(history) == (2 if winner["status"] == "accepted" else 1)
