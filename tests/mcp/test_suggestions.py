"""Suggested changes over MCP, with the SDK's own client through the app's whole ASGI stack,
on SQLite and PostgreSQL: the ADR 0024 scenario end to end, and the rules an agent meets
through its tools."""

from __future__ import annotations

import pytest

from tests.conftest import InProcessServer, refusal, structured, unique

pytestmark = pytest.mark.anyio

RECORD = """\
**Status:** Accepted · 2026-10-27

## Context

Agents find gaps in decision records.

## Decision

A change can be suggested and accepted in one step.

## Consequences

Editors get a new kind of inbox item.
"""
WHAT_CHANGED = [
    {
        "op": "insert_before",
        "anchor": "## Consequences",
        "text": "## What changed\n\nAgents suggest instead of copying.\n\n",
    }
]
LIMITS = [{"op": "append", "text": "## Limits\n\nAt most 20 waiting per page."}]


def decision_page(app: InProcessServer) -> str:
    address = unique("wiki:decisions/")
    app.create_page(address, RECORD, title="0024 Suggested changes")
    return address


async def test_the_adr_scenario_end_to_end(app: InProcessServer) -> None:
    # An agent shared read-only on a decision page suggests two changes over MCP.
    address = decision_page(app)
    async with app.mcp("agent") as agent:
        tools = {t.name for t in (await agent.list_tools()).tools}
        assert {"suggest_edit", "list_suggestions", "withdraw_suggestion"} <= tools
        assert not {"decide_edit_suggestion", "decide_link_suggestion"} & tools
        edit = await agent.call_tool("edit_document", {"address": address, "edits": WHAT_CHANGED})
        assert refusal(edit)["code"] == "read_only"
        made = structured(
            await agent.call_tool(
                "suggest_edit",
                {
                    "address": address,
                    "edits": WHAT_CHANGED,
                    "reason": "add the What changed section",
                },
            )
        )
        first = made["suggestion_id"]
        second = structured(
            await agent.call_tool(
                "suggest_edit",
                {"address": address, "edits": LIMITS, "reason": "name the limits"},
            )
        )["suggestion_id"]
    space, _, path = address.partition(":")
    assert isinstance(first, int) and isinstance(second, int)
    assert made["url"].endswith(f"/suggestions/{space}/{path}#change-{first}")
    assert "+## What changed" in made["diff"] and "body" not in made
    # An editor sees them in pending_decisions with diffs ...
    async with app.mcp("writer") as editor:
        pending = structured(
            await editor.call_tool("pending_decisions", {"kind": "change", "limit": 200})
        )
        mine = {s["suggestion_id"]: s for s in pending["changes"] if s["page"] == address}
        assert {s["kind"] for s in mine.values()} == {"change"}
        assert set(mine) == {first, second}
        assert "+## What changed" in mine[first]["diff"]
        assert mine[first]["applies"] is True
        # ... accepts one and rejects the other with a reason.
        accepted = structured(
            await editor.call_tool(
                "decide_edit_suggestion", {"suggestion_id": first, "decision": "accept"}
            )
        )
        rejected = structured(
            await editor.call_tool(
                "decide_edit_suggestion",
                {
                    "suggestion_id": second,
                    "decision": "reject",
                    "reason": "Limits live elsewhere.",
                },
            )
        )
        assert (accepted["status"], rejected["status"]) == ("accepted", "rejected")
        assert (accepted["suggestion_id"], rejected["suggestion_id"]) == (first, second)
        # The page history shows one revision by the editor naming the agent and reason.
        history = structured(await editor.call_tool("document_history", {"address": address}))[
            "revisions"
        ]
    assert [(r["version"], r["kind"], r["author"], r["summary"]) for r in history] == [
        (
            2,
            "accept_suggestion",
            "Wanda",
            "Suggested by checker (agent): add the What changed section",
        ),
        (1, "create", "Wanda", "Created"),
    ]
    async with app.mcp("agent") as agent:
        # The agent's list_suggestions shows both statuses and the reason.
        listed = structured(await agent.call_tool("list_suggestions", {"address": address}))[
            "suggestions"
        ]
        statuses = {
            s["suggestion_id"]: (s["status"], s.get("decision_reason"))
            for s in listed
            if s["kind"] == "change"
        }
        assert statuses == {
            first: ("accepted", None),
            second: ("rejected", "Limits live elsewhere."),
        }
        # Suggesting the rejected edits again is refused.
        again = await agent.call_tool(
            "suggest_edit", {"address": address, "edits": LIMITS, "reason": "please"}
        )
        assert refusal(again)["code"] == "rejected_before"
        inbox = structured(await agent.call_tool("inbox", {}))
        assert {d["status"] for d in inbox["decisions"] if d["page"] == address} == {
            "accepted",
            "rejected",
        }


async def test_the_refusals_an_agent_meets_over_mcp(app: InProcessServer) -> None:
    address = decision_page(app)
    raw = app.import_raw(f"{unique('')}.md", "Source.\n")
    cases = [
        ({"address": address, "edits": LIMITS, "reason": ""}, "invalid_request"),
        (
            {
                "address": address,
                "edits": [{"op": "replace", "old": "nope", "new": "x"}],
                "reason": "r",
            },
            "invalid_edit",
        ),
        ({"address": raw["address"], "edits": LIMITS, "reason": "r"}, "read_only"),
        ({"address": "wiki:decisions/none-such", "edits": LIMITS, "reason": "r"}, "not_found"),
    ]
    async with app.mcp("agent") as agent:
        for arguments, code in cases:
            assert refusal(await agent.call_tool("suggest_edit", arguments))["code"] == code
        # The limit of 20 a page is tested in tests/services/suggestions/test_suggestions.py,
        # and how MCP answers a limit in tests/mcp/test_suggestion_rules.py.
        structured(
            await agent.call_tool(
                "suggest_edit",
                {"address": address, "edits": [{"op": "append", "text": "L0"}], "reason": "r"},
            )
        )
        listed = structured(
            await agent.call_tool("list_suggestions", {"address": address, "status": "pending"})
        )
        some = listed["suggestions"][0]["suggestion_id"]
    async with app.mcp("reader") as reader:  # another reader: it does not exist
        seen = structured(await reader.call_tool("list_suggestions", {"address": address}))
        assert seen["suggestions"] == []
        hidden = await reader.call_tool("withdraw_suggestion", {"suggestion_id": some})
        assert refusal(hidden)["code"] == "not_found"
    async with app.mcp("writer") as editor:  # an editor sees it, cannot withdraw it
        assert (
            refusal(await editor.call_tool("withdraw_suggestion", {"suggestion_id": some}))["code"]
            == "read_only"
        )
