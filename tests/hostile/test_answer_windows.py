"""A page's history is read and answered a window at a time: however many revisions a page
has, one call reads and answers at most HISTORY.most of them (HISTORY.default unless asked;
HISTORY.to_model for a model), over the JSON API, MCP and the services, on SQLite and
PostgreSQL.
"""

from __future__ import annotations

import pytest

from codna.errors import InvalidRequest
from codna.services.limits import HISTORY
from codna.services.members import tokens
from codna.services.pages import revisions
from tests.conftest import InProcessServer, structured, unique

pytestmark = pytest.mark.anyio

SAVES = HISTORY.default + 4  # more revisions than one window


@pytest.fixture
def long_history(app: InProcessServer) -> str:
    address = unique()
    app.create_page(address, "Version 0.\n")
    with app.api("writer") as client:
        for n in range(1, SAVES):
            edit = {"op": "replace", "old": f"Version {n - 1}.", "new": f"Version {n}."}
            done = client.post("/api/v1/page/edit", json={"address": address, "edits": [edit]})
            assert done.status_code == 200, done.text
    return address


async def test_a_long_history_is_answered_one_window_at_a_time(
    app: InProcessServer, long_history: str
) -> None:
    with app.api("reader") as client:
        listed = client.get("/api/v1/page/history", params={"address": long_history}).json()
    assert [r["version"] for r in listed] == list(range(SAVES, SAVES - HISTORY.default, -1))
    async with app.mcp("reader") as mcp:
        answer = structured(await mcp.call_tool("document_history", {"address": long_history}))
    assert len(answer["revisions"]) == HISTORY.to_model
    reader = tokens.authenticate_token(app.token("reader")).member
    older = revisions.history(reader, address=long_history, limit=10, offset=HISTORY.default)
    assert [r.version for r in older] == [4, 3, 2, 1]


def test_a_window_past_its_bounds_is_refused_not_clamped(
    app: InProcessServer, long_history: str
) -> None:
    reader = tokens.authenticate_token(app.token("reader")).member
    with pytest.raises(InvalidRequest) as raised:
        revisions.history(reader, address=long_history, limit=HISTORY.most + 1)
    assert raised.value.fields == {"field": "limit", "limit": HISTORY.most}
    with pytest.raises(InvalidRequest):
        revisions.history(reader, address=long_history, offset=-1)
