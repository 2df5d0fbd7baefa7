"""The permission matrix: every operation × every kind of caller × every state of the
suggestion involved × every interface (service, JSON API, MCP in process, web forms, CLI), on
both databases, each cell asserted against the small table below — written from the rules
(SPEC 1 and 4, ADR 0024), not from the product's code.

The callers and objects are described in permission_world.py; how each interface is asked and
how its answer becomes an outcome, in permission_drivers.py. anonymous and disabled are
unauthenticated everywhere. An interface without an operation, or without a kind of caller
(an agent has no browser; the CLI acts as a member by name, never anonymously nor as a run),
has no cell for it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager

import httpx2
import pytest
from click.testing import CliRunner
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from codna.cli.main import cli
from codna.errors import CodnaError, Unauthenticated
from codna.markdown.edits import parse_edits
from codna.services import (
    access,
    automations,
    integrity,
    links,
    members,
    pages,
    revisions,
    runs,
    sessions,
    suggestions,
    tokens,
)
from codna.services.members import Member
from tests.conftest import ENGINES, GENEROUS, InProcessServer, _AsyncToApp, in_process
from tests.reliability import permission_drivers as drive
from tests.reliability import permission_requests as req
from tests.reliability import permission_spaces as spaces
from tests.reliability.conftest import Team
from tests.reliability.permission_world import HANDLES, NOBODY, PEOPLE, STATES, World, build

# The callers, in the order of the table's columns; anonymous and disabled come after.
COLUMNS = (
    "reader",
    "writer",
    "other_editor",
    "admin",
    "agent",
    "agent_own",
    "other_agent",
    "run",
    "admin_run",
    "suggester",
)
CALLERS = (*COLUMNS, "anonymous", "disabled")
SHORT = {
    "ok": "ok",
    "nf": "not_found",
    "ro": "read_only",
    "ad": "already_decided",
    "nla": "no_longer_applies",
}


def row(cells: str) -> dict[str, str]:
    """One row of the table: an outcome per column, then unauthenticated for the rest."""
    outcomes = [SHORT[cell] for cell in cells.split()]
    return dict(zip(COLUMNS, outcomes, strict=True)) | {
        "anonymous": "unauthenticated",
        "disabled": "unauthenticated",
    }


#                reader writer other admin agent own other_agent run admin_run suggester
READS = row("ok     ok     nf    ok    ok    ok  ok          ok  ok        ok")
CHANGES = row("ro     ok     nf    ok    ro    ok  ro          ro  ro        ro")
SUGGESTS = row("ok     ok     nf    ok    ok    ok  ok          ok  ok        ok")
DECIDERS_SEE = row("nf     ok     nf    ok    nf    nf  nf          nf  nf        ok")
WAITS_ON = row("nf     ok     nf    ok    nf    nf  nf          nf  nf        nf")
MAKES_TOKEN = row("ro     ok     ro    ok    ro    ro  ro          ro  ro        ro")
REVOKES_TOKEN = row("nf     ok     nf    ok    ok    ok  nf          ro  ro        nf")
SHARES = row("ro     ok     nf    ok    ro    ro  ro          ro  ro        ro")
ADMINS = row("ro     ro     ro    ok    ro    ro  ro          ro  ro        ro")
AUTOMATES = row("ok     ok     nf    ok    ro    ro  ro          ro  ro        ok")
ACCEPTS = {
    "pending": row("nf     ok     nf    ok    nf    nf  nf          nf  nf        ro"),
    "accepted": row("nf     ad     nf    ad    nf    nf  nf          nf  nf        ad"),
    "rejected": row("nf     ad     nf    ad    nf    nf  nf          nf  nf        ad"),
    "withdrawn": row("nf     ad     nf    ad    nf    nf  nf          nf  nf        ad"),
    "stale": row("nf     nla    nf    nla   nf    nf  nf          nf  nf        ro"),
    "trashed": row("nf     nf     nf    nf    nf    nf  nf          nf  nf        ro"),
}
WITHDRAWS = {
    "pending": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ok"),
    "accepted": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ad"),
    "rejected": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ad"),
    "withdrawn": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ad"),
    "stale": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ok"),
    "trashed": row("nf     ro     nf    ro    nf    nf  nf          nf  nf        ok"),
}
EXPECTED: dict[str, dict[str, str] | dict[str, dict[str, str]]] = {
    # What changes nothing first, so the listings see the shared objects as made.
    "read": READS,
    "history": READS,
    "revision": READS,
    "search": READS,
    "export": READS,
    "list": DECIDERS_SEE,
    "read_suggestion": DECIDERS_SEE,
    "inbox": WAITS_ON,
    "edit": CHANGES,
    "revert": CHANGES,
    "trash": CHANGES,
    "restore": CHANGES,
    "purge": CHANGES,
    "suggest": SUGGESTS,
    "suggest_link": SUGGESTS,
    "decide": ACCEPTS,
    "withdraw": WITHDRAWS,
    "decide_link": ACCEPTS,
    "tokens": MAKES_TOKEN,
    "token_revoke": REVOKES_TOKEN,
    "sharing": SHARES,
    "unsharing": SHARES,
    "members": ADMINS,
    "automations": AUTOMATES,
}
Cell = tuple[str, str, str | None]  # operation, caller, state


def cells(ops: frozenset[str] | None = None, callers: tuple[str, ...] = CALLERS) -> Iterator[Cell]:
    for op in EXPECTED:
        if ops is not None and op not in ops:
            continue
        states: tuple[str | None, ...] = (
            STATES if op in ("decide", "withdraw", "decide_link") else (None,)
        )
        for state in states:
            for caller in callers:
                yield op, caller, state


def expected(op: str, caller: str, state: str | None) -> str:
    table = EXPECTED[op]
    by_caller = table[state] if state is not None else table  # type: ignore[index]
    outcome: str = by_caller[caller]  # type: ignore[assignment]
    return outcome


def target(world: World, op: str, caller: str, state: str | None) -> drive.Target:
    """What the cell acts on: shared objects, or fresh ones where the cell should change them."""
    family, fresh = world.family(caller), expected(op, caller, state) == "ok"
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
    unique = uuid.uuid4().hex[:10]
    return drive.Target(
        address=address,
        item=item,
        word=world.word(family),
        folder=world.folder(family),
        token_id=token_id,
        email=f"new-{unique}@example.com",
        watched=f"wiki:m/a-{unique}/",
    )


def compare(seen: dict[Cell, str], shown: dict[str, str] | None = None) -> None:
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


@pytest.fixture(scope="module", params=ENGINES)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """One workspace per database for the whole matrix, its app running in process."""
    with in_process(request.param, request, tmp_path_factory, **GENEROUS) as server:
        automations.register_routine(drive.ROUTINE)
        yield build(server)


def _member(world: World, caller: str) -> tuple[Member | None, CodnaError | None]:
    try:
        return tokens.authenticate_token(world.secrets[caller]).member, None
    except Unauthenticated as refused:
        return None, refused


def test_every_service_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        acting = {caller: _member(world, caller) for caller in CALLERS}
        seen = {
            (op, caller, state): drive.service(
                op, *acting[caller][:1], target(world, op, caller, state), acting[caller][1]
            )
            for op, caller, state in cells()
        }
    compare(seen)


def test_every_json_api_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        clients = {caller: world.server.api() for caller in CALLERS}
        for caller, client in clients.items():
            if world.secrets[caller]:
                client.headers["Authorization"] = f"Bearer {world.secrets[caller]}"
        try:
            seen = {
                (op, caller, state): drive.api(
                    op, clients[caller], target(world, op, caller, state)
                )
                for op, caller, state in cells()
            }
        finally:
            for client in clients.values():
                client.close()
    compare(seen)


@pytest.mark.anyio
async def test_every_mcp_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        seen: dict[Cell, str] = {}
        for caller in CALLERS:
            mine = [cell for cell in cells(drive.MCP_OPS, (caller,))]
            if caller in ("anonymous", "disabled"):
                refused = _mcp_refuses(world, caller)
                seen |= {cell: refused for cell in mine}
                continue
            async with mcp_client(world.server, world.secrets[caller]) as client:
                for op, _, state in mine:
                    made = target(world, op, caller, state)  # the app runs on a loop of its own
                    seen[op, caller, state] = await drive.mcp(op, client, made)
    compare(seen)


@asynccontextmanager
async def mcp_client(server: InProcessServer, secret: str) -> AsyncIterator[Client]:
    """The SDK's client over Streamable HTTP to the app in process, with this token."""
    http = httpx2.AsyncClient(
        transport=_AsyncToApp(server), headers={"Authorization": f"Bearer {secret}"}
    )
    async with http, Client(streamable_http_client(server.mcp_url, http_client=http)) as client:
        yield client


def _mcp_refuses(world: World, caller: str) -> str:
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


def test_every_web_form_cell_answers_as_the_table_says(world: World) -> None:
    callers = (*PEOPLE, "anonymous")
    seen: dict[Cell, str] = {}
    with world.server.active():
        for op, caller, state in cells(drive.WEB_OPS, callers):
            browser = world.browsers[caller]
            if caller == "disabled":
                browser.cookies.set("codna_session", world.session)
            made = target(world, op, caller, state)
            seen[op, caller, state] = drive.web(op, browser, world.csrf[caller], made)
    # The web's error pages carry a status: the refusals other than these are one kind.
    compare(seen, {"already_decided": "refused", "no_longer_applies": "refused"})


def test_every_cli_cell_answers_as_the_table_says(
    world: World, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = str(tmp_path_factory.mktemp("export"))
    callers = tuple(c for c in CALLERS if c in HANDLES)
    with world.server.active():
        seen = {
            (op, caller, state): drive.cli_run(
                op, HANDLES[caller], target(world, op, caller, state), folder
            )
            for op, caller, state in cells(drive.CLI_OPS, callers)
        }
    compare(seen)


# -- fields a request makes up --------------------------------------------------------------


def test_no_field_a_json_api_body_does_not_have_is_honoured(world: World) -> None:
    seen, wrong = 0, []
    with world.server.active(), world.server.api() as client:
        client.headers["Authorization"] = f"Bearer {world.secrets['admin']}"
        for name, (make, claims) in req.API.items():
            url, body = make(world)
            for claim in claims:
                before = req.fingerprint()
                answer = client.post(url, json={**body, claim: req.CLAIMS[claim]})
                got = (answer.status_code, answer.json().get("code"), answer.json().get("field"))
                if got != (422, "invalid_request", claim) or req.fingerprint() != before:
                    wrong.append(f"{name} with {claim}: {answer.text}")
                seen += 1
            # Without the made-up field the same request is done: the field was the refusal.
            assert client.post(url, json=body).is_success, name
    assert not wrong, "\n".join(wrong)
    assert seen == 47


@pytest.mark.anyio
async def test_no_argument_an_mcp_tool_does_not_take_is_honoured(world: World) -> None:
    seen, wrong = 0, []
    with world.server.active():
        async with mcp_client(world.server, world.secrets["admin"]) as client:
            for name, (make, claims) in req.MCP.items():
                tool, arguments = make(world)
                for claim in claims:
                    before = req.fingerprint()
                    result = await client.call_tool(tool, {**arguments, claim: req.CLAIMS[claim]})
                    error = result.structured_content or {}
                    got = (result.is_error, error.get("code"), error.get("field"))
                    if got != (True, "invalid_request", claim) or req.fingerprint() != before:
                        wrong.append(f"{name} with {claim}: {result.content}")
                    seen += 1
                done = await client.call_tool(tool, arguments)
                assert not done.is_error, (name, done.content)
    assert not wrong, "\n".join(wrong)
    assert seen == 39


# -- whether something exists ---------------------------------------------------------------

# Who tries to create where a page they cannot create at exists, and where none does.
TAKEN = {
    "other_editor": ("wiki:m/page", "wiki:m/never-made"),  # exists, unreadable to them
    "other_agent": ("output:checker/page", "output:checker/never-made"),  # another agent's
}


def _creating(world: World, caller: str, address: str) -> dict[str, str]:
    """The refusal of creating `address` as `caller`, through each interface, its address
    written as ADDRESS."""
    said: dict[str, str] = {}
    member, _ = _member(world, caller)
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
        said["web"] = f"{answer.status_code} {_alert(answer.text)}"
    return {where: text.replace(address, "ADDRESS") for where, text in said.items()}


def _alert(html: str) -> str:
    start = html.find('role="alert"')
    return html[start : html.find("</", start)] if start >= 0 else html[:200]


async def _creating_over_mcp(world: World, caller: str, address: str) -> str:
    async with mcp_client(world.server, world.secrets[caller]) as client:
        result = await client.call_tool("create_document", {"address": address, "title": "T"})
    return json.dumps(result.structured_content).replace(address, "ADDRESS")


@pytest.mark.anyio
async def test_creating_where_an_unreadable_page_exists_answers_as_where_none_does(
    world: World,
) -> None:
    with world.server.active():
        for caller, (taken, free) in TAKEN.items():
            assert _creating(world, caller, taken) == _creating(world, caller, free), caller
            over_mcp = [await _creating_over_mcp(world, caller, a) for a in (taken, free)]
            assert over_mcp[0] == over_mcp[1], caller
            assert '"code": "read_only"' in over_mcp[0]


def test_a_page_put_in_an_agent_s_folder_by_another_is_one_the_agent_reads(world: World) -> None:
    with world.server.active():
        admin = world.actors["admin"]
        pages.create_page(admin, address="output:scout/planted", title="Planted", body="P.\n")
        scout, _ = _member(world, "other_agent")
        assert scout is not None
        # It may create there, so that the address is taken is no secret: it reads the page.
        assert pages.read_page(scout, address="output:scout/planted").editable is False
        with pytest.raises(CodnaError) as taken:
            pages.create_page(scout, address="output:scout/planted", title="T")
        assert taken.value.code == "duplicate"
        assert "output:scout/planted" in [
            p.address for p in pages.list_pages(scout, address="output")
        ]


NEVER = 2_000_000_000  # an id no row has


@pytest.mark.anyio
async def test_an_id_of_what_one_cannot_read_is_answered_as_one_no_row_has(world: World) -> None:
    """Other members' suggestions, links, tokens, automations and runs, and pages and their
    revisions one cannot read: the same refusal as for what never was, on every interface."""
    with world.server.active():
        writer, _ = _member(world, "writer")
        assert writer is not None
        made = automations.add(
            writer, event="document.created", folder="wiki:", routine=drive.ROUTINE
        )
        run = runs.start_run(writer, routine=drive.ROUTINE, address="wiki:m/page").run.id
        item = world.items["page", "pending"]
        reader, _ = _member(world, "reader")
        assert reader is not None
        ids = {
            "change": (item.change, lambda n: suggestions.read_suggestion(reader, suggestion_id=n)),
            "link": (item.link, lambda n: links.read_link(reader, suggestion_id=n)),
            "token": (world.checker_token, lambda n: tokens.revoke_token(reader, token_id=n)),
            "automation": (made.id, lambda n: automations.disable(reader, automation_id=n)),
            "run": (run, lambda n: runs.read_run(reader, run_id=n)),
        }
        for name, (there, ask) in ids.items():
            answers = []
            for number in (there, NEVER):
                with pytest.raises(CodnaError) as refused:
                    ask(number)
                answers.append(str(refused.value).replace(str(number), "N"))
            assert answers[0] == answers[1], name
            assert answers[0].startswith("not_found: "), name
        api_paths = {
            "change": ("GET", "/api/v1/suggestions/{}", None),
            "link": ("GET", "/api/v1/links/{}", None),
            "token": ("POST", "/api/v1/tokens/revoke", "token_id"),
            "automation": ("POST", "/api/v1/automations/{}/disable", None),
        }
        with world.server.api() as client:
            client.headers["Authorization"] = f"Bearer {world.secrets['reader']}"
            for name, (method, path, field) in api_paths.items():
                answers = []
                for number in (ids[name][0], NEVER):
                    body = {field: number} if field else None
                    answer = client.request(method, path.format(number), json=body)
                    answers.append(f"{answer.status_code} {answer.text}".replace(str(number), "N"))
                assert answers[0] == answers[1] and answers[0].startswith("404 "), name
        async with mcp_client(world.server, world.secrets["reader"]) as mcp:
            for kind in ("change", "link"):
                answers = []
                for number in (ids[kind][0], NEVER):
                    got = await mcp.call_tool("list_suggestions", {"id": f"{kind}-{number}"})
                    answers.append(json.dumps(got.structured_content).replace(str(number), "N"))
                assert answers[0] == answers[1] and '"code": "not_found"' in answers[0], kind


@pytest.mark.anyio
async def test_a_page_one_cannot_read_and_its_revisions_are_answered_as_no_page(
    world: World,
) -> None:
    there, never = "wiki:m/page", "wiki:m/never-made"
    with world.server.active():
        stranger, _ = _member(world, "other_editor")
        assert stranger is not None
        asks = {
            "read": lambda a: pages.read_page(stranger, address=a),
            "history": lambda a: revisions.history(stranger, address=a),
            "revision": lambda a: revisions.read_revision(stranger, address=a, version=1),
            "suggest": lambda a: suggestions.suggest_edit(
                stranger, address=a, edits=parse_edits(drive.SUGGEST), reason="Why."
            ),
            "share": lambda a: access.share(stranger, address=a, member=NOBODY, level="read"),
            "unshare": lambda a: access.unshare(stranger, address=a, member=NOBODY),
        }
        for name, ask in asks.items():
            answers = []
            for address in (there, never):
                with pytest.raises(CodnaError) as refused:
                    ask(address)
                answers.append(str(refused.value).replace(address, "ADDRESS"))
            assert answers[0] == answers[1] and answers[0].startswith("not_found: "), name
        with world.server.api() as client:
            client.headers["Authorization"] = f"Bearer {world.secrets['other_editor']}"
            for path in ("/api/v1/page", "/api/v1/page/history", "/api/v1/page/revision"):
                answers = []
                for address in (there, never):
                    answer = client.get(path, params={"address": address, "version": 1})
                    answers.append(f"{answer.status_code} {answer.text}".replace(address, "A"))
                assert answers[0] == answers[1] and answers[0].startswith("404 "), path
        async with mcp_client(world.server, world.secrets["other_editor"]) as mcp:
            answers = []
            for address in (there, never):
                got = await mcp.call_tool("read_document", {"address": address, "version": 1})
                answers.append(json.dumps(got.structured_content).replace(address, "A"))
            assert answers[0] == answers[1] and '"code": "not_found"' in answers[0]


# -- a routine's run ------------------------------------------------------------------------


NOT_FOR_A_RUN: dict[str, Callable[[Member], object]] = {
    "everyone's tokens": lambda run: tokens.list_tokens(run, member="*"),
    "another's tokens": lambda run: tokens.list_tokens(run, member="sue@example.com"),
    "another's sessions": lambda run: sessions.end_sessions(run, member="sue@example.com"),
    "the members": lambda run: members.list_members(run),
    "a check of every page": lambda run: integrity.check_workspace(run),
    "an automation": lambda run: automations.add(
        run, event="document.changed", folder="wiki:m/", routine=drive.ROUTINE
    ),
}


def test_an_admin_s_run_is_no_admin_and_no_run_makes_or_stops_automations(world: World) -> None:
    """What only an admin may, refused to an admin's run; what the run's member may do with
    automations, refused to the run (it starts no run)."""
    with world.server.active():
        admin, _ = _member(world, "admin")
        writer, _ = _member(world, "writer")
        assert admin is not None and writer is not None
        theirs = automations.add(
            writer, event="document.changed", folder="wiki:m/", routine=drive.ROUTINE
        )
        for caller in ("run", "admin_run"):
            run, _ = _member(world, caller)
            assert run is not None and run.via == drive.ROUTINE
            for what, ask in NOT_FOR_A_RUN.items():
                with pytest.raises(CodnaError) as refused:
                    ask(run)
                assert refused.value.code == "read_only", (caller, what)
            # What it lists is its member's as any member's, never everyone's.
            assert {a.member for a in automations.list_automations(run)} <= {run.handle}
            assert {g.member for g in access.list_grants(run)} <= {run.handle}
        run, _ = _member(world, "run")
        assert run is not None
        with pytest.raises(CodnaError) as refused:
            automations.disable(run, automation_id=theirs.id)
        assert refused.value.code == "read_only"
        admin_run, _ = _member(world, "admin_run")
        assert admin_run is not None
        with pytest.raises(CodnaError) as hidden:
            automations.disable(admin_run, automation_id=theirs.id)
        assert hidden.value.code == "not_found"
        assert automations.disable(writer, automation_id=theirs.id).disabled_at is not None


# -- the dimension of spaces ----------------------------------------------------------------
# The roles of tests/services/conftest.py's team (writer, reader and agent on every space),
# each on a page of its own in wiki, raw and output; agent_own is the agent on a page it made
# in its own folder (elsewhere, a page shared with it).


def in_spaces(wiki: str, raw: str, output: str | None = None) -> dict[str, dict[str, str]]:
    """A table of the dimension: a row per space, each an outcome per role (spaces.ROLES)."""

    def one(cells: str) -> dict[str, str]:
        outcomes = [{**SHORT, "ir": "invalid_request"}[cell] for cell in cells.split()]
        return dict(zip(spaces.ROLES, outcomes, strict=True))

    return {"wiki": one(wiki), "raw": one(raw), "output": one(output or wiki)}


#                   admin writer reader stranger agent agent_own
S_READ = in_spaces("ok    ok     ok     nf       ok    ok", "ok ok ok nf ok ok")
S_EDIT = in_spaces(
    "ok    ok     ro     nf       ro    ro",
    "ro    ro     ro     nf       ro    ro",  # raw is never edited
    "ok    ok     ro     nf       ro    ok",
)
S_MANAGE = in_spaces(
    "ok    ok     ro     nf       ro    ro",
    "ok    ok     ro     nf       ro    ro",
    "ok    ok     ro     nf       ro    ok",
)
S_CREATE = in_spaces(
    "ok    ok     ro     ro       ro    ro",
    "ro    ro     ro     ro       ro    ro",  # raw takes imports only
    "ok    ok     ro     ro       ro    ok",  # an agent in its own folder, output:<agent>/
)
S_IMPORT = in_spaces("ir ir ir ir ir ir", "ok    ok     ro     ro       ro    ro")
S_SHARE = in_spaces("ok    ok     ro     nf       ro    ro", "ok ok ro nf ro ro")
SPACE_EXPECTED = {
    "read": S_READ,
    "history": S_READ,
    "revision": S_READ,
    "list": S_READ,
    "search": S_READ,
    "export": S_READ,
    "edit": S_EDIT,
    "revert": S_EDIT,
    "restore_version": S_EDIT,
    "trash": S_MANAGE,
    "restore": S_MANAGE,
    "purge": S_MANAGE,
    "create": S_CREATE,
    "import": S_IMPORT,
    "share": S_SHARE,
}


def test_every_page_operation_in_every_space_answers_as_its_table_says(team: Team) -> None:
    assert spaces.seen_in_every_space(team) == SPACE_EXPECTED
