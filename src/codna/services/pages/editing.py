"""Changes to a page: edits that name their text, a new title, tags to add and remove, applied
all or none as one revision (SPEC 2). Accepting a suggestion or a link applies a change too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy.engine import Connection

from codna.errors import Conflict, InvalidRequest
from codna.markdown.apply import apply_edits_with_splices
from codna.markdown.delta import Splice
from codna.markdown.diff import unified_diff
from codna.markdown.edits import Edit, edits_to_wire, parse_edits
from codna.markdown.limits import check_body, normalise_newlines
from codna.services.addresses import Address, parse_address
from codna.services.context import database
from codna.services.members.access import Rights, access_page
from codna.services.members.members import Member
from codna.services.pages import output_budget
from codna.services.pages.pages import Page, check_tags, check_title, page_view
from codna.services.pages.revisions import RevisionKind, check_summary, save_revision
from codna.storage.records import PageRow


@dataclass(frozen=True)
class Change:
    """A change to a page as the edit language describes it: edits, a new title, tag changes
    (tags to add and remove, or `tags`, the page's whole set of tags afterwards)."""

    edits: tuple[Edit, ...] = ()
    title: str | None = None
    tags_add: tuple[str, ...] = ()
    tags_remove: tuple[str, ...] = ()
    tags: tuple[str, ...] | None = None

    def as_tag_changes(self, tags_now: Sequence[str]) -> Change:
        """The change with a whole set of tags said as what it adds to and removes from the
        tags the page has now (how a suggestion keeps it: SPEC 4, changes, not values)."""
        if self.tags is None:
            return self
        return replace(
            self,
            tags=None,
            tags_add=tuple(t for t in self.tags if t not in tags_now),
            tags_remove=tuple(t for t in tags_now if t not in self.tags),
        )


@dataclass(frozen=True)
class Applied:
    """A page's title, tags and body once a change is applied; `splices`, when the edit engine
    applied it, are those it made of the page's body (the revision's delta)."""

    title: str
    tags: tuple[str, ...]
    body: str
    splices: tuple[Splice, ...] | None = field(default=None, compare=False)

    def same_as(self, page: PageRow) -> bool:
        return (self.body, self.title, self.tags) == (page.body, page.title, page.tags)


@dataclass(frozen=True)
class EditResult:
    """What an edit made, or would make on a dry run (`saved` False, `page` unchanged)."""

    page: Page
    diff: str
    summary: str
    saved: bool


def check_change(
    edits: Sequence[Edit],
    *,
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
    tags: Sequence[str] | None = None,
) -> Change:
    """Check what `edit_document` takes and make it a Change: edits (none, if a title or tags
    change), checked by the edit language's limits; `tags`, the whole set afterwards, or tags
    to add and remove, not both. Raises InvalidRequest, TooLarge."""
    if not edits and title is None and not tags_add and not tags_remove and tags is None:
        raise InvalidRequest(
            "Give at least one edit, a new title or tags to change.", field="edits"
        )
    if tags is not None and (tags_add or tags_remove):
        raise InvalidRequest(
            "Give tags (the page's tags afterwards) or tags_add and tags_remove, not both.",
            field="tags",
        )
    # The one definition of an edit checks them, however they were made.
    parsed = tuple(parse_edits(edits_to_wire(edits), allow_empty=True))
    return Change(
        edits=parsed,
        title=check_title(title) if title is not None else None,
        tags_add=check_tags(tags_add, field="tags.add"),
        tags_remove=check_tags(tags_remove, field="tags.remove"),
        tags=check_tags(tags) if tags is not None else None,
    )


def apply_change(page: PageRow, change: Change) -> Applied:
    """The page's title, tags and body after the change. Raises InvalidEdit, TooLarge."""
    body, splices = page.body, list[Splice]()
    if change.edits:  # the engine checks the body it makes: one scan of a 1 MB page, not two
        body, splices = apply_edits_with_splices(page.body, change.edits)
    else:
        check_body(body)
    change = change.as_tag_changes(page.tags)
    tags = [t for t in page.tags if t not in change.tags_remove]
    tags += [t for t in change.tags_add if t not in tags]
    return Applied(change.title or page.title, tuple(tags), body, tuple(splices))


def page_diff(page: PageRow, body: str, *, new_label: str | None = None) -> str:
    """The unified diff from the page's body to `body`, labelled with versions."""
    address = Address(page.space, page.path)
    return unified_diff(
        page.body,
        body,
        old_label=f"{address} v{page.version}",
        new_label=new_label or f"{address} v{page.version + 1}",
    )


def save_change(
    conn: Connection,
    page: PageRow,
    actor: Member,
    *,
    after: Applied,
    summary: str,
    kind: RevisionKind,
) -> PageRow:
    """Save `after` as the next revision of the locked page; returns the page as saved.
    Raises TooLarge (what the actor stores in output: output_budget), Conflict."""
    saved = save_revision(
        conn,
        page,
        actor,
        title=after.title,
        tags=after.tags,
        body=after.body,
        summary=summary,
        kind=kind,
        splices=after.splices,
    )
    output_budget.check_output(conn, actor, saved)
    return saved


def write_change(
    conn: Connection,
    page: PageRow,
    mine: Rights,
    actor: Member,
    *,
    after: Applied,
    summary: str,
    kind: RevisionKind,
) -> EditResult:
    """Save `after` as the page's next revision and answer with the page and the diff."""
    diff = page_diff(page, after.body)
    saved = save_change(conn, page, actor, after=after, summary=summary, kind=kind)
    return EditResult(page_view(conn, saved, mine), diff, summary, saved=True)


def default_summary(change: Change) -> str:
    parts = []
    if change.edits:
        n = len(change.edits)
        parts.append(f"{n} edit{'s' if n != 1 else ''}")
    if change.title:
        parts.append("new title")
    if change.tags_add or change.tags_remove or change.tags is not None:
        parts.append("tags")
    return "Edited: " + ", ".join(parts)


def edit_page(
    actor: Member,
    *,
    address: str,
    edits: Sequence[Edit],
    title: str | None = None,
    tags_add: Sequence[str] = (),
    tags_remove: Sequence[str] = (),
    tags: Sequence[str] | None = None,
    summary: str | None = None,
    base_version: int | None = None,
    dry_run: bool = False,
) -> EditResult:
    """Apply edits that name their text (and a new title, tags to add or remove or the whole
    set of tags), all or none.

    A dry run runs every check and returns the diff without saving. Raises InvalidRequest,
    InvalidEdit, TooLarge, NotFound, ReadOnly, Conflict (a stale `base_version`).
    """
    where = parse_address(address, want="page")
    change = check_change(edits, title=title, tags_add=tags_add, tags_remove=tags_remove, tags=tags)
    summary = check_summary(summary) or default_summary(change)
    transaction = database().read() if dry_run else database().write()
    with transaction as conn:
        page, mine = access_page(conn, actor, where, need="edit", lock=not dry_run)
        if base_version is not None and base_version != page.version:
            raise Conflict(
                f"{where} is at version {page.version}, not {base_version}; "
                "read it again and redo the edits.",
                current_version=page.version,
            )
        after = apply_change(page, change)
        if after.same_as(page):
            raise InvalidRequest(
                "These edits leave the page as it is; nothing to save.", field="edits"
            )
        if dry_run:
            return EditResult(
                page_view(conn, page, mine), page_diff(page, after.body), summary, saved=False
            )
        return write_change(conn, page, mine, actor, after=after, summary=summary, kind="edit")


def written_summary(page: PageRow, after: Applied) -> str:
    """The summary of a whole-text write that was given none: what it changed."""
    parts = [
        name
        for name, changed in (
            ("text", after.body != page.body),
            ("new title", after.title != page.title),
            ("tags", after.tags != page.tags),
        )
        if changed
    ]
    return "Edited: " + ", ".join(parts)


def write_page(
    actor: Member,
    *,
    address: str,
    body: str,
    title: str | None = None,
    tags: Sequence[str] | None = None,
    summary: str | None = None,
    base_version: int,
) -> EditResult:
    """A person's edit given as the page's whole new text (and title and tags, when given;
    `tags` replaces the page's tags), saved as one revision if the page is still at
    `base_version`, the version the editor was opened on.

    Raises InvalidRequest (nothing changed, a bad field), TooLarge, NotFound, ReadOnly,
    Conflict (the page moved on since `base_version`).
    """
    where = parse_address(address, want="page")
    if isinstance(base_version, bool) or not isinstance(base_version, int) or base_version < 1:
        raise InvalidRequest("base_version is a version number, 1 or more.", field="base_version")
    body = normalise_newlines(body)
    check_body(body)
    new_title = check_title(title) if title is not None else None
    new_tags = check_tags(tags) if tags is not None else None
    summary = check_summary(summary)
    with database().write() as conn:
        page, mine = access_page(conn, actor, where, need="edit", lock=True)
        if base_version != page.version:
            raise Conflict(
                f"{where} changed to version {page.version} while you were editing "
                f"version {base_version}; copy your text, reload the page, and apply your "
                "change again.",
                current_version=page.version,
            )
        after = Applied(
            title=new_title if new_title is not None else page.title,
            tags=new_tags if new_tags is not None else page.tags,
            body=body,
        )
        if after.same_as(page):
            raise InvalidRequest(
                "The text, title and tags are as the page has them; nothing to save.",
                field="body",
            )
        summary = summary or written_summary(page, after)
        return write_change(conn, page, mine, actor, after=after, summary=summary, kind="edit")
