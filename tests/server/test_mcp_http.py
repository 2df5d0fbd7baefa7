"""MCP over real Streamable HTTP (uvicorn, a socket) with the SDK's own client, on both
databases: a page read, dry-run edited, edited, its history kept and the edit reverted. The
tools' rules and refusals are tested in process (tests/mcp/)."""

from __future__ import annotations

import pytest

from tests.conftest import one_page, structured, unique
from tests.server.conftest import Server

pytestmark = pytest.mark.anyio

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n\n## Notes\n\nSee the limits.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


async def test_a_page_is_read_dry_run_edited_its_history_kept_and_the_edit_reverted(
    server: Server,
) -> None:
    address = unique()
    server.create_page(address, BODY)
    async with server.mcp("writer") as mcp:
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert (page["body"], page["version"], page["editable"]) == (BODY, 1, True)

        dry = structured(
            await mcp.call_tool(
                "edit_document",
                {"address": address, "edits": TWELVE, "base_version": 1, "dry_run": True},
            )
        )
        assert dry["saved"] is False
        assert "-At most ten." in dry["diff"] and "+At most twelve." in dry["diff"]
        unchanged = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert (unchanged["body"], unchanged["version"]) == (BODY, 1)

        saved = structured(
            await mcp.call_tool(
                "edit_document",
                {"address": address, "edits": TWELVE, "base_version": 1, "summary": "Twelve"},
            )
        )
        assert saved["saved"] is True and saved["version"] == 2
        assert "body" not in saved and "+At most twelve." in saved["diff"]

        history = structured(await mcp.call_tool("document_history", {"address": address}))
        assert [(r["version"], r["kind"], r["author"]) for r in history["revisions"]] == [
            (2, "edit", "Wanda"),
            (1, "create", "Wanda"),
        ]
        assert history["revisions"][0]["summary"] == "Twelve"

        reverted = structured(
            await mcp.call_tool("revert_document", {"address": address, "version": 2})
        )
        assert reverted["saved"] is True
        assert reverted["version"] == 3
        now = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert now["body"] == BODY
        older = one_page(await mcp.call_tool("read_document", {"address": address, "version": 2}))
        assert older["body"] == BODY.replace("ten", "twelve")
        kinds = structured(await mcp.call_tool("document_history", {"address": address}))
        assert [r["kind"] for r in kinds["revisions"]] == ["revert", "edit", "create"]
