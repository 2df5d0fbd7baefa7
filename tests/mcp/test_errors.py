"""Every domain error, raised in a tool, reaches an MCP client as a tool error whose text
starts with its code and whose structured content is the error's object."""

from __future__ import annotations

import pytest
from mcp.client import Client

from codna.app import build_mcp
from codna.errors import CodnaError
from codna.services.members import tokens
from codna.services.members.ratelimit import RateLimiter
from codna.settings import Settings
from tests.conftest import InProcessServer, domain_errors, refusal, text_of

pytestmark = pytest.mark.anyio


# The refusal does not depend on the engine.
@pytest.mark.parametrize("running_app", ["sqlite"], indirect=True)
async def test_the_refusal_of_every_error_starts_with_its_code(app: InProcessServer) -> None:
    kinds = {kind.__name__: kind for kind in domain_errors()}
    server = build_mcp(Settings(), RateLimiter(1000, 60))
    caller = tokens.authenticate_token(app.token("writer"))
    server.local = lambda: caller  # the in-memory client carries no token

    def fail(kind: str) -> str:
        """Raise the domain error named `kind`."""
        error: CodnaError = kinds[kind]("A sentence.", limit=3)
        raise error

    server.tool_for("read")(fail)
    async with Client(server) as client:
        for name, kind in kinds.items():
            result = await client.call_tool("fail", {"kind": name})
            assert text_of(result).startswith(f"{kind.code}: "), name
            assert refusal(result) == {"code": kind.code, "message": "A sentence.", "limit": 3}
