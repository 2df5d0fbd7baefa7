"""Bearer tokens on every API call, and the rate limit on writes. Never a query string.

Each route depends on one `TokenBearer`: the API description shows it as the bearer scheme,
and on a request it reads the header and checks the token against the database. It is a plain
function, so FastAPI runs it in the thread pool, as it does the routes: no database call on the
event loop.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Request, Security
from fastapi.security import HTTPBearer

from codna.errors import Unauthenticated
from codna.services import tokens
from codna.services.members import Member
from codna.services.ratelimit import RateLimiter

DESCRIPTION = "A CoDNA token: `codna token create`."


class TokenBearer(HTTPBearer):
    """The member behind a request's bearer token; for writes, counted against its token's
    rate limit."""

    def __init__(self, *, writes: bool) -> None:
        super().__init__(scheme_name="HTTPBearer", description=DESCRIPTION, auto_error=False)
        self.writes = writes

    def __call__(self, request: Request) -> Member:  # type: ignore[override]
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise Unauthenticated("Send a token: `Authorization: Bearer <token>`.")
        who = tokens.authenticate_token(secret.strip())
        if self.writes:
            limiter: RateLimiter = request.app.state.rate_limiter
            limiter.hit(f"token:{who.token_id}")
        return who.member


Reader = Annotated[Member, Security(TokenBearer(writes=False))]
Writer = Annotated[Member, Security(TokenBearer(writes=True))]
