"""Bearer tokens on every API call, and the rate limit on writes. Never a query string."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from codna.errors import Unauthenticated
from codna.services import tokens
from codna.services.members import Member
from codna.services.ratelimit import RateLimiter
from codna.services.tokens import Caller

_bearer = HTTPBearer(auto_error=False, description="A CoDNA token: `codna token create`.")


def caller(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    """The caller a request's bearer token names; checked against the database every time."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthenticated("Send a token: `Authorization: Bearer <token>`.")
    return tokens.authenticate_token(credentials.credentials)


def reader(who: Annotated[Caller, Depends(caller)]) -> Member:
    return who.member


def writer(request: Request, who: Annotated[Caller, Depends(caller)]) -> Member:
    """The member behind a writing call, counted against its token's rate limit."""
    limiter: RateLimiter = request.app.state.rate_limiter
    limiter.hit(f"token:{who.token_id}")
    return who.member


Reader = Annotated[Member, Depends(reader)]
Writer = Annotated[Member, Depends(writer)]
