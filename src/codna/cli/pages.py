"""`codna page …`: create, show, edit, history, revert, trash, restore, purge."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from codna.cli.output import Out, command_options
from codna.errors import InvalidRequest
from codna.markdown.edits import Edit, parse_edits
from codna.services.limits import HISTORY, PAGES
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions
from codna.services.pages.editing import EditResult
from codna.services.pages.pages import Page
from codna.services.pages.revisions import Revision
from codna.services.suggestions import reverts


def read_input(source: str, what: str) -> str:
    """The text of a file, or of standard input for `-`."""
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidRequest(f"Cannot read the {what} from {source}: {error.strerror}.") from None


def read_edits(source: str) -> list[Edit]:
    """A JSON list of edits (or an object with an "edits" list) from a file or stdin, checked
    by the one definition of an edit."""
    text = read_input(source, "edits")
    try:
        edits = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as error:
        raise InvalidRequest(f"The edits are not valid JSON: {error}.", field="edits") from None
    if isinstance(edits, dict) and "edits" in edits:
        edits = edits["edits"]
    return parse_edits(edits)


def show_page(p: Page) -> str:
    head = f"{p.address} · {p.title} · version {p.version}"
    if p.version != p.latest_version:
        head += f" of {p.latest_version}"
    tags = f"tags: {', '.join(p.tags)}\n" if p.tags else ""
    trash = "(in the trash)\n" if p.in_trash else ""
    return f"{head}\n{tags}{trash}\n{p.body}"


def show_history(revisions: list[Revision], *, offset: int = 0) -> str:
    """The revisions a line each, and how to see older ones when they are left out (version
    1 is the first: until it is shown, there are)."""
    lines = [
        f"v{r.version:<4} {r.created_at:%Y-%m-%d %H:%M}  {r.author:16} {r.kind:17} {r.summary}"
        for r in revisions
    ]
    if revisions and revisions[-1].version > 1:
        lines.append(f"Older revisions are left out: give --offset {offset + len(revisions)}.")
    return "\n".join(lines)


def show_edit(result: EditResult) -> str:
    state = "Saved" if result.saved else "Dry run, nothing saved:"
    version = f" version {result.page.version}" if result.saved else ""
    return f"{state}{version}\n{result.diff}".rstrip()


def split_tags(value: str | None) -> list[str]:
    return [t for t in (value or "").split(",") if t.strip()]


@click.group()
def page() -> None:
    """Pages, addressed space:path (wiki:decisions/0024-suggested-changes)."""


@page.command("create")
@click.argument("address")
@click.option("--title", required=True)
@click.option("--tags", help="Comma-separated.")
@click.option("--body-file", metavar="FILE|-", help="The Markdown body, from a file or stdin.")
@command_options
def create(
    address: str,
    title: str,
    tags: str | None,
    body_file: str | None,
    out: Out,
    actor: Callable[[], Member],
) -> None:
    """Create a page."""
    body = read_input(body_file, "body") if body_file else ""
    made = pages.create_page(
        actor(), address=address, title=title, body=body, tags=split_tags(tags)
    )
    out.result(made, f"Created {made.address} (version 1).")


@page.command("show")
@click.argument("address")
@click.option("--version", type=int)
@command_options
def show(address: str, version: int | None, out: Out, actor: Callable[[], Member]) -> None:
    """Show a page, at its latest version or another."""
    found = pages.read_page(actor(), address=address, version=version)
    out.result(found, lambda: show_page(found))


@page.command("list")
@click.argument("address", required=False)
@click.option("--trash", is_flag=True, help="List the pages in the trash instead.")
@click.option("--limit", default=PAGES.default, show_default=True, help="How many at most.")
@click.option("--offset", default=0, show_default=True, help="How many to skip, by address.")
@command_options
def list_(
    address: str | None,
    trash: bool,
    limit: int,
    offset: int,
    out: Out,
    actor: Callable[[], Member],
) -> None:
    """List the pages you can read in a space or folder, by address."""
    found = pages.list_pages(actor(), address=address, in_trash=trash, limit=limit, offset=offset)

    def text() -> str:
        lines = [f"{p.address:50} v{p.version:<4} {p.title}" for p in found]
        if len(found) == limit:
            lines.append(f"There may be more: give --offset {offset + limit}.")
        return "\n".join(lines)

    out.result(found, text)


@page.command("edit")
@click.argument("address")
@click.option(
    "--edits", "edits_file", required=True, metavar="FILE|-", help="A JSON list of edits."
)
@click.option("--dry-run", is_flag=True, help="Show the diff; save nothing.")
@click.option("--summary")
@click.option("--base-version", type=int, help="Refuse if the page is no longer at this version.")
@click.option("--title", help="A new title.")
@click.option("--add-tags", help="Comma-separated tags to add.")
@click.option("--remove-tags", help="Comma-separated tags to remove.")
@command_options
def edit(
    address: str,
    edits_file: str,
    dry_run: bool,
    summary: str | None,
    base_version: int | None,
    title: str | None,
    add_tags: str | None,
    remove_tags: str | None,
    out: Out,
    actor: Callable[[], Member],
) -> None:
    """Apply edits that name their text, all or none."""
    result = editing.edit_page(
        actor(),
        address=address,
        edits=read_edits(edits_file),
        title=title,
        tags_add=split_tags(add_tags),
        tags_remove=split_tags(remove_tags),
        summary=summary,
        base_version=base_version,
        dry_run=dry_run,
    )
    out.result(result, lambda: show_edit(result))


@page.command("history")
@click.argument("address")
@click.option("--limit", default=HISTORY.default, show_default=True, help="How many at most.")
@click.option("--offset", default=0, show_default=True, help="How many of the newest to skip.")
@command_options
def history(address: str, limit: int, offset: int, out: Out, actor: Callable[[], Member]) -> None:
    """A page's revisions, newest first."""
    found = revisions.history(actor(), address=address, limit=limit, offset=offset)
    out.result(found, lambda: show_history(found, offset=offset))


@page.command("revision")
@click.argument("address")
@click.argument("version", type=int)
@command_options
def revision(address: str, version: int, out: Out, actor: Callable[[], Member]) -> None:
    """Show one revision with its body."""
    found = revisions.read_revision(actor(), address=address, version=version)
    out.result(
        found, lambda: f"v{found.version} by {found.author}: {found.summary}\n\n{found.body}"
    )


@page.command("revert")
@click.argument("address")
@click.argument("version", type=int)
@click.option(
    "--to", "restore", is_flag=True, help="Restore the page as it was at VERSION instead."
)
@click.option("--summary")
@command_options
def revert(
    address: str,
    version: int,
    restore: bool,
    summary: str | None,
    out: Out,
    actor: Callable[[], Member],
) -> None:
    """Undo revision VERSION as a new revision (or, with --to, restore VERSION)."""
    operation = reverts.restore_version if restore else reverts.revert_revision
    result = operation(actor(), address=address, version=version, summary=summary)
    out.result(result, lambda: show_edit(result))


def _trash_command(name: str, operation: Callable[..., Page], done: str) -> None:
    @command_options
    def run(address: str, out: Out, actor: Callable[[], Member]) -> None:
        changed = operation(actor(), address=address)
        out.result(changed, f"{changed.address} {done}.")

    run.__doc__ = operation.__doc__.splitlines()[0] if operation.__doc__ else None
    page.command(name)(click.argument("address")(run))


_trash_command("trash", pages.trash_page, "is in the trash")
_trash_command("restore", pages.restore_page, "is back from the trash")


@page.command("purge")
@click.argument("address")
@command_options
def purge(address: str, out: Out, actor: Callable[[], Member]) -> None:
    """Delete a page in the trash for good, with its revisions and all attached to it."""
    pages.purge_page(actor(), address=address)
    out.result({"address": address, "purged": True}, f"{address} is deleted for good.")
