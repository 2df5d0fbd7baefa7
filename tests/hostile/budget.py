"""What a call costs: its peak of traced memory and its CPU time, measured inside the test.

Memory is Python's own allocations as tracemalloc sees them, on every thread (the app in
process answers on a thread of its own). CPU time is the process's, every thread's; machines
are noisy, so a test holds it to a generous multiple of its budget only.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

CPU_SLACK = 10  # how many times its CPU budget a call may take before a test fails


@dataclass
class Spent:
    """What the measured block cost: peak traced bytes and CPU seconds."""

    memory: int = 0
    cpu: float = 0.0

    def within(self, what: str, *, memory: int, cpu: float) -> None:
        """Assert the cost is inside the budget (CPU: inside CPU_SLACK times it)."""
        print(f"{what}: peak {self.memory / 2**20:.1f} MiB, {self.cpu:.2f} s CPU")
        assert self.memory <= memory, f"{what}: {self.memory / 2**20:.1f} MiB at the peak"
        assert self.cpu <= cpu * CPU_SLACK, f"{what}: {self.cpu:.2f} s of CPU"


@contextmanager
def measured(*, memory: bool = True) -> Iterator[Spent]:
    """Measure the block: the figures are in the `Spent` it gives once the block ends. Tracing
    memory slows some code tenfold: `memory=False` measures CPU time alone."""
    spent = Spent()
    if not memory:
        started = time.process_time()
        yield spent
        spent.cpu = time.process_time() - started
        return
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    started = time.process_time()
    try:
        yield spent
    finally:
        spent.cpu = time.process_time() - started
        spent.memory = max(tracemalloc.get_traced_memory()[1] - base, 0)
        if not was_tracing:
            tracemalloc.stop()
