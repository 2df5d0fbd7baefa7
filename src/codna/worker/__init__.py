"""The worker: it runs the automations that the outbox's events match.

`codna serve` runs one in each of its processes (CODNA_WORKER=0 turns it off), and `codna
worker` runs one alone. Routines plug in by name with `register(routine, handler)`.
"""

from __future__ import annotations

import os

from codna.worker.handlers import Handler, dispatch, handlers, load_handlers, register
from codna.worker.loop import Handle, Worker

__all__ = [
    "Handle",
    "Handler",
    "Worker",
    "dispatch",
    "enabled",
    "handlers",
    "load_handlers",
    "register",
]

ENV = "CODNA_WORKER"


def enabled() -> bool:
    """Whether `codna serve` runs a worker in its processes: yes, unless CODNA_WORKER is 0
    (or off, false, no)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "false", "no")
