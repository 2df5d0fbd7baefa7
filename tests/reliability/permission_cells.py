"""How the permission matrix's cells are set up, asked and compared: what each cell acts on
(shared objects, or fresh ones for a cell that should change them), the caller's member or
its refusal, MCP clients with a caller's token, and the answers to creating a page.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx2
from click.testing import CliRunner
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from codna.cli.main import cli
from codna.errors import CodnaError, Unauthenticated
from codna.services.members import access, tokens
from codna.services.members.members import Member
from codna.services.pages import pages
from tests.conftest import InProcessServer, _AsyncToApp
from tests.reliability.permission_drivers import Target
from tests.reliability.permission_world import HANDLES, NOBODY, PEOPLE, World

Cell = tuple[str, str, str | None]  # operation, caller, state


def target(world: World, op: str, caller: str, state: str | None, *, fresh: bool) -> Target:
    """What the cell acts on: shared objects, or fresh ones where the cell should change them."""
    family = world.family(caller)
    address = world.page(family)
    if op in ("edit", "revert", "trash", "suggest", "suggest_link") and fresh:
        address = world.fresh_page(family)
    if op in ("restore", "purge"):
        address = world.fresh_page(family, trashed=True) if fresh else world.trashed(family)
    item = world.items[family, state or "pending"]
    # An inbox shows the newest first (the web's, 20 of them): one that should show the
    # item is given a new one.
    if op in ("decide", "withdraw", "decide_link", "inbox") and fresh:
        item = world.fresh_item(family, state or "pending")
    token_id = world.checker_token
    if op == "token_revoke" and fresh:
        token_id = world.fresh_checker_token()
    if op == "unsharing":  # the grant to take back is there before every cell
        access.share(world.actors["admin"], address=address, member=NOBODY, level="read")
    automation = world.fresh_automation() if op == "automation_off" and fresh else world.automation
    person = world.fresh_person() if op == "member_off" and fresh else NOBODY
    unique = uuid.uuid4().hex[:10]
    return Target(
        address=address,
        item=item,
        word=world.word(family),
        folder=world.folder(family),
        token_id=token_id,
        email=f"new-{unique}@example.com",
        watched=f"wiki:m/a-{unique}/",
        automation=automation,
        person=person,
        change=world.change,
    )


def compare(
    seen: dict[Cell, str],
    expected: Callable[[str, str, str | None], str],
    shown: dict[str, str] | None = None,
) -> None:
    """Every cell as the table says; the cells that differ listed one per line."""
    shown = shown or {}
    wrong = [
        f"{op}[{state}] as {caller}: expected {shown.get(want, want)}, got {got}"
        if state
        else f"{op} as {caller}: expected {shown.get(want, want)}, got {got}"
        for (op, caller, state), got in seen.items()
        if got != shown.get(want := expected(op, caller, state), want)
    ]
    assert not wrong, "\n".join(wrong)
    assert seen


def member_of(world: World, caller: str) -> tuple[Member | None, CodnaError | None]:
    try:
        return tokens.authenticate_token(world.secrets[caller]).member, None
    except Unauthenticated as refused:
        return None, refused


@asynccontextmanager
async def mcp_client(server: InProcessServer, secret: str) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP to the app in process, with this token."""
    http = httpx2.AsyncClient(
        transport=_AsyncToApp(server), headers={"Authorization": f"Bearer {secret}"}
    )
    async with http, Client(streamable_http_client(server.mcp_url, http_client=http)) as client:
        yield client


def mcp_refuses(world: World, caller: str) -> str:
    """The answer to an MCP initialize with the caller's token (none for anonymous)."""
    headers = {"Accept": "application/json, text/event-stream"}
    if world.secrets[caller]:
        headers["Authorization"] = f"Bearer {world.secrets[caller]}"
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "matrix", "version": "1"},
        },
    }
    with world.server.api() as client:
        answer = client.post("/mcp", json=initialize, headers=headers)
    return "unauthenticated" if answer.status_code == 401 else f"status {answer.status_code}"


def creating(world: World, caller: str, address: str) -> dict[str, str]:
    """The refusal of creating `address` as `caller`, through each interface, its address
    written as ADDRESS."""
    said: dict[str, str] = {}
    member, _ = member_of(world, caller)
    assert member is not None
    try:
        pages.create_page(member, address=address, title="T", body="B.")
        said["service"] = "ok"
    except CodnaError as error:
        said["service"] = str(error)
    with world.server.api() as client:
        client.headers["Authorization"] = f"Bearer {world.secrets[caller]}"
        answer = client.post("/api/v1/pages", json={"address": address, "title": "T"})
        said["api"] = f"{answer.status_code} {answer.text}"
    result = CliRunner().invoke(
        cli, ["page", "create", address, "--title", "T", "--as", HANDLES[caller]]
    )
    said["cli"] = f"{result.exit_code} {result.stderr}"
    if caller in PEOPLE:
        browser = world.browsers[caller]
        form = {"address": address, "title": "T", "body": "B.", "csrf": world.csrf[caller]}
        answer = browser.post("/new", data=form)
        said["web"] = f"{answer.status_code} {alert(answer.text)}"
    return {where: text.replace(address, "ADDRESS") for where, text in said.items()}


def alert(html: str) -> str:
    start = html.find('role="alert"')
    return html[start : html.find("</", start)] if start >= 0 else html[:200]


async def creating_over_mcp(world: World, caller: str, address: str) -> str:
    async with mcp_client(world.server, world.secrets[caller]) as client:
        result = await client.call_tool("create_document", {"address": address, "title": "T"})
    return json.dumps(result.structured_content).replace(address, "ADDRESS")
