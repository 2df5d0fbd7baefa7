"""Backing up a workspace while it runs: on SQLite, a consistent copy of its database file.
PostgreSQL has its own tools for this (pg_dump, pg_basebackup), which CoDNA does not redo.

Unlike the other services this one writes a file: the copy is a database, and SQLite writes it.
It is made under a temporary name beside the target and put in place only once it is whole, so
a copy that fails or is stopped never looks like a backup.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from codna.errors import Duplicate, InvalidRequest, ReadOnly
from codna.services.clock import now
from codna.services.context import database, location
from codna.services.members.members import Member
from codna.storage import backup as sqlite_backup
from codna.storage.backup import Progress

PAGES_PER_STEP = sqlite_backup.PAGES_PER_STEP


@dataclass(frozen=True)
class Backup:
    """A copy made: of which database (its file), into which file, when its snapshot was taken
    (every change acknowledged before then is in it), and how many database pages and bytes it
    holds."""

    source: str
    file: str
    taken_at: datetime
    pages: int
    bytes: int


def backup_workspace(
    actor: Member,
    *,
    target: Path,
    overwrite: bool = False,
    pages_per_step: int = PAGES_PER_STEP,
    progress: Progress | None = None,
) -> Backup:
    """Copy the workspace's SQLite database into the file `target` as it is when the copy
    begins, while others go on writing; `progress` hears (pages copied, pages in all) after
    each step of `pages_per_step` pages. A file at `target` is replaced only with `overwrite`.

    Raises ReadOnly (not an admin: a backup holds every page and every member's password
    hash), InvalidRequest (the workspace is on PostgreSQL; `target` is the workspace's own
    file, a folder, or in a folder that is not there), Duplicate (a file is at `target`).
    """
    if not actor.administers:
        raise ReadOnly(
            "Only an admin can back up the workspace: a backup holds every page and member."
        )
    where = location()
    if where.engine != "sqlite":
        raise InvalidRequest(
            f"The workspace at {where} is on PostgreSQL, which backs up its own databases: "
            "use pg_dump (or pg_basebackup for the whole cluster).",
            field="target",
        )
    if where.file is not None and _is_workspace_file(where.file, target):
        raise InvalidRequest(
            f"{target} is the workspace's own database; a backup goes to another file.",
            field="target",
        )
    if target.is_dir():
        raise InvalidRequest(f"{target} is a folder; a backup is a file.", field="target")
    if not target.parent.is_dir():
        raise InvalidRequest(f"There is no folder {target.parent}.", field="target")
    reserved = False
    if not overwrite:
        try:  # taken at once, so that nothing made meanwhile is replaced at the end
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            raise Duplicate(
                f"There is a file at {target} already; nothing was written.",
                field="target",
                path=str(target),
            ) from None
        reserved = True
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(handle)
    copy = Path(name)
    try:
        taken_at = now()
        pages = sqlite_backup.copy_sqlite(
            database(), copy, pages_per_step=pages_per_step, progress=progress
        )
        os.replace(copy, target)
    except BaseException:
        copy.unlink(missing_ok=True)
        if reserved:
            target.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)
    return Backup(str(where), str(target), taken_at, pages, target.stat().st_size)


def _is_workspace_file(workspace: Path, target: Path) -> bool:
    """Whether `target` is the workspace's database file or one SQLite keeps beside it."""
    own = workspace.resolve()
    return target.resolve() in {own, *(own.with_name(own.name + s) for s in ("-wal", "-shm"))}


def _sync_folder(folder: Path) -> None:
    """Make the file's new name durable, where the system allows a folder to be synced."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
