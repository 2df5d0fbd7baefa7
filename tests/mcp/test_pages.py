"""The page tools over MCP, with the SDK's own client through the app's whole ASGI stack
(auth included), on both databases: who sees which tools, and every refusal of an edit."""

from __future__ import annotations

import pytest

from tests.conftest import InProcessServer, one_page, refusal, structured, unique

pytestmark = pytest.mark.anyio

BODY = "# Guide\n\nThe first line.\n\n## Limits\n\nAt most ten.\n\n## Notes\n\nSee the limits.\n"
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


async def test_an_agent_sees_the_tools_its_rights_allow_and_none_that_decide(
    app: InProcessServer,
) -> None:
    async with app.mcp("writer") as person, app.mcp("agent") as agent:
        people = {tool.name for tool in (await person.list_tools()).tools}
        agents = {tool.name for tool in (await agent.list_tools()).tools}
    both = {"read_document", "edit_document", "search_documents", "document_history"}
    deciding = {"decide_edit_suggestion", "decide_link_suggestion", "pending_decisions"}
    assert both | {"revert_document", "read_revision"} | deciding <= people
    # An agent edits and reverts its own pages in output, so it has both tools.
    assert both | {"create_document", "suggest_link", "revert_document", "read_revision"} <= agents
    assert not {name for name in agents if name.startswith("decide_")}
    assert "pending_decisions" not in agents
    assert agents < people


async def test_an_agent_reverts_a_revision_of_its_own_output_page(app: InProcessServer) -> None:
    address = unique("output:checker/runs/")
    async with app.mcp("agent") as agent:
        made = await agent.call_tool(
            "create_document", {"address": address, "title": "Run", "body": BODY}
        )
        assert not made.is_error, made
        await agent.call_tool("edit_document", {"address": address, "edits": TWELVE})
        reverted = structured(
            await agent.call_tool("revert_document", {"address": address, "version": 2})
        )
        page = one_page(await agent.call_tool("read_document", {"address": address}))
    assert reverted["saved"] and page["version"] == 3
    assert "At most ten." in page["body"]


async def test_a_page_one_cannot_read_looks_exactly_like_a_missing_one(
    app: InProcessServer,
) -> None:
    hidden = unique()
    missing = unique()
    app.create_page(hidden, BODY)
    async with app.mcp("stranger") as mcp:
        for tool, extra in (
            ("read_document", {}),
            ("document_history", {}),
            ("read_revision", {"version": 1}),
            ("edit_document", {"edits": TWELVE}),
        ):
            seen = refusal(await mcp.call_tool(tool, {"address": hidden, **extra}))
            absent = refusal(await mcp.call_tool(tool, {"address": missing, **extra}))
            assert seen["code"] == "not_found", (tool, seen)
            assert seen == {
                key: value.replace(missing, hidden) if isinstance(value, str) else value
                for key, value in absent.items()
            }, tool


async def test_an_agent_editing_a_page_shared_with_it_is_refused_as_read_only(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    async with app.mcp("agent") as mcp:
        readable = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert readable["editable"] is False
        error = refusal(await mcp.call_tool("edit_document", {"address": address, "edits": TWELVE}))
        assert error["code"] == "read_only"
        assert error["address"] == address
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert (page["body"], page["version"]) == (BODY, 1)


async def test_an_agent_writes_the_output_pages_it_created(app: InProcessServer) -> None:
    address = unique("output:checker/runs/")
    async with app.mcp("agent") as mcp:
        made = structured(
            await mcp.call_tool(
                "create_document", {"address": address, "title": "A run", "body": BODY}
            )
        )
        assert made["version"] == 1
        edited = structured(
            await mcp.call_tool("edit_document", {"address": address, "edits": TWELVE})
        )
        assert edited["version"] == 2
        wiki = refusal(
            await mcp.call_tool(
                "create_document", {"address": unique(), "title": "Not here", "body": BODY}
            )
        )
        assert wiki["code"] == "read_only"


async def test_an_edit_in_raw_is_read_only_even_for_a_writer_of_raw(
    app: InProcessServer,
) -> None:
    # Raw refuses every write, a dry run, a revert and a create too: that rule is tested in
    # tests/services/pages/test_pages.py; here, how MCP answers it.
    page = app.import_raw(f"{unique('')}.md", BODY)
    address = page["address"]
    assert address.startswith("raw:")
    async with app.mcp("writer") as mcp:
        error = refusal(await mcp.call_tool("edit_document", {"address": address, "edits": TWELVE}))
        assert error["code"] == "read_only", error
        assert one_page(await mcp.call_tool("read_document", {"address": address}))["body"] == (
            BODY
        )


async def test_an_edit_on_a_stale_base_version_is_a_conflict_that_names_the_current_version(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    async with app.mcp("writer") as mcp:
        structured(await mcp.call_tool("edit_document", {"address": address, "edits": TWELVE}))
        later = [{"op": "append", "text": "A late line."}]
        error = refusal(
            await mcp.call_tool(
                "edit_document", {"address": address, "edits": later, "base_version": 1}
            )
        )
        assert error["code"] == "conflict"
        assert error["current_version"] == 2
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert page["version"] == 2 and "A late line." not in page["body"]


async def test_an_edit_whose_text_is_missing_or_ambiguous_names_the_edit_and_changes_nothing(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    async with app.mcp("writer") as mcp:
        missing = refusal(
            await mcp.call_tool(
                "edit_document",
                {
                    "address": address,
                    "edits": [*TWELVE, {"op": "insert_after", "anchor": "Absent.", "text": "x"}],
                },
            )
        )
        assert missing["code"] == "invalid_edit"
        assert (missing["edit_index"], missing["op"], missing["reason"]) == (
            1,
            "insert_after",
            "text_not_found",
        )
        ambiguous = refusal(
            await mcp.call_tool(
                "edit_document",
                {"address": address, "edits": [{"op": "replace", "old": "## ", "new": "### "}]},
            )
        )
        assert ambiguous["code"] == "invalid_edit"
        assert (ambiguous["edit_index"], ambiguous["reason"], ambiguous["count"]) == (
            0,
            "ambiguous",
            2,
        )
        section = refusal(
            await mcp.call_tool(
                "edit_document",
                {"address": address, "edits": [{"op": "delete_section", "heading": "Nowhere"}]},
            )
        )
        assert (section["code"], section["reason"]) == ("invalid_edit", "section_not_found")
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert (page["body"], page["version"]) == (BODY, 1)


async def test_an_edit_past_a_size_limit_is_refused_as_too_large_with_the_limit(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    async with app.mcp("writer") as mcp:
        field = refusal(
            await mcp.call_tool(
                "edit_document",
                {"address": address, "edits": [{"op": "append", "text": "x" * (256 * 1024 + 1)}]},
            )
        )
        assert (field["code"], field["limit"]) == ("too_large", 256 * 1024)
        # Edits that grow the body past its limit are refused alike: that rule is tested in
        # tests/services/pages/test_pages.py.
        page = one_page(await mcp.call_tool("read_document", {"address": address}))
        assert page["version"] == 1


async def test_a_deciding_tool_called_by_an_agent_says_agents_never_decide(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, BODY)
    app.edit_page(address, TWELVE)
    arguments = {"address": address, "version": 2}
    async with app.mcp("agent") as agent:
        unknown = await agent.call_tool("no_such_tool", arguments)
        assert unknown.is_error
        for hidden in ("pending_decisions", "decide_edit_suggestion", "decide_link_suggestion"):
            refused = refusal(await agent.call_tool(hidden, arguments))
            assert (refused["code"], refused["tool"]) == ("read_only", hidden)
            assert "never decide" in refused["message"] and "suggest_edit" in refused["message"]
    async with app.mcp("writer") as person:
        page = one_page(await person.call_tool("read_document", {"address": address}))
        assert page["version"] == 2
