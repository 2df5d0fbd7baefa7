"""The body cap on a real socket: a body over it gets 413 by its Content-Length, or once it
streams past the cap without one (chunked), in front of the API and MCP alike."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import TIGHT_BODY_BYTES, error_body
from tests.server.conftest import Server

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.mark.parametrize("path", ["/api/v1/page/edit", "/mcp"])
def test_a_body_over_the_cap_gets_413_by_its_content_length(
    tight_server: Server, path: str
) -> None:
    big = b'{"address": "wiki:x", "edits": [], "summary": "' + b"x" * TIGHT_BODY_BYTES + b'"}'
    with tight_server.api("writer") as client:
        answer = client.post(
            path, content=big, headers={"Content-Type": "application/json"} | MCP_HEADERS
        )
    error_body(answer, 413, "too_large")


def _chunks(size: int) -> Iterator[bytes]:
    yield b'{"address": "wiki:server/none", "edits": [{"op": "append", "text": "'
    for _ in range(size // 1024):
        yield b"x" * 1024
    yield b'"}]}'


@pytest.mark.parametrize("path", ["/api/v1/page/edit", "/mcp"])
def test_a_chunked_body_that_streams_past_the_cap_gets_413(tight_server: Server, path: str) -> None:
    headers = {"Content-Type": "application/json"} | MCP_HEADERS
    with tight_server.api("writer") as client:
        answer = client.post(path, content=_chunks(3 * TIGHT_BODY_BYTES), headers=headers)
        assert answer.request.headers.get("transfer-encoding") == "chunked"
        assert "content-length" not in answer.request.headers
        error_body(answer, 413, "too_large")


def test_a_chunked_body_under_the_cap_reaches_the_api(tight_server: Server) -> None:
    with tight_server.api("body-cap") as client:
        answer = client.post(
            "/api/v1/page/edit",
            content=_chunks(TIGHT_BODY_BYTES // 2),
            headers={"Content-Type": "application/json"},
        )
        assert answer.request.headers.get("transfer-encoding") == "chunked"
        error_body(answer, 404, "not_found")
