"""What a newcomer meets when `codna serve` starts: the address it prints (once the port is
bound) is the one every suggestion's url uses, and the log has one line per request."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import fresh_database, seed, structured, unique
from tests.server.conftest import running_server


def test_the_printed_address_is_the_one_suggestions_link_to_and_each_request_logs_one_line(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    with fresh_database("sqlite", request, tmp_path_factory) as url:
        workspace = seed(url)
        with running_server(workspace, "sqlite", tmp_path) as server:
            address = unique()
            server.create_page(address, "Tea at four.\n")
            edits = [{"op": "replace", "old": "four", "new": "five"}]

            async def suggest() -> dict[str, Any]:
                async with server.mcp("agent") as agent:
                    arguments = {"address": address, "edits": edits, "reason": "Later."}
                    return structured(await agent.call_tool("suggest_edit", arguments))

            made = anyio.run(suggest)
            with server.api("agent") as agent:
                for _ in range(3):
                    assert agent.get("/api/v1/me").status_code == 200
            time.sleep(0.5)  # the log is written as the answers go out
            [log] = tmp_path.glob("serve-*.log")
            lines = log.read_text().splitlines()
    base = f"http://127.0.0.1:{server.port}/"
    announced = [line for line in lines if line.startswith("CoDNA on ")]
    assert announced == [f"CoDNA on {base} — the web UI at /, the API at /api/v1, MCP at /mcp"]
    assert made["url"].startswith(f"{base}suggestions/wiki/"), made["url"]
    assert sum('"GET /api/v1/me HTTP/1.1" 200' in line for line in lines) == 3
    # A stateless MCP call is its requests' access lines, and nothing of the SDK's own.
    mcp = [line for line in lines if "mcp" in line.lower() and "CoDNA on" not in line]
    assert mcp and all('"POST /mcp' in line for line in mcp), mcp
