"""Hostile text shown by every page of the web UI holds nothing that runs.

Payloads (tests/hostile/payloads.py) go in through the services where people write: a page's
body, title, tags and summaries, an edit's and a revert's summaries, suggestions' reasons,
edits, titles and tags, a decision's reason, a member's display name. Then every page that
shows them is fetched through the app in process, signed in as the page's editor, as the
suggester and as the admin, and forms are sent with them to come back refused (a new page
at the payload as address, a stale edit, a tag with a comma, an automation's folder, an
admin's new person, agent and grant), so the form showing what was typed and the sentence
quoting it are read too. Each answer is read with an HTML parser
(tests/hostile/executable.py) for anything that could run. The quick form takes 120
payloads standing for every family, on SQLite; `pytest --long` takes all 5,171.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from codna.markdown.render import render
from codna.services.members import members
from tests.conftest import GENEROUS, PASSWORD, ROLES, InProcessServer, in_process
from tests.hostile.executable import findings
from tests.hostile.payloads import Payload, all_payloads, kinds, sample
from tests.hostile.places import (
    BATCH,
    fill,
    fit,
    make_target,
    marker,
    page_address,
    reflected_admin_forms,
    reflected_forms,
    reflected_gets,
    suggester_views,
    writer_views,
)
from tests.web.conftest import csrf_of, signed_in

QUICK = 120  # payloads through every page in the quick form: every family among them


def _page_url(address: str) -> str:
    return "/p/" + address.replace(":", "/", 1)


def test_the_payloads_number_in_the_thousands_each_named_once() -> None:
    payloads = all_payloads()
    assert len(payloads) >= 2000
    assert len({p.name for p in payloads}) == len(payloads)


def test_the_quick_sample_stands_for_every_family_of_payloads() -> None:
    every = set().union(*(kinds(p) for p in all_payloads()))
    assert set().union(*(kinds(p) for p in sample(QUICK))) == every


@pytest.mark.parametrize(
    ("html", "kind"),
    [
        ("<p><script>window.__xss=1</script></p>", "a script"),
        ('<img src="x" onerror="alert(1)">', "an event attribute"),
        ('<div hx-on:click="alert(1)">x</div>', "an event attribute"),
        ("<div hx-vals='js:{a:1}'>x</div>", "an htmx script value"),
        ('<a href="&#106;ava&#9;script&#58;alert(1)">x</a>', "a href that runs code"),
        ('<a href=" \x01JAVASCRIPT:alert(1)">x</a>', "a href that runs code"),
        ('<a href="vbscript:msgbox(1)">x</a>', "a href that runs code"),
        ('<img src="data:image/png;base64,AAAA">', "a src that runs code"),
        ('<form action="javascript:alert(1)"></form>', "a action that runs code"),
        ('<button formaction="javascript:alert(1)">x</button>', "a formaction that runs code"),
        ('<svg><a xlink:href="javascript:alert(1)">x</a></svg>', "a xlink:href that runs code"),
        ('<iframe srcdoc="&lt;script&gt;"></iframe>', "a srcdoc"),
        ("<iframe></iframe>", "a <iframe>"),
        ('<object data="x"></object>', "a <object>"),
        ("<embed>", "a <embed>"),
        ('<base href="https://evil.example/">', "a <base>"),
        ('<meta http-equiv="refresh" content="0;url=x">', "a meta http-equiv"),
        ("<style>p{width:expression(alert(1))}</style>", "a style element that runs code"),
        ('<p style="background:url(javascript:alert(1))">x</p>', "a style attribute"),
        ("<math><mi>x</mi></math>", "a <math>"),
        ("<!--><img src=x>-->", "a comment"),
        ("<![CDATA[x]]>", "a declaration"),
        ('<script src="/static/htmx.min.js">alert(1)</script>', "code inside a script"),
    ],
)
def test_the_checker_finds_each_kind_of_code_that_could_run(html: str, kind: str) -> None:
    found = findings(html)
    assert any(f.startswith(kind) for f in found), found


def test_the_checker_finds_nothing_in_plain_html_and_the_apps_own_scripts() -> None:
    html = (
        '<!doctype html><html><head><script src="/static/htmx.min.js" defer></script></head>'
        '<body hx-ext="sse"><a href="https://example.com/" rel="noopener">x</a>'
        '<img src="https://example.com/a.png" alt="data:text/html"><p>javascript:alert(1)</p>'
        "</body></html>"
    )
    assert findings(html) == []


def test_every_payload_rendered_as_a_page_body_holds_nothing_that_runs() -> None:
    shown = {}
    for payload in all_payloads():
        found = findings(render(payload.text, page_url=_page_url))
        if found:
            shown[payload.name] = found
    assert not shown, shown


def test_every_payload_rendered_as_a_pages_own_view_holds_nothing_that_runs() -> None:
    """With what a page's own view adds: relative links read from a page deep in a folder,
    heading anchors and the table of contents (payloads are repeated under enough headings
    for one)."""
    shown = {}
    for payload in all_payloads():
        for body in (payload.text, f"## {payload.text}\n\n## b\n\n## c\n\n{payload.text}"):
            html = render(body, page_url=_page_url, at="wiki:a/b/c/page", navigation=True)
            if found := findings(html):
                shown[payload.name] = found
    assert not shown, shown


def test_a_relative_trap_is_never_a_link() -> None:
    for payload in all_payloads():
        if payload.name.startswith("relative/"):
            html = render(payload.text, page_url=_page_url, at="wiki:page", navigation=True)
            assert "<a " not in html, (payload.name, html)


@pytest.fixture(scope="module")
def hostile_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessServer]:
    """The app on a workspace of its own (SQLite): hundreds of members and suggestions would
    crowd the shared workspace's inbox and member list."""
    with in_process("sqlite", request, tmp_path_factory, **GENEROUS) as server, server.active():
        yield server


@contextmanager
def signed_in_as(app: InProcessServer, email: str) -> Iterator[httpx.Client]:
    """A browser signed in through the form as the person with `email`."""
    with app.api() as client:
        form = client.get("/")
        answer = client.post(
            "/sign-in",
            data={"email": email, "password": PASSWORD, "csrf": csrf_of(form), "next": "/"},
        )
        assert answer.status_code == 303, answer.text
        yield client


def _send(
    client: httpx.Client,
    csrf: str,
    url: str,
    data: dict[str, str],
    found: dict[str, list[str]],
    name: str,
) -> None:
    """Send a form as a browser does; its answer, if a page, must hold nothing that runs.
    What it finds is filed under the payload's `name` and the form."""
    answer = client.post(url, data={"csrf": csrf, **data})
    where = f"{name}: POST {url} {sorted(data.items())[:2]}"
    if answer.status_code >= 500:
        found[where] = [f"answered {answer.status_code}"]
    elif bad := findings(answer.text):
        found[where] = bad


def _look(
    client: httpx.Client,
    url: str,
    shows: dict[str, str],
    found: dict[str, list[str]],
    name: str | None = None,
) -> None:
    _check(url, client.get(url), shows, found, name)


def _check(
    url: str,
    answer: httpx.Response,
    shows: dict[str, str],
    found: dict[str, list[str]],
    name: str | None = None,
) -> None:
    """The page at `url` holds nothing that runs (filed under the payload's `name`, or under
    every payload it shows) and shows each text of `shows` (payload's name: its marker)."""
    where = f"{name}: {url}" if name else f"{', '.join(shows) or 'no payload'}: {url}"
    if answer.status_code >= 500 or answer.status_code in (301, 302, 303):
        found[where] = [f"answered {answer.status_code}"]
        return
    if bad := findings(answer.text):
        found[where] = bad
    for shown, text in shows.items():
        if text not in answer.text:
            found.setdefault(f"{shown}: {url}", []).append(
                f"the page does not show the text ({text}) it should"
            )


def test_every_page_that_shows_hostile_text_holds_nothing_that_runs(
    hostile_app: InProcessServer, long_form: bool
) -> None:
    payloads: list[Payload] = all_payloads() if long_form else sample(QUICK)
    admin = members.member_by_handle(ROLES["admin"])
    writer = members.member_by_handle(ROLES["writer"])
    found: dict[str, list[str]] = {}
    refused = 0
    make_target(writer)
    with signed_in(hostile_app, "writer") as editor, signed_in(hostile_app, "admin") as boss:
        # The token every form of a session carries.
        editor_csrf, boss_csrf = csrf_of(editor.get("/inbox")), csrf_of(boss.get("/inbox"))
        # The admin's refused forms first, while the admin page they come back on (which lists
        # every member) is short: the same forms, the same checks, without every payload's
        # answer holding the members of every payload before it.
        for payload in payloads:
            for url, data in reflected_admin_forms(payload):
                _send(boss, boss_csrf, url, data, found, payload.name)
        for start in range(0, len(payloads), BATCH):
            batch = list(enumerate(payloads[start : start + BATCH], start))
            for n, payload in batch:
                filled = fill(n, payload, admin=admin, writer=writer, password=PASSWORD)
                refused += filled.refused_first
                mark = {payload.name: marker(n)}
                for url in writer_views(filled, payload):
                    shows = {} if "/search?q=" in url and marker(n) not in url else mark
                    _look(editor, url, shows, found, payload.name)
                for url in reflected_gets(payload):
                    _look(editor, url, {}, found, payload.name)
                for url, data in reflected_forms(filled, payload):
                    _send(editor, editor_csrf, url, data, found, payload.name)
                # Rejected from the inbox as htmx does it: the answer is the decided item.
                reject = {"decision": "reject", "reason": fit(payload.text, 500, n)}
                decided = editor.post(
                    f"/inbox/changes/{filled.to_reject}/decide",
                    data={"csrf": editor_csrf, **reject},
                    headers={"HX-Request": "true"},
                )
                _check(f"decide {filled.to_reject}", decided, {}, found, payload.name)
                with signed_in_as(hostile_app, filled.suggester.email or "") as suggester:
                    for url in suggester_views(filled):
                        _look(suggester, url, mark, found, payload.name)
            # The pages that list many payloads, walked once a batch: the folder's listing shows
            # every page of the batch, the others the newest; each holds nothing that runs.
            every = {payload.name: marker(n) for n, payload in batch}
            last = {batch[-1][1].name: marker(batch[-1][0])}
            _look(editor, "/inbox", last, found)  # the newest: it shows the latest first
            _look(boss, "/admin", last, found)
            where = page_address(batch[-1][0]).replace(":", "/", 1)
            _look(editor, "/p/" + where.rsplit("/", 1)[0] + "/", every, found)
            trashed = f"/trash/{where}"
            assert editor.post(trashed, data={"csrf": editor_csrf}).status_code == 303
            _look(editor, "/trash", last, found)
    assert not found, {where: bad for where, bad in list(found.items())[:20]}
    assert refused < len(payloads)
