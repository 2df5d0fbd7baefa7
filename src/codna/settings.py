"""Settings from the environment, read once per process. Imports nothing else of codna."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _list(name: str, default: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in os.environ.get(name, default).split(",") if part.strip())


@dataclass(frozen=True)
class Settings:
    """How a server runs. Every field has an environment variable (docs/running.md lists them)."""

    base_url: str = field(default_factory=lambda: base_url())
    # Host headers the server answers (DNS-rebinding protection); `*` as a port matches any.
    allowed_hosts: tuple[str, ...] = field(
        default_factory=lambda: _list("CODNA_ALLOWED_HOSTS", "127.0.0.1:*,localhost:*,[::1]:*")
    )
    # Origins a browser may send; requests without an Origin (scripts, agents) are fine.
    allowed_origins: tuple[str, ...] = field(
        default_factory=lambda: _list(
            "CODNA_ALLOWED_ORIGINS", "http://127.0.0.1:*,http://localhost:*,http://[::1]:*"
        )
    )
    # Proxies whose forwarded headers (X-Forwarded-For, X-Forwarded-Proto) name the client:
    # addresses or networks such as 10.0.0.0/8. None by default: the client is the socket's
    # peer, so nobody sets the address that sign-in failures are counted by.
    trusted_proxies: tuple[str, ...] = field(
        default_factory=lambda: _list("CODNA_TRUSTED_PROXIES", "")
    )
    max_body_bytes: int = field(
        default_factory=lambda: int(os.environ.get("CODNA_MAX_BODY_BYTES", str(8 * 1024 * 1024)))
    )
    # Tool calls and API writes per token: this many per window of `rate_window` seconds.
    rate_limit: int = field(default_factory=lambda: int(os.environ.get("CODNA_RATE_LIMIT", "600")))
    rate_window: float = field(
        default_factory=lambda: float(os.environ.get("CODNA_RATE_WINDOW", "60"))
    )
    # Seconds one SQL statement may run on PostgreSQL before the server cancels it (0: no
    # bound); the call is then refused as too_large, so one caller cannot hold the database.
    statement_timeout: float = field(
        default_factory=lambda: float(os.environ.get("CODNA_STATEMENT_TIMEOUT", "10"))
    )
    # Threads that do a process's work at once (0: as `work_threads` says for the engine).
    threads: int = field(default_factory=lambda: int(os.environ.get("CODNA_THREADS", "0")))

    def work_threads(self, engine: str) -> int:
        """How many requests a process works on at once, in its thread pool; the rest wait
        their turn on the event loop. Python runs one thread at a time, so more threads than
        cores only take turns at the interpreter, and each turn costs: with SQLite, whose
        work is all in this process, as many as there are cores; with PostgreSQL, twice as
        many, so that some work while others wait on the network."""
        if self.threads > 0:
            return self.threads
        cores = os.cpu_count() or 1
        return cores if engine == "sqlite" else 2 * cores


def base_url() -> str:
    """`CODNA_BASE_URL`: where people and agents reach this server (suggestion urls)."""
    return os.environ.get("CODNA_BASE_URL", "http://127.0.0.1:8080").rstrip("/")
