"""document_history answers a window of a page's revisions: `limit` and `offset` as
list_documents takes them, and a note saying how to get the older ones whenever some are left
out (never when the first revision is in the answer), on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest

from codna.services.limits import HISTORY
from tests.api.test_history_window import saved
from tests.conftest import InProcessServer, refusal, structured

pytestmark = pytest.mark.anyio


async def history(app: InProcessServer, arguments: dict[str, Any]) -> dict[str, Any]:
    async with app.mcp("agent") as mcp:
        return structured(await mcp.call_tool("document_history", arguments))


async def test_a_history_window_says_how_to_get_the_older_revisions(
    app: InProcessServer,
) -> None:
    address = saved(app, 5)
    first = await history(app, {"address": address, "limit": 2})
    assert [r["version"] for r in first["revisions"]] == [5, 4]
    assert first["note"] == "Older ones are left out: pass offset=2."
    middle = await history(app, {"address": address, "limit": 2, "offset": 2})
    assert [r["version"] for r in middle["revisions"]] == [3, 2]
    assert middle["note"] == "Older ones are left out: pass offset=4."
    last = await history(app, {"address": address, "limit": 2, "offset": 4})
    assert [r["version"] for r in last["revisions"]] == [1]
    assert "note" not in last


async def test_a_whole_history_in_one_answer_has_no_note(app: InProcessServer) -> None:
    address = saved(app, 2)
    answer = await history(app, {"address": address, "limit": 2})
    assert [r["version"] for r in answer["revisions"]] == [2, 1]
    assert "note" not in answer


async def test_a_history_window_beyond_its_bounds_is_refused_as_invalid_request(
    app: InProcessServer,
) -> None:
    address = saved(app, 1)
    async with app.mcp("agent") as mcp:
        for window in ({"limit": HISTORY.most + 1}, {"limit": 0}, {"offset": -1}):
            result = await mcp.call_tool("document_history", {"address": address, **window})
            assert refusal(result)["code"] == "invalid_request", window
        tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
    arguments = tools["document_history"].input_schema["properties"]
    assert arguments["limit"]["maximum"] == HISTORY.most
    assert arguments["limit"]["default"] == HISTORY.to_model
    assert "minimum" not in arguments["offset"]  # 0 goes without saying; a refusal says it
