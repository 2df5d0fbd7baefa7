"""What a real `codna serve` shows of its transport: Host headers as uvicorn's parser reads them
off the socket (a rebinding Host, two Hosts and none are never served), and the scheme a TLS
proxy forwards (the web's cookies are Secure behind a proxy CODNA_TRUSTED_PROXIES names, and
only then). The rest is tested in
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


def visit_cookie_flags(server: Server, headers: dict[str, str]) -> set[str]:
    """The flags of the visit cookie `/` sets, asked with `headers`."""
    with server.api() as client:
        answer = client.get("/", headers=headers)
    assert answer.status_code == 200, answer.text
    (visit,) = [c for c in answer.headers.get_list("set-cookie") if "codna_visit=" in c]
    return {part.strip().lower() for part in visit.split(";")[1:]}


def test_a_forwarded_scheme_from_a_proxy_nobody_named_changes_nothing(server: Server) -> None:
    # By default no proxy is trusted, even on loopback: the request came over http.
    flags = visit_cookie_flags(server, {"X-Forwarded-Proto": "https"})
    assert "secure" not in flags and {"httponly", "samesite=lax"} <= flags


def test_behind_a_named_tls_proxy_the_web_cookies_are_secure(proxied_server: Server) -> None:
    # CODNA_TRUSTED_PROXIES names the proxy on loopback, so uvicorn takes its
    # X-Forwarded-Proto, the app sees https and marks its cookies Secure; asked without the
    # header (straight over http), they are not.
    for forwarded, secure in (({"X-Forwarded-Proto": "https"}, True), ({}, False)):
        flags = visit_cookie_flags(proxied_server, forwarded)
        assert ("secure" in flags) is secure and {"httponly", "samesite=lax"} <= flags
