"""`codna check`: does every version of every page read back as it was saved?"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from codna.cli.output import Out, command_options
from codna.services.admin import integrity
from codna.services.members.members import Member


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'s' * (n != 1)}"


def show(checked: integrity.Checked) -> str:
    """What the check found, for a person: one line per damaged version, then the verdict."""
    lines = [f"{d.address} version {d.version}: {d.reason}." for d in checked.damaged]
    lines += [f"The database file: {problem}" for problem in checked.database]
    lines += [f"{a}: its search index was out of step; made again." for a in checked.reindexed]
    lines += [
        f"{a}: its search index is out of step with its text (codna check --reindex makes it "
        "again)."
        for a in checked.unindexed
    ]
    read = f"{_count(checked.versions, 'version')} of {_count(checked.pages, 'page')}"
    if checked.ok:
        lines.append(
            f"Checked {read}: every version rebuilds to its SHA-256, every page's search index "
            "is in step with its text."
        )
    else:
        problems = [f"{_count(len(checked.damaged), 'version')} damaged"] if checked.damaged else []
        if checked.unindexed:
            problems.append(f"{_count(len(checked.unindexed), 'page')} out of step in the index")
        if checked.database:
            problems.append("the database file has problems")
        lines.append(f"Checked {read}: {', '.join(problems)}.")
    return "\n".join(lines)


@click.command()
@click.option(
    "--reindex", is_flag=True, help="Make again the search index of each page found out of step."
)
@command_options
def check(out: Out, actor: Callable[[], Member], reindex: bool) -> None:
    """Check that every version of every page rebuilds to its SHA-256, that each page's search
    index is the one its text makes (and, on SQLite, the database file with PRAGMA
    integrity_check). Exits with 1 if anything is damaged, naming each page and version."""
    checked = integrity.check_workspace(actor(), reindex=reindex)
    out.result(checked, lambda: show(checked))
    if not checked.ok:
        sys.exit(1)
