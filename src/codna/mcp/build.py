"""The MCP server with all its tools, prompts and resources: over HTTP for tokens, over stdio
for one member, and in process for a built-in routine's run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from codna.mcp import inbox_tools, resources, suggestion_tools, tools
from codna.mcp.server import CodnaMCP
from codna.services.members import tokens
from codna.services.members.ratelimit import RateLimiter
from codna.services.members.tokens import Caller


def server(
    *, limiter: RateLimiter, local: Callable[[], Caller] | None = None, **options: Any
) -> CodnaMCP:
    """A CodnaMCP with everything registered; `options` go to MCPServer (auth, transport)."""
    made = CodnaMCP(limiter=limiter, local=local, **options)
    tools.register(made)
    inbox_tools.register(made)
    suggestion_tools.register(made)
    resources.register(made)
    return made


def for_token(secret: str, limiter: RateLimiter) -> CodnaMCP:
    """A server in process for the holder of `secret`, checked on every call as over HTTP
    (a token revoked mid-run is refused at its next call): once per call, in the thread pool
    (see CodnaMCP.checked_caller)."""
    return server(limiter=limiter, local=lambda: tokens.authenticate_token(secret))
