"""The MCP server: who is calling, which tools they see, and refusals as tool errors.

Over HTTP the caller is the bearer token's member, checked against the database on every
request by the SDK's auth middleware; over stdio, and in process for a built-in routine, it is
the member the server was made for, whose token is checked once per request, in the thread pool,
before the tool runs (never on the event loop). Each tool names the action it
needs (access.Action); a member sees the tools whose action some page could allow it
(access.may_ever, the rules every check uses), and a hidden tool is refused exactly like one
that does not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent
from mcp.types import Resource as MCPResource
from mcp.types import Tool as MCPTool
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from codna.errors import (
    CodnaError,
    InvalidRequest,
    NotFound,
    ReadOnly,
    Unauthenticated,
    Unavailable,
)
from codna.mcp import compact
from codna.services.members import tokens
from codna.services.members.access import Action, may_ever
from codna.services.members.members import Member
from codna.services.members.ratelimit import RateLimiter
from codna.services.members.tokens import Caller

INSTRUCTIONS = """\
CoDNA is the team's Markdown wiki. A page's address is space:path, such as
wiki:decisions/0002-agents; the spaces are wiki (the team's pages), raw (imported sources, read
only) and output (what agents write; an agent's own pages live under output:<its name>/).
Read a page before you change it. Where read_document says editable false, propose the change
with suggest_edit and a reason; one of the page's editors accepts or rejects it
(decide_edit_suggestion), and withdraw_suggestion takes it back while it waits. Link to a
page in Markdown as [its title](wiki:decisions/0002-agents). list_suggestions and inbox tell
what became of your suggestions. Errors start with a stable code, such as not_found, and say
what to do instead.
"""


class TokenVerifier:
    """Bearer tokens for the HTTP transport, looked up in the database on every request, in
    the thread pool (never a database call on the event loop)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            caller = await anyio.to_thread.run_sync(tokens.authenticate_token, token)
        except Unauthenticated:
            return None
        # The claims carry the Caller itself: the tools run in this process, on this request.
        return AccessToken(
            token=f"token:{caller.token_id}",
            client_id=str(caller.member.id),
            scopes=["codna"],
            claims={"caller": caller},
        )


# The caller of the request being answered, once checked: the tool's thread reads it.
_CHECKED: ContextVar[Caller | None] = ContextVar("codna_mcp_caller", default=None)


def current_caller(local: Callable[[], Caller] | None) -> Caller:
    """The caller of this request: the one checked for it already, the HTTP token's member,
    or else the local member (`local()`, which may read the database: call it in a thread)."""
    checked = _CHECKED.get() or _token_caller()
    if checked is not None:
        return checked
    if local is not None:
        return local()
    raise Unauthenticated("Send a token: `Authorization: Bearer <token>`.")


def _token_caller() -> Caller | None:
    """The HTTP bearer token's member, as the auth middleware checked it for this request."""
    access = get_access_token()
    if access is not None and access.claims:
        caller: Caller = access.claims["caller"]
        return caller
    return None


# The tool to use instead, where a refusal of a tool has one: (tool, code) -> (tool, how).
INSTEAD = {
    ("edit_document", "read_only"): ("suggest_edit", "Use suggest_edit, with a reason"),
    ("revert_document", "read_only"): ("suggest_edit", "Use suggest_edit to undo it"),
}


def refusal(error: CodnaError, tool: str | None = None) -> CallToolResult:
    """A domain error as an MCP tool error: text that starts with the code, and the object.
    Where the tool has another to use instead (not in raw, which no one changes), the message
    names it."""
    shown = error.as_dict()
    instead = INSTEAD.get((tool or "", error.code))
    if instead is not None and not str(shown.get("address", "")).startswith("raw:"):
        how = f"{instead[1]}; an editor of the page decides."
        shown |= {"message": f"{shown['message']} {how}", "instead": instead[0]}
    return CallToolResult(
        content=[TextContent(type="text", text=f"{error.code}: {shown['message']}")],
        structured_content=shown,
        is_error=True,
    )


def protocol_error(error: CodnaError, **data: Any) -> MCPError:
    """A domain error as the MCP error of a request that is not a tool call (reading a
    resource, listing them): the same `code: sentence`, the error's object (and `data`) as its
    data."""
    return MCPError(INVALID_PARAMS, str(error), data=error.as_dict() | data)


class CodnaMCP(MCPServer[Any]):
    """MCPServer that knows the caller: filtered tool lists, rate limits, domain refusals."""

    def __init__(
        self,
        *,
        limiter: RateLimiter,
        local: Callable[[], Caller] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name="codna", instructions=INSTRUCTIONS, **options)
        self.limiter = limiter
        self.local = local
        self._tool_names: frozenset[str] | None = None  # known once asked; reset on a change
        self._listed: list[MCPTool] | None = None  # every tool, its schemas made small
        self.needs: dict[str, Action] = {}  # the action each tool needs
        # The resources of the caller's own (its pages), listed after everyone's: resources.py.
        self.listing: Callable[[Member], list[MCPResource]] | None = None

    def tool_for(
        self, action: Action, **options: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """`tool(**options)` for a tool that needs `action` on some page."""
        register = self.tool(**options)

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            self.needs[options.get("name") or fn.__name__] = action
            return register(fn)

        return decorator

    def add_tool(self, fn: Callable[..., Any], *args: Any, **options: Any) -> None:
        super().add_tool(fn, *args, **options)
        self._tool_names = self._listed = None

    def remove_tool(self, name: str) -> None:
        super().remove_tool(name)
        self._tool_names = self._listed = None

    async def every_tool(self) -> list[MCPTool]:
        """Every tool, whoever asks, with schemas that say only what a model needs."""
        if self._listed is None:
            self._listed = [
                tool.model_copy(
                    update={
                        "description": " ".join((tool.description or "").split()) or None,
                        "input_schema": compact.schema(tool.input_schema),
                        "output_schema": compact.RESULT_SCHEMA,
                    }
                )
                for tool in await super().list_tools()
            ]
        return self._listed

    async def tool_names(self) -> frozenset[str]:
        """Every tool's name, whoever asks."""
        if self._tool_names is None:
            self._tool_names = frozenset(tool.name for tool in await self.every_tool())
        return self._tool_names

    def caller(self) -> Caller:
        """The caller of this request. In a tool, the one `call_tool` checked for it."""
        return current_caller(self.local)

    async def checked_caller(self) -> Caller:
        """The caller of this request, checked now: the token's member the auth middleware
        checked over HTTP, else the local member, checked in the thread pool (its token is
        looked up in the database, never on the event loop)."""
        known = _CHECKED.get() or _token_caller()
        if known is not None:
            return known
        return await anyio.to_thread.run_sync(self.caller)

    @contextmanager
    def acting(self, caller: Caller) -> Iterator[None]:
        """Within the block (and the threads it hands work to), `caller` is this request's:
        the tools' `caller()` reads it instead of checking the token again."""
        checked = _CHECKED.set(caller)
        try:
            yield
        finally:
            _CHECKED.reset(checked)

    async def check_arguments(self, tool: str, arguments: dict[str, Any]) -> None:
        """Refuse an argument the tool does not take, as the JSON API refuses a field its
        body does not have: nothing a caller adds (a status, an author, `via`) is ignored
        silently. Raises InvalidRequest naming it."""
        listed = next(t for t in await self.every_tool() if t.name == tool)
        takes = sorted(listed.input_schema.get("properties", {}))
        unknown = sorted(set(arguments) - set(takes))
        if unknown:
            raise InvalidRequest(
                f"{tool} takes no argument {unknown[0]}; it takes {', '.join(takes)}.",
                field=unknown[0],
            )

    async def invalid_arguments(self, tool: str, error: ValidationError) -> CodnaError:
        """The first thing wrong with a call's arguments, in a sentence: a missing argument
        named with what the tool needs, any other with the validator's words."""
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        if first["type"] == "missing" and len(first["loc"]) == 1:
            listed = next(t for t in await self.every_tool() if t.name == tool)
            needs = ", ".join(listed.input_schema.get("required", [])) or where
            return InvalidRequest(
                f"{tool} needs the argument {where}, which was not given; it needs {needs}.",
                field=where,
            )
        return InvalidRequest(f"{tool}: {where or 'the arguments'}: {first['msg']}.", field=where)

    def streamable_http_app(self, **options: Any) -> Starlette:
        """The SDK's Streamable HTTP app, answering 503 when the database cannot be reached
        while the bearer token is checked (before any tool runs; a tool's own refusal is a
        tool error)."""
        app = super().streamable_http_app(**options)
        app.add_middleware(AnswerUnavailable)
        return app

    def may_use(self, member: Member, tool: str) -> bool:
        return may_ever(member, self.needs[tool])

    async def list_tools(self) -> list[MCPTool]:
        member = (await self.checked_caller()).member
        return [tool for tool in await self.every_tool() if self.may_use(member, tool.name)]

    async def list_resources(self) -> list[MCPResource]:
        listed, listing = await super().list_resources(), self.listing
        if listing is None:
            return listed
        try:
            # In the thread pool: a caller may be looked up in the database, as its pages are.
            return listed + await anyio.to_thread.run_sync(lambda: listing(self.caller().member))
        except CodnaError as error:
            raise protocol_error(error) from error

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        try:
            caller = await self.checked_caller()  # once: the tool's caller() reads it
            if name not in await self.tool_names() or not self.may_use(caller.member, name):
                never = caller.member.is_agent or caller.member.via is not None
                if never and self.needs.get(name) == "decide":
                    raise ReadOnly(_NEVER_DECIDES, tool=name)
                # A hidden tool is refused exactly like one that does not exist.
                raise NotFound("There is no such tool; tools/list shows the ones you may use.")
            self.limiter.hit(f"token:{caller.token_id}")
            await self.check_arguments(name, arguments)
            with self.acting(caller):
                return compact.answer(await super().call_tool(name, arguments, context))
        except CodnaError as error:
            return refusal(error, name)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, CodnaError):
                return refusal(cause, name)
            if isinstance(cause, ValidationError):
                return refusal(await self.invalid_arguments(name, cause))
            raise


# What an agent or a routine's run is told of a deciding tool (the tools are named in the
# docs; only whether one may call them is the caller's).
_NEVER_DECIDES = (
    "Agents and routines never decide: a person who can edit the page accepts or rejects "
    "each suggestion. Suggest a change with suggest_edit, and see what became of yours with "
    "list_suggestions."
)


class AnswerUnavailable:
    """ASGI middleware: Unavailable raised before an answer started (the token's check, in
    the SDK's auth middleware) becomes a 503 with the error's JSON, as the API answers it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Unavailable as error:
            if started or scope["type"] != "http":
                raise
            retry = str(error.fields.get("retry_after", 1))
            answer = JSONResponse(
                error.as_dict(), status_code=error.status, headers={"Retry-After": retry}
            )
            await answer(scope, receive, send)
