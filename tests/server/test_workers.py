"""Several worker processes: refused on SQLite; on PostgreSQL a revoked token is refused by
every worker on its very next request.

Which worker answered is read from the kernel, not guessed: after an answer on a keep-alive
connection, the worker that accepted it still holds the server's end of the socket, and
/proc shows which process that is (Linux).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import fresh_database, seed
from tests.server.conftest import CODNA, Server, free_port, running_server, server_env

DEADLINE = 30.0


def test_serve_refuses_several_workers_on_sqlite_with_a_sentence(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'codna.db'}"
    refused = subprocess.run(
        [CODNA, "serve", "--port", str(free_port()), "--workers", "2"],
        env=server_env(url),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0
    assert refused.stderr.startswith("invalid_request: Several workers need PostgreSQL"), (
        refused.stderr
    )
    assert refused.stderr.rstrip().endswith("."), refused.stderr


@pytest.fixture(scope="module")
def two_workers(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """`codna serve --workers 2` on a fresh PostgreSQL database."""
    with fresh_database("postgresql", request, tmp_path_factory) as url:
        workspace = seed(url)
        logs = tmp_path_factory.mktemp("serve-workers")
        with running_server(workspace, "postgresql", logs, workers=2) as server:
            yield server


def _descendants(pid: int) -> set[int]:
    children: dict[int, set[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, set()).add(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def _server_socket_inode(server_port: int, client_port: int) -> int | None:
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], int(fields[9])
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == (
            client_port
        ):
            return inode
    return None


def _holder(pids: set[int], inode: int) -> int | None:
    target = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except OSError:
                continue
    return None


def _read_answer(sock: socket.socket) -> int:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection before answering"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(
        int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")
    )
    while len(rest) < length:
        rest += sock.recv(65536)
    return int(lines[0].split()[1])


def ask(server: Server, token: str) -> tuple[int, int | None]:
    """GET /api/v1/me with `token` on a new connection: the status and the worker's pid."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        request = (
            f"GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        )
        sock.sendall(request.encode())
        status = _read_answer(sock)
        inode = _server_socket_inode(server.port, sock.getsockname()[1])
        worker = _holder(_descendants(server.process.pid), inode) if inode else None
    return status, worker


def answers_from_every_worker(server: Server, token: str) -> dict[int, set[int]]:
    """Ask until both workers have answered: the statuses each worker gave."""
    seen: dict[int, set[int]] = {}
    deadline = time.monotonic() + DEADLINE
    while len(seen) < 2 and time.monotonic() < deadline:
        status, worker = ask(server, token)
        if worker is not None:
            seen.setdefault(worker, set()).add(status)
    assert len(seen) == 2, f"only {len(seen)} worker(s) answered within {DEADLINE:g} s"
    return seen


def test_a_revoked_token_is_refused_on_its_next_request_by_every_worker_on_postgresql(
    two_workers: Server,
) -> None:
    token = two_workers.token("revoke-api")
    workers = _descendants(two_workers.process.pid)
    before = answers_from_every_worker(two_workers, token)
    assert set(before) <= workers
    assert all(statuses == {200} for statuses in before.values()), before

    with two_workers.api("admin") as admin:
        token_id = two_workers.workspace.token_ids["revoke-api"]
        revoked = admin.post("/api/v1/tokens/revoke", json={"token_id": token_id})
        assert revoked.status_code == 200, revoked.text

    after = answers_from_every_worker(two_workers, token)
    assert set(after) == set(before)
    assert all(statuses == {401} for statuses in after.values()), after
    with two_workers.api("reader") as reader:
        assert reader.get("/api/v1/me").status_code == 200
