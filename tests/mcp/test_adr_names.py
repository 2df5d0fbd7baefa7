"""The MCP names ADR 0024 and SPEC 7 give are a contract: a client written from their wording
finds each tool, with each argument, for every member who may use it.

The names are written here as data, copied from the two texts, never read from the server:
renaming a tool or an argument away fails this test, while tools and arguments added beside
them do not.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import InProcessServer

pytestmark = pytest.mark.anyio

# Each tool the ADR and SPEC 7 name, with the arguments they name for it: required (True) or
# optional (False).
NAMED: dict[str, dict[str, bool]] = {
    "search_documents": {},
    "list_documents": {},
    "read_document": {"address": True},
    "document_history": {"address": True},
    "read_revision": {"address": True, "version": True},
    "create_document": {"address": True},
    "edit_document": {
        "address": True,
        "edits": False,
        "title": False,
        "tags": False,
        "summary": False,
        "base_version": False,
        "dry_run": False,
    },
    "revert_document": {"address": True},
    "suggest_link": {"address": True, "reason": True},
    "decide_link_suggestion": {"suggestion_id": True, "decision": True, "reason": False},
    "suggest_edit": {
        "address": True,
        "edits": False,
        "title": False,
        "tags": False,
        "reason": True,
        "base_version": False,
        "dry_run": False,
    },
    "list_suggestions": {"address": False, "status": False},
    "withdraw_suggestion": {"suggestion_id": True},
    "decide_edit_suggestion": {"suggestion_id": True, "decision": True, "reason": False},
    "pending_decisions": {},
    "inbox": {},
}
# SPEC 7: an agent member's tool list is only what it may use (reading, suggest_link,
# suggest_edit, list_suggestions, withdraw_suggestion, inbox, and writing its own output
# pages); it never decides.
AGENT_MAY = {
    "search_documents",
    "list_documents",
    "read_document",
    "document_history",
    "read_revision",
    "suggest_link",
    "suggest_edit",
    "list_suggestions",
    "withdraw_suggestion",
    "inbox",
    "create_document",
    "edit_document",
}
DECIDING = {"decide_edit_suggestion", "decide_link_suggestion", "pending_decisions"}
# A person with read only: everything a reader may do, deciding and editing never.
READER_MAY = AGENT_MAY - {"create_document", "edit_document"}
MAY = {
    "agent": AGENT_MAY,
    "reader": READER_MAY,
    "writer": set(NAMED),
    "admin": set(NAMED),
}


async def _tools(app: InProcessServer, role: str) -> dict[str, dict[str, Any]]:
    async with app.mcp(role) as client:
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}


@pytest.mark.parametrize("role", sorted(MAY))
async def test_every_named_tool_is_listed_with_its_named_arguments(
    app: InProcessServer, role: str
) -> None:
    listed = await _tools(app, role)
    for tool in sorted(MAY[role]):
        assert tool in listed, f"{role}'s tools/list has no {tool}"
        properties = listed[tool].get("properties", {})
        required = set(listed[tool].get("required", []))
        for argument, needed in NAMED[tool].items():
            assert argument in properties, f"{tool} takes no {argument}"
            assert (argument in required) == needed, f"{tool}'s {argument}: required {needed}"


async def test_suggestion_ids_are_integers_and_a_link_is_withdrawn_by_a_tool_named_for_links(
    app: InProcessServer,
) -> None:
    listed = await _tools(app, "writer")
    for tool, schema in listed.items():
        if "suggestion_id" in schema.get("properties", {}):
            assert schema["properties"]["suggestion_id"]["type"] == "integer", tool
    withdraws_links = [
        name
        for name, schema in listed.items()
        if "withdraw" in name and "link" in name and "suggestion_id" in schema["properties"]
    ]
    assert withdraws_links, "no tool whose name says link withdraws a suggested link"


async def test_an_agent_lists_no_tool_that_decides(app: InProcessServer) -> None:
    listed = await _tools(app, "agent")
    assert not DECIDING & set(listed)
    assert not [name for name in listed if name.startswith("decide")]
