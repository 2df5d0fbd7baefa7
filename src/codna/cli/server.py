"""`codna serve`, `codna worker`, `codna mcp` (stdio) and `codna token …`."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

import click

from codna.cli.output import Out, acting, command_options, refusals, require_workspace
from codna.errors import InvalidRequest
from codna.services import context
from codna.services.members import tokens
from codna.services.members.members import Member
from codna.services.members.tokens import Caller
from codna.settings import Settings

if TYPE_CHECKING:
    import uvicorn

LOOPBACK = ("127.0.0.1", "localhost", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")
# Seconds a worker process may take to answer its supervisor before it is killed and replaced.
WORKER_HEALTHCHECK_SECONDS = 60


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True)
@click.option("--workers", default=1, show_default=True, help="More than one needs PostgreSQL.")
def serve(host: str, port: int, workers: int) -> None:
    """Run the server: the web UI at /, the JSON API at /api/v1 and MCP at /mcp. Each of its
    processes runs a worker for automations too, unless CODNA_WORKER=0."""
    import uvicorn

    from codna.worker import load_handlers

    with refusals(False):
        if workers > 1 and context.location().engine == "sqlite":
            raise InvalidRequest(
                "Several workers need PostgreSQL: SQLite serves one process. "
                "Set CODNA_DATABASE_URL to a PostgreSQL database or use --workers 1.",
                field="workers",
            )
        require_workspace()  # opens and migrates it; a server never makes a workspace
        load_handlers()  # a module CODNA_WORKER_HANDLERS names is refused before serving
    where = _addresses(host, port)
    config = server_config(host=host, port=port, workers=workers)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    socket = config.bind_socket()  # bound before it is announced
    click.echo(f"CoDNA on {where} — the web UI at /, the API at /api/v1, MCP at /mcp", err=True)
    try:
        if workers > 1:
            from uvicorn.supervisors.multiprocess import Multiprocess

            Multiprocess(config, sockets=[socket]).run()
        else:
            uvicorn.Server(config).run(sockets=[socket])
    except KeyboardInterrupt:
        # uvicorn stops gracefully on Ctrl-C and then raises it again: a stop asked for.
        click.echo("CoDNA stopped.", err=True)


def server_config(*, host: str, port: int, workers: int) -> uvicorn.Config:
    """How `codna serve` runs uvicorn. Forwarded headers are read only from the proxies
    CODNA_TRUSTED_PROXIES names: uvicorn's own default trusts any peer on this host (and
    FORWARDED_ALLOW_IPS), which would let a local program pick the address sign-in counts."""
    import uvicorn

    trusted = Settings().trusted_proxies
    return uvicorn.Config(
        "codna.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        proxy_headers=bool(trusted),
        forwarded_allow_ips=list(trusted) or None,
        log_level="info",  # one access line per request; the MCP SDK's own lines are quiet
        server_header=False,
        timeout_graceful_shutdown=5,
        # A spawned worker answers the supervisor's health check only after importing the
        # `codna` command again, seconds on a busy host: uvicorn's 5 s killed every worker
        # still starting, and its replacement, over and over.
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_SECONDS,
    )


@click.command("worker")
@click.option("--name", help="How this worker is named on the events it takes (default: unique).")
@click.option(
    "--lease",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="Seconds an event is held for; a worker that dies loses it after this.",
)
@click.option(
    "--poll",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0.01),
    help="Seconds between looks at the outbox when nothing wakes the worker.",
)
@click.option(
    "--grace",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds the event running may finish after a stop signal.",
)
def worker(name: str | None, lease: float, poll: float, grace: float) -> None:
    """Run a worker alone: it runs the automations of new events until Ctrl-C or SIGTERM.
    `codna serve` runs one of its own unless CODNA_WORKER=0."""
    import anyio

    from codna.worker import Worker, load_handlers
    from codna.worker.alone import run_alone

    with refusals(False):
        require_workspace()
        load_handlers()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    running = Worker(name=name, poll_interval=poll, lease=timedelta(seconds=lease))
    click.echo(f"CoDNA worker {running.name} on {context.location()}", err=True)
    anyio.run(lambda: run_alone(running, grace=grace))
    click.echo(f"CoDNA worker stopped: {running.done} done, {running.failed} failed.", err=True)


def _addresses(host: str, port: int) -> str:
    """Where the server is reached: CODNA_BASE_URL, or else the address it was given, which
    every suggestion's url then uses; a host it was given is allowed as a Host header."""
    base = os.environ.get("CODNA_BASE_URL")
    shown = f"[{host}]" if ":" in host else host
    if not base:
        base = f"http://{'127.0.0.1' if host in ANY_ADDRESS else shown}:{port}"
        os.environ["CODNA_BASE_URL"] = base
    if host not in LOOPBACK + ANY_ADDRESS and "CODNA_ALLOWED_HOSTS" not in os.environ:
        os.environ["CODNA_ALLOWED_HOSTS"] = f"127.0.0.1:*,localhost:*,[::1]:*,{shown}:*"
    if host in ANY_ADDRESS and "CODNA_ALLOWED_HOSTS" not in os.environ:
        click.echo(
            "Serving on every address, but only loopback names are answered: set "
            "CODNA_ALLOWED_HOSTS to the names people use (such as wiki.example.com:*).",
            err=True,
        )
    return base.rstrip("/") + "/"


@click.command("mcp")
@click.option("--token", envvar="CODNA_TOKEN", help="Act as this token's member.")
@click.option("--as", "as_member", metavar="EMAIL", help="Act as this member (local use).")
def mcp_stdio(token: str | None, as_member: str | None) -> None:
    """Serve MCP over stdio, as the member of --token or --as."""
    from codna.app import build_mcp
    from codna.services.members.ratelimit import RateLimiter
    from codna.settings import Settings

    with refusals(False):
        if bool(token) == bool(as_member):
            raise InvalidRequest("Give either --token or --as.", field="token")
        require_workspace()
        if token:
            secret = token
            tokens.authenticate_token(secret)  # refuse a bad token before serving

            def local() -> Caller:
                return tokens.authenticate_token(secret)  # revocation holds on the next call
        else:
            member = acting(as_member or "")

            def local() -> Caller:
                return Caller(member, 0)

    settings = Settings()
    server = build_mcp(settings, RateLimiter(settings.rate_limit, settings.rate_window))
    server.local = local
    server.run("stdio")


@click.group()
def token() -> None:
    """API tokens: create (shown once), list, revoke."""


@token.command("create")
@click.argument("member_handle", metavar="MEMBER")
@click.option("--name", default="default", show_default=True)
@command_options
def token_create(member_handle: str, name: str, out: Out, actor: Callable[[], Member]) -> None:
    """Make a token for MEMBER and print it once."""
    made = tokens.create_token(actor(), member=member_handle, name=name)
    out.result(made, made.secret)


@token.command("list")
@click.argument("member_handle", metavar="MEMBER", required=False)
@click.option("--all", "everyone", is_flag=True, help="Everyone's tokens (admins only).")
@command_options
def token_list(
    member_handle: str | None, everyone: bool, out: Out, actor: Callable[[], Member]
) -> None:
    """List your own tokens, those of MEMBER (an agent you are responsible for, or anyone's
    for an admin), or with --all everyone's."""
    if everyone and member_handle:
        raise InvalidRequest("Give either MEMBER or --all, not both.", field="member")
    found = tokens.list_tokens(actor(), member="*" if everyone else member_handle)
    out.result(
        found,
        lambda: (
            "\n".join(
                f"{t.id:<5} {t.prefix}…  {t.member:30} {t.name:16} {'revoked' * t.revoked}".rstrip()
                for t in found
            )
            or "No tokens."
        ),
    )


@token.command("revoke")
@click.argument("token_id", type=int)
@command_options
def token_revoke(token_id: int, out: Out, actor: Callable[[], Member]) -> None:
    """Revoke a token; the next request with it is refused."""
    tokens.revoke_token(actor(), token_id=token_id)
    out.result({"token_id": token_id, "revoked": True}, f"Token {token_id} is revoked.")
