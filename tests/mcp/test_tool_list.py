"""What a model reads before it does anything: the tool list and the instructions, within their
budget, every tool titled, every argument and every field of a result described."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.types import Tool

from codna.mcp import answers, suggestion_answers
from tests.conftest import InProcessServer

pytestmark = pytest.mark.anyio

# Characters of compact JSON, about 4 a token: the budgets. Before they were set, an
# agent's list was 23,605 and a person's 28,941, and 47% of them was result schemas.
AGENT_BUDGET = 12_000
PERSON_BUDGET = 15_000


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


async def test_every_tool_has_a_title_and_every_argument_a_description(
    app: InProcessServer,
) -> None:
    for tool in await listed(app, "writer"):
        assert tool.title and tool.description, tool.name
        assert "\n" not in tool.description and "  " not in tool.description, tool.name
        for path, sub in fields(tool.input_schema):
            assert sub.get("description"), (tool.name, "argument", path)
        assert tool.output_schema == {"type": "object"}, tool.name


def test_every_field_of_every_answer_is_described_in_the_code_that_makes_it() -> None:
    """The tool list names no result field (RESULT_SCHEMA says why); the answers' models
    describe each one for whoever reads or changes them."""
    models = [m for m in vars(answers).values() if isinstance(m, type)]
    models += [m for m in vars(suggestion_answers).values() if isinstance(m, type)]
    shaped = [m for m in models if issubclass(m, answers.Answer) and m is not answers.Answer]
    assert len(shaped) > 10
    for model in shaped:
        for name, field in model.model_fields.items():
            assert field.description, (model.__name__, name)


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
