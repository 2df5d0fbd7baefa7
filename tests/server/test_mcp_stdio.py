"""MCP over stdio through `codna mcp --token`, with the SDK's own client, on both databases.

The stdio server works on the same database as the running HTTP server, so what one saves
the other reads.
"""

from __future__ import annotations

import subprocess

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import one_page, refusal, structured, unique
from tests.mcp.test_adr_lifecycle import DECIDING, SdkNames, lifecycle
from tests.server.conftest import CODNA, Server, server_env

pytestmark = pytest.mark.anyio

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


def stdio(server: Server, token: str) -> Client:
    return Client(
        StdioServerParameters(
            command=CODNA,
            args=["mcp", "--token", token],
            env=server_env(server.workspace.url),
        ),
        read_timeout_seconds=60,
    )


async def test_a_person_over_stdio_lists_every_tool_reads_and_edits_until_the_token_is_revoked(
    server: Server,
) -> None:
    address = unique()
    server.create_page(address, BODY)
    async with stdio(server, server.token("revoke-stdio")) as mcp:
        tools = {tool.name for tool in (await mcp.list_tools()).tools}
        assert {"read_document", "edit_document", "revert_document"} <= tools
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert (page["body"], page["version"]) == (BODY, 1)
        dry = structured(
            await mcp.call_tool(
                "edit_document", {"address": address, "edits": TWELVE, "dry_run": True}
            )
        )
        assert dry["saved"] is False and "+At most twelve." in dry["diff"]
        saved = structured(
            await mcp.call_tool(
                "edit_document", {"address": address, "edits": TWELVE, "base_version": 1}
            )
        )
        assert saved["version"] == 2
        stale = refusal(
            await mcp.call_tool(
                "edit_document", {"address": address, "edits": TWELVE, "base_version": 1}
            )
        )
        assert (stale["code"], stale["current_version"]) == ("conflict", 2)
        with server.api("admin") as admin:
            seen = admin.get("/api/v1/page", params={"address": address}).json()
            assert (seen["version"], seen["body"]) == (2, BODY.replace("ten", "twelve"))
            token_id = server.workspace.token_ids["revoke-stdio"]
            done = admin.post("/api/v1/tokens/revoke", json={"token_id": token_id})
            assert done.status_code == 200, done.text
        # Revocation holds on the very next call, without restarting `codna mcp`.
        error = refusal(await mcp.call_tool("read_document", {"address": address}))
        assert error["code"] == "unauthenticated"


async def test_an_agent_over_stdio_sees_fewer_tools_and_lives_the_whole_life_of_suggestions(
    server: Server,
) -> None:
    """One `codna mcp` for the agent and one for the writer (each costs seconds to start).
    The agent's, first alone: it lists reading and editing but no tool that decides, reads a
    page but is refused editing it (read_only), is told an unknown tool is not_found, and each
    tool that decides, called anyway, is refused (read_only) naming suggest_edit instead. Then
    the scenario of tests/mcp/test_adr_lifecycle.py, the agent suggesting and the writer
    deciding, by the texts' names."""
    address = unique()
    server.create_page(address, BODY)
    agent, writer = stdio(server, server.token("agent")), stdio(server, server.token("writer"))
    async with agent as as_agent, writer as as_writer:
        tools = {tool.name for tool in (await as_agent.list_tools()).tools}
        assert {"read_document", "edit_document"} <= tools
        assert not DECIDING & tools and not [n for n in tools if n.startswith("decide")]
        read = one_page(await as_agent.call_tool("read_document", {"address": address}))
        assert read["body"] == BODY
        error = refusal(
            await as_agent.call_tool("edit_document", {"address": address, "edits": TWELVE})
        )
        assert error["code"] == "read_only"
        unknown = refusal(await as_agent.call_tool("no_such_tool", {"address": address}))
        assert unknown["code"] == "not_found"
        for name in sorted(DECIDING):  # agents never decide, and are told what to do instead
            hidden = refusal(await as_agent.call_tool(name, {"address": address, "version": 1}))
            assert (hidden["code"], hidden["tool"]) == ("read_only", name)
            assert "suggest_edit" in hidden["message"]

        await lifecycle(SdkNames({"agent": as_agent, "writer": as_writer}), server)


# Starting `codna mcp` costs seconds; the refusal does not depend on the engine.
@pytest.mark.parametrize("server", ["sqlite"], indirect=True)
def test_codna_mcp_refuses_to_start_with_a_wrong_token(server: Server) -> None:
    refused = subprocess.run(
        [CODNA, "mcp", "--token", "codna_wrong"],
        env=server_env(server.workspace.url),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert refused.returncode != 0
    assert refused.stderr.startswith("unauthenticated: "), refused.stderr
