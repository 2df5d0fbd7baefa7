"""A page's Markdown as sanitised HTML for the web UI, and the internal links it holds.

The body is read as CommonMark (markdown-it-py's "commonmark" preset) with tables and
strikethrough, and with raw HTML off: `<script>` written in a page is shown as text. Between
parsing and rendering, one pass over the tokens decides what the HTML may hold:

- a heading gets an `id`, the slug of its text (`slug`); a slug met again gets `-2`, `-3` …;
- a link is kept when its destination is `http:`, `https:` or `mailto:`, a fragment of the
  same page (`#limits`), or an internal address: `space:path` with a space of `SPACES` and a
  page path (`wiki:decisions/0024-suggested-changes`, optionally with `#fragment`). An
  address goes through the caller's `page_url`, the fragment kept after it. `http:` and
  `https:` links get `rel="noopener noreferrer"`;
- every other destination keeps only the link's text. That covers every other scheme
  (`javascript:`, `data:`, `vbscript:`, `file:`, unknown ones, however spelled: markdown-it
  has decoded entities and percent-encoded the rest by then, and a scheme is only ever
  matched from an allow list) and relative paths (`other/page`, `../x`, `/p/wiki/x`,
  `//host`): a relative path would mean one thing in the web UI, another in an export and
  nothing to backlinks, so pages link to each other by address, which means the same
  everywhere;
- an image is kept when its source is `http:` or `https:`; otherwise its alt text stands;
- a fence's language is kept for `class="language-…"` only when it is a plain name
  (`python`, `c++`, `objective-c`);
- table cells lose markdown-it's `style="text-align:…"`: the page's CSP allows no inline
  style, so columns are not aligned.

The HTML then goes through nh3 (Ammonia) with an allow list of exactly the tags and
attributes that pass can produce, and only the `http`, `https` and `mailto` schemes (plus
relative URLs, which only `page_url` and same-page fragments give). The sanitiser is the
second wall, not the first: the token pass alone already refuses every link and attribute
above.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token

from codna.markdown.headings import inline_tokens_text

# The spaces of an address, as codna.services.addresses reads them.
SPACES = ("wiki", "raw", "output")
_SEGMENT = r"[A-Za-z0-9][A-Za-z0-9._-]*"
# An internal address as markdown-it hands its destination over: entities decoded, anything
# outside URL characters percent-encoded. A folder (`wiki:decisions/`) is not a page to link.
_INTERNAL = re.compile(
    rf"(?P<address>(?:{'|'.join(SPACES)}):{_SEGMENT}(?:/{_SEGMENT})*)(?P<fragment>#.*)?",
    re.DOTALL,
)
_EXTERNAL = re.compile(r"https?://", re.IGNORECASE)
_MAILTO = re.compile(r"mailto:", re.IGNORECASE)
_IMAGE = _EXTERNAL
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.-]{1,40}")
_NOT_IN_SLUG = re.compile(r"[^\w\s-]")
_SPACES_IN_SLUG = re.compile(r"\s+")

EXTERNAL_REL = "noopener noreferrer"

_HEADINGS = {f"h{level}" for level in range(1, 7)}
ALLOWED_TAGS = {
    *_HEADINGS,
    *("p", "a", "img", "ul", "ol", "li", "blockquote", "pre", "code", "em", "strong"),
    *("del", "s", "table", "thead", "tbody", "tr", "th", "td", "hr", "br"),
}
ALLOWED_ATTRIBUTES = {
    **{heading: {"id"} for heading in _HEADINGS},
    "a": {"href", "title", "rel"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    # Its value is only ever `language-` and a name the token pass checked.
    "code": {"class"},
}
ALLOWED_SCHEMES = {"http", "https", "mailto"}


class _Parser(MarkdownIt):
    """CommonMark that parses every link destination as a link.

    markdown-it's own check turns a refused link into its source text (`[x](javascript:…)`
    shown as written); deciding in the token pass instead lets a refused link keep just its
    text, with one rule for links, autolinks and reference links.
    """

    def validateLink(self, url: str) -> bool:
        return True


@functools.cache
def _parser() -> MarkdownIt:
    return _Parser("commonmark", {"html": False}).enable(["table", "strikethrough"])


def slug(text: str) -> str:
    """The `id` a heading with this plain text gets, before repeats are numbered: lower case,
    punctuation dropped, each run of spaces one `-`; `section` when nothing is left.

    `Limits & costs` is `limits-costs`, `Étape 2` is `étape-2`.
    """
    kept = _NOT_IN_SLUG.sub("", text.lower()).strip()
    return _SPACES_IN_SLUG.sub("-", kept) or "section"


def _unique(base: str, used: set[str]) -> str:
    candidate, number = base, 1
    while candidate in used:
        number += 1
        candidate = f"{base}-{number}"
    used.add(candidate)
    return candidate


def _internal_address(href: str) -> tuple[str, str] | None:
    """The address and the fragment (with its `#`, or '') an internal link points to."""
    match = _INTERNAL.fullmatch(href)
    if match is None:
        return None
    return match["address"], match["fragment"] or ""


def _resolve(href: str, page_url: Callable[[str], str]) -> tuple[str, bool] | None:
    """Where a link goes and whether it leaves the wiki, or None for a link to drop."""
    if _EXTERNAL.match(href):
        return href, True
    if _MAILTO.match(href) or href.startswith("#"):
        return href, False
    internal = _internal_address(href)
    if internal is None:
        return None
    address, fragment = internal
    return page_url(address) + fragment, False


def _inline(children: list[Token], page_url: Callable[[str], str]) -> Iterator[Token]:
    kept: list[bool] = []  # for each open link: whether its tags are kept
    for token in children:
        if token.type == "link_open":
            target = _resolve(str(token.attrGet("href") or ""), page_url)
            kept.append(target is not None)
            if target is None:
                continue
            href, external = target
            title = token.attrGet("title")
            token.attrs = {"href": href}
            if title is not None:
                token.attrs["title"] = title
            if external:
                token.attrs["rel"] = EXTERNAL_REL
        elif token.type == "link_close":
            if kept and not kept.pop():
                continue
        elif token.type == "image" and not _IMAGE.match(str(token.attrGet("src") or "")):
            token = Token("text", "", 0, content=inline_tokens_text(token.children or []))
        yield token


def _prepare(tokens: list[Token], page_url: Callable[[str], str]) -> None:
    used_ids: set[str] = set()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            text = inline_tokens_text(tokens[index + 1].children or [])
            token.attrSet("id", _unique(slug(text), used_ids))
        elif token.type == "fence":
            words = token.info.split(maxsplit=1)
            language = words[0] if words else ""
            token.info = language if _LANGUAGE.fullmatch(language) else ""
        elif token.type in ("th_open", "td_open"):
            token.attrs.pop("style", None)
        elif token.type == "inline" and token.children:
            token.children = list(_inline(token.children, page_url))


def render(body: str, *, page_url: Callable[[str], str]) -> str:
    """A page's Markdown body as sanitised HTML.

    `page_url` turns an internal address without its fragment (`wiki:decisions/0024`) into the
    URL of that page (`/p/wiki/decisions/0024`); what it gives is trusted as a URL, still
    within the sanitiser's schemes. Raises nothing of its own; what `page_url` raises passes
    through.
    """
    parser = _parser()
    tokens = parser.parse(body)
    _prepare(tokens, page_url)
    html = parser.renderer.render(tokens, parser.options, {})
    # `url_schemes` is there from nh3 0.2.13 on; `rel` is ours, so nh3 adds none.
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_SCHEMES,
        link_rel=None,
    )


def internal_links(body: str) -> list[str]:
    """The internal addresses a body links to (`wiki:decisions/0024`, fragments left off), in
    the order they first appear, each once; the same links `render` resolves."""
    found: dict[str, None] = {}
    for token in _parser().parse(body):
        for child in token.children or []:
            if child.type == "link_open":
                internal = _internal_address(str(child.attrGet("href") or ""))
                if internal is not None:
                    found.setdefault(internal[0])
    return list(found)
