"""`codna backup FILE`: a consistent copy of a running SQLite workspace."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from codna.cli.output import Out, command_options
from codna.cli.transfer import on_terminal
from codna.errors import Duplicate
from codna.services.admin import backup as backups
from codna.services.admin.backup import Backup
from codna.services.members.members import Member


def _size(count: int) -> str:
    if count < 1024:
        return f"{count:,} bytes"
    if count < 1024**3:
        return f"{count / 1024**2:,.1f} MiB" if count >= 1024**2 else f"{count / 1024:,.1f} KiB"
    return f"{count / 1024**3:,.1f} GiB"


def show(made: Backup) -> str:
    return (
        f"Backed up {made.source} to {made.file}: {_size(made.bytes)}, every change made "
        f"before {made.taken_at:%Y-%m-%d %H:%M:%S} UTC."
    )


@contextmanager
def _progress() -> Iterator[Callable[[int, int], None] | None]:
    """How far the copy is, on standard error when it is a terminal: (pages copied, in all)."""
    if not on_terminal():
        yield None
        return
    shown = False

    def step(done: int, total: int) -> None:
        nonlocal shown
        shown = True
        click.echo(f"\rCopying: {done * 100 // max(total, 1)}%", nl=False, err=True)

    try:
        yield step
    finally:
        if shown:
            click.echo(err=True)


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--overwrite", is_flag=True, help="Replace a file that is there already.")
@command_options
def backup(file: Path, overwrite: bool, out: Out, actor: Callable[[], Member]) -> None:
    """Copy the running SQLite workspace into FILE, as it is when the copy begins, while
    others go on writing (SQLite's online backup). To restore, stop the server and copy FILE
    back in place of the database, or set CODNA_DATABASE_URL to sqlite:///FILE.

    A file that is there already is never replaced without --overwrite. On PostgreSQL, use
    pg_dump instead: see docs/operations.md."""
    member = actor()
    with _progress() as progress:
        try:
            made = backups.backup_workspace(
                member, target=file, overwrite=overwrite, progress=progress
            )
        except Duplicate as error:
            raise Duplicate(
                f"{error.message} Give --overwrite to replace it, or choose another file.",
                **error.fields,
            ) from None
    out.result(made, lambda: show(made))
