"""`codna routine add|list|run|runs`: command routines, running one by hand, and the runs."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import click

from codna import runner
from codna.cli.output import Out, command_options
from codna.services.events import runs
from codna.services.events.runs import Run
from codna.services.members.members import Member


def show_run(r: Run) -> str:
    page = f" -> {r.run_page}" if r.run_page else ""
    error = f"  ({r.error})" if r.error else ""
    return f"#{r.id:<5} {r.routine:20} {r.status:10} on {r.address} as {r.member}{page}{error}"


@click.group()
def routine() -> None:
    """Routines: agent jobs that run as a person, suggest over MCP, and write a run page."""


@routine.command("add")
@click.argument("name")
@click.option("--command", "command_line", required=True, help="The command line to run.")
@click.option(
    "--timeout",
    default=600,
    show_default=True,
    type=click.IntRange(min=1),
    help="Seconds a run may take before it is stopped.",
)
@command_options
def routine_add(
    name: str, command_line: str, timeout: int, out: Out, actor: Callable[[], Member]
) -> None:
    """Add a command routine NAME (an admin's to do). Each run gets CODNA_MCP_URL,
    CODNA_TOKEN, CODNA_SKILL, CODNA_ON, CODNA_RUN and CODNA_ROUTINE in its environment."""
    made = runs.add_routine(actor(), name=name, command=command_line, timeout_seconds=timeout)
    out.result(made, f"Routine {made.name}: {made.command} (at most {made.timeout_seconds} s).")


@routine.command("list")
@command_options
def routine_list(out: Out, actor: Callable[[], Member]) -> None:
    """The routines there are: the built-in ones and the command routines."""
    actor()
    found = [{"name": name, "kind": "built-in"} for name in runner.BUILT_IN] + [
        {"name": r.name, "kind": "command", "command": r.command} for r in runs.command_routines()
    ]
    out.result(
        found,
        lambda: "\n".join(
            f"{r['name']:24} {r['kind']}" + (f": {r['command']}" if "command" in r else "")
            for r in found
        ),
    )


@routine.command("run")
@click.argument("name")
@click.option("--on", "address", required=True, metavar="ADDRESS", help="The page to look at.")
@command_options
def routine_run(name: str, address: str, out: Out, actor: Callable[[], Member]) -> None:
    """Run routine NAME by hand, as the member of --as, on the page --on, until it ends."""
    member = actor()
    done = anyio.run(lambda: runner.run(name, member, address))
    out.result(done, show_run(done))
    if done.status != "succeeded":
        raise SystemExit(1)


@routine.command("runs")
@click.option("--routine", "name", default=None, help="Only this routine's runs.")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(min=1))
@command_options
def routine_runs(name: str | None, limit: int, out: Out, actor: Callable[[], Member]) -> None:
    """Runs, newest first: your own, or everyone's for an admin."""
    found = runs.list_runs(actor(), routine=name, limit=limit)
    out.result(found, lambda: "\n".join(show_run(r) for r in found) or "No runs.")
