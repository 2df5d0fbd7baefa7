"""The whole life of a suggestion, for changes and for links, from a client that knows only the
names ADR 0024 and SPEC 7 give: suggest; list a page's and one's own by status; accept one and
reject one with a reason; withdraw one; read the revision accepting made; suggest the rejected
one again and be refused; and an agent's tool list with no tool that decides.

`lifecycle` is the scenario; each transport runs it with a client of its own: here the SDK's
over Streamable HTTP on both databases, in tests/server/ the SDK's over stdio and the MCP
Inspector's CLI over a real `codna serve`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import pytest
from mcp.client import Client

from tests.conftest import InProcessServer, Served, refusal, structured, unique

pytestmark = pytest.mark.anyio

# What an agent uses of the texts' names, and what only a page's editors are given.
AGENTS_TOOLS = {
    "read_document",
    "read_revision",
    "suggest_edit",
    "suggest_link",
    "list_suggestions",
    "withdraw_suggestion",
    "withdraw_link_suggestion",
    "inbox",
}
DECIDING = {"decide_edit_suggestion", "decide_link_suggestion", "pending_decisions"}

RECORD = """\
**Status:** Accepted · 2026-10-27

## Context

Agents find gaps in decision records.

## Decision

A change can be suggested and accepted in one step.

## Consequences

Editors get a new kind of inbox item.
"""
# Three suggested changes: one to accept, one to reject, one its suggester withdraws.
CHANGES = {
    "accepted": [{"op": "append", "text": "## Limits\n\nAt most 20 waiting per page."}],
    "rejected": [
        {
            "op": "insert_before",
            "anchor": "## Consequences",
            "text": "## Alternatives rejected\n\nBranches for pages.\n\n",
        }
    ],
    "withdrawn": [{"op": "replace", "old": "in one step.", "new": "in one step by an editor."}],
}
WHY = {
    "accepted": "A decision record says its limits; this one names none.",
    "rejected": "A decision record names the alternatives it rejected.",
    "withdrawn": "Say who accepts.",
}
NOT_HERE = "We keep the alternatives in the ADR itself."
LINK_NOT = "Not related to this decision."


class Names(Protocol):
    """A client that calls tools by name as the texts give them, as a role of the team."""

    async def tools(self, role: str) -> set[str]:
        """The names in `role`'s tools/list."""
        ...

    async def call(self, role: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        """Call `tool` as `role`: whether it was refused, and its structured content."""
        ...


class SdkNames:
    """The SDK's own client, one session per role."""

    def __init__(self, clients: Mapping[str, Client]) -> None:
        self.clients = clients

    async def tools(self, role: str) -> set[str]:
        return {tool.name for tool in (await self.clients[role].list_tools()).tools}

    async def call(self, role: str, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
        result = await self.clients[role].call_tool(tool, arguments)
        if result.is_error:
            return True, refusal(result)
        return False, structured(result)


async def ok(client: Names, role: str, tool: str, **arguments: Any) -> dict[str, Any]:
    refused, answer = await client.call(role, tool, arguments)
    assert not refused, (tool, arguments, answer)
    assert isinstance(answer, dict), answer
    return answer


async def refused(client: Names, role: str, tool: str, **arguments: Any) -> dict[str, Any]:
    was_refused, error = await client.call(role, tool, arguments)
    assert was_refused, (tool, arguments, error)
    assert isinstance(error, dict), error
    return error


def on_page(listed: dict[str, Any], page: str) -> dict[tuple[str, int], dict[str, Any]]:
    """The suggestions of a list that are on `page`, by kind and id."""
    return {(s["kind"], s["suggestion_id"]): s for s in listed["suggestions"] if s["page"] == page}


async def lifecycle(client: Names, served: Served) -> None:
    """The scenario, run by `client` on `served`'s workspace: the agent suggests, the writer
    decides."""
    page = unique("wiki:decisions/")
    served.create_page(page, RECORD, title="0024 · Suggested changes")
    targets = {}
    for status in CHANGES:
        targets[status] = unique("wiki:lifecycle/")
        served.create_page(targets[status], f"# {status}\n", title=f"On what was {status}")

    # An agent's tool list has every tool it needs by the texts' names, and none that decides.
    agents = await client.tools("agent")
    assert not AGENTS_TOOLS - agents, AGENTS_TOOLS - agents
    assert not DECIDING & agents and not [n for n in agents if n.startswith("decide")]
    writers = await client.tools("writer")
    assert not (DECIDING | AGENTS_TOOLS) - writers, (DECIDING | AGENTS_TOOLS) - writers

    # The agent suggests three changes and three links.
    changes: dict[str, int] = {}
    links: dict[str, int] = {}
    for status, edits in CHANGES.items():
        made = await ok(
            client, "agent", "suggest_edit", address=page, edits=edits, reason=WHY[status]
        )
        assert made["saved"] is True and isinstance(made["suggestion_id"], int), made
        changes[status] = made["suggestion_id"]
        link = await ok(
            client,
            "agent",
            "suggest_link",
            address=page,
            target=targets[status],
            reason=f"It says what was {status}.",
        )
        assert link["saved"] is True and isinstance(link["suggestion_id"], int), link
        links[status] = link["suggestion_id"]
    every = {("change", n) for n in changes.values()} | {("link", n) for n in links.values()}

    # A page's suggestions, to their suggester and to the page's editor; what waits on her.
    for role in ("agent", "writer"):
        listed = on_page(await ok(client, role, "list_suggestions", address=page), page)
        assert set(listed) == every, (role, listed)
        assert {s["status"] for s in listed.values()} == {"pending"}
    waiting = await ok(client, "writer", "pending_decisions", limit=200)
    assert set(changes.values()) <= {s["suggestion_id"] for s in waiting["changes"]}
    assert set(links.values()) <= {s["suggestion_id"] for s in waiting["links"]}

    # The writer accepts one of each kind and rejects one of each with a reason.
    accepted = await ok(
        client,
        "writer",
        "decide_edit_suggestion",
        suggestion_id=changes["accepted"],
        decision="accept",
    )
    assert accepted == {
        "suggestion_id": changes["accepted"],
        "kind": "change",
        "status": "accepted",
        "accepted_version": 2,
    }
    rejected = await ok(
        client,
        "writer",
        "decide_edit_suggestion",
        suggestion_id=changes["rejected"],
        decision="reject",
        reason=NOT_HERE,
    )
    assert rejected == {
        "suggestion_id": changes["rejected"],
        "kind": "change",
        "status": "rejected",
    }
    link_accepted = await ok(
        client,
        "writer",
        "decide_link_suggestion",
        suggestion_id=links["accepted"],
        decision="accept",
    )
    assert link_accepted == {
        "suggestion_id": links["accepted"],
        "kind": "link",
        "status": "accepted",
        "accepted_version": 3,
    }
    link_rejected = await ok(
        client,
        "writer",
        "decide_link_suggestion",
        suggestion_id=links["rejected"],
        decision="reject",
        reason=LINK_NOT,
    )
    assert link_rejected == {
        "suggestion_id": links["rejected"],
        "kind": "link",
        "status": "rejected",
    }

    # The agent withdraws the third of each kind, each by the tool of its kind.
    withdrawn = await ok(client, "agent", "withdraw_suggestion", suggestion_id=changes["withdrawn"])
    assert withdrawn == {
        "suggestion_id": changes["withdrawn"],
        "kind": "change",
        "status": "withdrawn",
    }
    link_withdrawn = await ok(
        client, "agent", "withdraw_link_suggestion", suggestion_id=links["withdrawn"]
    )
    assert link_withdrawn == {
        "suggestion_id": links["withdrawn"],
        "kind": "link",
        "status": "withdrawn",
    }

    # The agent's own, by status: each holds the one change and the one link it became.
    for status in CHANGES:
        mine = await ok(client, "agent", "list_suggestions", status=status, limit=200)
        assert {s["status"] for s in mine["suggestions"]} == {status}
        ours = on_page(mine, page)
        assert set(ours) == {("change", changes[status]), ("link", links[status])}, status
        if status == "rejected":
            assert ours["change", changes[status]]["decision_reason"] == NOT_HERE
            assert ours["link", links[status]]["decision_reason"] == LINK_NOT
    still = await ok(client, "agent", "list_suggestions", address=page, status="pending")
    assert still["suggestions"] == []
    assert still["note"] == f"No suggestions on {page} with status pending."

    # The revisions accepting made name the suggester and the reason.
    change_revision = await ok(
        client, "agent", "read_revision", address=page, version=accepted["accepted_version"]
    )
    assert (change_revision["address"], change_revision["version"]) == (page, 2)
    assert (change_revision["kind"], change_revision["author"]) == ("accept_suggestion", "Wanda")
    assert change_revision["summary"] == f"Suggested by checker (agent): {WHY['accepted']}"
    assert "## Limits\n\nAt most 20 waiting per page." in change_revision["body"]
    assert targets["accepted"] not in change_revision["body"]
    link_revision = await ok(
        client, "agent", "read_revision", address=page, version=link_accepted["accepted_version"]
    )
    assert (link_revision["version"], link_revision["kind"]) == (3, "accept_link")
    assert link_revision["summary"] == "Suggested by checker (agent): It says what was accepted."
    assert f"]({targets['accepted']})" in link_revision["body"]
    assert f"]({targets['rejected']})" not in link_revision["body"]

    # The rejected ones, suggested again, are refused, naming which to their suggester.
    again = await refused(
        client, "agent", "suggest_edit", address=page, edits=CHANGES["rejected"], reason="Again."
    )
    assert (again["code"], again["suggestion_id"]) == ("rejected_before", changes["rejected"])
    assert again["decision_reason"] == NOT_HERE
    link_again = await refused(
        client, "agent", "suggest_link", address=page, target=targets["rejected"], reason="Again."
    )
    assert (link_again["code"], link_again["suggestion_id"]) == (
        "rejected_before",
        links["rejected"],
    )

    # The agent's inbox tells each decision, by kind and id; a withdrawal is its own doing.
    box = await ok(client, "agent", "inbox", limit=200)
    told = {
        (d["kind"], d["suggestion_id"]): (d["status"], d.get("reason"))
        for d in box["decisions"]
        if d["page"] == page
    }
    assert told == {
        ("change", changes["accepted"]): ("accepted", None),
        ("change", changes["rejected"]): ("rejected", NOT_HERE),
        ("link", links["accepted"]): ("accepted", None),
        ("link", links["rejected"]): ("rejected", LINK_NOT),
    }


async def test_the_whole_life_of_suggestions_by_the_texts_names_over_streamable_http(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as agent, app.mcp("writer") as writer:
        client = SdkNames({"agent": agent, "writer": writer})
        await lifecycle(client, app)
        # A tool that decides, called by the agent anyway, says agents never decide.
        tried = await refused(
            client, "agent", "decide_edit_suggestion", suggestion_id=1, decision="accept"
        )
        unknown = await refused(client, "agent", "no_such_tool", suggestion_id=1)
    assert tried["code"] == "read_only" and "never decide" in tried["message"]
    assert unknown["code"] == "not_found"
