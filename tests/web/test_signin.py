"""Signing in and out of the web UI: the form, its CSRF token, the session cookie, refusals
that tell nothing, and the headers every HTML answer carries."""

from __future__ import annotations

from tests.conftest import PASSWORD, ROLES, InProcessServer, unique
from tests.web.conftest import browser, csrf_of, signed_in


def test_the_sign_in_page_has_a_form_with_a_csrf_token_and_the_security_headers(
    app: InProcessServer,
) -> None:
    with browser(app) as client:
        answer = client.get("/")
    assert answer.status_code == 200
    assert 'action="/sign-in"' in answer.text and csrf_of(answer)
    policy = answer.headers["content-security-policy"]
    for part in ("script-src 'self'", "object-src 'none'", "base-uri 'none'"):
        assert part in policy
    assert "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"]


def test_signing_in_sets_an_httponly_lax_session_cookie_and_a_new_one_each_time(
    app: InProcessServer,
) -> None:
    secrets = []
    for _ in range(2):
        with browser(app) as client:
            form = client.get("/")
            answer = client.post(
                "/sign-in",
                data={"email": ROLES["reader"], "password": PASSWORD, "csrf": csrf_of(form)},
            )
            assert answer.status_code == 303 and answer.headers["location"] == "/home"
            cookie = next(
                c for c in answer.headers.get_list("set-cookie") if c.startswith("codna_session=")
            )
            assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
            secrets.append(client.cookies["codna_session"])
    assert secrets[0] != secrets[1]


def test_a_wrong_password_and_an_unknown_email_get_the_same_answer(app: InProcessServer) -> None:
    answers = []
    for email, password in ((ROLES["reader"], "not it"), ("nobody@example.com", "not it")):
        with browser(app) as client:
            form = client.get("/")
            answer = client.post(
                "/sign-in", data={"email": email, "password": password, "csrf": csrf_of(form)}
            )
            assert "codna_session" not in client.cookies
        answers.append((answer.status_code, "The e-mail or the password is wrong." in answer.text))
    assert answers == [(401, True), (401, True)]


def test_a_form_sent_without_its_csrf_token_is_refused_and_signs_no_one_in(
    app: InProcessServer,
) -> None:
    with browser(app) as client:
        client.get("/")
        for token in ("", "forged"):
            answer = client.post(
                "/sign-in", data={"email": ROLES["reader"], "password": PASSWORD, "csrf": token}
            )
            assert answer.status_code == 422 and "Reload the page" in answer.text
            assert "codna_session" not in client.cookies
    with signed_in(app, "reader") as client:
        answer = client.post("/sign-out", data={})
        assert answer.status_code == 422
        assert client.get("/p/wiki/").status_code == 200  # still signed in


def test_signing_out_ends_the_session_on_the_server(app: InProcessServer) -> None:
    with signed_in(app, "reader") as client:
        secret = client.cookies["codna_session"]
        page = client.get("/p/wiki/")
        assert page.status_code == 200
        answer = client.post("/sign-out", data={"csrf": csrf_of(page)})
        assert answer.status_code == 303 and answer.headers["location"] == "/"
    with browser(app) as replay:
        replay.cookies.set("codna_session", secret)
        again = replay.get("/p/wiki/")
    assert again.status_code == 303 and again.headers["location"].startswith("/?next=")


def test_a_visitor_not_signed_in_is_sent_to_sign_in_and_brought_back(
    app: InProcessServer,
) -> None:
    address = unique()
    app.create_page(address, "# Kept\n\nText.")
    path = f"/p/wiki/{address.removeprefix('wiki:')}"
    with browser(app) as client:
        answer = client.get(path)
        assert answer.status_code == 303
        assert answer.headers["location"] == f"/?next={path}"
        form = client.get(answer.headers["location"])
        assert f'value="{path}"' in form.text
        back = client.post(
            "/sign-in",
            data={
                "email": ROLES["reader"],
                "password": PASSWORD,
                "csrf": csrf_of(form),
                "next": path,
            },
        )
        assert back.headers["location"] == path
    with browser(app) as client:
        form = client.get("/")
        elsewhere = client.post(
            "/sign-in",
            data={
                "email": ROLES["reader"],
                "password": PASSWORD,
                "csrf": csrf_of(form),
                "next": "//evil.example/",
            },
        )
    assert elsewhere.headers["location"] == "/home"


def test_an_unknown_email_and_a_wrong_password_get_the_same_bytes(app: InProcessServer) -> None:
    with browser(app) as client:
        csrf = csrf_of(client.get("/"))
        answers = []
        for email in (ROLES["reader"], f"nobody-{unique()}@example.com"):
            answer = client.post(
                "/sign-in", data={"email": email, "password": "not it", "csrf": csrf}
            )
            # The form gives the e-mail back to be corrected; nothing else may differ.
            body = answer.content.replace(email.encode(), b"EMAIL")
            headers = sorted((k, v) for k, v in answer.headers.items() if k != "content-length")
            answers.append((answer.status_code, headers, body))
    assert answers[0] == answers[1]
    assert answers[0][0] == 401
