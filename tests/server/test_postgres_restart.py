"""PostgreSQL stopped and started again under a running `codna serve`: while it is down every
request is refused cleanly (503, the code `unavailable` and a sentence; over MCP a tool error
with the same code), once it is back requests succeed again on fresh connections, and nothing
is half-written: each edit acknowledged is on its page once, each page is as many versions on
as edits it holds, and every version reads back as it was saved.

The test starts a throwaway cluster of its own (as /work/shared/NOTES.md describes), so that
stopping it touches no other test's database.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from codna.services.admin import integrity
from codna.services.context import use_database
from codna.services.members import members
from codna.storage.database import Database
from tests.conftest import ROLES, seed, unique
from tests.server.conftest import Server, free_port, running_server
from tests.waiting import eventually

PG_BIN = Path("/usr/lib/postgresql/15/bin")
CLIENTS = 4
DEADLINE = 60.0

pytestmark = pytest.mark.skipif(
    not (PG_BIN / "initdb").exists() or shutil.which("runuser") is None,
    reason="needs PostgreSQL 15's binaries and runuser to start a cluster of its own",
)


def as_postgres(*command: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True, capture_output=True)


@dataclass
class Cluster:
    """A throwaway PostgreSQL cluster on a free loopback port."""

    data: Path
    sockets: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/codna"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.data.parent / "postgres.log")
        as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", log, "-w", "-o", options, "start"
        )

    def stop(self, mode: str) -> None:
        as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    root = Path(tempfile.mkdtemp(prefix="codna-pg-"))
    shutil.chown(root, "postgres")
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    shutil.chown(sockets, "postgres")
    as_postgres(
        str(PG_BIN / "initdb"),
        "-D",
        str(data),
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--no-sync",
    )
    made = Cluster(data, sockets, free_port())
    made.start()
    try:
        admin = sa.create_engine(
            made.url.replace("/codna", "/postgres"), isolation_level="AUTOCOMMIT"
        )
        with admin.connect() as conn:
            conn.execute(sa.text("CREATE DATABASE codna"))
        admin.dispose()
        database = Database(made.url)
        database.migrate()
        database.dispose()
        yield made
    finally:
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(PG_BIN / "pg_ctl"),
                "-D",
                str(data),
                "-m",
                "immediate",
                "stop",
            ],
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Client:
    """One client editing a page of its own in a loop: what it sent and what it heard."""

    address: str
    acknowledged: list[str] = field(default_factory=list)
    refused: list[httpx.Response] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)  # every status, in order
    lock: threading.Lock = field(default_factory=threading.Lock)

    def statuses_since(self, start: int) -> list[int]:
        with self.lock:
            return self.answers[start:]


def run_client(server: Server, client: Client, stop: threading.Event) -> None:
    with server.api("writer") as api:
        n = 0
        while not stop.is_set():
            line = f"{client.address} line {n}."
            n += 1
            if n % 3 == 0:  # a read between the writes
                answer = api.get("/api/v1/page", params={"address": client.address})
            else:
                edit = [{"op": "append", "text": line}]
                answer = api.post(
                    "/api/v1/page/edit", json={"address": client.address, "edits": edit}
                )
            with client.lock:
                client.answers.append(answer.status_code)
                if answer.is_success and n % 3:
                    client.acknowledged.append(line)
                elif not answer.is_success:
                    client.refused.append(answer)


def wait_for(what: str, condition: Callable[[], bool]) -> None:
    """Wait until `condition()` holds, polling often: the clients' answers change fast."""
    eventually(what, condition, deadline=DEADLINE, every=0.01)


def mcp_read(server: Server, address: str) -> httpx.Response:
    """A tools/call of read_document over MCP's Streamable HTTP, as the SDK's client sends
    it to a stateless server."""
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "read_document", "arguments": {"address": address}},
    }
    headers = {
        **server.headers("writer"),
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    return httpx.post(server.mcp_url, json=call, headers=headers, timeout=30)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_requests_are_refused_cleanly_while_postgres_is_down_and_succeed_once_it_is_back(
    cluster: Cluster, mode: str, tmp_path: Path
) -> None:
    workspace = seed(cluster.url, spare=())
    with running_server(workspace, "postgresql", tmp_path) as server:
        clients = [
            Client(server.create_page(unique(), "Start.\n")["address"]) for _ in range(CLIENTS)
        ]
        stop = threading.Event()
        threads = [
            threading.Thread(target=run_client, args=(server, c, stop), daemon=True)
            for c in clients
        ]
        for thread in threads:
            thread.start()
        try:
            wait_for(
                "every client's first edits", lambda: all(len(c.acknowledged) >= 5 for c in clients)
            )
            cluster.stop(mode)
            down = [len(c.answers) for c in clients]
            wait_for(
                "refusals while PostgreSQL is down",
                lambda: all(
                    len(c.statuses_since(d)) >= 5 for c, d in zip(clients, down, strict=True)
                ),
            )
            while_down = mcp_read(server, clients[0].address)
            assert while_down.status_code == 503, while_down.text
            assert while_down.json()["code"] == "unavailable", while_down.text
            cluster.start()
            up = [len(c.answers) for c in clients]
            wait_for(
                "edits succeeding once PostgreSQL is back",
                lambda: all(
                    c.statuses_since(u).count(200) >= 5 for c, u in zip(clients, up, strict=True)
                ),
            )
        finally:
            stop.set()
            for thread in threads:
                thread.join(DEADLINE)
        for client in clients:
            assert client.refused, "no request was refused while PostgreSQL was down"
            for answer in client.refused:
                assert answer.status_code == 503, answer.text
                body = answer.json()
                assert body["code"] == "unavailable", body
                assert body["message"].endswith("."), body
                assert answer.headers.get("retry-after")
    check_nothing_half_written(cluster, clients)


def check_nothing_half_written(cluster: Cluster, clients: list[Client]) -> None:
    database = Database(cluster.url)
    use_database(database)
    try:
        admin = members.member_by_handle(ROLES["admin"])
        checked = integrity.check_workspace(admin)
        assert checked.ok, checked
        with database.read() as conn:
            for client in clients:
                space, path = client.address.split(":", 1)
                body, version = conn.execute(
                    sa.text("SELECT body, version FROM pages WHERE space = :s AND path = :p"),
                    {"s": space, "p": path},
                ).one()
                lines = [line for line in body.split("\n") if line.startswith(client.address)]
                # Every acknowledged edit is there, once; an edit refused midway is all there
                # or not at all (one version per line the page holds).
                assert len(lines) == len(set(lines))
                assert set(client.acknowledged) <= set(lines)
                assert version == 1 + len(lines)
    finally:
        use_database(None)
        database.dispose()
