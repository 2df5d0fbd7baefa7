"""Suggested links and the inbox through the JSON API and MCP on a real server: every rule and
refusal, and sixteen decisions at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.server.conftest import Server, mcp_over_http, refusal, structured, unique


def two_pages(server: Server) -> tuple[str, str]:
    a, b = unique("wiki:links/"), unique("wiki:links/")
    server.create_page(a, "# A\n\nSee the guide.\n", title="A")
    server.create_page(b, "# B\n", title="The guide")
    return a, b


def post(server: Server, role: str, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    with server.api(role) as client:
        answer = client.post(path, json=body)
    return answer.status_code, answer.json()


def test_a_link_suggested_accepted_and_told_through_the_api(server: Server) -> None:
    a, b = two_pages(server)
    status, link = post(
        server,
        "agent",
        "/api/v1/links",
        {"address": a, "target": b, "anchor": "guide", "reason": "It is the guide."},
    )
    assert (status, link["status"]) == (201, "pending")
    with server.api("writer") as client:
        waiting = client.get("/api/v1/pending", params={"kind": "link", "limit": 200}).json()
    assert link["id"] in [item["id"] for item in waiting["suggested_links"]["items"]]
    status, decided = post(
        server, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"}
    )
    assert (status, decided["status"], decided["accepted_version"]) == (200, "accepted", 2)
    with server.api("writer") as client:
        page = client.get("/api/v1/page", params={"address": a}).json()
        history = client.get("/api/v1/page/history", params={"address": a}).json()
    assert f"See the [guide]({b})." in page["body"]
    assert (history[0]["kind"], history[0]["summary"]) == (
        "accept_link",
        "Suggested by checker (agent): It is the guide.",
    )
    with server.api("agent") as client:
        inbox = client.get("/api/v1/inbox").json()
    assert any(
        d["suggestion_id"] == link["id"] and d["status"] == "accepted" for d in inbox["decisions"]
    )


def test_the_refusals_of_links_through_the_api(server: Server) -> None:
    a, b = two_pages(server)
    raw = server.import_raw(f"{unique('')}.md", "Source.\n")
    hidden = unique("wiki:links/")
    with server.api("admin") as client:
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
        status, error = post(server, role, "/api/v1/links", body)
        assert status == expected, error
    status, link = post(
        server, "reader", "/api/v1/links", {"address": a, "target": b, "reason": "Good."}
    )
    assert status == 201
    assert (
        post(server, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "x"})[1][
            "code"
        ]
        == "duplicate"
    )
    # someone else's: invisible to a reader, read only to an editor; deciding needs write on A
    assert post(server, "agent", f"/api/v1/links/{link['id']}/withdraw", {})[0] == 404
    assert (
        post(server, "writer", f"/api/v1/links/{link['id']}/withdraw", {})[1]["code"] == "read_only"
    )
    assert (
        post(server, "reader", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"})[1][
            "code"
        ]
        == "read_only"
    )
    assert (
        post(
            server,
            "writer",
            f"/api/v1/links/{link['id']}/decide",
            {"decision": "reject", "reason": "No."},
        )[0]
        == 200
    )
    status, twice = post(
        server, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": "accept"}
    )
    assert (status, twice["code"], twice["status"]) == (409, "already_decided", "rejected")
    status, again = post(
        server, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "Again."}
    )
    assert (status, again["code"]) == (409, "rejected_before")


def test_sixteen_decisions_at_once_over_http_make_one_revision_and_no_5xx(server: Server) -> None:
    a, b = two_pages(server)
    _, link = post(
        server, "agent", "/api/v1/links", {"address": a, "target": b, "reason": "Related."}
    )

    def decide(n: int) -> tuple[int, dict[str, Any]]:
        decision = "accept" if n % 2 else "reject"
        return post(server, "writer", f"/api/v1/links/{link['id']}/decide", {"decision": decision})

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(decide, range(16)))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * 15
    assert all(body["code"] == "already_decided" for status, body in results if status == 409)
    with server.api("writer") as client:
        history = client.get("/api/v1/page/history", params={"address": a}).json()
    winner = next(body for status, body in results if status == 200)
    assert len(history) == (2 if winner["status"] == "accepted" else 1)


@pytest.mark.anyio
async def test_links_and_the_inbox_over_mcp(server: Server) -> None:
    a, b = two_pages(server)
    async with mcp_over_http(server, "agent") as agent:
        names = {t.name for t in (await agent.list_tools()).tools}
        assert {"suggest_link", "inbox"} <= names and "decide_link_suggestion" not in names
        link = structured(
            await agent.call_tool("suggest_link", {"address": a, "target": b, "reason": "Related."})
        )
        again = await agent.call_tool(
            "suggest_link", {"address": a, "target": b, "reason": "Again."}
        )
        assert refusal(again)["code"] == "duplicate"
        hidden = await agent.call_tool(
            "decide_link_suggestion", {"suggestion_id": link["id"], "decision": "accept"}
        )
        unknown = await agent.call_tool("no_such_tool", {})
        assert refusal(hidden)["code"] == "not_found"
        assert refusal(hidden) == refusal(unknown)
    async with mcp_over_http(server, "writer") as editor:
        pending = structured(
            await editor.call_tool("pending_decisions", {"kind": "link", "limit": 200})
        )
        assert link["id"] in [i["id"] for i in pending["suggested_links"]["items"]]
        decided = structured(
            await editor.call_tool(
                "decide_link_suggestion",
                {"suggestion_id": link["id"], "decision": "reject", "reason": "Not related."},
            )
        )
        assert decided["status"] == "rejected"
        twice = await editor.call_tool(
            "decide_link_suggestion", {"suggestion_id": link["id"], "decision": "accept"}
        )
        assert refusal(twice)["code"] == "already_decided"
    async with mcp_over_http(server, "agent") as agent:
        inbox = structured(await agent.call_tool("inbox", {"limit": 200}))
        [note] = [d for d in inbox["decisions"] if d["suggestion_id"] == link["id"]]
        assert (note["status"], note["reason"]) == ("rejected", "Not related.")
