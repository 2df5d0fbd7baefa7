"""Every place CoDNA shows text a member wrote, filled with one payload through the services,
and the web pages that show them.

For a payload `n`, `fill` makes, as people would: a person whose display name is the payload
(the suggester) with a token named by it, a page whose title, tag, body and first summary are
the payload, an edit and a revert whose summaries are it, three suggestions of that person on
the page, each adding the payload and giving it as the reason (one accepted, one left for the
test to reject with the payload as the decision's reason, one left waiting with the payload as
its new title and tag), and a suggested link from the page whose reason is the payload. Each
text also holds `marker(n)`, a word found nowhere else, so a test can tell the page showed it.

A text the services refuse (the payload holds a control character) is refused whole, checked
by `fill`, and the payload then goes in with those characters taken out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from codna.errors import InvalidRequest
from codna.markdown.edits import parse_edits
from codna.services.members import access, members, tokens
from codna.services.members.members import Member
from codna.services.pages import editing, pages
from codna.services.suggestions import changes, links, reverts
from codna.web.templating import page_url
from tests.hostile.payloads import Payload

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
MAX_TITLE, MAX_TAG, MAX_NAME, MAX_REASON, MAX_SUMMARY = 200, 50, 200, 500, 1000
MAX_TOKEN_NAME = 100
TARGET = "wiki:hostile/target"


BATCH = 25  # payloads whose pages share a folder, so a folder's listing shows them all


def page_address(n: int) -> str:
    """The address of payload `n`'s page, in the folder of its batch."""
    return f"wiki:hostile/b{n // BATCH}/p{n}"


def marker(n: int) -> str:
    return f"zq{n}q"


def fit(text: str, limit: int, n: int) -> str:
    """The payload cut to leave room for its marker within `limit` characters, then the
    marker after a space."""
    tail = f" {marker(n)}"
    return text[: limit - len(tail)] + tail


@dataclass(frozen=True)
class Filled:
    """What `fill` made for payload `n`: the page's address, the suggester and the ids of the
    suggestion waiting, and whether the raw payload was refused first."""

    n: int
    address: str
    suggester: Member
    to_reject: int
    waiting: int
    refused_first: bool


def _text(payload: Payload, writer: Member, address: str) -> tuple[str, bool]:
    """The payload as the services take it: whole, or without the control characters they
    refuse (after checking that they refuse it, changing nothing)."""
    if not _CONTROL.search(payload.text.replace("\r", "")):
        return payload.text, False
    try:
        pages.create_page(writer, address=address, title="x", body=payload.text)
    except InvalidRequest as refused:
        assert refused.code == "invalid_request", refused
    else:
        raise AssertionError(f"a body holding a control character was saved: {payload.name}")
    return _CONTROL.sub("", payload.text), True


def fill(n: int, payload: Payload, *, admin: Member, writer: Member, password: str) -> Filled:
    address = page_address(n)
    text, refused_first = _text(payload, writer, address)
    mark = marker(n)
    suggester = members.add_person(
        admin,
        email=f"h{n}@example.com",
        name=fit(" ".join(text.split()), MAX_NAME, n),  # typed on one line
        password=password,
    )
    tag = fit(text.replace(",", ";"), MAX_TAG, n)
    pages.create_page(
        writer,
        address=address,
        title=fit(text, MAX_TITLE, n),
        body=f"{text}\n\n{mark}\n",
        tags=[tag],
        summary=fit(text, MAX_SUMMARY, n),
    )
    access.share(admin, address=address, member=suggester.email or "", level="read")
    access.share(admin, address=TARGET, member=suggester.email or "", level="read")
    one_line = " ".join(text.split())  # a token's name is typed on one line, like a person's
    tokens.create_token(admin, member=suggester.email or "", name=fit(one_line, MAX_TOKEN_NAME, n))
    edited = editing.edit_page(
        writer,
        address=address,
        edits=parse_edits([{"op": "append", "text": f"Edited: {text} {mark}"}]),
        summary=fit(text, MAX_SUMMARY, n),
    )
    reverts.revert_revision(
        writer, address=address, version=edited.page.version, summary=fit(text, MAX_SUMMARY, n)
    )

    def suggest(letter: str, title: str | None = None, tags_add: tuple[str, ...] = ()) -> int:
        edits = parse_edits([{"op": "append", "text": f"{letter}: {text} {mark}"}])
        made = changes.suggest_edit(
            suggester,
            address=address,
            edits=edits,
            reason=fit(text, MAX_REASON, n),
            title=title,
            tags_add=tags_add,
        )
        assert made.suggestion is not None
        return made.suggestion.id

    accepted = suggest("A")
    changes.decide_edit_suggestion(writer, suggestion_id=accepted, decision="accept")
    to_reject = suggest("B")
    waiting = suggest(
        "C", title=fit(text, MAX_TITLE, n), tags_add=(fit(text.replace(",", ";"), MAX_TAG, n + 1),)
    )
    links.suggest_link(suggester, address=address, target=TARGET, reason=fit(text, MAX_REASON, n))
    return Filled(n, address, suggester, to_reject, waiting, refused_first)


def make_target(writer: Member) -> None:
    """The page every suggested link points to."""
    pages.create_page(writer, address=TARGET, title="Target")


def writer_views(filled: Filled, payload: Payload) -> list[str]:
    """The pages an editor of the page opens that show what `fill` made."""
    address = filled.address
    query = quote(payload.text[:500], safe="")
    return [
        page_url(address),
        page_url(address, view="history"),
        page_url(address, view="diff"),
        page_url(address, view="diff") + "?from=0&to=1",
        page_url(address, view="revision") + "?version=1",
        page_url(address, view="suggestions"),
        page_url(address, view="edit"),
        f"/inbox/changes/{filled.waiting}/preview",
        f"/search?q={marker(filled.n)}",
        f"/search?q={query}",
    ]


def suggester_views(filled: Filled) -> list[str]:
    """The pages the suggester opens: the page with their suggestions, their inbox with the
    decisions on them."""
    return [page_url(filled.address), page_url(filled.address, view="suggestions"), "/inbox"]


def reflected_gets(payload: Payload) -> list[str]:
    """Pages that quote what was asked for: a page that is not there, named by the payload."""
    return [f"/p/wiki/{quote(payload.text[:200])}", f"/history/wiki/{quote(payload.text[:200])}"]


def reflected_forms(filled: Filled, payload: Payload) -> list[tuple[str, dict[str, str]]]:
    """Forms an editor sends with the payload that come back refused, showing what was typed
    and the refusal's sentence (which may quote it): a new page at the payload as address, an
    edit against a stale version, a tag with a comma, an automation on the payload as folder."""
    text = _CONTROL.sub("", payload.text)
    where = filled.address.replace(":", "/", 1)
    typed = {"title": text[:300], "body": text, "summary": text[:300]}
    return [
        ("/new", {"address": text[:300], "tags": "", **typed}),
        (f"/edit/{where}", {"base_version": "1", "tags": text[:300], **typed}),
        (f"/edit/{where}", {"base_version": "999", "tags": "", **typed}),
        (f"/edit/{where}", {"base_version": "1", "tags": f"a,{text[:60]},b", **typed}),
        ("/automations", {"event": "document.changed", "folder": text[:300], "routine": "x"}),
    ]


def reflected_admin_forms(payload: Payload) -> list[tuple[str, dict[str, str]]]:
    """Forms an admin sends with the payload as an e-mail, a name and an agent's name."""
    text = _CONTROL.sub("", payload.text)[:300]
    return [
        ("/admin/people", {"email": text, "name": text, "password": ""}),
        ("/admin/agents", {"name": text, "responsible": text}),
        ("/admin/grants", {"address": text, "member": text, "level": "read"}),
    ]
