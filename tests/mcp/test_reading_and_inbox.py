"""What an agent reviewing long pages needs, and an inbox a routine can follow, over MCP with
the SDK's own client on both databases (issue 12, items 6 and 8): outlines, several pages in
one read, search within a folder, trashing its own pages; what is new since its last look, and
marking it read.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from codna.services.limits import READ_MANY
from tests.conftest import InProcessServer, refusal, unique
from tests.mcp.test_agent_review import Calls

pytestmark = pytest.mark.anyio

GUIDE = """\
# Guide

The first line.

## Limits

At most ten.

### Per page

At most twenty.

## Notes

See the limits.
"""


def section(body: str, heading: str, until: str | None) -> int:
    """The characters from `heading`'s line to the line of `until` (or the end)."""
    start = body.index(heading)
    return (body.index(until) if until else len(body)) - start


async def test_an_outline_gives_each_heading_its_level_and_size_without_the_body(
    app: InProcessServer,
) -> None:
    address = unique("wiki:outlines/")
    app.create_page(address, GUIDE, title="Guide")
    async with app.mcp("agent") as client:
        [page] = (await Calls(client)("read_document", address=address, outline=True))["pages"]
    assert "body" not in page
    assert (page["address"], page["version"], page["chars"]) == (address, 1, len(GUIDE))
    assert page["headings"] == [
        {"level": 1, "text": "Guide", "chars": len(GUIDE)},
        {"level": 2, "text": "Limits", "chars": section(GUIDE, "## Limits", "## Notes")},
        {"level": 3, "text": "Per page", "chars": section(GUIDE, "### Per page", "## Notes")},
        {"level": 2, "text": "Notes", "chars": section(GUIDE, "## Notes", None)},
    ]


async def test_several_pages_are_read_in_one_call_and_an_absent_one_is_named_missing(
    app: InProcessServer,
) -> None:
    first, absent, second = unique("wiki:many/"), unique("wiki:many/"), unique("wiki:many/")
    app.create_page(first, GUIDE, title="First")
    app.create_page(second, "Second.\n", title="Second")
    async with app.mcp("agent") as client:
        read = await Calls(client)("read_document", address=[first, absent, second])
    assert [(p["address"], p["title"], p["body"]) for p in read["pages"]] == [
        (first, "First", GUIDE),
        (second, "Second", "Second.\n"),
    ]
    assert [p["editable"] for p in read["pages"]] == [False, False]
    assert read["missing"] == [absent]


async def test_reading_more_pages_than_the_bound_at_once_is_refused(app: InProcessServer) -> None:
    addresses = [unique("wiki:many/") for _ in range(READ_MANY + 1)]
    async with app.mcp("agent") as client:
        error = refusal(await client.call_tool("read_document", {"address": addresses}))
        most = await Calls(client)("read_document", address=addresses[:READ_MANY])
    assert (error["code"], error["limit"]) == ("invalid_request", READ_MANY)
    assert most == {"pages": [], "missing": addresses[:READ_MANY]}


async def test_a_search_within_a_folder_finds_only_the_pages_under_it(
    app: InProcessServer,
) -> None:
    word = unique("quokka")
    inside, outside = unique("wiki:searched-"), unique("wiki:searched-")
    app.create_page(f"{inside}/one", f"A {word} lives here.\n", title="One")
    app.create_page(f"{inside}/deeper/two", f"Another {word}.\n", title="Two")
    app.create_page(f"{outside}/three", f"A {word} elsewhere.\n", title="Three")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        bare = await agent("search_documents", query=word, within=inside)
        slashed = await agent("search_documents", query=word, within=f"{inside}/")
        space = await agent("search_documents", query=word, within="wiki:")
        other = await agent("search_documents", query=word, within="output:")
    found = sorted(hit["address"] for hit in bare["hits"])
    assert found == [f"{inside}/deeper/two", f"{inside}/one"]
    assert sorted(hit["address"] for hit in slashed["hits"]) == found
    assert sorted(hit["address"] for hit in space["hits"]) == sorted([*found, f"{outside}/three"])
    assert other == {"hits": [], "note": f"No page you can read matches {word}."}


async def test_search_narrowed_to_a_tag_finds_only_the_pages_with_it(app: InProcessServer) -> None:
    word, folder = unique("tagword"), unique("wiki:tagged-")
    with app.api("writer") as api:
        for name, tags in (("one", ["perf"]), ("two", ["Perf", "api"]), ("three", [])):
            made = api.post(
                "/api/v1/pages",
                json={
                    "address": f"{folder}/{name}",
                    "title": name,
                    "body": f"A {word}.\n",
                    "tags": tags,
                },
            )
            assert made.status_code == 201, made.text
    async with app.mcp("agent") as client:
        agent = Calls(client)
        perf = await agent("search_documents", query=word, tag=" PERF ")
        none = await agent("search_documents", query=word, tag="draft")
        refused = await client.call_tool("search_documents", {"query": word, "tag": "x" * 200})
    assert sorted(hit["address"] for hit in perf["hits"]) == [f"{folder}/one", f"{folder}/two"]
    assert none == {"hits": [], "note": f"No page you can read tagged draft matches {word}."}
    assert refusal(refused)["code"] == "invalid_request" and refusal(refused)["field"] == "tag"


async def test_an_agent_trashes_and_restores_its_own_output_page_but_not_a_wiki_page(
    app: InProcessServer,
) -> None:
    own, wiki = unique("output:checker/runs/"), unique("wiki:kept/")
    app.create_page(wiki, GUIDE)
    async with app.mcp("agent") as client:
        agent = Calls(client)
        await agent("create_document", address=own, title="A run", body="Checked.\n")
        trashed = await agent("trash_document", address=own)
        gone = refusal(await client.call_tool("read_document", {"address": own}))
        restored = await agent("trash_document", address=own, restore=True)
        back = await agent("read_document", address=own)
        refused = refusal(await client.call_tool("trash_document", {"address": wiki}))
        kept = await agent("read_document", address=wiki)
    assert trashed == {"address": own, "in_trash": True}
    assert gone["code"] == "not_found"
    assert restored == {"address": own, "in_trash": False}
    assert back["pages"][0]["body"] == "Checked.\n"
    assert refused["code"] == "read_only"
    assert "in_trash" not in kept["pages"][0]


# The inbox ----------------------------------------------------------------------------------


async def suggested_and_rejected(app: InProcessServer, reason: str) -> tuple[str, int]:
    """A suggestion of the agent's that the writer rejects with `reason`; its page and id."""
    address = unique("wiki:inbox/")
    app.create_page(address, GUIDE)
    async with app.mcp("agent") as client:
        made = await Calls(client)(
            "suggest_edit",
            address=address,
            edits=[{"op": "replace", "old": "At most ten.", "new": "At most twelve."}],
            reason="Twelve is the limit now.",
        )
    async with app.mcp("writer") as client:
        await Calls(client)(
            "decide_edit_suggestion",
            suggestion_id=made["suggestion_id"],
            decision="reject",
            reason=reason,
        )
    return address, made["suggestion_id"]


def about(decision: dict[str, Any]) -> tuple[str, int | None]:
    """The suggestion a notification is about: its kind and id."""
    return decision["kind"], decision.get("suggestion_id")


def since_look(latest: int | None) -> dict[str, Any]:
    """The inbox's arguments for what came after a look that saw `latest` (none: everything)."""
    return {"after": latest} if latest is not None else {}


async def test_a_routine_sees_a_decision_once_in_what_is_new_and_marks_it_read(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as client:
        before = await Calls(client)("inbox")
    address, made = await suggested_and_rejected(app, "Ten is enough.")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        new = await agent("inbox", **since_look(before.get("latest")), limit=200)
        [decision] = [d for d in new["decisions"] if about(d) == ("change", made)]
        again = await agent("inbox", after=new["latest"])
        marked = await agent("mark_read", ids=[decision["id"]])
        seen = await agent("inbox", **since_look(before.get("latest")), limit=200)
        twice = await agent("mark_read", ids=[decision["id"]])
    assert {k: decision[k] for k in ("page", "status", "reason", "by", "read")} == {
        "page": address,
        "status": "rejected",
        "reason": "Ten is enough.",
        "by": "Wanda",
        "read": False,
    }
    assert new["latest"] == decision["id"]
    assert new["unread"] == before["unread"] + 1
    assert again["decisions"] == [] and again["latest"] == decision["id"]
    assert again["note"] == "No decisions on your suggestions since then."
    assert marked == {"marked": 1}
    assert seen["unread"] == new["unread"] - 1
    [read] = [d for d in seen["decisions"] if d["id"] == decision["id"]]
    assert read == {**decision, "read": True}
    assert twice == {"marked": 0}


async def test_the_inbox_since_a_time_shows_only_what_came_after_it(
    app: InProcessServer,
) -> None:
    _, made = await suggested_and_rejected(app, "Not now.")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        [decision] = [
            d
            for d in (await agent("inbox", limit=200))["decisions"]
            if about(d) == ("change", made)
        ]
        at = datetime.fromisoformat(decision["at"])
        earlier = await agent("inbox", since=(at - timedelta(seconds=1)).isoformat(), limit=200)
        later = await agent("inbox", since=(at + timedelta(seconds=1)).isoformat())
    assert ("change", made) in [about(d) for d in earlier["decisions"]]
    assert later["decisions"] == []
    assert later["note"] == "No decisions on your suggestions since then."


async def test_an_editors_inbox_lists_the_ids_that_wait_and_points_to_pending_decisions(
    app: InProcessServer,
) -> None:
    address, target = unique("wiki:waiting/"), unique("wiki:waiting/")
    app.create_page(address, GUIDE)
    app.create_page(target, "# Owners\n", title="Owners")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        made = await agent(
            "suggest_edit",
            address=address,
            edits=[{"op": "append", "text": "## Owners\n\nThe platform team."}],
            reason="Say who owns the limits.",
        )
        link = await agent("suggest_link", address=address, target=target, reason="Owners.")
    async with app.mcp("writer") as client:
        box = await Calls(client)("inbox")
    assert made["suggestion_id"] in box["changes_waiting"]
    assert link["suggestion_id"] in box["links_waiting"]
    for waiting in (*box["changes_waiting"], *box["links_waiting"]):
        assert isinstance(waiting, int) and not isinstance(waiting, bool)
    assert "pending_decisions" in box["note"]
    text = json.dumps(box)  # what the text says (Calls holds them the same)
    assert '"diff"' not in text and '"edits"' not in text and "## Owners" not in text
