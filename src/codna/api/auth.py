"""Bearer tokens on every API call, and the rate limits on reads and writes (reads in a window
of their own, READS_PER_CALL times as large). Never a query string.

Each route depends on one `TokenBearer`: the API description shows it as the bearer scheme,
and on a request it reads the header, refusing a request without one at once. The token is
checked against the database where the route's work is done: `Bearer.run` checks it and calls
the service as its member in one trip to the thread pool, so a request costs one hand-over
between the event loop and a thread, and the database is never called on the event loop. Both
run in one scope of the database (Database.scope): the check's read and the service's share a
transaction, and a request never holds two connections.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Concatenate, ParamSpec, TypeVar

import anyio
from fastapi import Request, Security
from fastapi.routing import APIRoute
from fastapi.security import HTTPBearer

from codna.errors import Unauthenticated
from codna.services.context import database
from codna.services.members import tokens
from codna.services.members.members import Member
from codna.services.members.ratelimit import RateLimiter

DESCRIPTION = "A CoDNA token: `codna token create`."

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Bearer:
    """A request's token, checked when its work runs, and counted against the token's rate
    limit: its writes' window or its reads'."""

    secret: str
    limiter: RateLimiter

    async def run(
        self, service: Callable[Concatenate[Member, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Check the token, then call `service` with its member first, in the thread pool.

        Raises Unauthenticated (a token unknown, revoked or of a disabled member), RateLimited,
        and whatever the service raises.
        """
        return await anyio.to_thread.run_sync(lambda: self._call(service, *args, **kwargs))

    async def member(self) -> Member:
        """The member the token belongs to."""
        return await self.run(_itself)

    def still_valid(self) -> Member:
        """The token's member, checked again (for a stream held open); no limit counts it.
        Raises Unauthenticated once the token is revoked or its member disabled."""
        with database().scope():
            return tokens.authenticate_token(self.secret).member

    def _call(
        self, service: Callable[Concatenate[Member, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        with database().scope():  # the check and the service: one connection at a time
            who = tokens.authenticate_token(self.secret)
            self.limiter.hit(f"token:{who.token_id}")
            return service(who.member, *args, **kwargs)


def _itself(member: Member) -> Member:
    return member


class TokenBearer(HTTPBearer):
    """The bearer token a request sends, as a `Bearer`."""

    def __init__(self, *, writes: bool) -> None:
        super().__init__(scheme_name="HTTPBearer", description=DESCRIPTION, auto_error=False)
        self.writes = writes

    async def __call__(self, request: Request) -> Bearer:  # type: ignore[override]
        scheme, _, secret = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not secret.strip():
            raise Unauthenticated("Send a token: `Authorization: Bearer <token>`.")
        limiter: RateLimiter = request.app.state.rate_limiter
        return Bearer(secret.strip(), limiter if self.writes else limiter.reads)


async def token_refusal(request: Request) -> Unauthenticated | None:
    """Why the request's token is refused, or None for a good one or a route that takes none.
    A request that fails validation is answered this first, so that a caller without a good
    token learns nothing more."""
    route = request.scope.get("route")
    needs = route.dependant.dependencies if isinstance(route, APIRoute) else ()
    if not any(isinstance(need.call, TokenBearer) for need in needs):
        return None
    try:
        await (await TokenBearer(writes=False)(request)).member()
    except Unauthenticated as refused:
        return refused
    return None


Reader = Annotated[Bearer, Security(TokenBearer(writes=False))]
Writer = Annotated[Bearer, Security(TokenBearer(writes=True))]
