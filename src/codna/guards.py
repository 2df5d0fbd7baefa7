"""ASGI middleware every request passes: Host and Origin checks, and a cap on request bodies."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _matches(value: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(value.lower(), pattern.lower()) for pattern in patterns)


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class HostOriginGuard:
    """DNS-rebinding protection: a Host not allowed gets 421, a browser Origin not allowed 403."""

    def __init__(self, app: ASGIApp, *, hosts: tuple[str, ...], origins: tuple[str, ...]) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            host = headers.get(b"host", b"").decode("latin-1")
            origin = headers.get(b"origin", b"").decode("latin-1")
            if not _matches(host, self.hosts):
                await _refuse(send, 421, "bad_host", f"This server does not answer to {host!r}.")
                return
            if origin and not _matches(origin, self.origins):
                await _refuse(send, 403, "bad_origin", f"Requests from {origin!r} are not allowed.")
                return
        await self.app(scope, receive, send)


class _TooBig(Exception):
    pass


class BodyCap:
    """Refuse a request body over `limit` bytes with 413, by its length or while it streams."""

    def __init__(self, app: ASGIApp, *, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        message = f"A request body has at most {self.limit} bytes."
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await _refuse(send, 413, "too_large", message)
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            received = await receive()
            if received["type"] == "http.request":
                seen += len(received.get("body", b""))
                if seen > self.limit:
                    raise _TooBig
            return received

        async def watched(sent: Message) -> None:
            nonlocal started
            started = started or sent["type"] == "http.response.start"
            await send(sent)

        try:
            await self.app(scope, counted, watched)
        except _TooBig:
            if not started:
                await _refuse(send, 413, "too_large", message)
