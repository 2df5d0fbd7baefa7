"""`codna check`: does every version of every page read back as it was saved?"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from codna.cli.output import Out, command_options
from codna.services import integrity
from codna.services.members import Member


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'s' * (n != 1)}"


def show(checked: integrity.Checked) -> str:
    """What the check found, for a person: one line per damaged version, then the verdict."""
    lines = [f"{d.address} version {d.version}: {d.reason}." for d in checked.damaged]
    lines += [f"The database file: {problem}" for problem in checked.database]
    read = f"{_count(checked.versions, 'version')} of {_count(checked.pages, 'page')}"
    if checked.ok:
        lines.append(f"Checked {read}: every version rebuilds to its SHA-256.")
    else:
        lines.append(
            f"Checked {read}: {_count(len(checked.damaged), 'version')} damaged"
            + (", and the database file has problems." if checked.database else ".")
        )
    return "\n".join(lines)


@click.command()
@command_options
def check(out: Out, actor: Callable[[], Member]) -> None:
    """Check that every version of every page rebuilds to its SHA-256 (and, on SQLite, the
    database file with PRAGMA integrity_check). Exits with 1 if anything is damaged, naming
    each page and version."""
    checked = integrity.check_workspace(actor())
    out.result(checked, lambda: show(checked))
    if not checked.ok:
        sys.exit(1)
