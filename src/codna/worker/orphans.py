"""Runs their owner left behind, closed when a worker starts (in `codna serve`'s processes and
in `codna worker`): a server killed mid-run never ends its runs itself.

A run still running is closed as failed, its token revoked and its command's process group
killed, when the process that ran it on this host is gone, or when its token's expiry (its
routine's time limit and a margin) passed. A run of another host is closed only at its
expiry: whether its process lives cannot be seen from here, nor its command killed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket

from codna.services.events import runs
from codna.services.events.runs import Owner, Run

log = logging.getLogger("codna.runs")


def close_orphaned_runs() -> list[Run]:
    """Close every run whose owner is gone or whose token expired, each in a transaction of
    its own, killing its command first if it runs on this host; the runs closed."""
    host = socket.gethostname()
    closed = []
    for owner in runs.running_owners():
        why = _orphaned(owner, host)
        if why is None:
            continue
        if owner.host == host and owner.command_pid is not None:
            _kill_group(owner.command_pid)
        run = runs.close_orphaned_run(owner.run_id, error=why)
        if run is not None:
            log.warning("run %s of %s on %s closed: %s", run.id, run.routine, run.address, why)
            closed.append(run)
    return closed


def _orphaned(owner: Owner, host: str) -> str | None:
    """Why the run is an orphan, or None while its owner may still end it."""
    if owner.host == host and owner.pid is not None and not _alive(owner.pid):
        return f"its server stopped while it ran (process {owner.pid} on {host})"
    if owner.expired:
        return "its server never ended it, and its token expired past its time limit"
    return None


def _alive(pid: int) -> bool:
    if pid <= 0:  # no process: os.kill would signal a whole group
        return False
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def _kill_group(pgid: int) -> None:
    """Kill the command's process group: the command and whatever it started."""
    if pgid <= 1 or pgid == os.getpgrp():  # never init's group nor this process's own
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
