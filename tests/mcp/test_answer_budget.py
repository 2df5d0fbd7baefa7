"""Every answer within ANSWER_CHARS as sent: a list keeps what fits and says the offset to go
on from; a diff keeps its first lines and says how much is left; edits too long to show are
left out, their diff saying what they do. Over MCP with the SDK's client, on both databases."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp.client import Client
from mcp.types import CallToolResult

from codna.mcp.budget import ANSWER_CHARS, LISTED_DIFF_CHARS
from tests.conftest import InProcessServer, structured, unique

pytestmark = pytest.mark.anyio

REASON = "The record should say what it weighed, which the team asked for in review. " * 6
BIG = "A line of the new section, long enough to make the diff grow past its share.\n" * 300


def sent(result: CallToolResult) -> int:
    return len(result.content[0].text)  # type: ignore[union-attr]


async def call(client: Client, tool: str, **arguments: Any) -> tuple[dict[str, Any], int]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return structured(result), sent(result)


async def test_the_largest_brief_list_is_cut_to_fit_and_says_where_to_go_on(
    app: InProcessServer,
) -> None:
    pages = [unique() for _ in range(3)]
    for address in pages:
        app.create_page(address, "# Record\n\nText.\n")
    async with app.mcp("agent") as agent:
        for address in pages:
            for n in range(20):  # the most that may wait per page
                await call(
                    agent,
                    "suggest_edit",
                    address=address,
                    edits=[{"op": "append", "text": f"Note {n}."}],
                    reason=REASON[: 480 - len(str(n))] + str(n),
                )
        brief, brief_size = await call(agent, "list_suggestions", kind="change")
        many, many_size = await call(agent, "list_suggestions", limit=60, kind="change")
        told = int(re.search(r"offset=(\d+)", many["note"])[1])  # type: ignore[index]
        rest, _ = await call(agent, "list_suggestions", limit=60, kind="change", offset=told)
    assert len(brief["suggestions"]) == 20 and brief_size <= ANSWER_CHARS
    assert 20 <= len(many["suggestions"]) < 60 and many_size <= ANSWER_CHARS
    assert told == len(many["suggestions"]) and "Cut to" in many["note"]
    ids = [s["suggestion_id"] for s in many["suggestions"] + rest["suggestions"]]
    assert len(set(ids)) == len(ids) and len(ids) > len(many["suggestions"])


async def test_pending_decisions_with_long_diffs_are_clipped_and_cut_to_fit(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "# Record\n\n## Context\n\nShort.\n")
    async with app.mcp("agent") as agent:
        for n in range(10):
            await call(
                agent,
                "suggest_edit",
                address=address,
                edits=[{"op": "replace_section", "heading": "Context", "body": f"{n}\n{BIG}"}],
                reason=f"Context, written out ({n}).",
            )
    async with app.mcp("writer") as writer:
        waiting, size = await call(writer, "pending_decisions", address=address)
        one = waiting["changes"][0]["suggestion_id"]
        full, full_size = await call(writer, "list_suggestions", suggestion_id=one)
    shown = waiting["changes"]
    assert size <= ANSWER_CHARS and 1 < len(shown) < 10 and waiting["changes_total"] == 10
    assert f"kind=change with offset={len(shown)}" in waiting["note"]
    for change in shown:
        assert len(change["diff"]) <= LISTED_DIFF_CHARS
        assert f"list_suggestions with suggestion_id={change['suggestion_id']}" in change["diff"]
    item = full["suggestions"][0]
    assert full_size <= ANSWER_CHARS and "edits" not in item
    assert "too long to show" in item["note"] and "more characters" in item["diff"]


async def test_the_diff_of_a_large_edit_is_clipped_and_says_what_is_left(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "# Plan\n\n## Steps\n\nOne.\n")
    edits = [{"op": "replace_section", "heading": "Steps", "body": BIG * 3}]
    async with app.mcp("writer") as writer:
        dry, dry_size = await call(
            writer, "edit_document", address=address, edits=edits, dry_run=True
        )
        done, done_size = await call(writer, "edit_document", address=address, edits=edits)
    assert dry_size <= ANSWER_CHARS and done_size <= ANSWER_CHARS
    left = int(re.search(r"… ([\d,]+) more characters", dry["diff"])[1].replace(",", ""))  # type: ignore[index]
    assert left > len(BIG) and dry["diff"].endswith("the edits say the rest.")
    assert done["diff"].endswith("read_document shows the page.") and done["version"] == 2
