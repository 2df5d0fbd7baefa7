"""What a call costs: its peak of traced memory and its CPU time, measured inside the test.

Memory is Python's own allocations as tracemalloc sees them, on every thread (the app in
process answers on a thread of its own). CPU time is the process's, every thread's; machines
are noisy, so a test holds it to a generous multiple of its budget only.

A render's budget can be divided (`render_budget_divided_by`): a body a tenth the size then
meets it where the largest body meets the whole one, and runs the same code for a tenth of
the work, held to a tenth of the memory and the CPU.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from codna.markdown import highlight
from codna.markdown import render as rendering

CPU_SLACK = 10  # how many times its CPU budget a call may take before a test fails
TENTH = 10  # what the quick forms divide a render's budget, and their bodies, by
# What one render counts, in render.py and highlight.py.
_RENDER_BUDGET = (
    (rendering, ("RENDER_TOKENS", "RENDER_STEPS", "BLOCK_AMPERSANDS")),
    (highlight, ("FENCE_BYTES", "HIGHLIGHT_BYTES", "HIGHLIGHT_FENCES", "HIGHLIGHT_SECONDS")),
)


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


@contextmanager
def render_budget_divided_by(scale: int) -> Iterator[None]:
    """Renders within the block count against their budget divided by `scale`: tokens, steps,
    the `&` of a block, and the fences, characters and CPU time of highlighting."""
    with pytest.MonkeyPatch.context() as patch:
        for module, names in _RENDER_BUDGET:
            for name in names:
                whole = getattr(module, name)
                patch.setattr(
                    module, name, whole / scale if isinstance(whole, float) else whole // scale
                )
        yield
