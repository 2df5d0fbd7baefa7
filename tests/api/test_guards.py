"""The guards in front of the API and MCP: a Host the server does not answer to gets 421, a
browser Origin not allowed 403 (the server's own, by its Host, is allowed), and a flood of writes
past the rate limit 429."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import TIGHT_RATE_LIMIT, InProcessServer, error_body, in_process, unique

MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
TWELVE = [{"op": "replace", "old": "At most ten.", "new": "At most twelve."}]


@pytest.mark.parametrize("path", ["/api/v1/me", "/mcp"])
def test_a_host_the_server_does_not_answer_to_gets_421(app: InProcessServer, path: str) -> None:
    with app.api("reader") as client:
        hosts = ("evil.example", f"evil.example:{app.port}", "127.0.0.1.evil.example", "1:80")
        hosts += (f"127.0.0.1:{app.port}.evil.example", f"localhost:{app.port}x")
        for host in hosts:
            answer = client.post(path, json={}, headers={"Host": host} | MCP_HEADERS)
            error_body(answer, 421, "bad_host")
        # A Host without a port means the scheme's own, as a browser sends it for port 80.
        for host in (f"localhost:{app.port}", f"[::1]:{app.port}", "localhost", "[::1]"):
            fine = client.get("/api/v1/me", headers={"Host": host})
            assert fine.status_code == 200, host


@pytest.mark.parametrize("path", ["/api/v1/me", "/mcp"])
def test_a_browser_origin_that_is_not_allowed_gets_403(app: InProcessServer, path: str) -> None:
    with app.api("reader") as client:
        for origin in ("http://evil.example", "https://127.0.0.1.evil.example", "null"):
            answer = client.post(path, json={}, headers={"Origin": origin} | MCP_HEADERS)
            error_body(answer, 403, "bad_origin")
        fine = client.get("/api/v1/me", headers={"Origin": f"http://127.0.0.1:{app.port}"})
        assert fine.status_code == 200


def test_the_page_read_passes_the_same_guards(app: InProcessServer) -> None:
    page = {"address": unique()}
    app.create_page(page["address"], "A page.\n")
    with app.api("reader") as client:
        assert client.get("/api/v1/page", params=page).status_code == 200
        wrong_host = client.get("/api/v1/page", params=page, headers={"Host": "evil.example"})
        error_body(wrong_host, 421, "bad_host")
        origin = {"Origin": "http://evil.example"}
        error_body(client.get("/api/v1/page", params=page, headers=origin), 403, "bad_origin")


def test_a_flood_of_api_writes_past_the_rate_limit_gets_429_with_retry_after(
    tight_app: InProcessServer,
) -> None:
    edit = {"address": "wiki:server/none", "edits": TWELVE}
    with tight_app.api("flood-api") as client:
        for _ in range(TIGHT_RATE_LIMIT):
            error_body(client.post("/api/v1/page/edit", json=edit), 404, "not_found")
        answer = client.post("/api/v1/page/edit", json=edit)
        body = error_body(answer, 429, "rate_limited")
        assert int(answer.headers["retry-after"]) == body["retry_after"] >= 1
        # Reads have a window of their own (READS_PER_CALL times larger): one still answers.
        assert client.get("/api/v1/me").status_code == 200
    with tight_app.api("reader") as other:
        assert other.post("/api/v1/page/edit", json=edit).status_code == 404


@pytest.fixture
def deployed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessServer]:
    """The app answering to wiki.example.com as well, with no browser origin configured."""
    hosts = ("127.0.0.1:*", "wiki.example.com", "wiki.example.com:*")
    with (
        in_process("sqlite", request, tmp_path_factory, allowed_hosts=hosts) as server,
        server.active(),
    ):
        yield server


def test_the_servers_own_pages_are_an_allowed_origin_wherever_it_is_deployed(
    deployed: InProcessServer,
) -> None:
    with deployed.api("reader") as client:
        for host, origin in (
            ("wiki.example.com", "https://wiki.example.com"),
            ("wiki.example.com:8443", "https://WIKI.example.com:8443"),
        ):
            fine = client.get("/api/v1/me", headers={"Host": host, "Origin": origin})
            assert fine.status_code == 200, (host, origin)
        for host, origin in (
            ("wiki.example.com", "https://evil.example"),
            ("wiki.example.com", "https://wiki.example.com.evil.example"),
            ("wiki.example.com:8443", "https://wiki.example.com"),
            ("wiki.example.com", "null"),
        ):
            answer = client.get("/api/v1/me", headers={"Host": host, "Origin": origin})
            error_body(answer, 403, "bad_origin")
