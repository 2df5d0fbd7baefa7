"""Waiting for what another thread or process does: one poll with a deadline, for every test
that waits. Never a fixed sleep: a test waits only as long as what it waits for takes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def eventually(
    what: str,
    probe: Callable[[], T],
    *,
    deadline: float = 60,
    every: float = 0.05,
    explain: Callable[[], str] | None = None,
    progress: Callable[[], object] | None = None,
) -> T:
    """Call `probe` until it gives something true, and give that; fail once `deadline`
    seconds have passed, saying what never happened (and what `explain` adds, such as the
    logs). With `progress` (say, how many of the things waited for are done), the deadline
    counts from the last time what it gives changed: a wait that keeps getting somewhere is
    not cut short by a slow machine, and one that stalls still fails."""
    end = time.monotonic() + deadline
    seen = progress() if progress is not None else None
    while not (found := probe()):
        if progress is not None and (now := progress()) != seen:
            seen, end = now, time.monotonic() + deadline
        if time.monotonic() > end:
            more = f"\n{explain()}" if explain else ""
            still = f" (stalled at {seen!r})" if progress is not None else ""
            pytest.fail(f"not within {deadline:g} s{still}: {what}{more}")
        time.sleep(every)
    return found
