"""`GET /api/v1/export` answers a window of the pages by address, `limit` and `offset` as every
listing takes them, and a `Link` header to the next window while pages are left out (past the
limit, or past the bytes one answer holds); on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid

import pytest

from codna.services.admin import transfer
from codna.services.limits import EXPORT
from tests.conftest import InProcessServer, error_body


@pytest.fixture
def folder(app: InProcessServer) -> tuple[str, list[str]]:
    """A new folder of three pages, and their addresses in order."""
    where = f"wiki:export-{uuid.uuid4().hex[:8]}/"
    made = [f"{where}{name}" for name in ("c", "a", "b")]
    for address in made:
        app.create_page(address, "Text.\n" * 100)
    return where, sorted(made)


def walk(app: InProcessServer, url: str, params: dict[str, str | int]) -> list[list[str]]:
    """The addresses of each window, following each answer's Link to the next."""
    windows = []
    with app.api("reader") as client:
        answer = client.get(url, params=params)
        while True:
            assert answer.status_code == 200, answer.text
            windows.append([file["address"] for file in answer.json()])
            if "link" not in answer.headers:
                return windows
            link = answer.headers["link"]
            assert link.startswith("</api/v1/export?") and link.endswith('>; rel="next"'), link
            answer = client.get(link[1 : link.index(">")])


def test_an_export_is_answered_window_by_window_with_a_link_to_the_next(
    app: InProcessServer, folder: tuple[str, list[str]]
) -> None:
    where, addresses = folder
    assert walk(app, "/api/v1/export", {"address": where}) == [addresses]
    assert walk(app, "/api/v1/export", {"address": where, "limit": 2}) == [
        addresses[:2],
        addresses[2:],
    ]
    assert walk(app, "/api/v1/export", {"address": where, "limit": 1, "offset": 1}) == [
        [addresses[1]],
        [addresses[2]],
    ]


def test_an_export_past_its_bytes_links_to_the_rest(
    app: InProcessServer, folder: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    where, addresses = folder
    monkeypatch.setattr(transfer, "EXPORT_BYTES", 1000)  # more than one page, less than two
    windows = walk(app, "/api/v1/export", {"address": where})
    assert windows == [[address] for address in addresses]


def test_an_export_window_beyond_its_bounds_is_refused_naming_the_field(
    app: InProcessServer,
) -> None:
    with app.api("reader") as client:
        for window, field in (
            ({"limit": EXPORT.most + 1}, "limit"),
            ({"limit": 0}, "limit"),
            ({"offset": -1}, "offset"),
        ):
            answer = client.get("/api/v1/export", params=window)
            assert error_body(answer, 422, "invalid_request")["field"] == field, window
        schema = client.get("/api/openapi.json").json()
    route = schema["paths"]["/api/v1/export"]["get"]
    found = {p["name"]: p for p in route["parameters"]}
    assert found["limit"]["schema"]["maximum"] == EXPORT.most
    assert found["limit"]["schema"]["default"] == EXPORT.default
    assert "64 MiB" in route["description"] and "Link" in route["description"]
