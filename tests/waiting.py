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
) -> T:
    """Call `probe` until it gives something true, and give that; fail once `deadline`
    seconds have passed, saying what never happened (and what `explain` adds, such as the
    logs)."""
    end = time.monotonic() + deadline
    while not (found := probe()):
        if time.monotonic() > end:
            more = f"\n{explain()}" if explain else ""
            pytest.fail(f"not within {deadline:g} s: {what}{more}")
        time.sleep(every)
    return found
