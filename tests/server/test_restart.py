"""What a server decided outlives its process: a rejection made before a restart (SIGTERM,
then a new `codna serve` on the same database) still refuses the same edits after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ENGINES, fresh_database, refusal, seed, structured, unique
from tests.server.conftest import Server, running_server

pytestmark = pytest.mark.anyio
LIMITS = [{"op": "append", "text": "## Limits\n\nAt most 20 waiting per page."}]


async def call(server: Server, role: str, tool: str, **arguments: Any) -> Any:
    async with server.mcp(role) as client:
        return await client.call_tool(tool, arguments)


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_rejection_holds_after_a_restart(
    engine: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with fresh_database(engine, request, tmp_path_factory) as url:
        workspace = seed(url, spare=())
        logs: Path = tmp_path_factory.mktemp("restart")
        with running_server(workspace, engine, logs) as first:
            address = unique("wiki:decisions/")
            first.create_page(address, "**Status:** Accepted\n", title="0024 Suggested changes")
            made = structured(
                await call(
                    first, "agent", "suggest_edit", address=address, edits=LIMITS, reason="r"
                )
            )
            decided = await call(
                first,
                "writer",
                "decide_edit_suggestion",
                suggestion_id=made["suggestion_id"],
                decision="reject",
            )
            assert structured(decided)["status"] == "rejected"
        with running_server(workspace, engine, logs) as second:
            again = await call(
                second, "agent", "suggest_edit", address=address, edits=LIMITS, reason="again"
            )
            refused = refusal(again)
            assert (refused["code"], refused["suggestion_id"]) == (
                "rejected_before",
                made["suggestion_id"],
            )
