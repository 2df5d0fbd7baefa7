"""The skill offered to MCP clients as a prompt and a resource, and pages as resources a client
attaches to a conversation (issue 13, item 5), over MCP with the SDK's own client on both
databases: the skill as shipped, listings only of what the caller can read, a page's body, and
a page one cannot read refused like a missing one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, TextContent, TextResourceContents

import codna.routines
from codna.mcp.resources import LISTED
from codna.services.members import members
from codna.services.pages import pages
from tests.conftest import ROLES, InProcessServer, unique

pytestmark = pytest.mark.anyio

SHIPPED = Path(codna.routines.__file__).with_name("skill.md")
MARKDOWN = "text/markdown"


def page_uri(address: str) -> str:
    space, _, path = address.partition(":")
    return f"codna://page/{space}/{path}"


async def read(app: InProcessServer, role: str, uri: str) -> TextResourceContents:
    async with app.mcp(role) as client:
        (contents,) = (await client.read_resource(uri)).contents
    assert isinstance(contents, TextResourceContents), contents
    return contents


async def refused(app: InProcessServer, role: str, uri: str) -> dict[str, Any]:
    """The MCP error reading `uri` answers: a `code: sentence` message and the error as data."""
    async with app.mcp(role) as client:
        with pytest.raises(MCPError) as caught:
            await client.read_resource(uri)
    error = caught.value
    assert error.code == INVALID_PARAMS, error
    data: dict[str, Any] = error.data
    assert error.message == f"{data['code']}: {data['message']}", error
    assert data["uri"] == uri, data
    return data


async def page_uris(app: InProcessServer, role: str) -> list[str]:
    async with app.mcp(role) as client:
        listed = (await client.list_resources()).resources
    return [str(r.uri) for r in listed if str(r.uri).startswith("codna://page/")]


async def test_the_skill_prompt_and_the_skill_resource_give_the_text_the_package_ships(
    app: InProcessServer,
) -> None:
    shipped = SHIPPED.read_text(encoding="utf-8")
    async with app.mcp("agent") as client:
        (prompt,) = [p for p in (await client.list_prompts()).prompts if p.name == "codna-skill"]
        got = await client.get_prompt("codna-skill")
        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
    assert prompt.title and prompt.description
    (message,) = got.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent)
    assert message.content.text == shipped
    skill = resources["codna://skill"]
    assert (skill.name, skill.mime_type) == ("codna-skill", MARKDOWN)
    assert skill.title and skill.description
    contents = await read(app, "agent", "codna://skill")
    assert (contents.text, contents.mime_type) == (shipped, MARKDOWN)


# The tools that decide: the skill names them only to say they are the page's editors'.
DECIDING = {"pending_decisions", "decide_edit_suggestion", "decide_link_suggestion"}


async def test_the_skill_is_short_and_names_the_tools_an_agent_has_and_whose_the_rest_are(
    app: InProcessServer,
) -> None:
    skill = SHIPPED.read_text(encoding="utf-8")
    assert len(skill.splitlines()) <= 60
    async with app.mcp("admin") as client:
        every_tool = {t.name for t in (await client.list_tools()).tools}
    async with app.mcp("agent") as client:
        agents_tools = {t.name for t in (await client.list_tools()).tools}

    def named_in(text: str) -> set[str]:
        return {word for word in re.findall(r"`([a-z_]+)`", text) if word in every_tool}

    needed = {
        "read_document",
        "read_revision",
        "list_suggestions",
        "suggest_edit",
        "withdraw_suggestion",
        "withdraw_link_suggestion",
        "create_document",
        "inbox",
    }
    assert needed <= named_in(skill) - DECIDING <= agents_tools, named_in(skill)
    assert not DECIDING & agents_tools
    # The deciding tools are named once, in the paragraph that says a routine never decides.
    [said] = [p for p in skill.split("\n\n") if named_in(p) & DECIDING]
    assert named_in(said) & DECIDING == DECIDING
    assert "never decide" in said, said


async def test_resources_list_shows_a_reader_a_page_the_writer_made_and_a_stranger_none(
    app: InProcessServer,
) -> None:
    # The listing is the first pages by address: this one sorts before the other tests' pages.
    address = unique("output:000-resources/")
    app.create_page(address, "Listed.\n", title="A listed page")
    async with app.mcp("reader") as client:
        listed = {str(r.uri): r for r in (await client.list_resources()).resources}
    page = listed[page_uri(address)]
    assert (page.name, page.title, page.mime_type) == (address, "A listed page", MARKDOWN)
    assert await page_uris(app, "stranger") == []


async def test_resources_list_names_the_first_pages_by_address_up_to_its_bound(
    app: InProcessServer,
) -> None:
    writer = members.member_by_handle(ROLES["writer"])
    folder = unique("wiki:listed-")
    for number in range(LISTED + 1):
        pages.create_page(writer, address=f"{folder}/{number:03}", title=f"Page {number}")
    listed = await page_uris(app, "reader")
    assert len(listed) == LISTED
    first = pages.list_pages(members.member_by_handle(ROLES["reader"]), limit=LISTED)
    assert listed == [page_uri(p.address) for p in first]


async def test_reading_a_page_resource_gives_the_pages_markdown_body_whatever_its_path(
    app: InProcessServer,
) -> None:
    address = unique("wiki:resources/deep/er/") + ".v2_x-y"
    body = "# A page\n\nIts body, with [a link](wiki:elsewhere).\n"
    app.create_page(address, body, title="A deep page")
    contents = await read(app, "agent", page_uri(address))
    assert (contents.text, contents.mime_type) == (body, MARKDOWN)
    assert str(contents.uri) == page_uri(address)


async def test_a_page_one_cannot_read_is_refused_exactly_like_a_missing_one(
    app: InProcessServer,
) -> None:
    there = unique("wiki:resources/")
    app.create_page(there, "Not for Sam.\n")
    missing = unique("wiki:resources/")
    unreadable = await refused(app, "stranger", page_uri(there))
    absent = await refused(app, "stranger", page_uri(missing))
    assert unreadable["code"] == "not_found"
    assert {k: v for k, v in unreadable.items() if k not in ("address", "uri")} == {
        k: str(v).replace(missing, there) for k, v in absent.items() if k not in ("address", "uri")
    }
    assert (unreadable["address"], absent["address"]) == (there, missing)


async def test_a_page_resource_outside_the_spaces_is_refused_with_the_services_sentence(
    app: InProcessServer,
) -> None:
    error = await refused(app, "reader", "codna://page/nowhere/a-page")
    assert error["code"] == "invalid_request"
    assert "'nowhere' is not a space" in error["message"]


async def test_the_page_resource_template_is_listed_with_its_form_and_markdown(
    app: InProcessServer,
) -> None:
    async with app.mcp("stranger") as client:
        templates = (await client.list_resource_templates()).resource_templates
    (page,) = [t for t in templates if t.name == "page"]
    assert (page.uri_template, page.mime_type) == ("codna://page/{space}/{+path}", MARKDOWN)
    assert page.description and "list_documents" in page.description
