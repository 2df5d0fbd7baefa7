"""Undoing revisions: revert any one as a new revision, or restore a named version.

Either way, an accepted suggested change or link whose revision is undone is marked reverted
in the new version, and one that comes back loses the mark."""

from __future__ import annotations

from codna.errors import InvalidRequest, RevertConflict
from codna.markdown.limits import check_body
from codna.markdown.revert import undo
from codna.services.addresses import parse_address
from codna.services.context import database
from codna.services.members.access import access_page
from codna.services.members.members import Member
from codna.services.pages.editing import Applied, EditResult, write_change
from codna.services.pages.revisions import check_summary, revision_row
from codna.services.suggestions import lifecycle
from codna.services.suggestions.lifecycle import CHANGES, LINKS


def revert_revision(
    actor: Member, *, address: str, version: int, summary: str | None = None
) -> EditResult:
    """Undo revision `version` as a new revision by the actor.

    The latest revision is undone by restoring the one before it; an older one by applying its
    inverse where the text it changed is still as it left it. Raises NotFound, ReadOnly,
    InvalidRequest (version 1: trash the page instead), RevertConflict (changed since).
    """
    where = parse_address(address, want="page")
    summary = check_summary(summary)
    with database().write() as conn:
        page, mine = access_page(conn, actor, where, need="edit", lock=True)
        after = revision_row(conn, page.id, version, str(where))
        if version == 1:
            raise InvalidRequest(
                "Version 1 created the page; there is nothing before it. Trash the page instead.",
                field="version",
            )
        before = revision_row(conn, page.id, version - 1, str(where))
        if version == page.version:
            undone = Applied(before.title, before.tags, before.body)
        else:
            title = _undo_value(before.title, after.title, page.title, "title", version)
            tags = [t for t in page.tags if t not in set(after.tags) - set(before.tags)]
            tags += [t for t in before.tags if t not in after.tags and t not in tags]
            undone = Applied(title, tuple(tags), undo(before.body, after.body, page.body))
        check_body(undone.body)
        if undone.same_as(page):
            raise InvalidRequest(
                f"Undoing version {version} would change nothing on the page as it is now.",
                field="version",
            )
        result = write_change(
            conn,
            page,
            mine,
            actor,
            after=undone,
            summary=summary or f"Reverted version {version}",
            kind="revert",
        )
        made = result.page.version
        lifecycle.after_revert(conn, CHANGES, page.id, reverted=version, made=made)
        lifecycle.after_revert(conn, LINKS, page.id, reverted=version, made=made)
        return result


def _undo_value(before: str, after: str, current: str, field: str, version: int) -> str:
    if before == after:
        return current
    if current != after:
        raise RevertConflict(
            f"Version {version} changed the {field}, and it has changed again since; "
            "it cannot be undone by reverting.",
            reason="changed_since",
            field=field,
        )
    return before


def restore_version(
    actor: Member, *, address: str, version: int, summary: str | None = None
) -> EditResult:
    """Make the page as it was at `version`, as a new revision. Raises NotFound, ReadOnly,
    InvalidRequest (it is that version already)."""
    where = parse_address(address, want="page")
    summary = check_summary(summary)
    with database().write() as conn:
        page, mine = access_page(conn, actor, where, need="edit", lock=True)
        old = revision_row(conn, page.id, version, str(where))
        restored = Applied(old.title, old.tags, old.body)
        if restored.same_as(page):
            raise InvalidRequest(
                f"{where} is as it was at version {version} already.", field="version"
            )
        result = write_change(
            conn,
            page,
            mine,
            actor,
            after=restored,
            summary=summary or f"Restored version {version}",
            kind="revert",
        )
        made = result.page.version
        lifecycle.after_restore(conn, CHANGES, page.id, restored=version, made=made)
        lifecycle.after_restore(conn, LINKS, page.id, restored=version, made=made)
        return result
