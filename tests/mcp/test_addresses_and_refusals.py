"""Addresses that forgive what is unambiguous and refusals that name what to do instead, over
MCP with the SDK's own client on both databases (issue 12, items 1, 2 and 4).

A folder named without its slash lists the folder; an empty listing says what was empty; an
address that names nothing readable is not found with the nearest one the caller can read, and
only one they can read. A refused edit names suggest_edit, a refused create names where one may
create. A change spelled differently but the same to the page is the same to the durable
rejection and the duplicate check, and neither refusal tells a third member whose it was.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.client import Client

from tests.conftest import InProcessServer, refusal, unique
from tests.mcp.test_agent_review import Calls

pytestmark = pytest.mark.anyio

RECORD = """\
**Status:** Proposed

## Context

Slow pages.

## Alternatives

A cache in front.
"""


def folder_of_two(app: InProcessServer) -> tuple[str, list[str]]:
    """A new folder holding two pages, named first in the wiki (so that the nearest address is
    looked for among its pages however many others the run makes); the folder without its
    slash, and its pages."""
    folder = unique("wiki:00near-")
    made = [f"{folder}/0001-markdown", f"{folder}/0002-agents"]
    for address in made:
        app.create_page(address, RECORD, title=address.rpartition("/")[2])
    return folder, made


def misspelt(address: str) -> str:
    """The address with its last character changed, as a model might mistype it."""
    return address[:-1] + ("x" if address[-1] != "x" else "y")


async def refused(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    return refusal(await client.call_tool(tool, arguments))


async def test_a_folder_named_without_its_slash_lists_the_folder(app: InProcessServer) -> None:
    folder, made = folder_of_two(app)
    async with app.mcp("agent") as client:
        agent = Calls(client)
        bare = await agent("list_documents", address=folder)
        slashed = await agent("list_documents", address=f"{folder}/")
    assert [page["address"] for page in bare["pages"]] == made
    assert bare == slashed
    assert "note" not in bare


async def test_an_empty_folder_or_space_says_what_was_empty_in_its_note_and_text(
    app: InProcessServer,
) -> None:
    empty = unique("wiki:00empty-") + "/"
    async with app.mcp("agent") as client:
        agent = Calls(client)
        folder = await agent("list_documents", address=empty)
    async with app.mcp("stranger") as client:
        stranger = Calls(client)
        space = await stranger("list_documents", address="wiki:")
        everywhere = await stranger("list_documents")
    assert folder == {"pages": [], "note": f"No pages you can read in {empty}."}
    assert space == {"pages": [], "note": "No pages you can read in wiki:."}
    assert everywhere == {"pages": [], "note": "No pages you can read."}


async def test_a_misspelt_folder_is_not_found_with_the_nearest_folder_one_can_read(
    app: InProcessServer,
) -> None:
    folder, _ = folder_of_two(app)
    wrong = misspelt(folder)
    async with app.mcp("agent") as agent:
        error = await refused(agent, "list_documents", address=wrong)
        searched = await refused(agent, "search_documents", query="cache", within=wrong)
    assert error["code"] == "not_found"
    assert error["nearest"] == f"{folder}/"
    assert error["message"].endswith(f"The nearest you can read is {folder}/.")
    assert searched["nearest"] == f"{folder}/"


async def test_nothing_is_suggested_to_a_member_who_can_read_nothing_near(
    app: InProcessServer,
) -> None:
    folder, made = folder_of_two(app)
    # To the stranger, who can read nothing, the real addresses are as absent as the misspelt.
    asked = [
        ("list_documents", misspelt(folder), "Nothing you can read is at {}."),
        ("list_documents", folder, "Nothing you can read is at {}."),
        ("read_document", misspelt(made[0]), "There is no page {}."),
        ("read_document", made[0], "There is no page {}."),
    ]
    async with app.mcp("stranger") as stranger:
        for tool, address, message in asked:
            error = await refused(stranger, tool, address=address)
            assert error == {
                "code": "not_found",
                "message": message.format(address),
                "address": address,
            }, (tool, address)


async def test_reading_a_misspelt_page_is_not_found_with_the_nearest_page_one_can_read(
    app: InProcessServer,
) -> None:
    _, made = folder_of_two(app)
    wrong = misspelt(made[0])
    async with app.mcp("agent") as agent:
        error = await refused(agent, "read_document", address=wrong)
    assert (error["code"], error["address"], error["nearest"]) == ("not_found", wrong, made[0])
    assert error["message"] == f"There is no page {wrong}. The nearest you can read is {made[0]}."


async def test_an_agent_editing_a_wiki_page_is_told_to_use_suggest_edit(
    app: InProcessServer,
) -> None:
    address = unique("wiki:refusals/")
    app.create_page(address, RECORD)
    edits = [{"op": "replace", "old": "Slow pages.", "new": "Very slow pages."}]
    async with app.mcp("agent") as client:
        error = await refused(client, "edit_document", address=address, edits=edits)
        # The tool it names takes the same edits, and they are saved as a suggestion.
        suggested = await Calls(client)(
            "suggest_edit", address=address, edits=edits, reason="The pages are very slow."
        )
    assert (error["code"], error["instead"]) == ("read_only", "suggest_edit")
    assert "suggest_edit" in error["message"]
    assert suggested["saved"] is True and isinstance(suggested["suggestion_id"], int)


async def test_an_agent_creating_in_the_wiki_is_told_it_may_create_in_output(
    app: InProcessServer,
) -> None:
    async with app.mcp("agent") as client:
        error = await refused(
            client, "create_document", address=unique("wiki:runs/"), title="A run"
        )
        there = f"{error['create_under'][0]}{unique('decision-check/runs/')}"
        made = await Calls(client)("create_document", address=there, title="A run")
    assert (error["code"], error["create_under"]) == ("read_only", ["output:checker/"])
    assert "output:checker/" in error["message"]
    assert (made["address"], made["version"], made["saved"]) == (there, 1, True)


async def test_appending_a_heading_to_a_page_that_ends_with_a_paragraph_leaves_a_blank_line(
    app: InProcessServer,
) -> None:
    address = unique("output:checker/appends/")
    async with app.mcp("agent") as client:
        agent = Calls(client)
        await agent("create_document", address=address, title="Run", body="# Run\n\nChecked.\n")
        edited = await agent(
            "edit_document",
            address=address,
            edits=[{"op": "append", "text": "## Findings\n\nTwo records lack sections."}],
        )
        page = (await agent("read_document", address=address))["pages"][0]
    assert page["body"] == "# Run\n\nChecked.\n\n## Findings\n\nTwo records lack sections.\n"
    assert "+## Findings" in edited["diff"]


def _names_nothing_of(error: dict[str, Any], *, hidden: list[str]) -> None:
    shown = json.dumps(error, ensure_ascii=False)
    assert "suggestion_id" not in error and "decision_reason" not in error, error
    for secret in hidden:
        assert secret not in shown, (secret, error)


async def test_a_rejected_section_edit_spelled_with_or_without_its_hashes_is_rejected_before(
    app: InProcessServer,
) -> None:
    address = unique("wiki:rejections/")
    app.create_page(address, RECORD, title="0042 · A cache")
    why = "The agent thinks alternatives belong elsewhere."
    declined = "We keep the alternatives on every record."
    async with app.mcp("agent") as client:
        first = await Calls(client)(
            "suggest_edit",
            address=address,
            edits=[{"op": "delete_section", "heading": "## Alternatives"}],
            reason=why,
        )
    async with app.mcp("writer") as client:
        await Calls(client)(
            "decide_edit_suggestion",
            suggestion_id=first["suggestion_id"],
            decision="reject",
            reason=declined,
        )
    same = [{"op": "delete_section", "heading": "Alternatives"}]
    async with app.mcp("agent") as client:
        again = await refused(client, "suggest_edit", address=address, edits=same, reason="Again.")
    async with app.mcp("reader") as client:
        other = await refused(
            client, "suggest_edit", address=address, edits=same, reason="Not needed."
        )
    assert again["code"] == other["code"] == "rejected_before"
    # Whose it was, why and why not are for its suggester and the page's editors alone.
    number = first["suggestion_id"]
    _names_nothing_of(other, hidden=["checker", why, declined, f"suggestion {number}", str(number)])


async def test_a_pending_section_edit_spelled_another_way_is_a_duplicate_that_names_no_one(
    app: InProcessServer,
) -> None:
    address = unique("wiki:duplicates/")
    app.create_page(address, RECORD, title="0043 · A queue")
    why = "A queue was the other option worth naming."
    body = "A queue, dropped: it only delays the work."
    async with app.mcp("agent") as client:
        first = await Calls(client)(
            "suggest_edit",
            address=address,
            edits=[{"op": "replace_section", "heading": "Alternatives", "body": body}],
            reason=why,
        )
    hashes = [{"op": "replace_section", "heading": "## Alternatives", "body": body}]
    async with app.mcp("reader") as client:
        other = await refused(
            client, "suggest_edit", address=address, edits=hashes, reason="Name the queue."
        )
    async with app.mcp("writer") as client:
        waiting = await Calls(client)("list_suggestions", address=address)
    assert other["code"] == "duplicate"
    number = first["suggestion_id"]
    _names_nothing_of(other, hidden=["checker", why, f"suggestion {number}", str(number)])
    # Only the agent's suggestion waits: the reader's made nothing.
    assert [(s["suggestion_id"], s["kind"], s["status"]) for s in waiting["suggestions"]] == [
        (number, "change", "pending")
    ]
