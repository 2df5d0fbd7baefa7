"""ASGI middleware every request passes: Host and Origin checks, and a cap on request bodies."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """A test of whether a value matches any of `patterns`, ignoring case, where `*` stands
    for any text, except a `:*` that ends a pattern, which stands for a port (digits only:
    `127.0.0.1:*` is not `127.0.0.1:80.evil.example`). One regular expression, made once."""
    either = "|".join(f"(?:{_regex(pattern.lower())})" for pattern in patterns)
    match = re.compile(either or "(?!)").fullmatch
    return lambda value: match(value.lower())


def _regex(pattern: str) -> str:
    head, port = (pattern[:-2], r":[0-9]{1,5}") if pattern.endswith(":*") else (pattern, "")
    return re.escape(head).replace(r"\*", ".*") + port


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HostOriginGuard:
    """DNS-rebinding protection: a Host not allowed gets 421, a browser Origin not allowed 403
    (allowed: one CODNA_ALLOWED_ORIGINS names, or the server's own, the Host it was sent to).

    A request with more than one Host or Authorization header is refused with 400: the guard
    and the code behind it could each read a different one (a Host checked here and another
    used for a URL, one member's token or another's)."""

    def __init__(self, app: ASGIApp, *, hosts: tuple[str, ...], origins: tuple[str, ...]) -> None:
        self.app, self.hosts, self.origins = app, _matcher(hosts), _matcher(origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            hosts: list[bytes] = []
            origins: list[bytes] = []
            tokens = 0
            for name, value in scope["headers"]:
                if name == b"host":
                    hosts.append(value)
                elif name == b"origin":
                    origins.append(value)
                elif name == b"authorization":
                    tokens += 1
            if len(hosts) > 1:
                message = f"A request names one Host; this one named {len(hosts)}."
                await _refuse(send, 400, "bad_host", message)
                return
            if tokens > 1:
                message = f"A request carries one Authorization header; this one had {tokens}."
                await _refuse(send, 400, "invalid_request", message)
                return
            host = hosts[0].decode("latin-1") if hosts else ""
            if host and ":" not in host.rpartition("]")[2]:
                # No port: the scheme's own, as a browser leaves it out.
                host += ":443" if scope.get("scheme") in ("https", "wss") else ":80"
            if not self.hosts(host):
                await _refuse(send, 421, "bad_host", f"This server does not answer to {host!r}.")
                return
            for sent in origins:  # a browser sends one; every one sent must be allowed
                origin = sent.decode("latin-1")
                if origin and not self.origins(origin) and not _same_host(origin, hosts):
                    message = f"Requests from {origin!r} are not allowed."
                    await _refuse(send, 403, "bad_origin", message)
                    return
        await self.app(scope, receive, send)


def _same_host(origin: str, hosts: list[bytes]) -> bool:
    """Whether a browser's Origin names the Host the request was sent to (allowed already):
    the server's own pages, wherever it is deployed, need no CODNA_ALLOWED_ORIGINS. Another
    site's page cannot send its request with this server's name as its Origin."""
    _, separator, named = origin.partition("://")
    sent = hosts[0].decode("latin-1") if hosts else ""
    return bool(separator and sent) and named.lower() == sent.lower()


class BodyCap:
    """Refuse a request body over `limit` bytes with 413: at once by its Content-Length, or,
    for a body that streams without one, once it passes the cap (it is held until complete,
    so the app never sees half of it)."""

    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"A request body has at most {self.limit} bytes."
        headers = dict(scope["headers"])
        length = headers.get(b"content-length")
        if length is None and b"transfer-encoding" not in headers:
            await self.app(scope, receive, send)  # no body (HTTP/1.1 framing): nothing to cap
            return
        if length is not None:
            if not length.isdigit() or int(length) > self.limit:
                await _refuse(send, 413, "too_large", message)
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            received = await receive()
            if received["type"] != "http.request":
                break  # the client went away
            chunks.append(received.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                await _refuse(send, 413, "too_large", message)
                return
            if not received.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class PathDispatch:
    """Send `/mcp` to the MCP app, `/api/…` (and the lifespan) to the API, and everything
    else to the web UI."""

    def __init__(self, web: ASGIApp, *, api: ASGIApp, mcp: ASGIApp) -> None:
        self.web, self.api, self.mcp = web, api, mcp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.api(scope, receive, send)  # the lifespan
            return
        path = scope["path"]
        if path == "/mcp" or path.startswith("/mcp/"):
            await self.mcp(scope, receive, send)
        elif path == "/api" or path.startswith("/api/"):
            await self.api(scope, receive, send)
        else:
            await self.web(scope, receive, send)


# Nothing inline runs or styles: scripts and styles come from this server's own files.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_EVERY_ANSWER = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin")]
_HTML_ANSWER = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """On every answer, `nosniff` and a Referrer-Policy; on HTML answers, the CSP too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = dict(headers).get(b"content-type", b"")
                headers += _EVERY_ANSWER
                if kind.startswith(b"text/html"):
                    headers += _HTML_ANSWER
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
