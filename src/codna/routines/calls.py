"""How a routine calls CoDNA: tools over an MCP client session, answers as dicts, refusals as
exceptions with their code. A routine knows nothing else of CoDNA."""

from __future__ import annotations

from typing import Any, Protocol

from mcp.types import CallToolResult, TextContent


class Session(Protocol):
    """What a routine needs of an MCP client: calling a tool."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult: ...


class Refused(Exception):
    """A tool refused: its stable code and its sentence."""

    def __init__(self, tool: str, code: str, message: str) -> None:
        super().__init__(f"{tool}: {code}: {message}")
        self.tool, self.code, self.message = tool, code, message


async def call(session: Session, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call `tool`; its structured answer. Raises Refused."""
    result = await session.call_tool(tool, arguments)
    if result.is_error:
        shown = result.structured_content or {}
        text = "".join(c.text for c in result.content if isinstance(c, TextContent))
        raise Refused(tool, str(shown.get("code", "error")), str(shown.get("message", text)))
    return result.structured_content or {}
