"""Undoing revisions: revert any one as a new revision, or restore a named version."""

from __future__ import annotations

from codna.errors import InvalidRequest, RevertConflict
from codna.markdown.limits import check_body
from codna.markdown.revert import undo
from codna.services.addresses import parse_address
from codna.services.context import database
from codna.services.members import Member, names
from codna.services.pages import Applied, EditResult, access_page, check_summary, write_revision
from codna.services.revisions import Revision, revision_from_row, revision_row
from codna.services.suggestions import mark_reverted


def read_revision(actor: Member, *, address: str, version: int) -> Revision:
    """One revision of a page, with its body. Raises NotFound."""
    where = parse_address(address, want="page")
    with database().read() as conn:
        row, _ = access_page(conn, actor, where)
        rev = revision_row(conn, row["id"], version, str(where))
        author = names(conn, {rev["author_id"]}).get(rev["author_id"], "?")
        return revision_from_row(rev, str(where), author, with_body=True)


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
        row, mine = access_page(conn, actor, where, need="edit", lock=True)
        if version == 1:
            raise InvalidRequest(
                "Version 1 created the page; there is nothing before it. Trash the page instead.",
                field="version",
            )
        after = revision_row(conn, row["id"], version, str(where))
        before = revision_row(conn, row["id"], version - 1, str(where))
        if version == row["version"]:
            title, tags, body = before["title"], list(before["tags"]), before["body"]
        else:
            body = undo(before["body"], after["body"], row["body"])
            title = _undo_value(before["title"], after["title"], row["title"], "title", version)
            tags = [t for t in row["tags"] if t not in set(after["tags"]) - set(before["tags"])]
            tags += [t for t in before["tags"] if t not in after["tags"] and t not in tags]
        check_body(body)
        if (body, title, tags) == (row["body"], row["title"], list(row["tags"])):
            raise InvalidRequest(
                f"Undoing version {version} would change nothing on the page as it is now.",
                field="version",
            )
        after_revert = Applied(title=title, tags=tags, body=body)
        summary = summary or f"Reverted version {version}"
        result = write_revision(
            conn, row, mine, actor, after=after_revert, summary=summary, kind="revert"
        )
        mark_reverted(conn, row["id"], version, result.page.version)
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
        row, mine = access_page(conn, actor, where, need="edit", lock=True)
        old = revision_row(conn, row["id"], version, str(where))
        if (old["body"], old["title"], list(old["tags"])) == (
            row["body"],
            row["title"],
            list(row["tags"]),
        ):
            raise InvalidRequest(
                f"{where} is as it was at version {version} already.", field="version"
            )
        restored = Applied(title=old["title"], tags=list(old["tags"]), body=old["body"])
        summary = summary or f"Restored version {version}"
        return write_revision(
            conn, row, mine, actor, after=restored, summary=summary, kind="revert"
        )
