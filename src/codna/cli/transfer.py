"""`codna import` and `codna export`: the files are read and written here; the service takes
and gives documents (a name and a text)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TypeVar

import click

from codna.cli.output import Out, command_options
from codna.errors import CodnaError, Conflict, Duplicate, InvalidRequest
from codna.markdown.limits import MAX_BODY_BYTES
from codna.services.addresses import EXPORT_SUFFIX, Address
from codna.services.admin import transfer
from codna.services.limits import EXPORT
from codna.services.members.members import Member

T = TypeVar("T")
# How many of the files in the way an export's refusal names before it says "and N more".
_NAMED = 5
# How many times an export reads the pages over when they change while it reads them.
ATTEMPTS = 3


@dataclass(frozen=True)
class Skipped:
    """A file (or a page) left out, and why."""

    name: str
    reason: str


def on_terminal() -> bool:
    """Whether standard error is a terminal, where a progress bar can be drawn."""
    return sys.stderr.isatty()


@contextmanager
def progress(items: Sequence[T], label: str) -> Iterator[Iterable[T]]:
    """`items`, with a progress bar on standard error when it is a terminal."""
    if not items or not on_terminal():
        yield items
        return
    with click.progressbar(items, label=label, file=sys.stderr) as bar:
        yield bar


def pages(count: int) -> str:
    return f"{count} page{'s' * (count != 1)}"


def summary(done: str, skipped: Sequence[Skipped]) -> str:
    """`done`, and what was skipped: a count and a line for each."""
    if not skipped:
        return f"{done}, skipped none."
    return f"{done}, skipped {len(skipped)}:\n" + "\n".join(
        f"  {s.name}: {s.reason}" for s in skipped
    )


# Import --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A file to import: its document name, where it is, and the folder it was found in (None
    for a file named on the command line)."""

    name: str
    file: Path
    folder: Path | None


def find_files(paths: Sequence[Path]) -> tuple[list[Candidate], list[Skipped]]:
    """The Markdown files named, or found in the folders named (links to folders are not
    followed), in order."""
    found: list[Candidate] = []
    skipped: list[Skipped] = []
    for path in paths:
        if not path.is_dir():
            found.append(Candidate(path.name, path, None))
            continue
        for at, folders, files in os.walk(path):
            here = Path(at)
            folders.sort()
            for name in list(folders):
                if (here / name).is_symlink():
                    folders.remove(name)
                    skipped.append(
                        Skipped(
                            (here / name).relative_to(path).as_posix(),
                            "a link to a folder; links to folders are not followed.",
                        )
                    )
            for name in sorted(files):
                if name.lower().endswith(EXPORT_SUFFIX):
                    file = here / name
                    found.append(Candidate(file.relative_to(path).as_posix(), file, path))
    return found, skipped


def read_document(candidate: Candidate) -> transfer.Document:
    """The document a file holds. Raises InvalidRequest or TooLarge, saying what is wrong
    with the file: a link out of its folder, not a file, too big, not UTF-8, unreadable."""
    file, folder = candidate.file, candidate.folder
    try:
        if folder is not None and file.is_symlink():
            target = file.resolve(strict=True)
            if not target.is_relative_to(folder.resolve()):
                raise InvalidRequest(
                    f"a link to a file outside {folder}; links out of a folder are not followed.",
                    field="path",
                )
            file = target
        if not file.is_file():
            raise InvalidRequest("not a file.", field="path")
        with file.open("rb") as stream:
            data = stream.read(MAX_BODY_BYTES + 1)
    except OSError as error:
        raise InvalidRequest(f"cannot be read: {error.strerror}.", field="path") from None
    if len(data) > MAX_BODY_BYTES:
        raise InvalidRequest(
            f"over {MAX_BODY_BYTES:,} bytes, the most a page holds (1 MiB); split it into "
            "several files.",
            field="path",
            limit=MAX_BODY_BYTES,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidRequest(
            f"not UTF-8 text (byte {data[error.start]:#04x} at offset {error.start:,}).",
            field="path",
        ) from None
    return transfer.Document(candidate.name, text.removeprefix("\ufeff"))


def _skipped_line(skipped: Sequence[Skipped]) -> str:
    return "; ".join(f"{s.name}: {s.reason.rstrip('.')}" for s in skipped)


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--into", "folder", default="raw", show_default=True, help="raw or a folder of it.")
@command_options
def import_(paths: tuple[Path, ...], folder: str, out: Out, actor: Callable[[], Member]) -> None:
    """Import Markdown files (or folders of them) into raw.

    A file over 1 MiB, not UTF-8, or otherwise not importable is skipped, saying why, and
    the others go on; a link in a folder to a file outside it is never followed."""
    member = actor()
    transfer.import_folder(folder)  # a wrong folder is refused before any file is read
    candidates, skipped = find_files(paths)
    documents: list[transfer.Document] = []
    taken: dict[Address, str] = {}
    with progress(candidates, "Reading files") as files:
        for candidate in files:
            try:
                document = read_document(candidate)
                parsed = transfer.parse_document(document, folder=folder)
            except CodnaError as error:
                reason = error.message.removeprefix(f"{candidate.name}: ")
                skipped.append(Skipped(candidate.name, reason))
                continue
            if parsed.address in taken:
                skipped.append(
                    Skipped(
                        candidate.name,
                        f"it makes {parsed.address}, as {taken[parsed.address]} does.",
                    )
                )
                continue
            taken[parsed.address] = candidate.name
            documents.append(document)
    if not documents:
        if skipped:
            raise InvalidRequest(
                f"Nothing was imported: every file was skipped ({_skipped_line(skipped)}).",
                field="paths",
                skipped=[s.name for s in skipped],
            )
        raise InvalidRequest("There is nothing to import: no .md file was found.", field="paths")
    made = transfer.import_documents(member, documents=documents, folder=folder)
    out.result(
        {"imported": made, "skipped": skipped},
        lambda: "\n".join(
            [f"Imported {p.address}" for p in made]
            + [summary(f"Imported {pages(len(made))}", skipped)]
        ),
    )


# Export --------------------------------------------------------------------------------------


def export_target(directory: Path, file: transfer.ExportedFile) -> Path | None:
    """Where in `directory` an exported file goes, or None if it would be outside it."""
    relative = PurePosixPath(file.path)
    if relative.is_absolute() or ".." in relative.parts:
        return None
    target = directory.joinpath(*relative.parts)
    if not target.resolve().is_relative_to(directory.resolve()):
        return None  # a link in the folder leads out of it
    return target


def write_file(target: Path, text: str, *, overwrite: bool) -> None:
    """Write `text` to `target`: a new file, or with `overwrite` one put in place of what is
    there (a link is replaced, never followed). Raises FileExistsError, OSError."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    if not overwrite:
        with target.open("xb") as stream:
            stream.write(data)
        return
    with tempfile.NamedTemporaryFile(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    ) as temporary:
        temporary.write(data)
    os.replace(temporary.name, target)


def _in_the_way(found: Sequence[Path]) -> str:
    named = ", ".join(f"{p} (a folder)" if p.is_dir() else str(p) for p in found[:_NAMED])
    more = f" and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
    return f"{named}{more}"


def exported_files(member: Member, address: str | None) -> list[transfer.ExportedFile]:
    """Every page the member can read under `address`, read a window at a time.

    Each window after the first starts at the last file of the one before (a window holds
    many pages: EXPORT_BYTES is 64 of the largest). Finding that file elsewhere means pages
    were made or trashed before it meanwhile, so that one would be left out or read twice:
    the walk starts over, at most ATTEMPTS times. Raises Conflict."""
    for _ in range(ATTEMPTS):
        window = transfer.export_documents(member, address=address, limit=EXPORT.most)
        files = list(window.files)
        while window.next_offset is not None:
            window = transfer.export_documents(
                member, address=address, limit=EXPORT.most, offset=window.next_offset - 1
            )
            if not window.files or window.files[0].address != files[-1].address:
                break
            files += window.files[1:]
        else:
            return files
    raise Conflict(
        f"Pages were made or trashed while they were exported, {ATTEMPTS} times over; nothing "
        "was written. Export again.",
        field="address",
    )


@click.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--address", help="Only this space, folder or page.")
@click.option("--overwrite", is_flag=True, help="Replace files that are there already.")
@command_options
def export(
    directory: Path, address: str | None, overwrite: bool, out: Out, actor: Callable[[], Member]
) -> None:
    """Export the pages you can read as Markdown files with front matter.

    A file that is there already is never replaced without --overwrite: the export is
    refused, naming it, and writes nothing. Nothing is written outside DIRECTORY."""
    files = exported_files(actor(), address)
    planned: list[tuple[transfer.ExportedFile, Path]] = []
    skipped: list[Skipped] = []
    in_the_way: list[Path] = []
    for file in files:
        target = export_target(directory, file)
        if target is None:
            skipped.append(
                Skipped(file.address, f"its file {file.path} would be outside {directory}.")
            )
            continue
        if target.is_dir() or ((target.exists() or target.is_symlink()) and not overwrite):
            in_the_way.append(target)  # a folder is never replaced, even with --overwrite
        planned.append((file, target))
    if in_the_way:
        hint = (
            ""
            if overwrite
            else " Give --overwrite to replace them, or export into an empty folder."
        )
        raise Duplicate(
            f"{'A file is' if len(in_the_way) == 1 else f'{len(in_the_way)} files are'} in the "
            f"way, so nothing was exported: {_in_the_way(in_the_way)}.{hint}",
            field="directory",
            paths=[str(p) for p in in_the_way],
        )
    written: list[str] = []
    with progress(planned, "Writing files") as plan:
        for file, target in plan:
            try:
                write_file(target, file.text, overwrite=overwrite)
            except FileExistsError:
                skipped.append(
                    Skipped(file.address, f"{target} appeared meanwhile; left as it is.")
                )
                continue
            except OSError as error:
                skipped.append(
                    Skipped(file.address, f"{target} cannot be written: {error.strerror}.")
                )
                continue
            written.append(file.address)
    out.result(
        {"exported": written, "skipped": skipped, "directory": str(directory)},
        lambda: summary(f"Exported {pages(len(written))} to {directory}", skipped),
    )
