"""Who is looking: the session cookie, the CSRF token of every form, and the one trip to the
thread pool in which a view's session is checked and its service called, in one scope of the
database (one connection at a time, the check's read shared with the view's).

A signed-in visitor's cookie holds the session's secret (only its hash is stored). Every form
carries a CSRF token derived from the secret (an HMAC, so nothing more is stored); before
signing in, from a random cookie of its own, so the sign-in form is protected too. Both
cookies are HttpOnly and SameSite=Lax, and Secure when the request came over https.

A signed-in visitor's views and forms are counted against the rate limits as a token's calls
are (services/members/ratelimit.py), by session: a form posted in the window of writes, a
page viewed in that of reads; the numbers are this process's settings (CODNA_RATE_LIMIT).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Concatenate, ParamSpec, TypeVar

import anyio
from fastapi import Depends, Request
from starlette.responses import Response

from codna.errors import InvalidRequest, Unauthenticated
from codna.services.context import database
from codna.services.members import sessions
from codna.services.members.members import Member
from codna.services.members.ratelimit import RateLimiter
from codna.settings import Settings

SESSION_COOKIE = "codna_session"
ANONYMOUS_COOKIE = "codna_visit"
CSRF_FIELD = "csrf"

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Visitor:
    """A browser: its session's secret if signed in, and the seed of its CSRF tokens."""

    session: str | None
    seed: str  # the session secret, or the anonymous cookie's value
    new_seed: bool  # the anonymous cookie is to be set on the answer
    posts: bool = False  # a form sent (any method but GET and HEAD): counted as a write
    # The app's rate limits (as its settings say), which its tokens' calls count against too.
    limiter: RateLimiter | None = None

    @property
    def csrf(self) -> str:
        """The token every form of this visitor carries."""
        return hmac.new(self.seed.encode(), b"csrf", hashlib.sha256).hexdigest()[:32]

    def check_csrf(self, sent: object) -> None:
        """Raises InvalidRequest (field csrf) unless `sent` is this visitor's token."""
        if not isinstance(sent, str) or not hmac.compare_digest(sent, self.csrf):
            raise InvalidRequest(
                "The form had expired or came from another site; it was not sent. "
                "Reload the page and try again.",
                field=CSRF_FIELD,
            )

    async def run(
        self, view: Callable[Concatenate[Member, P], T], /, *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """Check the session, count the call against the session's rate limit, then call
        `view` (a service, or a function of services) with its member first, in the thread
        pool. Raises Unauthenticated (not signed in, or the session ended), RateLimited and
        whatever `view` raises."""
        secret = self.session
        if secret is None:
            raise Unauthenticated("Sign in to see this.")
        limits = self.limiter or _limiter()
        limiter = limits if self.posts else limits.reads
        key = "session:" + hashlib.sha256(secret.encode()).hexdigest()

        def call() -> T:
            with database().scope():  # the check and the view: one connection at a time
                member = sessions.session_member(secret)
                limiter.hit(key)
                return view(member, *args, **kwargs)

        return await anyio.to_thread.run_sync(call)

    def still_valid(self) -> Member:
        """The session's member, checked again (for a stream held open). Raises
        Unauthenticated once signed out, ended, or its member disabled."""
        if self.session is None:
            raise Unauthenticated("Sign in to see this.")
        with database().scope():
            return sessions.session_member(self.session)

    def keep(self, response: Response, *, secure: bool) -> Response:
        """Set the anonymous cookie on `response` if this visitor has none yet."""
        if self.new_seed:
            response.set_cookie(
                ANONYMOUS_COOKIE, self.seed, httponly=True, samesite="lax", secure=secure
            )
        return response


@cache
def _limiter() -> RateLimiter:
    """Rate limits as the environment's settings say, for an app that keeps none."""
    settings = Settings()
    return RateLimiter(settings.rate_limit, settings.rate_window)


def visitor(request: Request) -> Visitor:
    """The visitor of a request, from its cookies (nothing is looked up here)."""
    session = request.cookies.get(SESSION_COOKIE) or None
    anonymous = request.cookies.get(ANONYMOUS_COOKIE) or None
    posts = request.method not in ("GET", "HEAD")
    limiter = getattr(request.app.state, "rate_limiter", None)
    if session is not None:
        return Visitor(session, session, new_seed=False, posts=posts, limiter=limiter)
    if anonymous is not None:
        return Visitor(None, anonymous, new_seed=False, posts=posts, limiter=limiter)
    return Visitor(None, secrets.token_urlsafe(24), new_seed=True, posts=posts, limiter=limiter)


async def _visitor(request: Request) -> Visitor:
    return visitor(request)


Seen = Annotated[Visitor, Depends(_visitor)]


def signed_in(response: Response, secret: str, *, secure: bool) -> Response:
    """`response` with the new session's cookie, and the anonymous one gone."""
    response.set_cookie(SESSION_COOKIE, secret, httponly=True, samesite="lax", secure=secure)
    response.delete_cookie(ANONYMOUS_COOKIE)
    return response


def signed_out(response: Response) -> Response:
    response.delete_cookie(SESSION_COOKIE)
    return response
