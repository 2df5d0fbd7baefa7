"""The skill as a prompt and a resource, and pages as resources a client attaches to a chat.

A page's resource is `codna://page/{space}/{path}`, its path as in its address
(`codna://page/wiki/decisions/0002-agents`): a path holds only letters, digits, `.`, `_`, `-`
and `/`, so nothing in it is encoded and every address round-trips. It is read as the caller,
like read_document: a page one cannot read is not found, exactly like a missing one.
"""

from __future__ import annotations

from importlib.resources import files

from mcp.shared.uri_template import UriTemplate
from mcp.types import Resource as MCPResource

from codna.errors import CodnaError
from codna.mcp.server import CodnaMCP, protocol_error
from codna.services.members.members import Member
from codna.services.pages import pages

SKILL_NAME = "codna-skill"
SKILL_URI = "codna://skill"
PAGE_TEMPLATE = "codna://page/{space}/{+path}"
MARKDOWN = "text/markdown"
# resources/list names the first pages the caller can read, by address; list_documents pages on.
LISTED = 100

_PAGE = UriTemplate.parse(PAGE_TEMPLATE)


def skill_text() -> str:
    """The skill: how a routine works with CoDNA, as the package ships it."""
    return files("codna.routines").joinpath("skill.md").read_text(encoding="utf-8")


def page_uri(address: str) -> str:
    """The resource of the page at `address` (space:path)."""
    space, _, path = address.partition(":")
    return _PAGE.expand({"space": space, "path": path})


def listed_pages(member: Member) -> list[MCPResource]:
    """The first LISTED pages `member` can read, by address, as resources."""
    return [
        MCPResource(uri=page_uri(p.address), name=p.address, title=p.title, mime_type=MARKDOWN)
        for p in pages.list_pages(member, limit=LISTED)
    ]


def register(server: CodnaMCP) -> None:
    """Add the skill (a prompt and a resource) and the pages' resources to `server`."""

    @server.prompt(
        name=SKILL_NAME,
        title="How to work in CoDNA",
        description="The skill a routine follows: read first, suggest with a reason, check "
        "what became of earlier suggestions, write a run page in output.",
    )
    def skill_prompt() -> str:
        return skill_text()

    @server.resource(
        SKILL_URI,
        name=SKILL_NAME,
        title="How to work in CoDNA",
        description="The skill a routine follows, as Markdown.",
        mime_type=MARKDOWN,
    )
    def skill_resource() -> str:
        return skill_text()

    @server.resource(
        PAGE_TEMPLATE,
        name="page",
        title="A page",
        description="A page's Markdown body, such as codna://page/wiki/decisions/0002-agents "
        f"for wiki:decisions/0002-agents. resources/list names the first {LISTED} pages you "
        "can read, by address; list_documents lists them all.",
        mime_type=MARKDOWN,
    )
    def page(space: str, path: str) -> str:
        address = f"{space}:{path}"
        try:
            caller = server.caller()
            server.limiter.hit(f"token:{caller.token_id}")
            return pages.read_page(caller.member, address=address).body
        except CodnaError as error:
            raise protocol_error(error, uri=page_uri(address)) from error

    server.listing = listed_pages
