"""Suggested links and the inbox through MCP: an agent suggests, an editor decides, the agent
is told; a hidden decide tool is refused like an unknown one."""

from __future__ import annotations

import pytest

from tests.conftest import InProcessServer, refusal, structured, unique

pytestmark = pytest.mark.anyio


def two_pages(app: InProcessServer) -> tuple[str, str]:
    a, b = unique("wiki:links/"), unique("wiki:links/")
    app.create_page(a, "# A\n\nSee the guide.\n", title="A")
    app.create_page(b, "# B\n", title="The guide")
    return a, b


async def test_links_and_the_inbox_over_mcp(app: InProcessServer) -> None:
    a, b = two_pages(app)
    async with app.mcp("agent") as agent:
        names = {t.name for t in (await agent.list_tools()).tools}
        assert {"suggest_link", "withdraw_link_suggestion", "inbox"} <= names
        assert not {"decide_link_suggestion", "decide_edit_suggestion"} & names
        link = structured(
            await agent.call_tool("suggest_link", {"address": a, "target": b, "reason": "Related."})
        )
        again = await agent.call_tool(
            "suggest_link", {"address": a, "target": b, "reason": "Again."}
        )
        assert refusal(again)["code"] == "duplicate"
        number = link["suggestion_id"]
        assert isinstance(number, int) and link["saved"] is True
        hidden = await agent.call_tool(
            "decide_link_suggestion", {"suggestion_id": number, "decision": "accept"}
        )
        unknown = await agent.call_tool("no_such_tool", {})
        assert refusal(hidden)["code"] == "read_only"  # agents never decide, and are told so
        assert refusal(unknown)["code"] == "not_found"
    async with app.mcp("writer") as editor:
        pending = structured(
            await editor.call_tool("pending_decisions", {"kind": "link", "limit": 200})
        )
        assert ("link", number) in [(i["kind"], i["suggestion_id"]) for i in pending["links"]]
        decided = structured(
            await editor.call_tool(
                "decide_link_suggestion",
                {"suggestion_id": number, "decision": "reject", "reason": "Not related."},
            )
        )
        assert decided == {"suggestion_id": number, "kind": "link", "status": "rejected"}
        twice = await editor.call_tool(
            "decide_link_suggestion", {"suggestion_id": number, "decision": "accept"}
        )
        assert refusal(twice)["code"] == "already_decided"
    async with app.mcp("agent") as agent:
        inbox = structured(await agent.call_tool("inbox", {"limit": 200}))
        [note] = [
            d for d in inbox["decisions"] if (d["kind"], d.get("suggestion_id")) == ("link", number)
        ]
        assert (note["status"], note["reason"]) == ("rejected", "Not related.")
