"""MCP over HTTP answers with a status only before a tool runs (a tool's refusal is a tool
error): a database it cannot reach while the bearer token is checked is answered with the
status `unavailable` carries, the one the API answers it with."""

from __future__ import annotations

import pytest

from codna.errors import Unavailable
from codna.services.context import use_database
from codna.storage.database import Database
from tests.conftest import InProcessServer, error_body

# A tools/call as the SDK's client sends it to a stateless server.
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "read_document", "arguments": {"address": "wiki:anything"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


# A server that cannot be reached is a PostgreSQL one: an SQLite file has no server.
@pytest.mark.parametrize("running_app", ["postgresql"], indirect=True)
def test_mcp_answers_a_database_it_cannot_reach_with_the_status_unavailable_carries(
    app: InProcessServer,
) -> None:
    gone = Database(app.database.url.set(port=1).render_as_string(False))  # nothing listens
    use_database(gone)
    try:
        with app.api("writer") as client:
            answer = client.post("/mcp", json=CALL, headers=HEADERS)
    finally:
        use_database(app.database)
        gone.dispose()
    error_body(answer, Unavailable.status, Unavailable.code)
    assert answer.headers["retry-after"]
