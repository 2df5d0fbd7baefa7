"""Calls run at once, for every test that races them: each on its own thread, released
together by one barrier, and what each gave (its result, or the exception it raised) handed
back in order so that a test can assert on every outcome. A thread that never reaches the
start fails the test within `timeout` seconds instead of hanging it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest

T = TypeVar("T")

DEADLINE = 60.0  # seconds a thread waits at the start for the others before the test fails


def at_once(
    calls: Sequence[Callable[[], T]], *, threads: int | None = None, timeout: float = DEADLINE
) -> list[T | Exception]:
    """Run `calls` on `threads` threads (one per call unless given), all threads starting
    together; with fewer threads than calls, each thread's later calls run as it gets to
    them. Per call, in the order given: what it returned, or the exception it raised."""
    workers = min(len(calls), threads or len(calls))
    start = threading.Barrier(workers, timeout=timeout)
    started = threading.local()

    def run(call: Callable[[], T]) -> T | Exception:
        if not getattr(started, "done", False):  # a thread waits at the start once
            started.done = True
            try:
                start.wait()
            except threading.BrokenBarrierError:
                pytest.fail(f"not all {workers} threads started within {timeout:g} s")
        try:
            return call()
        except Exception as error:  # every outcome is handed back, the unexpected ones too
            return error

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(run, calls))


def unexpected(results: Sequence[object], *allowed: type[Exception]) -> list[object]:
    """The exceptions among `results` that are not of the `allowed` kinds."""
    return [r for r in results if isinstance(r, Exception) and not isinstance(r, allowed)]
