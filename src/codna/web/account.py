"""A member's own account, at /account: name, password, tokens, sessions.

Every change is the services' own and checks its own access (a member changes only their own);
a form done goes back to the page with a sentence saying what it did, and a form refused shows
the page again with the service's sentence beside that form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError, Duplicate, InvalidRequest, NotFound, RateLimited, ReadOnly
from codna.services.members import members, sessions, tokens
from codna.services.members.members import Member
from codna.services.members.tokens import OwnToken
from codna.web.forms import FormRoute
from codna.web.said import tell
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)

HERE = "/account"
# Refusals a form of the page answers itself, beside the form.
KEPT_IN_FORM = (InvalidRequest, NotFound, Duplicate, ReadOnly, RateLimited)


@dataclass(frozen=True)
class Refused:
    form: str  # which form of the page: name, password, tokens, sessions
    message: str
    status: int


@dataclass(frozen=True)
class Shown:
    member: Member
    tokens: list[OwnToken]


def _shown(member: Member) -> Shown:
    return Shown(member, tokens.list_own_tokens(member))


async def _page(request: Request, seen: Seen, refused: Refused | None = None) -> Response:
    shown = await seen.run(_shown)
    answer = render(
        request,
        seen,
        "account.html",
        member=shown.member,
        status=refused.status if refused else 200,
        shown=shown,
        refused=refused,
    )
    answer.headers["Cache-Control"] = "no-store"
    return answer


@router.get(HERE)
async def account(request: Request, seen: Seen) -> Response:
    return await _page(request, seen)


async def _done(
    request: Request,
    seen: Seen,
    csrf: str,
    form: str,
    change: Callable[[Member], str],
) -> Response:
    """Check the form's token and make the change as the visitor: back to the page with the
    sentence `change` returns, or the page again with the refusal beside `form`."""
    seen.check_csrf(csrf)
    try:
        said = await seen.run(change)
    except KEPT_IN_FORM as refused:
        return await _page(request, seen, _refused(form, refused))
    redirect = RedirectResponse(HERE, status_code=303)
    return tell(redirect, said, secure=request.url.scheme == "https")


def _refused(form: str, error: CodnaError) -> Refused:
    return Refused(form, error.message, error.status)


@router.post(f"{HERE}/name")
async def rename(
    request: Request,
    seen: Seen,
    name: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        renamed = members.rename_self(member, name=name)
        return f"Your name is now {renamed.name}."

    return await _done(request, seen, csrf, "name", change)


@router.post(f"{HERE}/password")
async def change_password(
    request: Request,
    seen: Seen,
    current: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    again: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    address = request.client.host if request.client else "unknown"

    def change(member: Member) -> str:
        if password != again:
            raise InvalidRequest(
                "The new password and its repetition differ; type the same one twice.",
                field="again",
            )
        ended = sessions.change_password(
            member, current=current, new=password, address=address, keep=seen.session
        )
        return f"Your password is changed; {_sessions(ended)} ended, and this one stays."

    return await _done(request, seen, csrf, "password", change)


@router.post(f"{HERE}/tokens/revoke")
async def revoke(
    request: Request,
    seen: Seen,
    token_id: Annotated[int, Form()] = 0,
    csrf: Annotated[str, Form()] = "",
) -> Response:
    def change(member: Member) -> str:
        tokens.revoke_token(member, token_id=token_id, own=True)
        return "The token is revoked; the next request with it is refused."

    return await _done(request, seen, csrf, "tokens", change)


@router.post(f"{HERE}/sessions/end")
async def end_other_sessions(
    request: Request, seen: Seen, csrf: Annotated[str, Form()] = ""
) -> Response:
    keep = seen.session or ""

    def change(member: Member) -> str:
        ended = sessions.end_other_sessions(member, keep=keep)
        return f"Signed out everywhere else: {_sessions(ended)} ended; this one stays."

    return await _done(request, seen, csrf, "sessions", change)


def _sessions(count: int) -> str:
    """'2 other sessions', as a sentence counts them."""
    if count == 0:
        return "no other session"
    return f"{count} other session{'' if count == 1 else 's'}"
