"""A command routine: a configured command line (an agent such as a Claude routine, or any
program) run with the skill, the MCP URL and the run's token in its environment, for at most
its time limit. Its output (stdout and stderr together) is kept on the run.

The environment it is given:
  CODNA_MCP_URL   where to speak MCP (Streamable HTTP)
  CODNA_TOKEN     the run's bearer token, revoked when the run ends
  CODNA_SKILL     the path of the skill file, which tells a routine how to work with CoDNA
  CODNA_ON        the page the run is about, space:path
  CODNA_RUN       the run's id
  CODNA_ROUTINE   the routine's name
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.resources import as_file, files

import anyio

KEPT = 64 * 1024  # characters of output kept, from the end


@dataclass(frozen=True)
class Ran:
    """How a command ended: its status (succeeded, failed, timed_out), its exit code, its
    output's end."""

    status: str
    code: int | None
    output: str


def skill_text() -> str:
    """The skill, as shipped."""
    return files("codna.routines").joinpath("skill.md").read_text(encoding="utf-8")


def _kill(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the command and whatever it started


async def run_command(
    command: str,
    *,
    mcp_url: str,
    token: str,
    on: str,
    run_id: int,
    routine: str,
    timeout: float,
    spawned: Callable[[int], Awaitable[None]] | None = None,
) -> Ran:
    """Run `command` (split like a shell line, never through a shell) until it ends or
    `timeout` seconds pass, when it and its children are killed. `spawned` is given the
    command's process group id as soon as it runs (to record who to kill if this process
    dies first); if it fails, the command is killed and the error raised."""
    with as_file(files("codna.routines").joinpath("skill.md")) as skill:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("CODNA_")},
            "CODNA_MCP_URL": mcp_url,
            "CODNA_TOKEN": token,
            "CODNA_SKILL": str(skill),
            "CODNA_ON": on,
            "CODNA_RUN": str(run_id),
            "CODNA_ROUTINE": routine,
        }
        # Started in a thread: forking a large process blocks for a while.
        process = await anyio.to_thread.run_sync(
            lambda: subprocess.Popen(
                shlex.split(command),
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, killed whole at the time limit
            )
        )
        chunks: list[bytes] = []

        def read() -> None:
            out = process.stdout
            assert out is not None
            for chunk in iter(lambda: os.read(out.fileno(), 65536), b""):
                chunks.append(chunk)

        timed_out = False
        try:
            if spawned is not None:
                await spawned(process.pid)  # its own session: its group's id is its pid
            with anyio.fail_after(timeout):
                await anyio.to_thread.run_sync(read, abandon_on_cancel=True)
                code = await anyio.to_thread.run_sync(process.wait, abandon_on_cancel=True)
        except TimeoutError:
            timed_out = True
            _kill(process)
            code = await anyio.to_thread.run_sync(process.wait)
        finally:
            if process.poll() is None:  # cancelled, or `spawned` failed: killed and reaped
                _kill(process)
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(process.wait)
            if process.stdout is not None:
                process.stdout.close()  # read to its end, or its writers killed
    output = b"".join(chunks).decode("utf-8", errors="replace")[-KEPT:]
    if timed_out:
        return Ran("timed_out", code, output)
    return Ran("succeeded" if code == 0 else "failed", code, output)
