"""What a model reads of suggestions over MCP, with the SDK's own client on both databases
(issue 12, items 3, 5 and 7): answers sized for a model, suggestions listed briefly and paged,
one in full on request, links as first-class as changes, and the diff accepting would make now.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client import Client

from tests.conftest import ENGINES, GENEROUS, InProcessServer, in_process, refusal, unique
from tests.mcp.test_agent_review import Calls

pytestmark = pytest.mark.anyio

RECORD = """\
**Status:** Proposed

## Context

Slow pages.

## Decision

Cache them.

## Consequences

Pages are fast.
"""


def compact(value: Any) -> str:
    """JSON as the tools write it for a model."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def appended(line: str) -> list[dict[str, str]]:
    return [{"op": "append", "text": line}]


async def suggest_three(client: Client, address: str) -> list[int]:
    """Three suggestions of one line each on `address`; their ids, oldest first."""
    agent = Calls(client)
    made = []
    for n in range(3):
        answer = await agent(
            "suggest_edit",
            address=address,
            edits=appended(f"Note {n}."),
            reason=f"The record should say note {n}.",
        )
        made.append(answer["suggestion_id"])
    return made


async def test_an_edit_of_a_long_page_answers_its_diff_and_version_without_the_body(
    app: InProcessServer,
) -> None:
    address = unique("wiki:long/")
    body = "".join(f"Paragraph {n}: the cache keeps pages for a day.\n\n" for n in range(220))
    assert len(body) > 10_000
    app.create_page(address, body)
    async with app.mcp("writer") as client:
        writer = Calls(client)
        answer = await writer(
            "edit_document",
            address=address,
            edits=[{"op": "replace", "old": "Paragraph 100:", "new": "Paragraph 100 (new):"}],
            summary="Mark paragraph 100",
        )
        read = writer.read  # the characters of the answer's text
        edited = await writer("read_document", address=address)
    assert set(answer) == {"address", "version", "saved", "summary", "diff"}
    assert (answer["version"], answer["summary"]) == (2, "Mark paragraph 100")
    assert "+Paragraph 100 (new):" in answer["diff"]
    assert read < 1_000
    assert "Paragraph 100 (new):" in edited["pages"][0]["body"]


async def test_a_suggestion_in_a_list_is_brief_without_its_edits_or_diff(
    app: InProcessServer,
) -> None:
    address = unique("wiki:brief/")
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        agent = Calls(client)
        made = await agent(
            "suggest_edit",
            address=address,
            edits=[{"op": "append", "text": "## Alternatives\n\nA queue, dropped: it delays."}],
            reason="A decision record names the alternatives it rejected; this one names none.",
        )
        listed = await agent("list_suggestions", address=address)
    async with app.mcp("writer") as client:
        await Calls(client)(
            "decide_edit_suggestion",
            suggestion_id=made["suggestion_id"],
            decision="reject",
            reason="We name alternatives only where one was seriously weighed.",
        )
    async with app.mcp("agent") as client:
        decided = await Calls(client)("list_suggestions", address=address)
    [item] = listed["suggestions"]
    assert (item["suggestion_id"], item["kind"], item["page"], item["status"], item["by"]) == (
        made["suggestion_id"],
        "change",
        address,
        "pending",
        "checker (agent)",
    )
    assert item["applies"] is True
    [closed] = decided["suggestions"]
    assert (closed["status"], closed["decided_by"]) == ("rejected", "Wanda")
    assert "applies" not in closed
    for brief in (item, closed):
        assert not {"edits", "diff", "diff_now", "base_version", "note"} & set(brief)
        assert len(compact(brief)) < 400


async def test_suggestions_are_listed_newest_first_a_page_at_a_time(
    app: InProcessServer,
) -> None:
    address = unique("wiki:paged/")
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        made = await suggest_three(client, address)
        agent = Calls(client)
        first = await agent("list_suggestions", address=address, limit=2, offset=0)
        rest = await agent("list_suggestions", address=address, limit=2, offset=2)
    assert [s["suggestion_id"] for s in first["suggestions"]] == [made[2], made[1]]
    assert "offset=2" in first["note"]
    assert [s["suggestion_id"] for s in rest["suggestions"]] == [made[0]]
    assert "note" not in rest


async def test_one_suggestion_asked_for_by_id_comes_with_its_edits_and_diff(
    app: InProcessServer,
) -> None:
    address = unique("wiki:whole/")
    app.create_page(address, RECORD)
    edits = [{"op": "replace", "old": "Cache them.", "new": "Cache them for a day."}]
    async with app.mcp("agent") as client:
        agent = Calls(client)
        made = await agent(
            "suggest_edit", address=address, edits=edits, reason="Say how long pages are kept."
        )
        number = made["suggestion_id"]
        [whole] = (await agent("list_suggestions", suggestion_id=number))["suggestions"]
    assert (whole["suggestion_id"], whole["kind"]) == (number, "change")
    assert (whole["page"], whole["base_version"]) == (address, 1)
    assert whole["edits"] == edits
    assert whole["diff"] == made["diff"]
    assert "-Cache them." in whole["diff"] and "+Cache them for a day." in whole["diff"]
    assert "diff_now" not in whole  # the page has not moved on


async def test_suggestions_are_listed_by_status_in_a_folder_or_a_space(
    app: InProcessServer,
) -> None:
    folder = unique("wiki:statuses-")
    address = f"{folder}/0001-cache"
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        made = await suggest_three(client, address)
        agent = Calls(client)
        withdrawn_one = await agent("withdraw_suggestion", suggestion_id=made[1])
        withdrawn = await agent("list_suggestions", address=folder, status="withdrawn")
        pending = await agent("list_suggestions", address=f"{folder}/", status="pending")
        accepted = await agent("list_suggestions", address=folder, status="accepted")
        space = await agent("list_suggestions", address="wiki:", kind="change", limit=200)
    assert withdrawn_one == {"suggestion_id": made[1], "kind": "change", "status": "withdrawn"}
    assert [(s["suggestion_id"], s["status"]) for s in withdrawn["suggestions"]] == [
        (made[1], "withdrawn")
    ]
    assert [s["suggestion_id"] for s in pending["suggestions"]] == [made[2], made[0]]
    assert accepted["suggestions"] == []
    assert accepted["note"] == f"No suggestions on {folder} with status accepted."
    # The space lists the newest first, these three among them.
    assert [s["suggestion_id"] for s in space["suggestions"][:3]] == made[::-1]


async def test_an_agent_lists_and_withdraws_a_link_it_suggested(app: InProcessServer) -> None:
    page, target = unique("wiki:linked/"), unique("wiki:linked/")
    app.create_page(page, RECORD, title="0050 · A cache")
    app.create_page(target, "# Caches\n", title="Caches")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        made = await agent(
            "suggest_link", address=page, target=target, reason="It explains caches."
        )
        number = made["suggestion_id"]
        waiting = await agent("list_suggestions", address=page, kind="link")
        withdrawn = await agent("withdraw_link_suggestion", suggestion_id=number)
        after = await agent("list_suggestions", address=page, kind="link")
        changes = await agent("list_suggestions", address=page, kind="change")
        [whole] = (await agent("list_suggestions", suggestion_id=number, kind="link"))[
            "suggestions"
        ]
    assert isinstance(number, int) and made["saved"] is True
    [link] = waiting["suggestions"]
    assert (link["suggestion_id"], link["kind"], link["page"], link["status"], link["target"]) == (
        number,
        "link",
        page,
        "pending",
        target,
    )
    assert withdrawn == {"suggestion_id": number, "kind": "link", "status": "withdrawn"}
    assert [(s["suggestion_id"], s["kind"], s["status"]) for s in after["suggestions"]] == [
        (number, "link", "withdrawn")
    ]
    assert changes["suggestions"] == []
    assert (whole["suggestion_id"], whole["kind"], whole["status"], whole["target"]) == (
        number,
        "link",
        "withdrawn",
        target,
    )


@pytest.mark.parametrize(
    ("tool", "extra"),
    [
        ("withdraw_suggestion", {}),
        ("withdraw_link_suggestion", {}),
        ("list_suggestions", {}),
        ("decide_edit_suggestion", {"decision": "reject"}),
        ("decide_link_suggestion", {"decision": "reject"}),
    ],
)
@pytest.mark.parametrize("named", ["change-12", "link-5"])
async def test_a_suggestion_id_is_a_number_and_the_old_named_form_is_refused(
    app: InProcessServer, tool: str, extra: dict[str, str], named: str
) -> None:
    async with app.mcp("writer") as client:
        as_text = refusal(await client.call_tool(tool, {"suggestion_id": named, **extra}))
        old_argument = refusal(await client.call_tool(tool, {"id": named, **extra}))
    assert (as_text["code"], as_text["field"]) == ("invalid_request", "suggestion_id")
    assert "suggestion_id" in as_text["message"] and "integer" in as_text["message"]
    # The argument the tools took before is refused by its name, naming the one they take.
    assert (old_argument["code"], old_argument["field"]) == ("invalid_request", "id")
    assert "suggestion_id" in old_argument["message"]


@pytest.mark.parametrize("tool", ["decide_edit_suggestion", "decide_link_suggestion"])
@pytest.mark.parametrize("loose", [True, "1", 1.0])
async def test_an_id_that_is_only_like_a_number_decides_nothing(
    app: InProcessServer, tool: str, loose: object
) -> None:
    async with app.mcp("writer") as client:
        refused = refusal(
            await client.call_tool(tool, {"suggestion_id": loose, "decision": "reject"})
        )
    assert (refused["code"], refused["field"]) == ("invalid_request", "suggestion_id")


async def test_deciding_a_change_and_a_link_by_their_ids_decides_each_of_its_kind(
    app: InProcessServer,
) -> None:
    page, target = unique("wiki:kinds/"), unique("wiki:kinds/")
    app.create_page(page, RECORD, title="0051 · Kinds")
    app.create_page(target, "# Queues\n", title="Queues")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        change = await agent(
            "suggest_edit", address=page, edits=appended("Reviewed."), reason="Say it was read."
        )
        link = await agent("suggest_link", address=page, target=target, reason="See queues.")
    change_id, link_id = change["suggestion_id"], link["suggestion_id"]
    async with app.mcp("writer") as client:
        editor = Calls(client)
        accepted = await editor(
            "decide_edit_suggestion", suggestion_id=change_id, decision="accept"
        )
        between = await editor("list_suggestions", address=page)
        rejected = await editor(
            "decide_link_suggestion",
            suggestion_id=link_id,
            decision="reject",
            reason="Not related.",
        )
        after = await editor("list_suggestions", address=page)
    assert accepted == {
        "suggestion_id": change_id,
        "kind": "change",
        "status": "accepted",
        "accepted_version": 2,
    }
    assert {(s["kind"], s["suggestion_id"]): s["status"] for s in between["suggestions"]} == {
        ("change", change_id): "accepted",
        ("link", link_id): "pending",
    }
    assert rejected == {"suggestion_id": link_id, "kind": "link", "status": "rejected"}
    assert {(s["kind"], s["suggestion_id"]): s["status"] for s in after["suggestions"]} == {
        ("change", change_id): "accepted",
        ("link", link_id): "rejected",
    }


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_links_id_given_to_decide_edit_suggestion_decides_nothing_of_the_link(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    engine: str,
) -> None:
    # A workspace of its own, so the numbers are known: the first link and the first change
    # are both 1, and a number given to the wrong tool could only reach this test's own.
    with in_process(engine, request, tmp_path_factory, **GENEROUS) as fresh, fresh.active():
        page, target = unique("wiki:kinds/"), unique("wiki:kinds/")
        fresh.create_page(page, RECORD, title="0053 · Kinds")
        fresh.create_page(target, "# Queues\n", title="Queues")
        async with fresh.mcp("agent") as client:
            link = await Calls(client)(
                "suggest_link", address=page, target=target, reason="See queues."
            )
        number = link["suggestion_id"]
        async with fresh.mcp("writer") as client:
            editor = Calls(client)
            no_change = refusal(
                await client.call_tool(
                    "decide_edit_suggestion", {"suggestion_id": number, "decision": "accept"}
                )
            )
            no_withdrawal = refusal(
                await client.call_tool("withdraw_suggestion", {"suggestion_id": number})
            )
            alone = await editor("list_suggestions", address=page)
        async with fresh.mcp("agent") as client:
            change = await Calls(client)(
                "suggest_edit", address=page, edits=appended("Reviewed."), reason="Say so."
            )
        async with fresh.mcp("writer") as client:
            editor = Calls(client)
            decided = await editor(
                "decide_edit_suggestion", suggestion_id=number, decision="reject"
            )
            after = await editor("list_suggestions", address=page)
            record = (await editor("read_document", address=page))["pages"][0]
    assert number == change["suggestion_id"] == 1
    # With no change of that number, the link's number names nothing to decide or withdraw.
    assert (no_change["code"], no_change["suggestion_id"]) == ("not_found", number)
    assert no_withdrawal["code"] == "not_found"
    assert [(s["kind"], s["status"]) for s in alone["suggestions"]] == [("link", "pending")]
    # With one, the same number decides the change, and the link still waits.
    assert decided == {"suggestion_id": number, "kind": "change", "status": "rejected"}
    assert {(s["kind"], s["suggestion_id"]): s["status"] for s in after["suggestions"]} == {
        ("change", number): "rejected",
        ("link", number): "pending",
    }
    assert record["version"] == 1 and target not in record["body"]


async def test_an_accepted_link_that_is_reverted_shows_its_revert_in_the_agents_list(
    app: InProcessServer,
) -> None:
    page, target = unique("wiki:reverted/"), unique("wiki:reverted/")
    app.create_page(page, RECORD, title="0052 · Reverted")
    app.create_page(target, "# Pages\n", title="Pages")
    async with app.mcp("agent") as client:
        link = await Calls(client)(
            "suggest_link", address=page, target=target, reason="It names the pages."
        )
    async with app.mcp("writer") as client:
        editor = Calls(client)
        accepted = await editor(
            "decide_link_suggestion", suggestion_id=link["suggestion_id"], decision="accept"
        )
        reverted = await editor(
            "revert_document", address=page, version=accepted["accepted_version"]
        )
    async with app.mcp("agent") as client:
        [mine] = (await Calls(client)("list_suggestions", address=page, kind="link"))["suggestions"]
    assert accepted["accepted_version"] == 2 and reverted["version"] == 3
    assert (mine["suggestion_id"], mine["kind"], mine["status"]) == (
        link["suggestion_id"],
        "link",
        "accepted",
    )
    assert (mine["accepted_version"], mine["reverted_in_version"]) == (2, 3)
    assert accepted == {
        "suggestion_id": link["suggestion_id"],
        "kind": "link",
        "status": "accepted",
        "accepted_version": 2,
    }


def hunks(diff: str) -> list[str]:
    """A unified diff's lines without its two header lines, which name the versions."""
    return diff.splitlines()[2:]


STALE = [{"op": "replace", "old": "Cache them.", "new": "Cache them for a day."}]


async def test_a_suggestion_on_a_page_that_moved_on_shows_its_diff_and_the_diff_now(
    app: InProcessServer,
) -> None:
    address = unique("wiki:moved/")
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        made = await Calls(client)(
            "suggest_edit", address=address, edits=STALE, reason="Say how long pages are kept."
        )
    # The writer changes the page next to the suggested line, not the line itself: version 2.
    app.edit_page(address, [{"op": "replace", "old": "## Decision", "new": "## Decision taken"}])
    async with app.mcp("writer") as client:
        editor = Calls(client)
        waiting = await editor("pending_decisions", kind="change", limit=200)
        [whole] = (await editor("list_suggestions", suggestion_id=made["suggestion_id"]))[
            "suggestions"
        ]
    [pending] = [s for s in waiting["changes"] if s["suggestion_id"] == made["suggestion_id"]]
    for shown in (pending, whole):
        assert shown["diff"] == made["diff"]
        assert hunks(shown["diff_now"]) != hunks(shown["diff"])
        assert "\n ## Decision taken\n" in shown["diff_now"]
        assert "\n ## Decision\n" in shown["diff"]
        assert "-Cache them.\n+Cache them for a day." in shown["diff_now"]
        assert "Decision taken" not in shown["diff"]
        assert "edits" not in pending
    assert whole["edits"] == STALE


async def test_a_suggestion_on_an_unchanged_page_has_no_diff_now(app: InProcessServer) -> None:
    address = unique("wiki:unmoved/")
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        made = await Calls(client)(
            "suggest_edit", address=address, edits=STALE, reason="Say how long pages are kept."
        )
    async with app.mcp("writer") as client:
        editor = Calls(client)
        waiting = await editor("pending_decisions", kind="change", limit=200)
        [whole] = (await editor("list_suggestions", suggestion_id=made["suggestion_id"]))[
            "suggestions"
        ]
    [pending] = [s for s in waiting["changes"] if s["suggestion_id"] == made["suggestion_id"]]
    for shown in (pending, whole):
        assert shown["diff"] == made["diff"]
        assert "diff_now" not in shown


async def test_refusing_the_same_change_again_names_the_suggesters_own_by_the_id_tools_take(
    app: InProcessServer,
) -> None:
    address = unique("wiki:own-duplicate/")
    app.create_page(address, RECORD)
    async with app.mcp("agent") as client:
        made = await Calls(client)(
            "suggest_edit", address=address, edits=STALE, reason="Say how long pages are kept."
        )
        pending = refusal(
            await client.call_tool(
                "suggest_edit", {"address": address, "edits": STALE, "reason": "Again."}
            )
        )
    async with app.mcp("writer") as client:
        await Calls(client)(
            "decide_edit_suggestion", suggestion_id=made["suggestion_id"], decision="reject"
        )
    async with app.mcp("agent") as client:
        rejected = refusal(
            await client.call_tool(
                "suggest_edit", {"address": address, "edits": STALE, "reason": "Once more."}
            )
        )
        # The number a refusal names is the one the tools take: it reads the suggestion.
        [named] = (
            await Calls(client)("list_suggestions", suggestion_id=rejected["suggestion_id"])
        )["suggestions"]
    number = made["suggestion_id"]
    assert (pending["code"], rejected["code"]) == ("duplicate", "rejected_before")
    for error in (pending, rejected):
        # It names the suggester's own by its integer suggestion_id, as the tools take it.
        assert error["suggestion_id"] == number, error
        assert f"suggestion {number}" in error["message"], error
        assert "change-" not in error["message"], error
    assert (named["suggestion_id"], named["kind"], named["status"]) == (
        number,
        "change",
        "rejected",
    )
