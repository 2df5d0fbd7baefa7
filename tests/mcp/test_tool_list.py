"""What a model reads before it does anything: the tool list and the instructions, within their
budget, every tool titled, every argument and every field of a result described."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.types import Tool

from tests.conftest import InProcessServer

pytestmark = pytest.mark.anyio

# Characters of compact JSON, about 4 a token. Before ADR 0024's and SPEC 7's names, 20,000
# (about 5,000 tokens) and 25,000. What the tools those texts add cost, as measured:
# read_revision and withdraw_link_suggestion 2,088, and a person's decide_link_suggestion
# 1,057 more. The rest of what the change added: every suggestion's integer suggestion_id and
# kind in the answers, the tags argument of edit_document and suggest_edit, suggest_link's
# dry_run: 876 (a person's, with decide_edit_suggestion's longer name and answer, 1,140).
# Saying which texts an insert keeps apart as blocks, and where: 216. Bounded reads (a
# section, a start, the text above the headings, how to go on): 430, on a list issue 30
# is to halve.
AGENT_BUDGET = 20_000 + 2_088 + 876 + 216 + 430
PERSON_BUDGET = 25_000 + 3_145 + 1_140


def size(tools: list[Tool]) -> int:
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    return len(json.dumps(listed, separators=(",", ":"), ensure_ascii=False))


def fields(schema: dict[str, Any], where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property of an object schema, its nested objects' and its $defs', by path."""
    for name, sub in schema.get("properties", {}).items():
        yield f"{where}{name}", sub
    for name, sub in schema.get("$defs", {}).items():
        yield from fields(sub, f"{where}{name}.")


async def listed(app: InProcessServer, role: str) -> list[Tool]:
    async with app.mcp(role) as client:
        return (await client.list_tools()).tools


async def test_the_tool_lists_an_agent_and_a_person_receive_stay_within_their_budgets(
    app: InProcessServer,
) -> None:
    agent, person = await listed(app, "agent"), await listed(app, "writer")
    assert size(agent) < AGENT_BUDGET, size(agent)
    assert size(person) < PERSON_BUDGET, size(person)


async def test_every_tool_has_a_title_and_every_argument_and_result_field_a_description(
    app: InProcessServer,
) -> None:
    for tool in await listed(app, "writer"):
        assert tool.title and tool.description, tool.name
        assert "\n" not in tool.description and "  " not in tool.description, tool.name
        for path, sub in fields(tool.input_schema):
            assert sub.get("description"), (tool.name, "argument", path)
        assert tool.output_schema is not None, tool.name
        for path, sub in fields(tool.output_schema):
            assert sub.get("description"), (tool.name, "result", path)


async def test_schemas_have_no_generated_titles_no_null_unions_and_no_null_defaults(
    app: InProcessServer,
) -> None:
    for tool in await listed(app, "writer"):
        for schema in (tool.input_schema, tool.output_schema or {}):
            text = json.dumps(schema)
            assert '"type": "null"' not in text, tool.name
            assert '"default": null' not in text, tool.name
            assert all("title" not in sub for _, sub in fields(schema)), tool.name


async def test_the_instructions_lead_to_reading_suggesting_output_links_and_outcomes(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as client:
        instructions = client.instructions or ""
    for needed in (
        "Read a page before",
        "suggest_edit",
        "editable",
        "output",
        "](wiki:",
        "list_suggestions",
        "inbox",
    ):
        assert needed in instructions, needed
    assert len(instructions) < 1_000
