"""Signing in and out, at `/`; the site's icon."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import APIRouter, Form, Request
from starlette.responses import FileResponse, RedirectResponse, Response

from codna.errors import RateLimited, Unauthenticated
from codna.services.members import sessions
from codna.web.forms import FormRoute
from codna.web.templating import STATIC, render
from codna.web.visitor import Seen, signed_in, signed_out

router = APIRouter(include_in_schema=False, route_class=FormRoute)
HOME = "/home"  # the wiki's home page (web/navigation.py)


def _next(target: str | None) -> str:
    """Where to go after signing in: a path on this site, never another site."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return HOME


@router.get("/favicon.ico")
async def icon() -> Response:
    """What a browser asks for on every site; the pages name the same file."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/")
async def home(request: Request, seen: Seen, next: str | None = None) -> Response:
    if seen.session is not None:
        return RedirectResponse(_next(next), status_code=303)
    return render(request, seen, "signin.html", member=None, next=_next(next))


@router.post("/sign-in")
async def sign_in(
    request: Request,
    seen: Seen,
    email: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = HOME,
) -> Response:
    seen.check_csrf(csrf)
    # The socket's peer: `codna serve` lets uvicorn put a forwarded client's address here only
    # when the peer is a proxy CODNA_TRUSTED_PROXIES names.
    address = request.client.host if request.client else "unknown"
    try:
        made = await anyio.to_thread.run_sync(
            lambda: sessions.sign_in(email, password, address=address)
        )
    except (Unauthenticated, RateLimited) as refused:
        # The same page for an unknown e-mail and a wrong password, byte for byte: the refusal
        # says nothing of which it was. A throttled try is told when to try again.
        status = 429 if isinstance(refused, RateLimited) else 401
        page = render(
            request,
            seen,
            "signin.html",
            member=None,
            status=status,
            next=_next(next),
            email=email,
            error=refused.message,
        )
        if isinstance(refused, RateLimited):
            page.headers["Retry-After"] = str(refused.fields["retry_after"])
        return page
    answer = RedirectResponse(_next(next), status_code=303)
    return signed_in(answer, made.secret, secure=request.url.scheme == "https")


@router.post("/sign-out")
async def sign_out(seen: Seen, csrf: Annotated[str, Form()] = "") -> Response:
    seen.check_csrf(csrf)
    if seen.session is not None:
        await anyio.to_thread.run_sync(sessions.sign_out, seen.session)
    return signed_out(RedirectResponse("/", status_code=303))
