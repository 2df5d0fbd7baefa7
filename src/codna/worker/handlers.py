"""What the worker runs for an automation: a handler per routine, registered by name.

A module that provides routines calls `register(name, handler)` as it is imported; the worker
imports the modules in BUILT_IN and those named in CODNA_WORKER_HANDLERS (comma-separated
module names) when it starts, so that a worker in another process (`codna worker`) has the
same handlers as `codna serve`. Registering a handler also makes its name a routine that
automations may run.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread

from codna.errors import CodnaError, InvalidRequest, NotFound
from codna.services.events import automations, outbox
from codna.services.events.automations import Automation
from codna.services.events.outbox import Event
from codna.worker.threads import in_daemon_thread

# A routine's handler: called with the event and the automation it runs for, as that
# automation's member. A plain function runs in a thread of its own, a coroutine function on
# the worker's event loop. Raising fails the event's run (it is tried again after a back-off).
Handler = Callable[[Event, Automation], Awaitable[None] | None]

ENV = "CODNA_WORKER_HANDLERS"
# The modules of routines that ship with CoDNA, imported by every worker.
BUILT_IN: tuple[str, ...] = ("codna.runner",)

handlers: dict[str, Handler] = {}
# The handler of a routine no module registered, such as a command routine the workspace
# configures (see `handle_others`); None: such a routine has no handler here.
others: list[Handler] = []


class RunFailed(Exception):
    """An event's routines ran, and at least one of them failed: each failure's text."""


def register(routine: str, handler: Handler) -> None:
    """Run `handler` for the automations of `routine`, which automations may now name.
    Raises InvalidRequest for a name that is not a routine's."""
    automations.register_routine(routine)
    handlers[routine] = handler


def handle_others(handler: Handler) -> None:
    """Run `handler` for the automations of routines no module registered."""
    others[:] = [handler]


def modules() -> tuple[str, ...]:
    """The modules the worker imports for its handlers: BUILT_IN, then CODNA_WORKER_HANDLERS."""
    named = tuple(part.strip() for part in os.environ.get(ENV, "").split(",") if part.strip())
    return BUILT_IN + named


def load_handlers() -> None:
    """Import the handlers' modules (each registers its own; importing twice does nothing).
    Raises InvalidRequest naming a module that cannot be imported."""
    for name in modules():
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise InvalidRequest(
                f"The handlers' module {name} cannot be imported ({error}); check {ENV}.",
                field=ENV,
            ) from None


def is_async(handler: Callable[..., Any]) -> bool:
    """Whether calling `handler` gives a coroutine to await (a coroutine function, or an
    object whose __call__ is one)."""
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        type(handler).__call__
    )


def describe(error: BaseException) -> str:
    """An error as the text a failed run records: a domain error's `code: sentence`, else
    the exception's kind and text."""
    text = str(error)
    if isinstance(error, RunFailed | CodnaError):
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


async def run_handler(handler: Handler, event: Event, automation: Automation) -> None:
    """Run one handler: a coroutine on this loop, a plain function in a thread."""
    if is_async(handler):
        await handler(event, automation)  # type: ignore[misc]
    else:
        await in_daemon_thread(handler, event, automation)


async def dispatch(event: Event, found: list[Automation]) -> None:
    """The worker's default: run each automation's routine by its registered handler, one
    after another, leaving out those that already finished for this event (an earlier try
    of it failed for another). Every one runs even when one before it failed; each that
    succeeds is recorded at once; then, if any failed (or has no handler in this worker),
    raises RunFailed naming each, and only those run when the event is tried again."""
    finished = await anyio.to_thread.run_sync(outbox.automations_done, event.id)
    failures = []
    for automation in found:
        if automation.id in finished:
            continue
        handler = handlers.get(automation.routine) or next(iter(others), None)
        try:
            if handler is None:
                raise NotFound(
                    f"This worker has no handler for the routine {automation.routine}; "
                    f"register one, or name its module in {ENV}.",
                    routine=automation.routine,
                )
            await run_handler(handler, event, automation)
        except Exception as error:
            failures.append(f"automation {automation.id} ({automation.routine}): {describe(error)}")
        else:
            with anyio.CancelScope(shield=True):  # ran: recorded even if the worker is stopping
                await anyio.to_thread.run_sync(outbox.automation_done, event.id, automation.id)
    if failures:
        raise RunFailed("; ".join(failures))
