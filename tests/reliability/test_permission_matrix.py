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

from collections.abc import Callable, Iterator

import pytest

from codna.errors import CodnaError
from codna.services.admin import integrity
from codna.services.events import automations
from codna.services.members import access, members, sessions, tokens
from codna.services.members.members import Member
from codna.services.pages import pages
from tests.conftest import ENGINES, GENEROUS, in_process
from tests.reliability import permission_drivers as drive
from tests.reliability import permission_probes as probes
from tests.reliability import permission_requests as req
from tests.reliability import permission_spaces as spaces
from tests.reliability.conftest import Team
from tests.reliability.permission_cells import (
    Cell,
    compare,
    creating,
    creating_over_mcp,
    mcp_client,
    mcp_refuses,
    member_of,
    target,
)
from tests.reliability.permission_world import HANDLES, PEOPLE, STATES, World, build

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
STOPS_AUTOMATION = row("nf     ok     nf    ok    nf    nf  nf          ro  nf        nf")
SEES_GRANT_CHANGE = row("nf     nf     nf    ok    nf    nf  nf          nf  ok        nf")
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
    # The admin's giving Nora a grant: to the admin, and to the admin's run as what its
    # member made; to no one else.
    "grant_log": SEES_GRANT_CHANGE,
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
    "automation_off": STOPS_AUTOMATION,  # the writer's; a run stops nothing
    "member_off": ADMINS,
}


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


@pytest.fixture(scope="module", params=ENGINES)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    """One workspace per database for the whole matrix, its app running in process. The
    matrix asks who may make tokens, many times over an hour for the same members; how many
    one member may have made is tests/hostile/test_rate_budgets.py's, so it is lifted here."""
    with (
        pytest.MonkeyPatch.context() as patched,
        in_process(request.param, request, tmp_path_factory, **GENEROUS) as server,
    ):
        patched.setattr(tokens, "TOKENS_PER_HOUR", 10**6)
        automations.register_routine(drive.ROUTINE)
        yield build(server)


def test_every_service_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        acting = {caller: member_of(world, caller) for caller in CALLERS}
        seen = {
            (op, caller, state): drive.service(
                op,
                *acting[caller][:1],
                target(world, op, caller, state, fresh=expected(op, caller, state) == "ok"),
                acting[caller][1],
            )
            for op, caller, state in cells()
        }
    compare(seen, expected)


def test_every_json_api_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        clients = {caller: world.server.api() for caller in CALLERS}
        for caller, client in clients.items():
            if world.secrets[caller]:
                client.headers["Authorization"] = f"Bearer {world.secrets[caller]}"
        try:
            seen = {
                (op, caller, state): drive.api(
                    op,
                    clients[caller],
                    target(world, op, caller, state, fresh=expected(op, caller, state) == "ok"),
                )
                for op, caller, state in cells()
            }
        finally:
            for client in clients.values():
                client.close()
    compare(seen, expected)


@pytest.mark.anyio
async def test_every_mcp_cell_answers_as_the_table_says(world: World) -> None:
    with world.server.active():
        seen: dict[Cell, str] = {}
        for caller in CALLERS:
            mine = [cell for cell in cells(drive.MCP_OPS, (caller,))]
            if caller in ("anonymous", "disabled"):
                refused = mcp_refuses(world, caller)
                seen |= {cell: refused for cell in mine}
                continue
            async with mcp_client(world.server, world.secrets[caller]) as client:
                for op, _, state in mine:
                    made = target(
                        world, op, caller, state, fresh=expected(op, caller, state) == "ok"
                    )  # the app runs on a loop of its own
                    seen[op, caller, state] = await drive.mcp(op, client, made)
    compare(seen, mcp_expected)


# Over MCP an agent, or a routine's run, that calls a deciding tool is told it never decides
# (read_only, whatever the suggestion): the tool is what it may not use.
NEVER_DECIDE = ("agent", "agent_own", "other_agent", "run", "admin_run")


def mcp_expected(op: str, caller: str, state: str | None) -> str:
    if op in ("decide", "decide_link") and caller in NEVER_DECIDE:
        return "read_only"
    return expected(op, caller, state)


def test_every_web_form_cell_answers_as_the_table_says(world: World) -> None:
    callers = (*PEOPLE, "anonymous")
    seen: dict[Cell, str] = {}
    with world.server.active():
        for op, caller, state in cells(drive.WEB_OPS, callers):
            browser = world.browsers[caller]
            if caller == "disabled":
                browser.cookies.set("codna_session", world.session)
            made = target(world, op, caller, state, fresh=expected(op, caller, state) == "ok")
            seen[op, caller, state] = drive.web(op, browser, world.csrf[caller], made)
    # The web's error pages carry a status: the refusals other than these are one kind.
    compare(seen, expected, {"already_decided": "refused", "no_longer_applies": "refused"})


def test_every_cli_cell_answers_as_the_table_says(
    world: World, tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = str(tmp_path_factory.mktemp("export"))
    callers = tuple(c for c in CALLERS if c in HANDLES)
    with world.server.active():
        seen = {
            (op, caller, state): drive.cli_run(
                op,
                HANDLES[caller],
                target(world, op, caller, state, fresh=expected(op, caller, state) == "ok"),
                folder,
            )
            for op, caller, state in cells(drive.CLI_OPS, callers)
        }
    compare(seen, expected)


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
    assert seen == 46


# -- whether something exists ---------------------------------------------------------------

# Who tries to create where a page they cannot create at exists, and where none does.
TAKEN = {
    "other_editor": ("wiki:m/page", "wiki:m/never-made"),  # exists, unreadable to them
    "other_agent": ("output:checker/page", "output:checker/never-made"),  # another agent's
}


@pytest.mark.anyio
async def test_creating_where_an_unreadable_page_exists_answers_as_where_none_does(
    world: World,
) -> None:
    with world.server.active():
        for caller, (taken, free) in TAKEN.items():
            assert creating(world, caller, taken) == creating(world, caller, free), caller
            over_mcp = [await creating_over_mcp(world, caller, a) for a in (taken, free)]
            assert over_mcp[0] == over_mcp[1], caller
            assert '"code": "read_only"' in over_mcp[0]


def test_a_page_put_in_an_agent_s_folder_by_another_is_one_the_agent_reads(world: World) -> None:
    with world.server.active():
        admin = world.actors["admin"]
        pages.create_page(admin, address="output:scout/planted", title="Planted", body="P.\n")
        scout, _ = member_of(world, "other_agent")
        assert scout is not None
        # It may create there, so that the address is taken is no secret: it reads the page.
        assert pages.read_page(scout, address="output:scout/planted").editable is False
        with pytest.raises(CodnaError) as taken:
            pages.create_page(scout, address="output:scout/planted", title="T")
        assert taken.value.code == "duplicate"
        assert "output:scout/planted" in [
            p.address for p in pages.list_pages(scout, address="output")
        ]


@pytest.mark.anyio
async def test_an_id_of_what_one_cannot_read_is_answered_as_one_no_row_has(world: World) -> None:
    """Other members' suggestions, links, tokens, automations and runs: the same refusal as
    for an id no row has (the id written N), through the service, the JSON API and MCP."""
    with world.server.active():
        answers = await probes.ids(world)
    assert len(answers) == 11
    for name, (there, never) in answers.items():
        assert there == never, name
        assert there.startswith(("not_found: ", "404 ", '{"code": "not_found"')), name


@pytest.mark.anyio
async def test_a_page_one_cannot_read_and_its_revisions_are_answered_as_no_page(
    world: World,
) -> None:
    with world.server.active():
        answers = await probes.pages(world)
    assert len(answers) == 10
    for name, (there, never) in answers.items():
        assert there == never, name
        assert there.startswith(("not_found: ", "404 ", '{"code": "not_found"')), name


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
        admin, _ = member_of(world, "admin")
        writer, _ = member_of(world, "writer")
        assert admin is not None and writer is not None
        theirs = automations.add(
            writer, event="document.changed", folder="wiki:m/", routine=drive.ROUTINE
        )
        for caller in ("run", "admin_run"):
            run, _ = member_of(world, caller)
            assert run is not None and run.via == drive.ROUTINE
            for what, ask in NOT_FOR_A_RUN.items():
                with pytest.raises(CodnaError) as refused:
                    ask(run)
                assert refused.value.code == "read_only", (caller, what)
            # What it lists is its member's as any member's, never everyone's.
            assert {a.member for a in automations.list_automations(run)} <= {run.handle}
            assert {g.member for g in access.list_grants(run)} <= {run.handle}
        run, _ = member_of(world, "run")
        assert run is not None
        with pytest.raises(CodnaError) as refused:
            automations.disable(run, automation_id=theirs.id)
        assert refused.value.code == "read_only"
        admin_run, _ = member_of(world, "admin_run")
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
