"""History: a page's revisions, the diff of any two, revert and restore.

Revert and restore ask first, without JavaScript: the history's buttons lead to the history
asking (`?revert=3`, `?restore=2`), a page that says what will happen with the form that does
it. Either says what it did on the page it leads to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Form, Query, Request
from markupsafe import Markup
from starlette.responses import RedirectResponse, Response

from codna.markdown.diff import line_opcodes
from codna.markdown.diff_view import (
    WORD_DIFF_LINE_CHARS,
    WORD_DIFF_PAGE_CHARS,
    Run,
    whole,
    word_runs,
)
from codna.schemas import UrlNumber
from codna.services.addresses import Address, parse_address
from codna.services.limits import HISTORY
from codna.services.members.members import Member
from codna.services.pages import pages, revisions
from codna.services.pages.pages import Page
from codna.services.pages.revisions import Revision
from codna.services.suggestions import reverts
from codna.web.confirm import confirmation, find_page, named
from codna.web.forms import FormRoute
from codna.web.pages import crumbs
from codna.web.rendering import rendered
from codna.web.said import tell
from codna.web.templating import page_url, render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)

# What made a revision, as the history shows it (a restore is saved as a revert).
MADE_BY = {
    "create": "created",
    "edit": "edit",
    "revert": "revert or restore",
    "accept_suggestion": "accepted suggestion",
    "accept_link": "accepted link",
    "import": "import",
}
CONTEXT = 3  # unchanged lines shown around each change
# Rows a diff page shows at most: past them, a page rewritten whole (100,000 changed lines for
# 1 MB) would be some 14 MB of HTML and seconds of rendering for each reader who asks; the
# page says how many changed lines it leaves out, and both versions can be read whole.
DIFF_ROWS = 5_000


def _page_address(space: str, path: str) -> Address:
    return parse_address(f"{space}:{path}", want="page")


# Diffs as rows ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    """One row of a diff: a line kept, removed or added (with its old and new numbers,
    1-based), or a fold standing for `folded` unchanged lines."""

    kind: Literal["same", "removed", "added", "folded"]
    old: int | None = None
    new: int | None = None
    runs: tuple[Run, ...] = ()
    folded: int = 0
    no_newline: bool = False  # the last line of its text, without a newline


def _unchanged(
    lines: list[str], span: tuple[int, int, int], *, first: bool, last: bool, context: int
) -> list[DiffLine]:
    """Unchanged lines, folded to `context` next to each change."""
    i1, i2, j1 = span
    head = 0 if first else context
    tail = 0 if last else context

    def kept(i: int) -> DiffLine:
        line = lines[i]
        return DiffLine(
            "same", i + 1, j1 + i - i1 + 1, whole(line), no_newline=not line.endswith("\n")
        )

    if head + tail >= i2 - i1:
        return [kept(i) for i in range(i1, i2)]
    return [
        *(kept(i) for i in range(i1, i1 + head)),
        DiffLine("folded", folded=i2 - i1 - head - tail),
        *(kept(i) for i in range(i2 - tail, i2)),
    ]


def diff_lines(old: str, new: str, *, context: int = CONTEXT) -> list[DiffLine]:
    """The rows that show how `old` became `new`: removed lines above the lines added in
    their place, the words that changed in a replaced line marked, and unchanged stretches
    folded to `context` lines either side of a change. Empty if the texts are equal."""
    if old == new:
        return []
    a, b, codes = line_opcodes(old, new)
    rows: list[DiffLine] = []
    budget = WORD_DIFF_PAGE_CHARS
    for n, (tag, i1, i2, j1, j2) in enumerate(codes):
        if tag == "equal":
            rows += _unchanged(
                a, (i1, i2, j1), first=n == 0, last=n == len(codes) - 1, context=context
            )
            continue
        removed = [whole(line) for line in a[i1:i2]]
        added = [whole(line) for line in b[j1:j2]]
        for k in range(min(len(removed), len(added))):
            size = len(a[i1 + k]) + len(b[j1 + k])
            if size <= WORD_DIFF_LINE_CHARS and size <= budget:
                budget -= size
                removed[k], added[k] = word_runs(a[i1 + k], b[j1 + k])
        rows += [
            DiffLine("removed", old=i1 + k + 1, runs=runs, no_newline=not a[i1 + k].endswith("\n"))
            for k, runs in enumerate(removed)
        ]
        rows += [
            DiffLine("added", new=j1 + k + 1, runs=runs, no_newline=not b[j1 + k].endswith("\n"))
            for k, runs in enumerate(added)
        ]
    return rows


# Views --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """A window of a page's history: HISTORY.default revisions after the newest `offset`."""

    member: Member
    page: Page
    revisions: list[Revision]
    offset: int = 0

    @property
    def older(self) -> int | None:
        """The offset of the older revisions, while some are left out (version 1 is the
        first: until it is listed, there are)."""
        if self.revisions and self.revisions[-1].version > 1:
            return self.offset + len(self.revisions)
        return None

    @property
    def newer(self) -> int | None:
        """The offset of the newer revisions, when this window skips some."""
        return max(0, self.offset - HISTORY.default) if self.offset else None


def _history(member: Member, where: Address, offset: int) -> Listed:
    page = pages.read_page(member, address=str(where))
    found = revisions.history(member, address=str(where), offset=offset)
    return Listed(member, page, found, offset)


@router.get("/history/{space}/{path:path}")
async def history(
    request: Request,
    seen: Seen,
    space: str,
    path: str,
    offset: Annotated[UrlNumber, Query(description="How many of the newest to skip.")] = 0,
    revert: Annotated[int | None, Query(ge=1, description="Ask before reverting it.")] = None,
    restore: Annotated[int | None, Query(ge=1, description="Ask before restoring it.")] = None,
) -> Response:
    where = _page_address(space, path)
    if revert is not None or restore is not None:
        return await _ask(request, seen, where, revert=revert, restore=restore)
    listed = await seen.run(_history, where, offset)
    return render(
        request,
        seen,
        "history.html",
        member=listed.member,
        listed=listed,
        where=where,
        crumbs=crumbs(where),
        made_by=MADE_BY,
    )


async def _ask(
    request: Request, seen: Seen, where: Address, *, revert: int | None, restore: int | None
) -> Response:
    """The page that asks before a revert (or, without one, a restore) of a version."""
    found = await seen.run(find_page, where)
    page = named(found.page)
    back = page_url(where, view="history")
    if revert is not None:
        return confirmation(
            request,
            seen,
            found.member,
            title=f"Revert version {revert}?",
            question=(
                f"Revert version {revert} of {page}? A new version undoes what version "
                f"{revert} changed; the history keeps every version."
            ),
            action=f"{back}/revert",
            button=f"Revert version {revert}",
            back=back,
            fields={"version": str(revert)},
            where=where,
        )
    assert restore is not None
    return confirmation(
        request,
        seen,
        found.member,
        title=f"Restore version {restore}?",
        question=(
            f"Make {page} as it was at version {restore}? It is saved as a new version; "
            "the history keeps every version."
        ),
        action=f"{back}/restore",
        button=f"Restore version {restore}",
        back=back,
        fields={"version": str(restore)},
        where=where,
    )


@dataclass(frozen=True)
class ShownRevision:
    member: Member
    page: Page
    revision: Revision
    html: Markup


def _revision(member: Member, where: Address, version: int) -> ShownRevision:
    page = pages.read_page(member, address=str(where))
    revision = revisions.read_revision(member, address=str(where), version=version)
    html = rendered.html(page.address, version, revision.created_at, revision.body or "")
    return ShownRevision(member, page, revision, html)


@router.get("/revision/{space}/{path:path}")
async def revision(
    request: Request, seen: Seen, space: str, path: str, version: Annotated[int, Query(ge=1)]
) -> Response:
    where = _page_address(space, path)
    shown = await seen.run(_revision, where, version)
    return render(
        request,
        seen,
        "revision.html",
        member=shown.member,
        shown=shown,
        where=where,
        crumbs=crumbs(where),
        made_by=MADE_BY,
    )


@dataclass(frozen=True)
class Compared:
    """Two versions of a page and the rows of their diff; `before` is None for version 0,
    the empty page before the first revision."""

    member: Member
    latest: int
    before: Revision | None
    after: Revision
    lines: list[DiffLine]
    left_out: int = 0  # changed lines past DIFF_ROWS, not shown


def _compare(member: Member, where: Address, old: int | None, new: int | None) -> Compared:
    latest = pages.read_page(member, address=str(where)).version
    new = latest if new is None else new
    old = new - 1 if old is None else old
    after = revisions.read_revision(member, address=str(where), version=new)
    before = revisions.read_revision(member, address=str(where), version=old) if old else None
    lines = diff_lines((before.body or "") if before else "", after.body or "")
    left_out = sum(line.kind in ("removed", "added") for line in lines[DIFF_ROWS:])
    return Compared(member, latest, before, after, lines[:DIFF_ROWS], left_out)


@router.get("/diff/{space}/{path:path}")
async def diff(
    request: Request,
    seen: Seen,
    space: str,
    path: str,
    old: Annotated[int | None, Query(alias="from", ge=0)] = None,
    new: Annotated[int | None, Query(alias="to", ge=1)] = None,
) -> Response:
    where = _page_address(space, path)
    compared = await seen.run(_compare, where, old, new)
    return render(
        request,
        seen,
        "diff.html",
        member=compared.member,
        compared=compared,
        where=where,
        crumbs=crumbs(where),
    )


# Undoing ------------------------------------------------------------------------------------


@router.post("/history/{space}/{path:path}/revert")
async def revert(
    request: Request,
    seen: Seen,
    space: str,
    path: str,
    version: Annotated[int, Form(ge=1)],
    csrf: Annotated[str, Form()] = "",
) -> Response:
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    done = await seen.run(reverts.revert_revision, address=str(where), version=version)
    answer = RedirectResponse(page_url(where), status_code=303)
    said = f"Reverted version {version}: saved as version {done.page.version}."
    return tell(answer, said, secure=request.url.scheme == "https")


@router.post("/history/{space}/{path:path}/restore")
async def restore(
    request: Request,
    seen: Seen,
    space: str,
    path: str,
    version: Annotated[int, Form(ge=1)],
    csrf: Annotated[str, Form()] = "",
) -> Response:
    seen.check_csrf(csrf)
    where = _page_address(space, path)
    done = await seen.run(reverts.restore_version, address=str(where), version=version)
    answer = RedirectResponse(page_url(where), status_code=303)
    said = f"Restored version {version}: saved as version {done.page.version}."
    return tell(answer, said, secure=request.url.scheme == "https")
