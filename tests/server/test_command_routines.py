"""A command routine, through a real `codna serve` on both databases: run by hand with
`codna routine run`, it speaks MCP with the environment its run gives it (the SDK's own client
over Streamable HTTP), its output is kept on the run, and its token ends with the run; one
that hangs is stopped at its time limit (on SQLite only: the limit is the runner's)."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROLES, unique
from tests.server.conftest import CODNA, Server, server_env

SCRIPT = Path(__file__).parent.parent / "routines" / "mcp_script.py"


def codna(server: Server, *args: str) -> subprocess.CompletedProcess[str]:
    """A `codna` command on the server's database, which reaches the server at its address."""
    env = server_env(server.workspace.url, {"CODNA_BASE_URL": server.base})
    return subprocess.run(
        [CODNA, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def add_routine(server: Server, mode: str, out: Path, timeout: int) -> str:
    name = f"probe-{uuid.uuid4().hex[:8]}"
    command = f"{sys.executable} {SCRIPT} {mode} {out}"
    made = codna(
        server,
        "routine",
        "add",
        name,
        "--command",
        command,
        "--timeout",
        str(timeout),
        "--as",
        ROLES["admin"],
    )
    assert made.returncode == 0, made.stderr
    return name


def no_longer_works(server: Server, token: str) -> bool:
    answer = httpx.get(
        f"{server.base}/api/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    return answer.status_code == 401


def test_a_command_routine_speaks_mcp_with_its_runs_token_which_ends_with_the_run(
    server: Server, tmp_path: Path
) -> None:
    address = unique("wiki:routines/")
    server.create_page(address, "Text.\n", title="Probed")
    out = tmp_path / "token"
    name = add_routine(server, "work", out, timeout=60)
    ran = codna(server, "routine", "run", name, "--on", address, "--as", ROLES["writer"], "--json")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    run = json.loads(ran.stdout)
    assert run["status"] == "succeeded", run
    assert f"wrote output:{name}/runs/{run['id']}" in run["output"]
    with server.api("writer") as api:
        page = api.get("/api/v1/page", params={"address": f"output:{name}/runs/{run['id']}"})
    assert page.status_code == 200 and f"Read [Probed]({address})" in page.json()["body"]
    assert no_longer_works(server, out.read_text())


# The time limit is the runner's, on the routine's process; the engine only keeps the run's
# status, as the test above has it do on both. Each run costs seconds of process start-up.
@pytest.mark.parametrize("server", ["sqlite"], indirect=True)
def test_a_command_routine_that_hangs_is_stopped_at_its_time_limit(
    server: Server, tmp_path: Path
) -> None:
    address = unique("wiki:routines/")
    server.create_page(address, "Text.\n", title="Hung")
    out = tmp_path / "token"
    name = add_routine(server, "hang", out, timeout=2)
    ran = codna(server, "routine", "run", name, "--on", address, "--as", ROLES["writer"], "--json")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    run = json.loads(ran.stdout)
    assert (run["status"], run["error"]) == ("timed_out", "stopped at its time limit of 2 s")
    assert "hanging" in run["output"]
    assert no_longer_works(server, out.read_text())
