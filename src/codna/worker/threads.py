"""A routine's plain function, run in a thread of its own that a stopping process leaves.

The event loop's thread pool serves the requests of `codna serve`: a routine that runs for
minutes must not hold one of its threads, and a process that stops must not wait for it. A
daemon thread per run does neither; a run that is abandoned (the worker cancelled) goes on
until the process ends, and its event is taken again once its lease has run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def in_daemon_thread(func: Callable[..., T], *args: Any) -> T:
    """`func(*args)` in a new daemon thread, awaited without blocking the loop; its result, or
    its exception raised here. Cancelling the wait abandons the thread to finish alone."""
    loop = asyncio.get_running_loop()
    finished = asyncio.Event()
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            outcome.append((True, func(*args)))
        except BaseException as error:  # handed to the awaiting task, whatever it is
            outcome.append((False, error))
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits now
            loop.call_soon_threadsafe(finished.set)

    threading.Thread(
        target=run, name=f"routine {getattr(func, '__name__', func)}", daemon=True
    ).start()
    await finished.wait()
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result
