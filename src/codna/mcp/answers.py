"""What the page tools answer, shaped for a model: each field described, nothing said twice.

The services' records carry what every interface may need; a tool answers with what a model
acts on next. Empty and null fields are left out of the answer (compact.py); `note` says in
words what a list's emptiness or a page's state means. The suggestions' answers are in
suggestion_answers.py.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from codna.mcp import budget
from codna.services.pages import windows
from codna.services.pages.editing import EditResult
from codna.services.pages.outlines import outline_of
from codna.services.pages.pages import Page, PageSummary
from codna.services.pages.revisions import Revision
from codna.services.pages.search import SearchHit


def listed(values: tuple[str, ...] | list[str]) -> list[str] | None:
    """A list that is left out of the answer when empty."""
    return list(values) or None


class Answer(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True, frozen=True)


# -- pages ---------------------------------------------------------------------------------


class PageItem(Answer):
    address: str
    """Pass it to read_document."""
    title: str
    """The page's title."""
    version: int
    """Its latest version."""
    tags: list[str] | None = None
    """Its tags."""

    @classmethod
    def of(cls, page: PageSummary) -> PageItem:
        return cls(
            address=page.address, title=page.title, version=page.version, tags=listed(page.tags)
        )


class PageList(Answer):
    pages: list[PageItem]
    """By address."""
    note: str | None = None
    """Said when empty or cut short."""


class Hit(Answer):
    address: str
    """space:path."""
    title: str
    """The page's title."""
    section: str | None = None
    """The heading of the best-matching section; absent for the text above the first heading."""
    snippet: str
    """The matching words in context, marked [like this]."""

    @classmethod
    def of(cls, hit: SearchHit) -> Hit:
        return cls(address=hit.address, title=hit.title, section=hit.section, snippet=hit.snippet)


class Hits(Answer):
    hits: list[Hit]
    """Best first."""
    note: str | None = None
    """Said when empty."""


class Heading(Answer):
    level: int
    """1 to 6."""
    text: str
    """As written, without the #s."""
    chars: int
    """The section's size, subsections included."""


class PageAnswer(Answer):
    address: str
    """space:path."""
    title: str
    """The page's title."""
    version: int
    """Pass it as base_version when you change or suggest."""
    latest_version: int | None = None
    """The latest version, when this is an older one."""
    tags: list[str] | None = None
    """The page's tags."""
    editable: bool
    """false: use suggest_edit to propose a change."""
    updated_by: str
    """Who made this version."""
    in_trash: bool | None = None
    """true: in the trash."""
    pending_suggestions: int | None = None
    """Suggestions waiting on you (pending_decisions)."""
    body: str | None = None
    """Markdown."""
    chars: int | None = None
    """The body's size (outline)."""
    headings: list[Heading] | None = None
    """In page order (outline)."""
    intro: str | None = None
    """The text above the first heading (outline)."""
    more: str | None = None
    """How to read the rest, when the body is cut."""

    @classmethod
    def of(
        cls, page: Page, *, outline: bool = False, part: windows.Part | None = None
    ) -> PageAnswer:
        shape = outline_of(page.address, page.title, page.version, page.body) if outline else None
        intro = windows.intro(page.body) if shape is not None else None
        body = None if shape else (part.text if part is not None else page.body)
        return cls(
            address=page.address,
            title=page.title,
            version=page.version,
            latest_version=page.latest_version if page.latest_version != page.version else None,
            tags=listed(page.tags),
            editable=page.editable,
            updated_by=page.updated_by,
            in_trash=page.in_trash or None,
            pending_suggestions=page.pending_suggestions or None,
            body=body,
            chars=shape.size if shape else None,
            headings=[Heading(level=h.level, text=h.text, chars=h.chars) for h in shape.headings]
            if shape
            else None,
            intro=intro,
            more=part.how_to_go_on(page.address) if part is not None and not shape else None,
        )


class PagesAnswer(Answer):
    pages: list[PageAnswer]
    """In the order asked."""
    missing: list[str] | None = None
    """Addresses with no page you can read."""


class RevisionAnswer(Answer):
    version: int
    """Read it whole with read_revision."""
    author: str
    """Who made it."""
    responsible: list[str] | None = None
    """For an agent: the people responsible for it."""
    summary: str
    """Why, as the author said."""
    kind: str
    """create, edit, revert, restore, accept_suggestion, accept_link or import."""
    at: datetime
    """When."""

    @classmethod
    def of(cls, revision: Revision) -> RevisionAnswer:
        return cls(
            version=revision.version,
            author=revision.author,
            responsible=listed(revision.responsible),
            summary=revision.summary,
            kind=revision.kind,
            at=revision.created_at,
        )


class RevisionRead(RevisionAnswer):
    """One revision of a page, whole."""

    address: str
    """space:path."""
    title: str
    """The page's title at that version."""
    tags: list[str] | None = None
    """Its tags at that version."""
    body: str
    """Markdown, as the page was at that version: at most READ_BUDGET characters of it."""
    more: str | None = None
    """How to read the rest, when the body is cut."""

    @classmethod
    def window(cls, revision: Revision, part: windows.Part) -> RevisionRead:
        return cls(
            **RevisionAnswer.of(revision).model_dump(),
            address=revision.address,
            title=revision.title,
            tags=listed(revision.tags),
            body=part.text,
            more=part.how_to_go_on(f"{revision.address} v{revision.version}", sections=False),
        )


class History(Answer):
    revisions: list[RevisionAnswer]
    """Newest first."""
    note: str | None = None
    """Said when cut short."""


class Changed(Answer):
    """What a create, an edit, a revert or a restore did; read the page for its body."""

    address: str
    """space:path."""
    version: int
    """The page's version now: pass it as base_version next time."""
    saved: bool
    """false on a dry run."""
    summary: str | None = None
    """As the history shows it."""
    diff: str | None = None
    """What changed, as a unified diff."""

    @classmethod
    def of(cls, result: EditResult) -> Changed:
        page = result.page
        rest = "read_document shows the page." if result.saved else "the edits say the rest."
        return cls(
            address=page.address,
            version=page.version,
            saved=result.saved,
            summary=result.summary,
            diff=budget.clipped(result.diff, budget.EDIT_DIFF_CHARS, rest),
        )

    @classmethod
    def made(cls, page: Page) -> Changed:
        return cls(address=page.address, version=page.version, saved=True, summary="Created")


class Trashed(Answer):
    address: str
    """space:path."""
    in_trash: bool
    """true: it is in the trash now."""
