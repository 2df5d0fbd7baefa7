"""Templates (Jinja2, every value escaped unless marked safe) and the addresses of views."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.templating import Jinja2Templates
from starlette.responses import HTMLResponse

from codna.services.addresses import Address, parse_address
from codna.services.members import Member
from codna.web.visitor import Visitor

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
STATIC = HERE / "static"


def page_url(address: str | Address, *, view: str = "p") -> str:
    """The web address of a page, folder or space: `wiki:a/b` is /p/wiki/a/b; `view` is the
    view's prefix (`p` reads, `history`, `edit`)."""
    where = address if isinstance(address, Address) else parse_address(address)
    return f"/{view}/{where.space}/{quote(where.path)}"


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """A unified diff's lines, each with its kind: `file`, `hunk`, `add`, `del` or `same`."""
    kinds = {"@": "hunk", "+": "add", "-": "del"}
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++ ", "--- ")):
            lines.append(("file", line))
        else:
            lines.append((kinds.get(line[:1], "same"), line))
    return lines


templates.env.globals["page_url"] = page_url
templates.env.globals["diff_lines"] = diff_lines


def render(
    request: Request,
    seen: Visitor,
    name: str,
    *,
    member: Member | None,
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    """The template `name` as an answer, with what every page shows: the member signed in
    (None on the sign-in page) and the token its forms carry."""
    answer = templates.TemplateResponse(
        request,
        name,
        {"member": member, "csrf": seen.csrf, **context},
        status_code=status,
    )
    return seen.keep(answer, secure=request.url.scheme == "https")  # type: ignore[return-value]
