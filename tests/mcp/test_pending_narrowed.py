"""pending_decisions over MCP, narrowed to a folder or a page as list_suggestions is."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import InProcessServer, refusal, structured

pytestmark = pytest.mark.anyio


async def test_pending_decisions_narrowed_to_a_folder_and_a_page(app: InProcessServer) -> None:
    folder = f"wiki:pending{uuid.uuid4().hex[:8]}/"
    here, there = f"{folder}a", f"{folder}sub/b"
    for address in (here, there):
        app.create_page(address, "Text.\n")
    async with app.mcp("reader") as reader:
        for address in (here, there):
            structured(
                await reader.call_tool(
                    "suggest_edit",
                    {
                        "address": address,
                        "edits": [{"op": "append", "text": "More."}],
                        "reason": "Say more.",
                    },
                )
            )
    async with app.mcp("writer") as writer:
        everything = structured(await writer.call_tool("pending_decisions", {"address": folder}))
        one = structured(await writer.call_tool("pending_decisions", {"address": there}))
        nothing = refusal(
            await writer.call_tool("pending_decisions", {"address": f"{folder}nowhere"})
        )
    assert {c["page"] for c in everything["changes"]} == {here, there}
    assert everything["changes_total"] == 2
    assert [c["page"] for c in one["changes"]] == [there] and one["changes_total"] == 1
    assert nothing["code"] == "not_found"


async def test_a_diff_that_says_the_same_as_another_is_sent_once(app: InProcessServer) -> None:
    folder = f"wiki:pending{uuid.uuid4().hex[:8]}/"
    far, near = f"{folder}far", f"{folder}near"
    body = "# Page\n\n" + "".join(f"Line {n}.\n\n" for n in range(12)) + "**Status:** Proposed\n"
    for address in (far, near):
        app.create_page(address, body)
    edits = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]
    async with app.mcp("reader") as reader:
        for address in (far, near):
            structured(
                await reader.call_tool(
                    "suggest_edit", {"address": address, "edits": edits, "reason": "Adopted."}
                )
            )
    # One page moves on far from the change (only its line numbers move), the other next to it.
    app.edit_page(far, [{"op": "insert_after", "anchor": "# Page\n", "text": "\nIntro.\n"}])
    app.edit_page(near, [{"op": "replace", "old": "Line 11.", "new": "Line eleven."}])
    async with app.mcp("writer") as writer:
        waiting = structured(await writer.call_tool("pending_decisions", {"address": folder}))
    by_page = {c["page"]: c for c in waiting["changes"]}
    assert "diff_now" not in by_page[far] and by_page[far]["diff"]
    assert by_page[near]["diff_now"] and by_page[near]["diff_now"] != by_page[near]["diff"]
