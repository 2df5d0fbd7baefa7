"""Templates (Jinja2, every value escaped unless marked safe) and the addresses of views."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.responses import HTMLResponse, Response

from codna.services.addresses import Address, parse_address
from codna.services.members import tokens
from codna.services.members.members import MAX_AGENT_NAME, MAX_PERSON_NAME, Member
from codna.web.said import heard, told
from codna.web.visitor import Visitor

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.auto_reload = False  # templates change with a release, never while serving
STATIC = HERE / "static"


@lru_cache(maxsize=8192)  # a page view asks for a few, the same ones again and again
def page_url(address: str | Address, *, view: str = "p") -> str:
    """The web address of a page, folder or space: `wiki:a/b` is /p/wiki/a/b; `view` is the
    view's prefix (`p` reads, `history`, `edit`)."""
    where = address if isinstance(address, Address) else parse_address(address)
    return f"/{view}/{where.space}/{quote(where.path)}"


templates.env.globals["page_url"] = page_url
# The lengths the forms allow, the services' own.
templates.env.globals |= {
    "max_person_name": MAX_PERSON_NAME,
    "max_agent_name": MAX_AGENT_NAME,
    "max_token_name": tokens.MAX_NAME,
}


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
    said = heard(request)
    answer = templates.TemplateResponse(
        request,
        name,
        {"member": member, "csrf": seen.csrf, "said": said, **context},
        status_code=status,
    )
    if said is not None:
        told(answer)
    return seen.keep(answer, secure=request.url.scheme == "https")  # type: ignore[return-value]


INNER = Markup("<!--codna:inner-->")  # where render_around puts its bytes


def render_around(
    request: Request,
    seen: Visitor,
    name: str,
    *,
    inner: bytes,
    member: Member | None,
    **context: Any,
) -> Response:
    """Like `render`, with the HTML `inner` (UTF-8, kept elsewhere) where the template shows
    INNER: a big page's HTML goes out as it was kept, never copied through the template."""
    said = heard(request)
    page = templates.get_template(name).render(
        {"request": request, "member": member, "csrf": seen.csrf, "said": said, **context}
    )
    head, _, tail = page.encode().partition(INNER.encode())
    answer = Response(b"".join((head, inner, tail)), media_type="text/html; charset=utf-8")
    if said is not None:
        told(answer)
    return seen.keep(answer, secure=request.url.scheme == "https")
