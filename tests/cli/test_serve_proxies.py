"""Whom `codna serve` believes about the client's address: the socket's peer, unless that peer
is a proxy CODNA_TRUSTED_PROXIES names. Sign-in failures are counted by this address, so a
client that could name it could spread its guesses over addresses it made up."""

from __future__ import annotations

import anyio
import httpx
import pytest

from codna.cli.server import server_config

FORGED = {
    "X-Forwarded-For": "203.0.113.7",
    "Forwarded": "for=203.0.113.8",
    "X-Real-IP": "203.0.113.9",
    "X-Forwarded-Proto": "https",
}


async def _echo(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
    """An app that answers with the client and scheme the server gave it."""
    assert scope["type"] == "http"
    body = f"{scope['client'][0]} {scope['scheme']}".encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": body})  # type: ignore[operator]


def _seen_from(peer: str) -> str:
    """What the app sees of a request with every forwarded header forged, from `peer`, through
    the app that uvicorn builds from `codna serve`'s configuration."""
    config = server_config(host="127.0.0.1", port=0, workers=1)
    config.app, config.factory = _echo, False
    config.load()
    transport = httpx.ASGITransport(app=config.loaded_app, client=(peer, 50000))

    async def ask() -> str:
        async with httpx.AsyncClient(transport=transport, base_url="http://codna") as client:
            return (await client.get("/", headers=FORGED)).text

    return anyio.run(ask)


@pytest.mark.parametrize("peer", ["127.0.0.1", "::1", "198.51.100.4"])
def test_by_default_no_peer_is_believed_not_even_one_on_this_host(
    monkeypatch: pytest.MonkeyPatch, peer: str
) -> None:
    monkeypatch.delenv("CODNA_TRUSTED_PROXIES", raising=False)
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")  # uvicorn's own setting changes nothing
    assert _seen_from(peer) == f"{peer} http"


def test_a_named_proxy_is_believed_and_nobody_else(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODNA_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1")
    assert _seen_from("10.1.2.3") == "203.0.113.7 https"
    assert _seen_from("192.0.2.1") == "203.0.113.7 https"
    assert _seen_from("192.0.2.2") == "192.0.2.2 http"
    assert _seen_from("127.0.0.1") == "127.0.0.1 http"
