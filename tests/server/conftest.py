"""A real server for these tests: `codna serve` under uvicorn on a free loopback port.

Only what a real server shows is tested here: the transports (MCP over real HTTP, stdio, an
independent client), several workers, live updates across processes, restarts, and the body
cap on a real socket. Everything else runs in process (tests/api/, tests/mcp/).

Each server gets its own database, a fresh copy of the migrated template, with the team of
tests/conftest.py. The servers are session-scoped, one per engine, so the run stays quick;
tests that change something use their own pages and tokens.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import (
    ENGINES,
    TIGHT_BODY_BYTES,
    Served,
    Workspace,
    fresh_database,
    seed,
)

BIN = Path(sys.executable).parent
CODNA = str(BIN / "codna") if (BIN / "codna").exists() else (shutil.which("codna") or "codna")
START_DEADLINE = 60.0
STOP_DEADLINE = 20.0


class Server(Served):
    """A running `codna serve`: where it answers, its workspace, and its process."""

    def __init__(
        self, port: int, workspace: Workspace, process: subprocess.Popen[bytes], engine: str
    ) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.port = port
        self.workspace = workspace
        self.process = process
        self.engine = engine

    def api(self, role: str | None = None) -> httpx.Client:
        headers = self.headers(role) if role else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=30)

    @asynccontextmanager
    async def mcp(self, role: str) -> AsyncIterator[Client]:
        http = httpx2.AsyncClient(headers=self.headers(role), timeout=30)
        async with http, Client(streamable_http_client(self.mcp_url, http_client=http)) as client:
            yield client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


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
    server = Server(port, workspace, process, engine)
    try:
        wait_until_answering(server.base, process, log)
        yield server
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


# The server most tests here share: generous limits.
server = pytest.fixture(scope="session", params=ENGINES, name="server")(_server_fixture())

# A server with a small body cap. The cap lives in the server process (middleware), not in
# the database, so SQLite suffices.
tight_server = pytest.fixture(scope="session", params=["sqlite"], name="tight_server")(
    _server_fixture({"CODNA_MAX_BODY_BYTES": str(TIGHT_BODY_BYTES)})
)

# A server behind a TLS proxy on loopback: it believes that proxy's forwarded headers. Like the
# body cap, this lives in the server process, so SQLite suffices.
proxied_server = pytest.fixture(scope="session", params=["sqlite"], name="proxied_server")(
    _server_fixture({"CODNA_TRUSTED_PROXIES": "127.0.0.1"})
)
