"""More rules of suggested changes through MCP: a stale suggestion names its
failing edit, accepting onto a moved-on page keeps the other edit, a revert shows in the
suggester's list, and a suggestion past its limit is refused with the figures."""

from __future__ import annotations

import pytest

from codna.markdown.edits import parse_edits
from codna.services.members import members
from codna.services.suggestions import changes
from tests.conftest import ROLES, InProcessServer, one_page, refusal, structured, unique

pytestmark = pytest.mark.anyio
BODY = "**Status:** Proposed\n\n## Context\n\nSlow pages.\n\n## Decision\n\nCache them.\n"
STATUS = [{"op": "replace", "old": "**Status:** Proposed", "new": "**Status:** Accepted"}]


async def test_a_stale_suggestion_names_its_edit_and_offers_only_reject(
    app: InProcessServer,
) -> None:
    address = unique("wiki:rules/")
    app.create_page(address, BODY)
    async with app.mcp("agent") as agent:
        made = structured(
            await agent.call_tool(
                "suggest_edit", {"address": address, "edits": STATUS, "reason": "Adopted."}
            )
        )["suggestion_id"]
    app.edit_page(address, [{"op": "replace", "old": "Proposed", "new": "Draft"}])
    async with app.mcp("writer") as editor:
        [seen] = structured(await editor.call_tool("list_suggestions", {"address": address}))[
            "suggestions"
        ]
        assert (seen["suggestion_id"], seen["kind"], seen["applies"]) == (made, "change", False)
        [whole] = structured(await editor.call_tool("list_suggestions", {"suggestion_id": made}))[
            "suggestions"
        ]
        assert seen["note"] == whole["note"] and whole["edits"] == STATUS
        assert whole["note"].startswith("The page changed after this was suggested: edit 0")
        assert "only Reject is left" in whole["note"]
        refused = refusal(
            await editor.call_tool(
                "decide_edit_suggestion", {"suggestion_id": made, "decision": "accept"}
            )
        )
        assert (refused["code"], refused["edit_index"], refused["reason"]) == (
            "no_longer_applies",
            0,
            "text_not_found",
        )
    async with app.mcp("agent") as agent:  # the suggester is told what to do instead
        [own] = structured(await agent.call_tool("list_suggestions", {"address": address}))[
            "suggestions"
        ]
    assert own["note"].startswith("The page changed after you suggested this: edit 0")
    assert "Withdraw it and suggest it again" in own["note"]
    # The text there now, quoted to copy, though it differs in more than spaces and case.
    assert 'The page has "**Status:** Draft" there now.' in own["note"]


async def test_accepting_onto_a_moved_on_page_keeps_the_other_edit_and_a_revert_is_reported(
    app: InProcessServer,
) -> None:
    address = unique("wiki:rules/")
    app.create_page(address, BODY)
    async with app.mcp("agent") as agent:
        made = structured(
            await agent.call_tool(
                "suggest_edit", {"address": address, "edits": STATUS, "reason": "Adopted."}
            )
        )["suggestion_id"]
    app.edit_page(address, [{"op": "replace", "old": "Slow pages.", "new": "Very slow pages."}])
    async with app.mcp("writer") as editor:
        [seen] = structured(await editor.call_tool("list_suggestions", {"suggestion_id": made}))[
            "suggestions"
        ]
        assert seen["applies"] is True and "version 2" in seen["note"]
        accepted = structured(
            await editor.call_tool(
                "decide_edit_suggestion", {"suggestion_id": made, "decision": "accept"}
            )
        )
        page = one_page(await editor.call_tool("read_document", {"address": address}))
        assert "Very slow pages." in page["body"] and "**Status:** Accepted" in page["body"]
        structured(
            await editor.call_tool(
                "revert_document", {"address": address, "version": accepted["accepted_version"]}
            )
        )
    async with app.mcp("agent") as agent:
        [mine] = structured(await agent.call_tool("list_suggestions", {"address": address}))[
            "suggestions"
        ]
        assert (mine["status"], mine["accepted_version"], mine["reverted_in_version"]) == (
            "accepted",
            3,
            4,
        )


async def test_a_suggestion_past_its_limit_is_refused_over_mcp_with_the_figures(
    app: InProcessServer,
) -> None:
    """The limits are the services' (tests/services/suggestions/test_suggestions.py: 20
    pending a page, 200 in all, room again once one is withdrawn); here, how MCP says it: 20
    made on one page through the services, the 21st refused over MCP with its code and
    figures, and room again once one is withdrawn over MCP."""
    reader = members.member_by_handle(ROLES["reader"])
    address = unique("wiki:many/")
    app.create_page(address, "Text.\n")
    for old in changes.list_suggestions(reader, status="pending", limit=200):
        changes.withdraw_suggestion(reader, suggestion_id=old.id)
    made = [
        changes.suggest_edit(
            reader,
            address=address,
            edits=parse_edits([{"op": "append", "text": f"L{n}"}]),
            reason="r",
        ).suggestion
        for n in range(20)
    ]
    one_more = {"address": address, "edits": [{"op": "append", "text": "one more"}], "reason": "r"}
    async with app.mcp("reader") as client:
        over = refusal(await client.call_tool("suggest_edit", one_more))
        first = made[0]
        assert first is not None
        structured(await client.call_tool("withdraw_suggestion", {"suggestion_id": first.id}))
        again = structured(await client.call_tool("suggest_edit", one_more))
    assert (over["code"], over["limit"], over["pending"]) == ("limit_reached", 20, 20)
    assert again["saved"] is True
    # Leave the shared workspace as it was for the reader's other tests.
    for old in changes.list_suggestions(reader, status="pending", limit=200):
        changes.withdraw_suggestion(reader, suggestion_id=old.id)
