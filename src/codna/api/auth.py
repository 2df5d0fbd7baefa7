"""Bearer tokens on every API call, and the rate limit on writes. Never a query string.

Each route depends on one `TokenBearer`: the API description shows it as the bearer scheme,
and on a request it reads the header and checks the token against the database in the same
step. It runs on the event loop: the check is one indexed query, and a hop to the thread
pool cost several times more; a dependency of its own for the header cost a third as much.
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

    async def __call__(self, request: Request) -> Member:  # type: ignore[override]
        return self.member(request)

    def member(self, request: Request) -> Member:
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
