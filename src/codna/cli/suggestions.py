"""`codna suggest`, `codna suggestions`, `codna decide`, `codna withdraw`."""

from __future__ import annotations

from collections.abc import Callable

import click

from codna.cli.output import Out, command_options
from codna.cli.pages import read_edits, split_tags
from codna.services.members.members import Member
from codna.services.suggestions import changes
from codna.services.suggestions.records import Suggestion
from codna.vocabulary import STATUSES


def show(s: Suggestion) -> str:
    head = f"#{s.id} {s.status:9} {s.page}  by {s.suggester}: {s.reason}"
    if s.status == "pending" and s.applies is False and s.not_applying:
        head += f"\n    no longer applies: {s.not_applying.message}"
    elif s.note:
        head += f"\n    {s.note}"
    if s.decided_by:
        head += f"\n    {s.status} by {s.decided_by}" + (
            f": {s.decision_reason}" if s.decision_reason else ""
        )
    if s.reverted_in_version:
        head += f"\n    reverted in version {s.reverted_in_version}"
    return head


@click.command()
@click.argument("address")
@click.option("--edits", "edits_file", default=None, metavar="FILE|-", help="A JSON list of edits.")
@click.option("--reason", required=True, help="Why, in a sentence or two.")
@click.option("--title", help="A new title.")
@click.option("--add-tags", help="Comma-separated tags to add.")
@click.option("--remove-tags", help="Comma-separated tags to remove.")
@click.option("--base-version", type=int, help="The version the edits were written against.")
@click.option("--dry-run", is_flag=True, help="Run every check; save nothing.")
@command_options
def suggest(
    address: str,
    edits_file: str | None,
    reason: str,
    title: str | None,
    add_tags: str | None,
    remove_tags: str | None,
    base_version: int | None,
    dry_run: bool,
    out: Out,
    actor: Callable[[], Member],
) -> None:
    """Suggest a change to a page; someone who can edit it decides."""
    result = changes.suggest_edit(
        actor(),
        address=address,
        edits=read_edits(edits_file) if edits_file else [],
        reason=reason,
        title=title,
        tags_add=split_tags(add_tags),
        tags_remove=split_tags(remove_tags),
        base_version=base_version,
        dry_run=dry_run,
    )
    made = result.suggestion
    out.result(
        result,
        lambda: (
            (f"Suggested #{made.id} on {made.page}\n" if made else "Dry run, nothing saved:\n")
            + result.diff.rstrip()
        ),
    )


@click.command("suggestions")
@click.argument("address", required=False)
@click.option("--status", type=click.Choice(STATUSES))
@command_options
def list_(address: str | None, status: str | None, out: Out, actor: Callable[[], Member]) -> None:
    """A page's suggested changes (all, for its editors), or your own."""
    found = changes.list_suggestions(actor(), address=address, status=status)
    out.result(found, lambda: "\n".join(show(s) for s in found) or "No suggestions.")


@click.command()
@click.argument("suggestion_id", type=int)
@click.argument("decision", type=click.Choice(["accept", "reject"]))
@click.option("--reason", help="Why; the suggester reads it.")
@command_options
def decide(
    suggestion_id: int, decision: str, reason: str | None, out: Out, actor: Callable[[], Member]
) -> None:
    """Accept or reject a suggested change."""
    decided = changes.decide_edit_suggestion(
        actor(), suggestion_id=suggestion_id, decision=decision, reason=reason
    )
    out.result(decided, lambda: show(decided))


@click.command()
@click.argument("suggestion_id", type=int)
@command_options
def withdraw(suggestion_id: int, out: Out, actor: Callable[[], Member]) -> None:
    """Withdraw a suggested change of yours that still waits."""
    done = changes.withdraw_suggestion(actor(), suggestion_id=suggestion_id)
    out.result(done, lambda: show(done))
