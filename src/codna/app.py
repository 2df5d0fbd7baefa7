"""The ASGI app: the JSON API, MCP over Streamable HTTP, and the guards in front of both."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.types import ASGIApp

from codna import worker as outbox_worker
from codna.api import admin
from codna.api import automations as api_automations
from codna.api import errors as api_errors
from codna.api import inbox as api_inbox
from codna.api import pages as api_pages
from codna.api import suggestions as api_suggestions
from codna.guards import BodyCap, HostOriginGuard, PathDispatch, SecurityHeaders
from codna.mcp import build
from codna.mcp.server import CodnaMCP, TokenVerifier
from codna.services import context
from codna.services.events import events
from codna.services.members.ratelimit import RateLimiter
from codna.settings import Settings
from codna.web import account as web_account
from codna.web import admin as web_admin
from codna.web import api_docs as web_api_docs
from codna.web import cards as web_cards
from codna.web import editing as web_editing
from codna.web import errors as web_errors
from codna.web import history as web_history
from codna.web import inbox as web_inbox
from codna.web import navigation as web_navigation
from codna.web import pages as web_pages
from codna.web import search as web_search
from codna.web import signin as web_signin
from codna.web.templating import STATIC


def build_mcp(settings: Settings, limiter: RateLimiter) -> CodnaMCP:
    """MCP over HTTP: every call's caller is its bearer token's member."""
    return build.server(
        limiter=limiter,
        token_verifier=TokenVerifier(),
        auth=AuthSettings(
            issuer_url=AnyHttpUrl(settings.base_url),
            resource_server_url=None,
            required_scopes=["codna"],
        ),
    )


API = "/api/v1"


# How long a stopping server lets the event its worker runs finish before abandoning it.
WORKER_GRACE = 5.0


def create_app(settings: Settings | None = None, *, worker: bool | None = None) -> ASGIApp:
    """The whole server as one ASGI app, guarded by Host/Origin checks and a body cap: the
    JSON API (with the lifespan) under /api, MCP at /mcp, the web UI everywhere else.

    Its lifespan runs a worker for the outbox's events unless `worker` is False (None: as
    CODNA_WORKER says, on by default). The routines' handlers are loaded either way, so that
    automations may name them."""
    settings = settings or Settings()
    outbox_worker.load_handlers()
    if worker is None:
        worker = outbox_worker.enabled()
    limiter = RateLimiter(settings.rate_limit, settings.rate_window)
    mcp = build_mcp(settings, limiter)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        # The guards in front of the whole app (create_app's HostOriginGuard and BodyCap)
        # check Host, Origin and the body's size for MCP as for the API, so the SDK's own
        # DNS-rebinding check is off; its body cap cannot be, and is ours, never reached first.
        max_request_body_size=settings.max_body_bytes,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Every hand-over to a thread (ours, FastAPI's, the MCP SDK's) takes one of these.
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = settings.work_threads(context.location().engine)
        running = outbox_worker.Worker() if worker else None
        # Opened (and migrated) here, in a thread, if this process has not opened it yet (a
        # worker process of several): what runs on the event loop then finds it open.
        await anyio.to_thread.run_sync(context.database)
        async with mcp.session_manager.run(), anyio.create_task_group() as tasks:
            tasks.start_soon(events.relay_database_events)
            if running is not None:
                tasks.start_soon(running.run)
            yield
            if running is not None:
                await running.shutdown(grace=WORKER_GRACE)
            tasks.cancel_scope.cancel()

    api = FastAPI(
        title="CoDNA",
        summary="A Markdown wiki for a team and its agents.",
        version="1",
        openapi_url="/api/openapi.json",
        docs_url=None,  # served from the project's own files: web/api_docs.py
        redoc_url=None,
        lifespan=lifespan,
    )
    api.state.rate_limiter = limiter
    api.state.settings = settings
    for kind, handler in api_errors.HANDLERS.items():
        api.add_exception_handler(kind, handler)
    for router in (
        api_pages.router,
        admin.router,
        api_inbox.router,
        api_suggestions.router,
        api_automations.router,
    ):
        api.include_router(router, prefix=API, responses=api_errors.DOCUMENTED)
    api.include_router(web_api_docs.router)

    # The web UI, an app of its own: its refusals are pages, and its paths never pass the
    # API's routes on the way to their own.
    web = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    web.state.rate_limiter = limiter  # a session's views and forms count as a token's calls
    for kind, handler in web_errors.HANDLERS.items():
        web.add_exception_handler(kind, handler)
    for router in (
        web_signin.router,
        web_pages.router,
        web_editing.router,
        web_history.router,
        web_inbox.router,
        web_cards.router,
        web_admin.router,
        web_account.router,
        web_search.router,
        web_navigation.router,
    ):
        web.include_router(router)
    web.mount("/static", StaticFiles(directory=STATIC), name="static")

    routed = PathDispatch(web, api=api, mcp=mcp_app)
    guarded = HostOriginGuard(
        routed, hosts=settings.allowed_hosts, origins=settings.allowed_origins
    )
    return BodyCap(SecurityHeaders(guarded), limit=settings.max_body_bytes)
