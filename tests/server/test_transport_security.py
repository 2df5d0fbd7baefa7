"""What a real `codna serve` shows of its transport: Host headers as uvicorn's parser reads them
off the socket (a rebinding Host, two Hosts and none are never served), and the scheme a TLS
proxy on loopback forwards (the web's cookies are Secure behind it). The rest is tested in
process (tests/api/test_transport_security.py)."""

from __future__ import annotations

import socket

from tests.server.conftest import Server


def exchange(server: Server, head: str) -> tuple[int, str]:
    """Send the raw request `head` (no body) and read the whole answer: status and text."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(head.encode("latin-1"))
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks).decode("latin-1")
    status_line, _, rest = answer.partition("\r\n")
    return int(status_line.split()[1]), rest


def request(server: Server, *headers: str, version: str = "HTTP/1.1") -> tuple[int, str]:
    token = f"Authorization: Bearer {server.token('reader')}"
    lines = [f"GET /api/v1/me {version}", token, *headers, "Connection: close", "", ""]
    return exchange(server, "\r\n".join(lines))


def test_a_real_server_never_serves_a_rebinding_host_two_hosts_or_none(server: Server) -> None:
    good = f"Host: 127.0.0.1:{server.port}"
    status, text = request(server, good)
    assert status == 200 and "rita@example.com" in text
    for headers, version in (
        (["Host: evil.example"], "HTTP/1.1"),
        ([f"Host: evil.example:{server.port}"], "HTTP/1.1"),
        ([good, "Host: evil.example"], "HTTP/1.1"),
        (["Host: evil.example", good], "HTTP/1.1"),
        ([], "HTTP/1.0"),
    ):
        status, text = request(server, *headers, version=version)
        assert status in (400, 421), (headers, status, text)
        assert "rita@example.com" not in text, headers


def test_behind_a_tls_proxy_on_loopback_the_web_cookies_are_secure(server: Server) -> None:
    # uvicorn takes X-Forwarded-Proto from a proxy on loopback (its default), so the app sees
    # https and marks its cookies Secure; sent straight over http they are not.
    with server.api() as client:
        for forwarded, secure in (({"X-Forwarded-Proto": "https"}, True), ({}, False)):
            answer = client.get("/", headers=forwarded)
            assert answer.status_code == 200, answer.text
            (visit,) = [c for c in answer.headers.get_list("set-cookie") if "codna_visit=" in c]
            flags = {part.strip().lower() for part in visit.split(";")[1:]}
            assert ("secure" in flags) is secure and {"httponly", "samesite=lax"} <= flags
