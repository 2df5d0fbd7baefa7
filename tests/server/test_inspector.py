"""An independent client: the MCP Inspector's CLI from npm, over Streamable HTTP with a
bearer token. It runs on the SQLite server only: the client is what is under test here, and
each call costs seconds of Node.js start-up (the engines are covered by the SDK's client)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from tests.conftest import unique
from tests.server.conftest import Server

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
BODY = "# Inspected\n\nRead by an independent client.\n"
pytestmark = pytest.mark.parametrize("server", ["sqlite"], indirect=True)


def inspector(server: Server, role: str, *arguments: str) -> Any:
    """Run the Inspector CLI against the server as `role`; its JSON output."""
    npx = shutil.which("npx")
    if npx is None:
        if os.environ.get("CI"):
            pytest.fail("npx is missing: the MCP Inspector test needs Node.js and npm in CI")
        pytest.skip("npx is not installed (Node.js and npm); the MCP Inspector CLI needs it")
    done = subprocess.run(
        [
            npx,
            "-y",
            INSPECTOR,
            "--cli",
            server.mcp_url,
            "--transport",
            "http",
            "--header",
            f"Authorization: Bearer {server.token(role)}",
            *arguments,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def test_the_inspector_lists_a_persons_tools_and_fewer_for_an_agent(server: Server) -> None:
    people = {
        tool["name"] for tool in inspector(server, "writer", "--method", "tools/list")["tools"]
    }
    agents = {
        tool["name"] for tool in inspector(server, "agent", "--method", "tools/list")["tools"]
    }
    assert {"read_document", "edit_document", "revert_document"} <= people
    assert {"read_document", "edit_document"} <= agents
    assert "revert_document" in agents and "decide_suggestion" not in agents
    assert agents < people


def test_the_inspector_reads_a_page_with_a_bearer_token(server: Server) -> None:
    address = unique()
    server.create_page(address, BODY, title="Inspected")
    result = inspector(
        server,
        "reader",
        "--method",
        "tools/call",
        "--tool-name",
        "read_document",
        "--tool-arg",
        f"address={address}",
    )
    assert result.get("isError") is not True, result
    (page,) = result["structuredContent"]["pages"]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    assert (page["address"], page["title"], page["body"], page["version"]) == (
        address,
        "Inspected",
        BODY,
        1,
    )
    assert page["editable"] is False
