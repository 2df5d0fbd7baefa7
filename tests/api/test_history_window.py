"""`GET /api/v1/page/history` answers a window of a page's revisions, newest first: `limit`
and `offset` as every listing of the API takes them, described from HISTORY and refused
beyond it as invalid_request, on SQLite and PostgreSQL."""

from __future__ import annotations

from codna.markdown.edits import parse_edits
from codna.services.limits import HISTORY
from codna.services.members import tokens
from codna.services.pages import editing
from tests.conftest import InProcessServer, error_body, unique


def saved(app: InProcessServer, versions: int) -> str:
    """A new page saved `versions` times (version 1 is its creation), made through the
    services as a writer's edits would make it."""
    address = unique()
    app.create_page(address, "Version 1.\n")
    writer = tokens.authenticate_token(app.token("writer")).member
    for n in range(2, versions + 1):
        edit = {"op": "replace", "old": f"Version {n - 1}.", "new": f"Version {n}."}
        editing.edit_page(writer, address=address, edits=parse_edits([edit]))
    return address


def listed(app: InProcessServer, address: str, **window: int) -> list[int]:
    with app.api("reader") as client:
        answer = client.get("/api/v1/page/history", params={"address": address, **window})
    assert answer.status_code == 200, answer.text
    return [revision["version"] for revision in answer.json()]


def test_history_is_walked_window_by_window_newest_first(app: InProcessServer) -> None:
    address = saved(app, 5)
    assert listed(app, address) == [5, 4, 3, 2, 1]
    assert listed(app, address, limit=2) == [5, 4]
    assert listed(app, address, limit=2, offset=2) == [3, 2]
    assert listed(app, address, limit=2, offset=4) == [1]
    assert listed(app, address, offset=5) == []


def test_a_history_window_beyond_its_bounds_is_refused_naming_the_field(
    app: InProcessServer,
) -> None:
    address = saved(app, 1)
    with app.api("reader") as client:
        for window, field in (
            ({"limit": HISTORY.most + 1}, "limit"),
            ({"limit": 0}, "limit"),
            ({"offset": -1}, "offset"),
        ):
            answer = client.get("/api/v1/page/history", params={"address": address, **window})
            assert error_body(answer, 422, "invalid_request")["field"] == field, window
        assert listed(app, address, limit=HISTORY.most) == [1]


def test_the_api_describes_the_history_window_from_history_bounds(app: InProcessServer) -> None:
    with app.api() as client:
        schema = client.get("/api/openapi.json").json()
    route = schema["paths"]["/api/v1/page/history"]["get"]
    found = {p["name"]: p for p in route["parameters"]}
    assert found["limit"]["schema"]["maximum"] == HISTORY.most
    assert found["limit"]["schema"]["default"] == HISTORY.default
    assert "revisions" in found["limit"]["description"]
    assert found["offset"]["schema"]["minimum"] == 0 and found["offset"]["description"]
