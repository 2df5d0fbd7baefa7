"""`codna automation add|list|disable`."""

from __future__ import annotations

from collections.abc import Callable

import click

from codna import worker
from codna.cli.output import Out, command_options
from codna.services.events import automations
from codna.services.events.automations import EVENT_TYPES, Automation
from codna.services.members.members import Member


def show(a: Automation) -> str:
    state = f"disabled {a.disabled_at:%Y-%m-%d %H:%M}" if a.disabled_at else "on"
    return f"#{a.id:<4} {a.event:16} {a.folder:30} {a.routine:20} as {a.member}  {state}"


@click.group()
def automation() -> None:
    """Automations: when a page under a folder is created or changed, run a routine."""


@automation.command("add")
@click.option(
    "--on", "event", required=True, type=click.Choice(EVENT_TYPES), help="What starts it."
)
@click.option(
    "--folder", required=True, metavar="ADDRESS", help="A space or folder: wiki:decisions/."
)
@click.option("--routine", required=True, help="The routine to run, such as decision-check.")
@command_options
def automation_add(
    event: str, folder: str, routine: str, out: Out, actor: Callable[[], Member]
) -> None:
    """Run ROUTINE, as the member of --as, whenever a page under --folder is created or changed
    (--on)."""
    worker.load_handlers()  # the routines this workspace's workers run, by name
    made = automations.add(actor(), event=event, folder=folder, routine=routine)
    out.result(
        made,
        f"Automation {made.id}: on {made.event} under {made.folder}, {made.routine} runs as "
        f"{made.member}.",
    )


@automation.command("list")
@command_options
def automation_list(out: Out, actor: Callable[[], Member]) -> None:
    """List automations: all for an admin, your own otherwise."""
    found = automations.list_automations(actor())
    out.result(found, lambda: "\n".join(show(a) for a in found) or "No automations.")


@automation.command("disable")
@click.argument("automation_id", type=int, metavar="ID")
@command_options
def automation_disable(automation_id: int, out: Out, actor: Callable[[], Member]) -> None:
    """Stop an automation (yours, or anyone's for an admin)."""
    done = automations.disable(actor(), automation_id=automation_id)
    out.result(done, f"Automation {done.id} is disabled.")
