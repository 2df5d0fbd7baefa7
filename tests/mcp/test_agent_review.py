"""The review task an agent does over MCP, as `decision-check` would, with the SDK's own client
on both databases: every call answers something a model can act on, and none fails.

List the records (the folder named as a model names it, without its slash), read them, see its
own suggestions, suggest the missing sections, write a run page linking them; an editor decides
two; then the agent learns what became of them and what is new since its last run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client import Client
from mcp.types import CallToolResult, TextContent

from tests.conftest import InProcessServer, unique

pytestmark = pytest.mark.anyio

COMPLETE = """\
**Status:** Accepted · 2026-05-04

## Context

Pages are Markdown.

## Decision

Keep them as Markdown.

## Consequences

Everything is text.

## Alternatives rejected

A rich-text store: nothing diffs it.
"""
GAPS = """\
**Status:** Proposed · 2026-05-05

## Context

Agents find gaps.

## Decision

Agents suggest; people decide.
"""
MISSING = {
    "Consequences": "What follows from this decision: to fill in.",
    "Alternatives rejected": "What else was considered, and why not: to fill in.",
}


class Calls:
    """Every call of one member, checked as a model reads it: a text block of compact JSON,
    the same as the structured answer, never empty, never an error."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.read = 0

    async def __call__(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result: CallToolResult = await self.client.call_tool(tool, arguments)
        text = "".join(c.text for c in result.content if isinstance(c, TextContent))
        assert not result.is_error, (tool, text)
        assert text.strip() and result.structured_content, (tool, arguments)
        assert json.loads(text) == result.structured_content, tool
        assert "null" not in text.replace('"null"', ""), (tool, text)
        self.read += len(text)
        return result.structured_content


async def test_an_agent_reviews_decision_records_and_learns_what_became_of_its_suggestions(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:records-")
    complete, gaps = f"{folder}/0001-markdown", f"{folder}/0002-agents-suggest"
    app.create_page(complete, COMPLETE, title="0001 · Markdown pages")
    app.create_page(gaps, GAPS, title="0002 · Agents suggest")
    run = unique("output:checker/runs/")

    async with app.mcp("agent") as client:
        agent = Calls(client)
        latest = (await agent("inbox")).get("latest")
        since = {"after": latest} if latest else {}  # the first run sees everything
        listed = await agent("list_documents", address=folder)  # no trailing slash
        found = [p["address"] for p in listed["pages"]]
        assert found == [complete, gaps]
        read = await agent("read_document", address=found)
        assert [p["editable"] for p in read["pages"]] == [False, False]
        before = await agent("list_suggestions", address=folder)
        assert before["suggestions"] == [] and folder in before["note"]
        made = []
        for heading, line in MISSING.items():
            answer = await agent(
                "suggest_edit",
                address=gaps,
                edits=[{"op": "append", "text": f"## {heading}\n\n{line}"}],
                reason=f"A decision record has a {heading} section; this one has none.",
            )
            assert "body" not in answer and f"+## {heading}" in answer["diff"]
            made.append(answer)
        links = "\n".join(
            f"- [change {m['suggestion_id']}]({m['url']}) on [0002]({gaps})" for m in made
        )
        page = await agent(
            "create_document",
            address=run,
            title="decision-check run",
            body=f"# Run\n\nLooked at {len(found)} records.\n\n{links}\n",
        )
        assert page["version"] == 1
    ids = [m["suggestion_id"] for m in made]

    async with app.mcp("writer") as client:
        editor = Calls(client)
        waiting = await editor("pending_decisions", kind="change", limit=200)
        assert set(ids) <= {s["suggestion_id"] for s in waiting["changes"]}
        await editor("decide_edit_suggestion", suggestion_id=ids[0], decision="accept")
        await editor(
            "decide_edit_suggestion",
            suggestion_id=ids[1],
            decision="reject",
            reason="We list no alternatives in a proposal.",
        )

    async with app.mcp("agent") as client:
        agent = Calls(client)
        outcome = await agent("list_suggestions", address=folder)
        statuses = {
            (s["kind"], s["suggestion_id"]): (s["status"], s.get("decision_reason"))
            for s in outcome["suggestions"]
        }
        assert statuses == {
            ("change", ids[0]): ("accepted", None),
            ("change", ids[1]): ("rejected", "We list no alternatives in a proposal."),
        }
        new = await agent("inbox", **since)
        assert {(d["kind"], d["suggestion_id"], d["status"]) for d in new["decisions"]} == {
            ("change", ids[0], "accepted"),
            ("change", ids[1], "rejected"),
        }
        await agent("mark_read", ids=[d["id"] for d in new["decisions"]])
        later = await agent("inbox", after=new["latest"])
        assert later["decisions"] == [] and "No decisions" in later["note"]
        record = (await agent("read_document", address=gaps))["pages"][0]
        # The accepted section is a heading of its own, a blank line after the paragraph.
        assert "Agents suggest; people decide.\n\n## Consequences\n\n" in record["body"]
