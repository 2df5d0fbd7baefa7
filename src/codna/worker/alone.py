"""A worker in a process of its own (`codna worker`): it listens for the database's events
itself, and stops cleanly on SIGINT or SIGTERM.

The first signal stops it taking events; the one running may finish for `grace` seconds, and
is then abandoned (taken again once its lease runs out). A second signal abandons it at once.
"""

from __future__ import annotations

import signal

import anyio

from codna.services.events import events
from codna.worker.loop import Worker

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def run_alone(worker: Worker, *, grace: float) -> None:
    """Run `worker` until a signal stops it, relaying the database's events meanwhile."""
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(events.relay_database_events)
        tasks.start_soon(_stop_on_signals, worker, tasks.cancel_scope, grace)
        await worker.run()
        tasks.cancel_scope.cancel()


async def _stop_on_signals(worker: Worker, everything: anyio.CancelScope, grace: float) -> None:
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async for _ in signals:
            worker.stop()
            break
        with anyio.move_on_after(grace):
            async for _ in signals:
                break
        everything.cancel()
