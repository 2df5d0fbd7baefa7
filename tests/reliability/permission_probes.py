"""Asking for what a caller cannot read and for what never was, side by side: each probe
answers a pair (the refusal of the one, of the other) with the id or address written N, so
that a test sees whether anything tells them apart."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial

from codna.errors import CodnaError
from codna.markdown.edits import parse_edits
from codna.services.events import automations, runs
from codna.services.members import access, tokens
from codna.services.members.members import Member
from codna.services.pages import pages as pages_service
from codna.services.pages import revisions as revisions_service
from codna.services.suggestions import changes, links
from tests.reliability.permission_cells import mcp_client
from tests.reliability.permission_drivers import ROUTINE, SUGGEST
from tests.reliability.permission_world import NOBODY, World

NEVER = 2_000_000_000  # an id no row has
NO_PAGE = "wiki:m/never-made"
Pair = tuple[str, str]


def _refusal(ask: Callable[[], object]) -> str:
    try:
        ask()
    except CodnaError as error:
        return str(error)
    return "ok"


def _member(world: World, caller: str) -> Member:
    return tokens.authenticate_token(world.secrets[caller]).member


async def ids(world: World) -> dict[str, Pair]:
    """The reader asking for others' suggestions, links, tokens, automations and runs."""
    writer, reader = _member(world, "writer"), _member(world, "reader")
    made = automations.add(writer, event="document.created", folder="wiki:", routine=ROUTINE)
    run = runs.start_run(writer, routine=ROUTINE, address="wiki:m/page").run.id
    item = world.items["page", "pending"]
    asks: dict[str, tuple[int, Callable[[int], object]]] = {
        "change": (item.change, lambda n: changes.read_suggestion(reader, suggestion_id=n)),
        "link": (item.link, lambda n: links.read_link(reader, suggestion_id=n)),
        "token": (world.checker_token, lambda n: tokens.revoke_token(reader, token_id=n)),
        "automation": (made.id, lambda n: automations.disable(reader, automation_id=n)),
        "run": (run, lambda n: runs.read_run(reader, run_id=n)),
    }
    found: dict[str, Pair] = {}
    for name, (there, ask) in asks.items():
        found[f"service {name}"] = _pair(there, lambda n, ask=ask: _refusal(lambda: ask(n)))
    over_api = {
        "change": ("GET", "/api/v1/suggestions/{}", None),
        "link": ("GET", "/api/v1/links/{}", None),
        "token": ("POST", "/api/v1/tokens/revoke", "token_id"),
        "automation": ("POST", "/api/v1/automations/{}/disable", None),
    }
    with world.server.api() as client:
        client.headers["Authorization"] = f"Bearer {world.secrets['reader']}"
        for name, (method, path, field) in over_api.items():

            def asked(
                n: int, method: str = method, path: str = path, field: str | None = field
            ) -> str:
                answer = client.request(method, path.format(n), json={field: n} if field else None)
                return f"{answer.status_code} {answer.text}"

            found[f"api {name}"] = _pair(asks[name][0], asked)
    async with mcp_client(world.server, world.secrets["reader"]) as mcp:
        for kind in ("change", "link"):
            answers = []
            for number in (asks[kind][0], NEVER):
                asked = {"suggestion_id": number, "kind": kind}
                got = await mcp.call_tool("list_suggestions", asked)
                answers.append(json.dumps(got.structured_content).replace(str(number), "N"))
            found[f"mcp {kind}"] = (answers[0], answers[1])
    return found


def _pair(there: int, ask: Callable[[int], str]) -> Pair:
    return ask(there).replace(str(there), "N"), ask(NEVER).replace(str(NEVER), "N")


async def pages(world: World) -> dict[str, Pair]:
    """Another folder's editor asking for wiki:m/page (there, unreadable) and a page never
    made: reading it, its history and a revision, suggesting on it, sharing it."""
    there = world.page("page")
    stranger = _member(world, "other_editor")
    asks: dict[str, Callable[[str], object]] = {
        "read": lambda a: pages_service.read_page(stranger, address=a),
        "history": lambda a: revisions_service.history(stranger, address=a),
        "revision": lambda a: revisions_service.read_revision(stranger, address=a, version=1),
        "suggest": lambda a: changes.suggest_edit(
            stranger, address=a, edits=parse_edits(SUGGEST), reason="Why."
        ),
        "share": lambda a: access.share(stranger, address=a, member=NOBODY, level="read"),
        "unshare": lambda a: access.unshare(stranger, address=a, member=NOBODY),
    }
    found: dict[str, Pair] = {}
    for name, ask in asks.items():
        answers = [_refusal(partial(ask, a)).replace(a, "N") for a in (there, NO_PAGE)]
        found[f"service {name}"] = (answers[0], answers[1])
    with world.server.api() as client:
        client.headers["Authorization"] = f"Bearer {world.secrets['other_editor']}"
        for path in ("/api/v1/page", "/api/v1/page/history", "/api/v1/page/revision"):
            answers = []
            for address in (there, NO_PAGE):
                answer = client.get(path, params={"address": address, "version": 1})
                answers.append(f"{answer.status_code} {answer.text}".replace(address, "N"))
            found[f"api {path}"] = (answers[0], answers[1])
    async with mcp_client(world.server, world.secrets["other_editor"]) as mcp:
        answers = []
        for address in (there, NO_PAGE):
            got = await mcp.call_tool("read_document", {"address": address, "version": 1})
            answers.append(json.dumps(got.structured_content).replace(address, "N"))
        found["mcp read_document"] = (answers[0], answers[1])
    return found
