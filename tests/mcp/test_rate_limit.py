"""Tool calls past the rate limit are refused as rate_limited, for that token only."""

from __future__ import annotations

import pytest

from tests.conftest import TIGHT_RATE_LIMIT, InProcessServer, refusal, structured, text_of

pytestmark = pytest.mark.anyio


async def test_a_flood_of_tool_calls_past_the_rate_limit_is_a_rate_limited_tool_error(
    tight_app: InProcessServer,
) -> None:
    async with tight_app.mcp("flood-mcp") as mcp:
        for _ in range(TIGHT_RATE_LIMIT):
            refused = refusal(await mcp.call_tool("read_document", {"address": "wiki:none"}))
            assert refused["code"] == "not_found"
        limited = await mcp.call_tool("read_document", {"address": "wiki:none"})
        error = refusal(limited)
        assert text_of(limited).startswith("rate_limited: ")
        assert error["code"] == "rate_limited" and error["retry_after"] >= 1
    async with tight_app.mcp("reader") as other:
        missing = refusal(await other.call_tool("read_document", {"address": "wiki:none"}))
        assert missing["code"] == "not_found"
        structured(await other.call_tool("list_documents", {}))
