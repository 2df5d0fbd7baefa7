"""Refusals as HTML: a page saying what was wrong, with the status the error carries (the one
the API answers it with); a visitor who is not signed in is sent to sign in, and brought back
after."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote

import anyio.to_thread
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError, InvalidRequest
from codna.services.members.members import Member
from codna.web.templating import render
from codna.web.visitor import Visitor, signed_out, visitor


async def _domain(request: Request, error: Exception) -> Response:
    assert isinstance(error, CodnaError)
    if error.code == "unauthenticated":
        back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return signed_out(RedirectResponse(f"/?next={quote(back)}", status_code=303))
    return await _page(request, error.status, error.message)


async def _validation(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    first = error.errors()[0] if error.errors() else {}
    where = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query", "form"))
    message = f"{where or 'The request'}: {first.get('msg', 'is malformed')}."
    return await _page(request, InvalidRequest.status, message)


async def _http(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    messages = {404: "There is no such page here.", 405: "This address does not take that."}
    # A request the framework could not read is malformed, as the API answers it (SPEC 2).
    status = InvalidRequest.status if error.status_code == 400 else error.status_code
    return await _page(request, status, messages.get(error.status_code, str(error.detail)))


async def _page(request: Request, status: int, message: str) -> Response:
    seen = visitor(request)
    return render(
        request,
        seen,
        "error.html",
        member=await _signed_in(seen),  # the site's header, as on every other page
        status=status,
        status_code=status,  # the page's title says it
        message=message,
    )


async def _signed_in(seen: Visitor) -> Member | None:
    """Who is signed in, for the header; None when nobody is, or when it cannot be known now
    (the refusal may be that the database is away): a refusal's page is shown whatever fails."""
    if seen.session is None:
        return None
    try:
        return await anyio.to_thread.run_sync(seen.still_valid)
    except Exception:
        return None


HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    CodnaError: _domain,
    RequestValidationError: _validation,
    HTTPException: _http,
}
