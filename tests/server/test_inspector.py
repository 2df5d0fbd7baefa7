"""An independent client: the MCP Inspector's CLI from npm, over Streamable HTTP with a
bearer token. It runs on the SQLite server only: the client is what is under test here, and
each call costs a second of Node.js start-up (the engines are covered by the SDK's client).

The CLI makes one request per process, so each call is a process of its own. npx finds (or
fetches) the pinned package once per run; each call then starts the CLI's own executable,
which spares every call the second or two npx spends resolving the package again.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from typing import Any

import anyio
import pytest

from tests.conftest import unique
from tests.mcp.test_adr_lifecycle import DECIDING, lifecycle
from tests.server.conftest import Server

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
TOOL_ERROR = 5  # the CLI's exit status for an answer with isError, printed as any answer
BODY = "# Inspected\n\nRead by an independent client.\n"
pytestmark = pytest.mark.parametrize("server", ["sqlite"], indirect=True)


@functools.cache
def installed(npx: str) -> str:
    """The path of the Inspector's executable, as npx runs it: npx installs the pinned
    package into its cache if it is not there yet, and says where its executable is."""
    found = subprocess.run(
        [npx, "-y", "-p", INSPECTOR, "-c", "command -v mcp-inspector"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert found.returncode == 0, f"exit {found.returncode}\n{found.stdout}\n{found.stderr}"
    return found.stdout.strip()


def inspector(server: Server, role: str, *arguments: str, refusal: bool = False) -> Any:
    """Run the Inspector CLI against the server as `role`; its JSON output. `refusal`: the
    answer may be a tool's refusal (isError), which the CLI prints and exits TOOL_ERROR on."""
    npx = shutil.which("npx")
    if npx is None:
        if os.environ.get("CI"):
            pytest.fail("npx is missing: the MCP Inspector test needs Node.js and npm in CI")
        pytest.skip("npx is not installed (Node.js and npm); the MCP Inspector CLI needs it")
    done = subprocess.run(
        [
            installed(npx),
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
    allowed = (0, TOOL_ERROR) if refusal else (0,)
    assert done.returncode in allowed, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    answer = json.loads(done.stdout)
    if refusal:  # the exit status says whether the answer is one
        assert (answer.get("isError") is True) == (done.returncode == TOOL_ERROR), answer
    return answer


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


class InspectorNames:
    """The Inspector's CLI as a client of the texts' names: a process per call, run in a
    thread. Each argument is a `--tool-arg key=value`, the value as JSON unless it is text."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.listed: dict[str, set[str]] = {}  # each role's tools/list, as the CLI gave it

    async def tools(self, role: str) -> set[str]:
        listed = await anyio.to_thread.run_sync(
            lambda: inspector(self.server, role, "--method", "tools/list")
        )
        self.listed[role] = {tool["name"] for tool in listed["tools"]}
        return self.listed[role]

    async def call(self, role: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        pairs = [
            f"{key}={value if isinstance(value, str) else json.dumps(value)}"
            for key, value in arguments.items()
        ]
        command = ["--method", "tools/call", "--tool-name", tool]
        for pair in pairs:
            command += ["--tool-arg", pair]

        def run() -> tuple[bool, Any]:
            answer = inspector(self.server, role, *command, refusal=True)
            content = answer["structuredContent"]
            text = answer["content"][0]["text"]
            if answer.get("isError"):
                assert text == f"{content['code']}: {content['message']}", answer
                return True, content
            assert json.loads(text) == content, answer
            return False, content

        return await anyio.to_thread.run_sync(run)


@pytest.mark.anyio
async def test_the_whole_life_of_suggestions_by_the_texts_names_with_the_inspector(
    server: Server,
) -> None:
    """The scenario of tests/mcp/test_adr_lifecycle.py through the Inspector's CLI, and,
    from the tools/list it makes as an agent and as a writer (a person): the person lists
    reading, editing, reverting and every tool that decides; the agent lists reading, editing
    and reverting but none that decides, so strictly fewer tools than the person."""
    client = InspectorNames(server)
    await lifecycle(client, server)
    people, agents = client.listed["writer"], client.listed["agent"]
    assert {"read_document", "edit_document", "revert_document"} <= people
    assert {"read_document", "edit_document"} <= agents
    assert "revert_document" in agents and not DECIDING & agents
    assert people >= DECIDING
    assert agents < people
