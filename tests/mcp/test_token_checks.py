"""The token is checked once per MCP request: over HTTP by the SDK's auth middleware; in process
(the server of `codna mcp --token` and of a built-in routine's run) by the server before the
tool runs, and never again by the tool. Counted as the statements that look a token up."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp.client import Client

from codna.mcp import build
from codna.services.members.ratelimit import RateLimiter
from tests.conftest import InProcessServer, refusal, structured, unique
from tests.statements import count_statements

pytestmark = pytest.mark.anyio


async def token_checks(app: InProcessServer, request: Callable[[], Awaitable[Any]]) -> int:
    """How many times the token was looked up while `request` ran."""
    with count_statements(app.database) as ran:
        await request()
    return sum("token_hash" in text for text in ran.texts)


@asynccontextmanager
async def in_process(app: InProcessServer, role: str) -> AsyncIterator[Client]:
    server = build.for_token(app.token(role), RateLimiter(100_000, 60))
    async with Client(server) as client:
        yield client


async def each_request_checks_once(app: InProcessServer, client: Client) -> None:
    address = unique()
    app.create_page(address, "# Plan\n\nWe ship on Friday.\n")
    edits = [{"op": "replace", "old": "on Friday", "new": "on Monday"}]

    async def read() -> None:
        structured(await client.call_tool("read_document", {"address": address}))

    async def edit() -> None:
        structured(await client.call_tool("edit_document", {"address": address, "edits": edits}))

    async def refused() -> None:
        refusal(await client.call_tool("read_document", {"address": unique()}))

    async def page() -> None:
        await client.read_resource(f"codna://page/{address.replace(':', '/', 1)}")

    checks = {
        "tools/list": await token_checks(app, client.list_tools),
        "read": await token_checks(app, read),
        "edit": await token_checks(app, edit),
        "refused": await token_checks(app, refused),
        "resources/list": await token_checks(app, client.list_resources),
        "resources/read": await token_checks(app, page),
    }
    assert checks == dict.fromkeys(checks, 1)


async def test_in_process_as_over_stdio_the_token_is_checked_once_per_request(
    app: InProcessServer,
) -> None:
    async with in_process(app, "writer") as client:
        await each_request_checks_once(app, client)


async def test_over_http_the_token_is_checked_once_per_request(app: InProcessServer) -> None:
    async with app.mcp("writer") as client:
        await each_request_checks_once(app, client)


async def test_in_process_a_token_revoked_mid_session_is_refused_at_the_next_call(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "# Plan\n")
    async with in_process(app, "revoke-stdio") as client:
        structured(await client.call_tool("read_document", {"address": address}))
        with app.api("writer") as writer:
            token_id = app.workspace.token_ids["revoke-stdio"]
            revoked = writer.post("/api/v1/tokens/revoke", json={"token_id": token_id})
        assert revoked.status_code == 200, revoked.text
        error = refusal(await client.call_tool("read_document", {"address": address}))
    assert error["code"] == "unauthenticated"
