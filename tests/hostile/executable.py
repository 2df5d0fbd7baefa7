"""What in an HTML page could run code, found with the standard library's HTML parser.

`findings(html)` lists each element or attribute that could: any `<script>` but the app's own
(`/static/htmx.min.js`, `/static/sse.js`, `/static/site.js`, `/static/inbox.js` and
`/static/editor.js`, with nothing inside), any `on…`
attribute, htmx's `hx-on` attributes and `js:` values, any URL attribute (href, src, action,
formaction, xlink:href, data, poster, background, …) whose value after character references are
decoded (the parser does it) and whitespace and control characters are taken out starts with
`javascript:`, `vbscript:` or `data:`, any `srcdoc`, any iframe, frame, object, embed, applet,
base, `meta http-equiv`, any `<style>` element or `style` attribute naming javascript,
expression() or behavior, any `<svg>` or `<math>` at all, and any comment, CDATA section or
processing instruction (CoDNA's pages hold none, so one is text that escaped the sanitiser,
script or not, and browsers end some comments earlier than this parser does).

The policy for `data:` is the strictest: no `data:` URL anywhere, an image's included. The
renderer keeps only `http:` and `https:` images, so no page has any.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

OWN_SCRIPTS = {
    "/static/htmx.min.js",
    "/static/sse.js",
    "/static/site.js",
    "/static/inbox.js",
    "/static/editor.js",
}
URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "data",
    "poster",
    "background",
    "cite",
    "codebase",
    "dynsrc",
    "lowsrc",
    "ping",
    "to",
    "values",
    "from",
}
RUNNING_SCHEMES = ("javascript:", "vbscript:", "data:")
NEVER = {"iframe", "frame", "frameset", "object", "embed", "applet", "base", "svg", "math"}
# What a browser drops from a URL before reading its scheme: every whitespace and control.
_IGNORED_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\u00a0\u1680\u2000-\u200b\u2028\u2029\u3000]")
_STYLE_RUNS = re.compile(r"javascript|vbscript|expression\s*\(|behavior|-moz-binding", re.I)


def runs_code(url: str) -> bool:
    """Whether a URL, as an attribute holds it (references decoded), would run code."""
    return _IGNORED_IN_URL.sub("", url).lower().startswith(RUNNING_SCHEMES)


class _Finder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._script: str | None = None  # the src of the open <script>
        self._style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._element(tag, attrs)
        if tag == "script":
            self._script = None

    def _element(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        shown = self.get_starttag_text() or tag
        if tag == "script":
            self._script = values.get("src", "")
            if self._script not in OWN_SCRIPTS:
                self.found.append(f"a script: {shown}")
        if tag == "style":
            self._style = True
        if tag in NEVER:
            self.found.append(f"a <{tag}>: {shown}")
        if tag == "meta" and "http-equiv" in values:
            self.found.append(f"a meta http-equiv: {shown}")
        for name, value in values.items():
            if name.startswith("on") or name.startswith(("hx-on", "data-hx-on")):
                self.found.append(f"an event attribute {name}: {shown}")
            elif name.startswith(("hx-", "data-hx-")) and value.strip().startswith("js:"):
                self.found.append(f"an htmx script value {name}: {shown}")
            elif name == "srcdoc":
                self.found.append(f"a srcdoc: {shown}")
            elif name in URL_ATTRIBUTES and runs_code(value):
                self.found.append(f"a {name} that runs code: {shown}")
            elif name == "style" and _STYLE_RUNS.search(value):
                self.found.append(f"a style attribute that runs code: {shown}")

    def handle_comment(self, data: str) -> None:
        # No page of CoDNA holds a comment: one is text that escaped, and browsers end some
        # comments earlier than this parser does (`<!-->`).
        self.found.append(f"a comment: {data[:80]!r}")

    def unknown_decl(self, data: str) -> None:
        self.found.append(f"a declaration: {data[:80]!r}")

    def handle_pi(self, data: str) -> None:
        self.found.append(f"a processing instruction: {data[:80]!r}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None
        if tag == "style":
            self._style = False

    def handle_data(self, data: str) -> None:
        if self._script is not None and data.strip():
            self.found.append(f"code inside a script: {data[:80]!r}")
        if self._style and _STYLE_RUNS.search(data):
            self.found.append(f"a style element that runs code: {data[:80]!r}")


def findings(html: str) -> list[str]:
    """Each element or attribute of `html` that could run code, described; empty if none."""
    finder = _Finder()
    finder.feed(html)
    finder.close()
    return finder.found
