"""How fast the server reads and edits a page over MCP and over the JSON API, beside the
framework's ceiling.

`codna serve` runs under uvicorn on a loopback port over a seeded SQLite database (and, with
--postgres, a throwaway PostgreSQL one). Beside it, in the same run and under the same uvicorn
settings, a bare Starlette endpoint answers a body of the same size as each measured call
(for POSTs it reads a request body of the same size first): that is the ceiling, and each
figure is shown as a share of it.

Measured: `read_document` and `edit_document` as MCP `tools/call` (Streamable HTTP, stateless,
JSON answers; the request carries the headers and `_meta` the SDK's own client sends) and
`GET /api/v1/page`, `POST /api/v1/page/edit`, with 1, 8 and 32 concurrent clients, each on a
keep-alive connection of its own. Every request authenticates its token and reads the
database; nothing is cached. Each client of an edit run edits a page of its own, swapping one
word back and forth, so no edit conflicts with another's.

Beside `read_document`, the same call goes to the MCP SDK alone (`sdk_alone_app`): the SDK as
`codna serve` mounts it, with a tool that hands back CoDNA's answer ready-made, with no token
and no database. Its share of the ceiling is the most any tool behind this SDK can reach.

The load generator is a minimal HTTP/1.1 client on asyncio streams (pre-built requests,
Content-Length framing), several times cheaper per request than an HTTP library, because the
two cores are shared by the server and the load.

Run: .venv/bin/python bench/server.py [--duration 4] [--postgres [URL]] [--only read]
(--only measures just the calls whose name holds that text.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import sqlalchemy as sa
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult
from starlette.applications import Starlette

from codna.mcp.answers import PagesAnswer
from codna.services.context import use_database
from codna.services.members import access, members, tokens
from codna.services.pages import pages
from codna.storage.database import Database

CONCURRENCY = (1, 8, 32)
PROTOCOL = "2026-07-28"
POSTGRES_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
READ_PAGE = "wiki:bench/guide"
CODNA = str(Path(sys.executable).parent / "codna")


def page_body(size: int = 4000) -> str:
    """A wiki page of about `size` characters: headings and plain paragraphs."""
    parts = ["# Guide\n\n"]
    n = 0
    while sum(map(len, parts)) < size:
        parts.append(f"## Section {n}\n\nParagraph {n} says something about topic {n}.\n\n")
        n += 1
    return "".join(parts)


# -- the ceiling: a bare Starlette app -------------------------------------------------------


def ceiling_app() -> Starlette:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    bodies: dict[int, bytes] = {}

    async def answer(request: Request) -> Response:
        await request.body()
        n = int(request.path_params["n"])
        body = bodies.setdefault(n, b"x" * n)
        return Response(body, media_type="application/json")

    return Starlette(routes=[Route("/ceiling/{n:int}", answer, methods=["GET", "POST"])])


def sdk_alone_app(answer_file: str) -> Starlette:
    """The MCP SDK by itself: a stateless, JSON-answering Streamable HTTP server, as `codna
    serve` mounts it, with one `read_document` tool that hands back a finished answer (the
    one CoDNA gave, read from `answer_file`): no token, no database, no work of CoDNA's. What
    it serves per second is what any tool behind this SDK can reach at most."""
    answer = json.loads(Path(answer_file).read_text())
    result = CallToolResult.model_validate(answer["result"])
    server = MCPServer("alone")

    @server.tool()
    async def read_document(
        address: str, version: int | None = None
    ) -> Annotated[CallToolResult, PagesAnswer]:
        return result

    app: Starlette = server.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=["127.0.0.1:*"]
        ),
    )
    return app


def serve_ceiling(port: int, answer_file: str | None = None) -> None:
    import uvicorn

    app = sdk_alone_app(answer_file) if answer_file else ceiling_app()
    # The settings `codna serve` gives uvicorn.
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", server_header=False)


# -- processes ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for(port: int, process: subprocess.Popen[bytes], log: Path, deadline: float = 60) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if process.poll() is not None:
            raise SystemExit(f"a server exited with {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"a server did not listen on {port} within {deadline:g} s")


@contextmanager
def started(command: list[str], port: int, env: dict[str, str], log: Path) -> Iterator[None]:
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        wait_for(port, process, log)
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# -- the workspace ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Seeded:
    token: str
    edit_pages: list[str]
    body: str


def seed(url: str, clients: int) -> Seeded:
    """A writer with a token, the page everyone reads, and a page per editing client and
    interface."""
    database = Database(url)
    database.migrate()
    use_database(database)
    try:
        admin = members.init_workspace(admin_email="ada@example.com", admin_password="bench-pw")
        writer = members.add_person(admin, email="wanda@example.com", name="Wanda")
        access.share(admin, address="wiki", member="wanda@example.com", level="write")
        # Grants the reader's rights are computed from, as in a real workspace.
        for n in range(20):
            access.share(admin, address=f"wiki:team{n}/", member="wanda@example.com", level="read")
        body = page_body()
        pages.create_page(writer, address=READ_PAGE, title="Guide", body=body)
        edit_pages = [f"wiki:bench/{via}-{n}" for via in ("api", "mcp") for n in range(clients)]
        for address in edit_pages:
            pages.create_page(writer, address=address, title="Edited", body=body + "state alpha\n")
        secret = tokens.create_token(admin, member="wanda@example.com", name="bench").secret
    finally:
        use_database(None)
        database.dispose()
    return Seeded(secret, edit_pages, body)


# -- requests ---------------------------------------------------------------------------------


def http_request(method: str, path: str, port: int, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    if method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def mcp_call(tool: str, arguments: dict[str, object], token: str) -> tuple[dict[str, str], bytes]:
    """A `tools/call` as the SDK's client sends it over Streamable HTTP (protocol 2026-07-28)."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL,
                "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": PROTOCOL,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    return headers, json.dumps(message, separators=(",", ":")).encode()


def swap(old: str, new: str) -> list[dict[str, str]]:
    return [{"op": "replace", "old": f"state {old}", "new": f"state {new}"}]


@dataclass
class Cycle:
    """What one client sends in turn (an edit and its undoing), and where it is in the turn:
    kept across runs, so that each page is always at the state the next edit expects."""

    requests: list[bytes]
    sent: int = 0

    def next(self) -> bytes:
        request = self.requests[self.sent % len(self.requests)]
        self.sent += 1
        return request


def workloads(port: int, seeded: Seeded, clients: int) -> dict[str, list[Cycle]]:
    """Per measured call, a cycle for each client."""
    token = seeded.token
    auth = {"Authorization": f"Bearer {token}"}
    json_post = {**auth, "Content-Type": "application/json"}
    query = f"/api/v1/page?address={READ_PAGE}"
    api_read = http_request("GET", query, port, auth, b"")
    mcp_read = http_request(
        "POST", "/mcp", port, *mcp_call("read_document", {"address": READ_PAGE}, token)
    )

    def api_edit(address: str, old: str, new: str) -> bytes:
        body = json.dumps({"address": address, "edits": swap(old, new)}).encode()
        return http_request("POST", "/api/v1/page/edit", port, json_post, body)

    def mcp_edit(address: str, old: str, new: str) -> bytes:
        arguments = {"address": address, "edits": swap(old, new)}
        return http_request("POST", "/mcp", port, *mcp_call("edit_document", arguments, token))

    # A page per client and interface: an interface's run starts where its last one ended.
    api_pages, mcp_pages = seeded.edit_pages[:clients], seeded.edit_pages[clients:]
    return {
        "JSON API read": [Cycle([api_read]) for _ in api_pages],
        "MCP read_document": [Cycle([mcp_read]) for _ in mcp_pages],
        "JSON API edit": [
            Cycle([api_edit(a, "alpha", "beta"), api_edit(a, "beta", "alpha")]) for a in api_pages
        ],
        "MCP edit_document": [
            Cycle([mcp_edit(a, "alpha", "beta"), mcp_edit(a, "beta", "alpha")]) for a in mcp_pages
        ],
    }


# -- the load generator -----------------------------------------------------------------------


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    for line in head.split(b"\r\n"):
        if line[:15].lower() == b"content-length:":
            length = int(line[15:])
    body = await reader.readexactly(length)
    return status, body


async def one_client(
    port: int, cycle: Cycle, until: float, measure_from: float, latencies: list[float]
) -> int:
    """Send the cycle's requests in turn until `until`; record the latency of each answer that
    arrives between `measure_from` and `until`. Returns how many answers were not a success."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    failures = 0
    try:
        while (start := time.perf_counter()) < until:
            status, body = await exchange(reader, writer, cycle.next())
            end = time.perf_counter()
            if status != 200 or b'"isError":true' in body:
                failures += 1
                if failures == 1:
                    print(f"    refused: {status} {body[:200]!r}", file=sys.stderr)
            if measure_from <= end < until:
                latencies.append(end - start)
    finally:
        writer.close()
    return failures


@dataclass(frozen=True)
class Figures:
    rps: float
    p50_ms: float
    p99_ms: float
    failures: int


async def run_load(port: int, cycles: list[Cycle], duration: float, warmup: float) -> Figures:
    begin = time.perf_counter()
    measure_from = begin + warmup
    until = measure_from + duration
    latencies: list[float] = []
    failures = await asyncio.gather(
        *(one_client(port, cycle, until, measure_from, latencies) for cycle in cycles)
    )
    if not latencies:
        return Figures(0.0, float("nan"), float("nan"), sum(failures))
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return Figures(
        len(ordered) / duration, statistics.median(ordered) * 1000, p99 * 1000, sum(failures)
    )


async def sample(port: int, request: bytes) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        return await exchange(reader, writer, request)
    finally:
        writer.close()


def ceiling_request(port: int, request: bytes, answer_size: int) -> bytes:
    """A request to the bare endpoint with the measured one's method, body size and answer."""
    method = request.split(b" ", 1)[0].decode()
    body = request.split(b"\r\n\r\n", 1)[1]
    return http_request(method, f"/ceiling/{answer_size}", port, {}, b"x" * len(body))


# -- the run ------------------------------------------------------------------------------------


def bench_engine(
    label: str,
    url: str,
    duration: float,
    warmup: float,
    logs: Path,
    only: str = "",
    workers: int = 1,
) -> list[str]:
    clients = max(CONCURRENCY)
    seeded = seed(url, clients)
    codna_port, ceiling_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODNA_")}
    env.update({"CODNA_DATABASE_URL": url, "CODNA_RATE_LIMIT": "1000000000"})
    lines = []
    serve = [CODNA, "serve", "--port", str(codna_port), "--workers", str(workers)]
    ceiling = [sys.executable, __file__, "--serve-ceiling", str(ceiling_port)]
    with (
        started(serve, codna_port, env, logs / f"serve-{label}.log"),
        started(ceiling, ceiling_port, env, logs / f"ceiling-{label}.log"),
    ):
        for name, cycles in workloads(codna_port, seeded, clients).items():
            if only.lower() not in name.lower():
                continue
            first = cycles[0].next()
            status, answer = asyncio.run(sample(codna_port, first))
            assert status == 200 and b'"isError":true' not in answer, (status, answer[:300])
            bare = ceiling_request(ceiling_port, first, len(answer))
            roof = Roof(ceiling_port, bare, duration, warmup)
            for concurrency in CONCURRENCY:
                measured = asyncio.run(run_load(codna_port, cycles[:concurrency], duration, warmup))
                lines.append(roof.line(label, name, concurrency, measured, len(answer)))
            if name == "MCP read_document":
                lines += sdk_alone(label, first, answer, roof, logs)
    return lines


@dataclass(frozen=True)
class Roof:
    """The ceiling for one call: the bare endpoint's port, the request that matches the call,
    and how long to measure."""

    port: int
    request: bytes
    duration: float
    warmup: float

    def line(self, label: str, name: str, clients: int, measured: Figures, size: int) -> str:
        """Figures beside the ceiling's, measured right after with as many clients."""
        cycles = [Cycle([self.request]) for _ in range(clients)]
        roof = asyncio.run(run_load(self.port, cycles, self.duration, self.warmup))
        share = measured.rps / roof.rps if roof.rps else float("nan")
        line = (
            f"{label:10} {name:18} {clients:>3}  {measured.rps:8.0f} "
            f"{measured.p50_ms:7.2f} {measured.p99_ms:7.2f}   {roof.rps:8.0f} "
            f"{roof.p50_ms:7.2f} {roof.p99_ms:7.2f}  {share:6.0%}  "
            f"{size:6}  {measured.failures + roof.failures}"
        )
        print(line, flush=True)
        return line


def sdk_alone(label: str, request: bytes, answer: bytes, roof: Roof, logs: Path) -> list[str]:
    """The same `read_document` call to the MCP SDK alone (sdk_alone_app), beside the same
    ceiling: how much of the ceiling the SDK leaves to any tool, before CoDNA does anything."""
    answer_file = logs / f"answer-{label}.json"
    answer_file.write_bytes(answer)
    port = free_port()
    command = [sys.executable, __file__, "--serve-ceiling", str(port), "--answer", str(answer_file)]
    lines = []
    with started(command, port, dict(os.environ), logs / f"sdk-alone-{label}.log"):
        alone = request.replace(b"Host: 127.0.0.1:", f"Host: 127.0.0.1:{port}\r\nX-Was: ".encode())
        status, body = asyncio.run(sample(port, alone))
        assert status == 200 and len(body) == len(answer), (status, body[:300])
        for concurrency in CONCURRENCY:
            cycles = [Cycle([alone]) for _ in range(concurrency)]
            measured = asyncio.run(run_load(port, cycles, roof.duration, roof.warmup))
            lines.append(roof.line(label, "MCP SDK alone", concurrency, measured, len(body)))
    return lines


@contextmanager
def throwaway_postgres(admin_url: str) -> Iterator[str]:
    name = f"codna_bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(admin_url).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


HEADER = (
    f"{'database':10} {'call':18} {'clients':>3}  {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7}   "
    f"{'ceiling':>8} {'p50 ms':>7} {'p99 ms':>7}  {'share':>6}  {'bytes':>6}  failed"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=4.0, help="seconds measured per run")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before measuring")
    parser.add_argument("--postgres", nargs="?", const=POSTGRES_ADMIN, metavar="ADMIN_URL")
    parser.add_argument("--only", default="", help="measure only the calls whose name has this")
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes on PostgreSQL (SQLite: one)"
    )
    parser.add_argument("--serve-ceiling", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--answer", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve_ceiling:
        serve_ceiling(options.serve_ceiling, options.answer)
        return
    print(f"{os.cpu_count()} cores, shared by the server and the load generator.")
    print(
        "Targets (SQLite, one worker): the JSON API read >= 1,000 req/s at 8 clients and a p50"
        " under 1 ms at 1 client; MCP read_document >= 50% of the SDK alone.\n"
    )
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp)
        sqlite = f"sqlite:///{logs / 'bench.db'}"
        bench_engine("sqlite", sqlite, options.duration, options.warmup, logs, options.only)
        if options.postgres:
            with throwaway_postgres(options.postgres) as url:
                label = f"pg x{options.workers}"
                bench_engine(
                    label,
                    url,
                    options.duration,
                    options.warmup,
                    logs,
                    options.only,
                    options.workers,
                )


if __name__ == "__main__":
    main()
