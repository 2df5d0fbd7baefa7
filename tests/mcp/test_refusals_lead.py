"""Refusals that lead to the next call: an agent that reaches for a deciding tool is told that
agents never decide and what to call instead, a missing argument is named in a sentence, and a
suggestion names an agent as the revision accepting it will."""

from __future__ import annotations

import json

import pytest

from tests.conftest import InProcessServer, refusal, structured, unique

pytestmark = pytest.mark.anyio

BODY = "# Guide\n\n**Status:** Proposed\n"


async def test_an_agent_calling_a_deciding_tool_is_told_agents_never_decide(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as agent:
        refused = refusal(
            await agent.call_tool(
                "decide_edit_suggestion", {"suggestion_id": 1, "decision": "accept"}
            )
        )
        listed = {tool.name for tool in (await agent.list_tools()).tools}
    assert refused["code"] == "read_only" and refused["tool"] == "decide_edit_suggestion"
    said = refused["message"]
    assert "never decide" in said and "suggest_edit" in said and "list_suggestions" in said
    assert "decide_edit_suggestion" not in listed and {"suggest_edit", "list_suggestions"} <= listed


async def test_a_tool_that_does_not_exist_is_no_such_tool_for_an_agent_too(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as agent:
        refused = refusal(await agent.call_tool("decide_suggestion", {"suggestion_id": 1}))
    assert refused["code"] == "not_found" and "no such tool" in refused["message"]


async def test_a_missing_argument_is_named_in_a_sentence(app: InProcessServer) -> None:
    async with app.mcp("writer") as writer:
        refused = refusal(await writer.call_tool("suggest_edit", {"address": unique()}))
    assert refused["code"] == "invalid_request" and refused["field"] == "reason"
    assert refused["message"].startswith("suggest_edit needs the argument reason,")
    assert "Field required" not in refused["message"]


async def test_a_suggestion_names_an_agent_as_its_accepted_revision_will(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    edits = [{"op": "replace", "old": "Proposed", "new": "Accepted"}]
    async with app.mcp("agent") as agent:
        made = structured(
            await agent.call_tool(
                "suggest_edit", {"address": address, "edits": edits, "reason": "It was adopted."}
            )
        )
    async with app.mcp("writer") as writer:
        (listed,) = structured(await writer.call_tool("list_suggestions", {"address": address}))[
            "suggestions"
        ]
        structured(
            await writer.call_tool(
                "decide_edit_suggestion",
                {"suggestion_id": made["suggestion_id"], "decision": "accept"},
            )
        )
        history = structured(await writer.call_tool("document_history", {"address": address}))
    assert listed["by"] == "checker (agent)"
    assert history["revisions"][0]["summary"].startswith("Suggested by checker (agent):")


async def test_a_text_not_on_the_page_names_the_one_meant_over_mcp_and_the_api(
    app: InProcessServer,
) -> None:
    # Each way a text can differ is tested in tests/services/pages/test_pages.py; here, one
    # hint (with a line break to quote) as both interfaces give it.
    old, meant = "# Guide **Status:**", "# Guide\n\n**Status:**"
    address = unique()
    app.create_page(address, BODY)
    edits = [{"op": "replace", "old": old, "new": "x"}]
    async with app.mcp("writer") as writer:
        over_mcp = refusal(
            await writer.call_tool("edit_document", {"address": address, "edits": edits})
        )
    with app.api("writer") as api:
        over_api = api.post("/api/v1/page/edit", json={"address": address, "edits": edits})
    for refused in (over_mcp, over_api.json()):
        assert refused["reason"] == "text_not_found"
        assert f"Did you mean {json.dumps(meant)}?" in refused["message"]


async def test_no_hint_when_the_loose_text_is_on_the_page_twice(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, "Alpha beta.\n\nALPHA  BETA.\n")
    edits = [{"op": "replace", "old": "alpha beta", "new": "x"}]
    async with app.mcp("writer") as writer:
        refused = refusal(
            await writer.call_tool("edit_document", {"address": address, "edits": edits})
        )
    assert refused["reason"] == "text_not_found" and "Did you mean" not in refused["message"]


async def test_base_version_does_what_its_description_says(app: InProcessServer) -> None:
    address = unique()
    app.create_page(address, BODY)
    app.edit_page(address, [{"op": "append", "text": "More.\n"}])  # now at version 2
    edits = [{"op": "replace", "old": "Proposed", "new": "Accepted"}]
    async with app.mcp("reader") as reader:
        tools = {tool.name: tool for tool in (await reader.list_tools()).tools}
        said = tools["suggest_edit"].input_schema["properties"]["base_version"]["description"]
        made = structured(
            await reader.call_tool(
                "suggest_edit",
                {"address": address, "edits": edits, "reason": "Adopted.", "base_version": 1},
            )
        )
    assert "apply to it and now" in said and "refused" not in said
    assert made["saved"] is True and made["suggestion_id"]
    async with app.mcp("writer") as writer:
        tools = {tool.name: tool for tool in (await writer.list_tools()).tools}
        said = tools["edit_document"].input_schema["properties"]["base_version"]["description"]
        stale = refusal(
            await writer.call_tool(
                "edit_document", {"address": address, "edits": edits, "base_version": 1}
            )
        )
    assert "refused (conflict)" in said and stale["code"] == "conflict"
