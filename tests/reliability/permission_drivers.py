"""Each operation of the permission matrix through each interface, answering an outcome: "ok",
or the refusal's code ("not_found", "read_only", "unauthenticated", "already_decided", …).

A listing (search, export, inbox, a page's suggestions) answers "ok" when the object is listed
and "not_found" when it is not: what a caller cannot read is absent everywhere. The web's error
pages carry a status, not a code: 404 is not_found, 403 read_only, a redirect to sign in
unauthenticated, and any other refusal "refused".
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
from click.testing import CliRunner
from mcp.client import Client

from codna.cli.main import cli
from codna.errors import CodnaError
from codna.markdown.edits import parse_edits
from codna.services.admin import transfer
from codna.services.events import automations
from codna.services.inbox import inbox
from codna.services.members import access, grant_changes, members, tokens
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions, search
from codna.services.suggestions import changes, links, reverts
from tests.reliability.permission_world import NOBODY, ROUTINE, TARGET, Item

OK = "ok"
MORE = [{"op": "append", "text": "One more line."}]
SUGGEST = [{"op": "replace", "old": "Line one.", "new": "Line one, from a cell."}]


@dataclass(frozen=True)
class Target:
    """What one cell acts on."""

    address: str  # a page (in the trash for restore and purge)
    item: Item  # a suggested change and link (in the cell's state)
    word: str  # the word that finds the page
    folder: str  # the page's folder
    token_id: int  # a token of the agent checker's
    email: str  # a new person's
    watched: str  # a folder for a new automation
    automation: int = 0  # one of the writer's
    person: str = NOBODY  # whom disabling disables
    change: int = 0  # a change of a grant: the admin's, of Nora's


def path_of(address: str) -> str:
    return address.replace(":", "/", 1)


# -- service --------------------------------------------------------------------------------


def _service_outcome(run: Callable[[], object]) -> str:
    try:
        result = run()
    except CodnaError as error:
        return error.code
    return "not_found" if result is False else OK


ServiceOp = Callable[[Member, Target], object]
SERVICE: dict[str, ServiceOp] = {
    "read": lambda m, t: pages.read_page(m, address=t.address),
    "history": lambda m, t: revisions.history(m, address=t.address),
    "revision": lambda m, t: revisions.read_revision(m, address=t.address, version=1),
    "edit": lambda m, t: editing.edit_page(m, address=t.address, edits=parse_edits(MORE)),
    "revert": lambda m, t: reverts.revert_revision(m, address=t.address, version=2),
    "restore": lambda m, t: pages.restore_page(m, address=t.address),
    "trash": lambda m, t: pages.trash_page(m, address=t.address),
    "purge": lambda m, t: pages.purge_page(m, address=t.address),
    "suggest": lambda m, t: changes.suggest_edit(
        m, address=t.address, edits=parse_edits(SUGGEST), reason="A cell."
    ),
    "list": lambda m, t: (
        t.item.change in [s.id for s in changes.list_suggestions(m, address=t.item.address)]
    ),
    "read_suggestion": lambda m, t: changes.read_suggestion(m, suggestion_id=t.item.change),
    "decide": lambda m, t: changes.decide_edit_suggestion(
        m, suggestion_id=t.item.change, decision="accept"
    ),
    "withdraw": lambda m, t: changes.withdraw_suggestion(m, suggestion_id=t.item.change),
    "suggest_link": lambda m, t: links.suggest_link(
        m, address=t.address, target=TARGET, reason="A cell."
    ),
    "decide_link": lambda m, t: links.decide_link(m, suggestion_id=t.item.link, decision="accept"),
    "inbox": lambda m, t: (
        t.item.change in [s.id for s in inbox.inbox(m, limit=200).suggested_changes.items]
    ),
    "search": lambda m, t: t.address in [h.address for h in search.search(m, query=t.word)],
    "export": lambda m, t: (
        t.address in [d.address for d in transfer.export_documents(m, address=t.folder)]
    ),
    "tokens": lambda m, t: tokens.create_token(m, member="checker", name="cell"),
    "token_revoke": lambda m, t: tokens.revoke_token(m, token_id=t.token_id),
    "sharing": lambda m, t: access.share(m, address=t.address, member=NOBODY, level="read"),
    "unsharing": lambda m, t: access.unshare(m, address=t.address, member=NOBODY),
    "members": lambda m, t: members.add_person(m, email=t.email, name="New"),
    "automations": lambda m, t: automations.add(
        m, event="document.created", folder=t.watched, routine=ROUTINE
    ),
    "automation_off": lambda m, t: automations.disable(m, automation_id=t.automation),
    "member_off": lambda m, t: members.set_disabled(m, handle=t.person, disabled=True),
    "grant_log": lambda m, t: (
        t.change in [c.id for c in grant_changes.list_grant_changes(m, limit=500)]
    ),
}


def service(op: str, member: Member | None, target: Target, refused: CodnaError | None) -> str:
    """`op` as `member` (None: its token was refused with `refused`)."""
    if member is None:
        assert refused is not None
        return refused.code
    return _service_outcome(lambda: SERVICE[op](member, target))


# -- JSON API -------------------------------------------------------------------------------

ApiCall = tuple[str, str, dict[str, Any] | None, Callable[[Any], bool] | None]


def _api_call(op: str, t: Target) -> ApiCall:
    a, item = t.address, t.item
    listed = lambda text: lambda answer: text in json.dumps(answer)  # noqa: E731
    calls: dict[str, ApiCall] = {
        "read": ("GET", f"/api/v1/page?address={a}", None, None),
        "history": ("GET", f"/api/v1/page/history?address={a}", None, None),
        "revision": ("GET", f"/api/v1/page/revision?address={a}&version=1", None, None),
        "edit": ("POST", "/api/v1/page/edit", {"address": a, "edits": MORE}, None),
        "revert": ("POST", "/api/v1/page/revert", {"address": a, "version": 2}, None),
        "restore": ("POST", "/api/v1/page/restore", {"address": a}, None),
        "trash": ("POST", "/api/v1/page/trash", {"address": a}, None),
        "purge": ("POST", "/api/v1/page/purge", {"address": a}, None),
        "suggest": (
            "POST",
            "/api/v1/suggestions",
            {"address": a, "edits": SUGGEST, "reason": "A cell."},
            None,
        ),
        "list": (
            "GET",
            f"/api/v1/suggestions?address={item.address}",
            None,
            lambda found: item.change in [s["id"] for s in found],
        ),
        "read_suggestion": ("GET", f"/api/v1/suggestions/{item.change}", None, None),
        "decide": (
            "POST",
            f"/api/v1/suggestions/{item.change}/decide",
            {"decision": "accept"},
            None,
        ),
        "withdraw": ("POST", f"/api/v1/suggestions/{item.change}/withdraw", None, None),
        "suggest_link": (
            "POST",
            "/api/v1/links",
            {"address": a, "target": TARGET, "reason": "A cell."},
            None,
        ),
        "decide_link": ("POST", f"/api/v1/links/{item.link}/decide", {"decision": "accept"}, None),
        "inbox": ("GET", "/api/v1/inbox?limit=200", None, listed(f'"page": "{item.address}"')),
        "search": ("GET", f"/api/v1/search?q={t.word}", None, listed(f'"address": "{a}"')),
        "export": ("GET", f"/api/v1/export?address={t.folder}", None, listed(f'"address": "{a}"')),
        "tokens": ("POST", "/api/v1/tokens", {"member": "checker", "name": "cell"}, None),
        "token_revoke": ("POST", "/api/v1/tokens/revoke", {"token_id": t.token_id}, None),
        "sharing": (
            "POST",
            "/api/v1/grants",
            {"address": a, "member": NOBODY, "level": "read"},
            None,
        ),
        "unsharing": ("POST", "/api/v1/grants/delete", {"address": a, "member": NOBODY}, None),
        "members": ("POST", "/api/v1/members", {"email": t.email, "name": "New"}, None),
        "automations": (
            "POST",
            "/api/v1/automations",
            {"event": "document.created", "folder": t.watched, "routine": ROUTINE},
            None,
        ),
        "automation_off": ("POST", f"/api/v1/automations/{t.automation}/disable", None, None),
        "member_off": ("POST", "/api/v1/members/disable", {"member": t.person}, None),
        "grant_log": (
            "GET",
            "/api/v1/grants/changes?limit=500",
            None,
            lambda found: t.change in [c["id"] for c in found],
        ),
    }
    return calls[op]


def api(op: str, client: httpx.Client, target: Target) -> str:
    method, url, body, check = _api_call(op, target)
    answer = client.request(method, url, json=body)
    if answer.is_success:
        return OK if check is None or check(answer.json()) else "not_found"
    assert answer.status_code < 500, answer.text
    code: str = answer.json()["code"]
    return code


# -- MCP ------------------------------------------------------------------------------------

# A tool, its arguments, and what its answer (structured content) must hold to count as ok.
McpCall = tuple[str, dict[str, Any], Callable[[dict[str, Any]], bool] | None]


def _of_kind(listed: list[dict[str, Any]], kind: str, number: int) -> bool:
    """Whether a list of suggestions or notifications holds the `kind` one numbered `number`."""
    return (kind, number) in [(s["kind"], s.get("suggestion_id")) for s in listed]


def _mcp_call(op: str, t: Target) -> McpCall | None:
    a, item = t.address, t.item
    change, link = item.change, item.link
    calls: dict[str, McpCall] = {
        "read": ("read_document", {"address": a}, None),
        "history": ("document_history", {"address": a}, None),
        "revision": ("read_document", {"address": a, "version": 1}, None),
        "edit": ("edit_document", {"address": a, "edits": MORE}, None),
        "revert": ("revert_document", {"address": a, "version": 2}, None),
        "restore": ("trash_document", {"address": a, "restore": True}, None),
        "trash": ("trash_document", {"address": a}, None),
        "suggest": ("suggest_edit", {"address": a, "edits": SUGGEST, "reason": "A cell."}, None),
        "list": (
            "list_suggestions",
            {"address": item.address, "kind": "change"},
            lambda found: _of_kind(found["suggestions"], "change", change),
        ),
        "read_suggestion": ("list_suggestions", {"suggestion_id": change}, None),
        "decide": (
            "decide_edit_suggestion",
            {"suggestion_id": change, "decision": "accept"},
            None,
        ),
        "withdraw": ("withdraw_suggestion", {"suggestion_id": change}, None),
        "suggest_link": (
            "suggest_link",
            {"address": a, "target": TARGET, "reason": "A cell."},
            None,
        ),
        "decide_link": (
            "decide_link_suggestion",
            {"suggestion_id": link, "decision": "accept"},
            None,
        ),
        "inbox": (
            "inbox",
            {"limit": 200},
            lambda found: (
                change in found.get("changes_waiting", [])
                or _of_kind(found["decisions"], "change", change)
            ),
        ),
        "search": (
            "search_documents",
            {"query": t.word},
            lambda found: a in [hit["address"] for hit in found["hits"]],
        ),
    }
    return calls.get(op)


MCP_OPS = frozenset(
    op for op in SERVICE if _mcp_call(op, Target("", Item("", 0, 0), "", "", 0, "", "")) is not None
)


async def mcp(op: str, client: Client, target: Target) -> str:
    call = _mcp_call(op, target)
    assert call is not None
    tool, arguments, check = call
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        assert result.structured_content is not None, result
        code: str = result.structured_content["code"]
        return code
    found = result.structured_content
    assert found is not None, result
    return OK if check is None or check(found) else "not_found"


McpSession = Callable[[str], Awaitable[str]]


# -- web forms ------------------------------------------------------------------------------

WebCall = tuple[str, str, dict[str, Any] | None, str | None]


def _web_call(op: str, t: Target) -> WebCall | None:
    p, item = path_of(t.address), t.item
    calls: dict[str, WebCall] = {
        "read": ("GET", f"/p/{p}", None, None),
        "history": ("GET", f"/history/{p}", None, None),
        "revision": ("GET", f"/revision/{p}?version=1", None, None),
        "edit": ("POST", f"/edit/{p}", {"base_version": 2, "title": "Page", "body": "New."}, None),
        "revert": ("POST", f"/history/{p}/revert", {"version": 2}, None),
        "restore": ("POST", f"/restore/{p}", {}, None),
        "trash": ("POST", f"/trash/{p}", {}, None),
        "list": (
            "GET",
            f"/suggestions/{path_of(item.address)}",
            None,
            f'id="change-{item.change}"',
        ),
        "decide": ("POST", f"/inbox/changes/{item.change}/decide", {"decision": "accept"}, None),
        "withdraw": ("POST", f"/inbox/changes/{item.change}/withdraw", {}, None),
        "decide_link": ("POST", f"/inbox/links/{item.link}/decide", {"decision": "accept"}, None),
        "inbox": ("GET", "/inbox", None, f'id="change-{item.change}"'),
        "search": ("GET", f"/search?q={t.word}", None, f"/p/{p}"),
        "tokens": ("POST", "/admin/tokens", {"handle": "checker", "name": "cell"}, None),
        "token_revoke": ("POST", "/admin/tokens/revoke", {"token_id": t.token_id}, None),
        "sharing": (
            "POST",
            "/admin/grants",
            {"address": t.address, "handle": NOBODY, "level": "read"},
            None,
        ),
        "unsharing": (
            "POST",
            "/admin/grants/delete",
            {"address": t.address, "handle": NOBODY},
            None,
        ),
        "members": ("POST", "/admin/people", {"email": t.email, "name": "New"}, None),
        "automations": (
            "POST",
            "/automations",
            {"event": "document.created", "folder": t.watched, "routine": ROUTINE},
            None,
        ),
        "automation_off": ("POST", "/automations/disable", {"automation_id": t.automation}, None),
        "member_off": ("POST", "/admin/disabled", {"handle": t.person, "disabled": "true"}, None),
    }
    return calls.get(op)


WEB_OPS = frozenset(
    op for op in SERVICE if _web_call(op, Target("", Item("", 0, 0), "", "", 0, "", "")) is not None
)
WEB_STATUS = {404: "not_found", 403: "read_only"}


def web(op: str, browser: httpx.Client, csrf: str, target: Target) -> str:
    call = _web_call(op, target)
    assert call is not None
    method, url, form, shows = call
    answer = browser.request(method, url, data=None if form is None else {**form, "csrf": csrf})
    if answer.status_code == 303 and answer.headers["location"].startswith("/?next="):
        return "unauthenticated"
    if answer.status_code in (200, 201, 303):
        return OK if shows is None or shows in answer.text else "not_found"
    assert answer.status_code < 500, answer.text
    return WEB_STATUS.get(answer.status_code, "refused")


# -- CLI ------------------------------------------------------------------------------------


def _cli_args(op: str, t: Target, folder: str) -> tuple[list[str], str | None, str | None]:
    a, item = t.address, t.item
    calls: dict[str, tuple[list[str], str | None, str | None]] = {
        "read": (["page", "show", a], None, None),
        "history": (["page", "history", a], None, None),
        "revision": (["page", "revision", a, "1"], None, None),
        "edit": (["page", "edit", a, "--edits", "-"], json.dumps(MORE), None),
        "revert": (["page", "revert", a, "2"], None, None),
        "restore": (["page", "restore", a], None, None),
        "trash": (["page", "trash", a], None, None),
        "purge": (["page", "purge", a], None, None),
        "suggest": (
            ["suggest", a, "--edits", "-", "--reason", "A cell."],
            json.dumps(SUGGEST),
            None,
        ),
        "list": (["suggestions", item.address], None, f'"id": {item.change},'),
        "decide": (["decide", str(item.change), "accept"], None, None),
        "withdraw": (["withdraw", str(item.change)], None, None),
        "search": (["search", t.word], None, f'"address": "{a}"'),
        "export": (["export", folder, "--address", t.folder], None, f'"{a}"'),
        "tokens": (["token", "create", "checker", "--name", "cell"], None, None),
        "token_revoke": (["token", "revoke", str(t.token_id)], None, None),
        "sharing": (["share", a, NOBODY, "read"], None, None),
        "unsharing": (["unshare", a, NOBODY], None, None),
        "members": (["member", "add", t.email, "--name", "New"], None, None),
        "automations": (
            ["automation", "add", "--on", "document.created", "--folder", t.watched],
            None,
            None,
        ),
        "automation_off": (["automation", "disable", str(t.automation)], None, None),
        "member_off": (["member", "disable", t.person], None, None),
        "grant_log": (["grants", "--log", "--limit", "500"], None, f'"id": {t.change},'),
    }
    found = calls.get(op, ([], None, None))
    if op == "automations":
        found[0].extend(["--routine", ROUTINE])
    return found


CLI_OPS = frozenset(
    op for op in SERVICE if _cli_args(op, Target("", Item("", 0, 0), "", "", 0, "", ""), "")[0]
)


def cli_run(op: str, handle: str, target: Target, folder: str) -> str:
    args, stdin, shows = _cli_args(op, target, f"{folder}/{uuid.uuid4().hex[:8]}")
    result = CliRunner().invoke(
        cli, [*args, "--json", "--as", handle], input=stdin, catch_exceptions=False
    )
    if result.exit_code == 0:
        return OK if shows is None or shows in result.stdout else "not_found"
    assert result.exit_code == 1, result.output
    code, _, _ = result.stderr.partition(": ")
    return code
