"""A real server for these tests: `codna serve` under uvicorn on a free loopback port.

Each server gets its own database, a fresh SQLite file or a fresh PostgreSQL copy of the
migrated template, with a team made through the services (people, an agent, grants and
tokens). Pages are made per test through the server's own JSON API, as the team would.
The servers are session-scoped, one per engine, so the run stays quick; tests that change
something use their own pages and tokens.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from codna.services import access, members, tokens
from codna.services.context import use_database
from codna.storage.database import Database
from tests.conftest import ENGINES, drop_postgres, postgres_copy

BIN = Path(sys.executable).parent
CODNA = str(BIN / "codna") if (BIN / "codna").exists() else (shutil.which("codna") or "codna")
START_DEADLINE = 60.0
STOP_DEADLINE = 20.0
# Every workspace has a token per role (admin, writer, reader, stranger, agent) and these
# spare writer tokens, for tests that use one up (revoke it, flood with it).
SPARE = (
    "flood-api",
    "flood-mcp",
    "revoke-api",
    "revoke-mcp",
    "revoke-stdio",
    "schemathesis",
    "body-cap",
)


@dataclass(frozen=True)
class Workspace:
    """A seeded database: its URL and a token secret per role (and per spare name)."""

    url: str
    tokens: Mapping[str, str]
    token_ids: Mapping[str, int]


@dataclass
class Server:
    """A running `codna serve`: where it answers, its workspace, and its process."""

    base: str
    port: int
    workspace: Workspace
    process: subprocess.Popen[bytes]
    engine: str

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def token(self, role: str) -> str:
        return self.workspace.tokens[role]

    def headers(self, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(role)}"}

    def api(self, role: str | None = None) -> httpx.Client:
        """An HTTP client on this server, with `role`'s token (none if not given)."""
        headers = self.headers(role) if role else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30)

    def create_page(self, address: str, body: str, *, title: str = "A page") -> dict[str, Any]:
        """Make a page as the writer, through the JSON API."""
        with self.api("writer") as client:
            made = client.post(
                "/api/v1/pages", json={"address": address, "title": title, "body": body}
            )
        assert made.status_code == 201, made.text
        page: dict[str, Any] = made.json()
        return page

    def edit_page(self, address: str, edits: list[dict[str, str]]) -> dict[str, Any]:
        """Edit a page as the writer, through the JSON API."""
        with self.api("writer") as client:
            done = client.post("/api/v1/page/edit", json={"address": address, "edits": edits})
        assert done.status_code == 200, done.text
        result: dict[str, Any] = done.json()
        return result

    def import_raw(self, name: str, text: str) -> dict[str, Any]:
        """Import a file into raw as the writer (who has write on raw), through the API."""
        with self.api("writer") as client:
            made = client.post(
                "/api/v1/import",
                json={"folder": "raw:sources/", "documents": [{"name": name, "text": text}]},
            )
        assert made.status_code == 201, made.text
        page: dict[str, Any] = made.json()[0]
        return page


def unique(prefix: str = "wiki:server/") -> str:
    """A fresh page address, so tests on a shared server never meet."""
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def seed(url: str, *, spare: Sequence[str] = SPARE) -> Workspace:
    """Migrate the database at `url` and make the team and its tokens through the services."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        admin = members.init_workspace(
            admin_email="ada@example.com", admin_password="correct horse"
        )
        members.add_person(admin, email="wanda@example.com", name="Wanda")
        members.add_person(admin, email="rita@example.com", name="Rita")
        members.add_person(admin, email="sam@example.com", name="Sam")
        members.add_agent(admin, name="checker", responsible=["wanda@example.com"])
        for space in ("wiki", "raw", "output"):
            access.share(admin, address=space, member="wanda@example.com", level="write")
            access.share(admin, address=space, member="rita@example.com", level="read")
            access.share(admin, address=space, member="checker", level="read")
        owners = {
            "admin": "ada@example.com",
            "writer": "wanda@example.com",
            "reader": "rita@example.com",
            "stranger": "sam@example.com",
            "agent": "checker",
        }
        made = {
            role: tokens.create_token(admin, member=who, name=role) for role, who in owners.items()
        }
        for name in spare:
            made[name] = tokens.create_token(admin, member="wanda@example.com", name=name)
    finally:
        use_database(None)
        database.dispose()
    return Workspace(
        url=url,
        tokens={name: new.secret for name, new in made.items()},
        token_ids={name: new.token.id for name, new in made.items()},
    )


@contextmanager
def fresh_database(
    engine: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The URL of a new, migrated database on `engine`; dropped afterwards."""
    if engine == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('server-db') / 'codna.db'}"
        return
    template = request.getfixturevalue("postgres_template")
    database, name = postgres_copy(template)
    url = database.url.render_as_string(hide_password=False)
    database.dispose()
    try:
        yield url
    finally:
        drop_postgres(name)


def server_env(url: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("CODNA_")}
    env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "100000", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def wait_until_answering(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Poll until the server answers HTTP, or fail with its log once the deadline passes."""
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"codna serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            httpx.get(f"{base}/api/v1/me", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.05)
    pytest.fail(f"codna serve did not answer within {START_DEADLINE:g} s:\n{log.read_text()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then wait; the whole process group is killed if it does not stop in time."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_DEADLINE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        pytest.fail(f"codna serve did not stop within {STOP_DEADLINE:g} s of SIGTERM")


@contextmanager
def running_server(
    workspace: Workspace,
    engine: str,
    log_dir: Path,
    *,
    env: Mapping[str, str] | None = None,
    workers: int = 1,
) -> Iterator[Server]:
    """`codna serve` on a free loopback port over `workspace`, until the block ends."""
    port = free_port()
    log = log_dir / f"serve-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [CODNA, "serve", "--port", str(port), "--workers", str(workers)],
            env=server_env(workspace.url, env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base, process, log)
        yield Server(base, port, workspace, process, engine)
    finally:
        stop(process)


def _server_fixture(
    extra_env: Mapping[str, str] | None = None,
) -> Callable[[pytest.FixtureRequest, pytest.TempPathFactory], Iterator[Server]]:
    def fixture(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
    ) -> Iterator[Server]:
        engine: str = request.param
        with fresh_database(engine, request, tmp_path_factory) as url:
            workspace = seed(url)
            logs = tmp_path_factory.mktemp(f"serve-{engine}")
            with running_server(workspace, engine, logs, env=extra_env) as running:
                yield running

    return fixture


# The server most tests share: generous limits.
server = pytest.fixture(scope="session", params=ENGINES, name="server")(_server_fixture())

# A server with tight limits: a small body cap and a small rate limit that does not refill
# during the run. Each test on it floods with a token of its own. Both limits live in the
# server process (middleware, an in-memory window), not in the database, so SQLite suffices.
TIGHT_BODY_BYTES = 4096
TIGHT_RATE_LIMIT = 5
tight_server = pytest.fixture(scope="session", params=["sqlite"], name="tight_server")(
    _server_fixture(
        {
            "CODNA_MAX_BODY_BYTES": str(TIGHT_BODY_BYTES),
            "CODNA_RATE_LIMIT": str(TIGHT_RATE_LIMIT),
            "CODNA_RATE_WINDOW": "3600",
        }
    )
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def mcp_over_http(server: Server, role: str) -> AsyncIterator[Client]:
    """The SDK's own client over Streamable HTTP, with `role`'s bearer token."""
    http = httpx2.AsyncClient(headers=server.headers(role), timeout=30)
    async with http, Client(streamable_http_client(server.mcp_url, http_client=http)) as client:
        yield client


def refusal(result: CallToolResult) -> dict[str, Any]:
    """A tool error's structured content, checked against its text: `code: sentence`."""
    assert result.is_error, result
    error = result.structured_content
    assert error is not None, result
    assert text_of(result) == f"{error['code']}: {error['message']}"
    return error


def text_of(result: CallToolResult) -> str:
    """The text a tool's answer starts with."""
    first = result.content[0]
    assert isinstance(first, TextContent), result
    return first.text


def structured(result: CallToolResult) -> dict[str, Any]:
    """A successful tool call's structured content."""
    assert not result.is_error, result
    assert result.structured_content is not None, result
    return result.structured_content
