"""Bearer tokens on every API call, and the rate limit on writes. Never a query string.

The dependencies are `async def` and look the token up inline, on the event loop: it is one
indexed query, and a hop to the thread pool (one per sync dependency) cost several times more.
"""

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


Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def caller(credentials: HTTPAuthorizationCredentials | None) -> Caller:
    """The caller a request's bearer token names; checked against the database every time."""
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthenticated("Send a token: `Authorization: Bearer <token>`.")
    return tokens.authenticate_token(credentials.credentials)


async def reader(credentials: Credentials) -> Member:
    return caller(credentials).member


async def writer(request: Request, credentials: Credentials) -> Member:
    """The member behind a writing call, counted against its token's rate limit."""
    who = caller(credentials)
    limiter: RateLimiter = request.app.state.rate_limiter
    limiter.hit(f"token:{who.token_id}")
    return who.member


Reader = Annotated[Member, Depends(reader)]
Writer = Annotated[Member, Depends(writer)]
