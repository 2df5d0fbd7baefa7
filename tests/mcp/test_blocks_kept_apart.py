"""An agent's insert of a heading after a paragraph, over MCP with the SDK's client, on both
databases: the heading is a block of its own, not glued to the paragraph."""

from __future__ import annotations

import pytest

from tests.conftest import InProcessServer, one_page, unique

pytestmark = pytest.mark.anyio

BODY = "# Decision\n\nWe use one queue for each one.\n\n## Other\n\nMore.\n"


async def test_a_heading_inserted_after_a_paragraph_is_kept_apart_over_mcp(
    app: InProcessServer,
) -> None:
    address = unique("output:checker/runs/")  # an agent writes pages in its own output
    edits = [
        {
            "op": "insert_after",
            "anchor": "We use one queue for each one.",
            "text": "## Consequences\n\n- one\n",
        }
    ]
    async with app.mcp("agent") as agent:
        made = await agent.call_tool(
            "create_document", {"address": address, "title": "Run", "body": BODY}
        )
        assert not made.is_error, made
        done = await agent.call_tool("edit_document", {"address": address, "edits": edits})
        assert not done.is_error, done
        page = one_page(await agent.call_tool("read_document", {"address": address}))
    assert page["body"] == (
        "# Decision\n\nWe use one queue for each one.\n\n## Consequences\n\n- one\n\n"
        "## Other\n\nMore.\n"
    )
