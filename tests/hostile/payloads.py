"""Hostile text for the XSS tests: a few thousand payloads, made by combining families.

Each payload is a `Payload` with a name saying what it tries and its text. The families:

- URLs that run code: `javascript:`, `vbscript:` and `data:` (text/html, base64, SVG) spelled
  in every case, with character references (`&#106;`, `&#x6A;`, padded, without the `;`),
  tabs, newlines and control characters inside the scheme, leading spaces and controls,
  percent-encoding; each put where a URL goes: Markdown links and images (inline, with a
  title, in `<…>`), reference links with their definition, autolinks, and the raw HTML tags
  and attributes that take a URL (a, img, iframe, form action, button formaction, object,
  embed, base, meta refresh, SVG's xlink:href and `<set>`/`<animate>`);
- tags that run code: script in every case and disguise, event attributes (onerror, onload,
  onfocus with autofocus, ontoggle, onbegin, …), iframe srcdoc, SVG and MathML with script,
  animate, set and foreignObject, style with expression() and url(javascript:), comments and
  CDATA around any of them, and parser confusions (mutation XSS);
- text that breaks out of where a template puts it: quotes, backticks and `>` that end an
  attribute, end tags of title, textarea, pre and script, template syntax;
- each of the above also inside Markdown's own places: a heading, a list item, a table cell,
  a quote, emphasis, a link's text, a link's title, an image's alt, a fence's info string.

Every payload that would run sets `window.__xss` (or calls alert), so a browser test can tell.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

RUN = "window.__xss=1"  # what a payload's code does, for the browser to notice
ALERT = "alert(1)"
CODES = (RUN, ALERT, "top['al'+'ert'](1)", "window['__x'+'ss']=1")


@dataclass(frozen=True)
class Payload:
    """One hostile text: what it tries (`family/variant`) and the text itself."""

    name: str
    text: str


# -- schemes, spelled every way -----------------------------------------------------------


def _entities(word: str, style: str) -> str:
    if style == "dec":
        return "".join(f"&#{ord(c)};" for c in word)
    if style == "hex":
        return "".join(f"&#x{ord(c):X};" for c in word)
    if style == "hex-lower":
        return "".join(f"&#x{ord(c):x};" for c in word)
    if style == "padded":
        return "".join(f"&#{ord(c):07d}" for c in word)  # no `;`, zeros before
    if style == "no-semicolon":
        return "".join(f"&#x{ord(c):x}" for c in word)
    raise ValueError(style)


def _spellings(scheme: str) -> Iterator[tuple[str, str]]:
    """`scheme:` (without the colon in `scheme`) spelled to slip past a naive check."""
    word = scheme
    yield "plain", f"{word}:"
    yield "upper", f"{word.upper()}:"
    yield "mixed", "".join(c.upper() if i % 2 else c for i, c in enumerate(word)) + ":"
    yield "first-upper", word.capitalize() + ":"
    for style in ("dec", "hex", "hex-lower", "padded", "no-semicolon"):
        yield f"entities-{style}", _entities(word, style) + "&#58;"
    yield "first-entity", f"&#{ord(word[0])};{word[1:]}:"
    yield "first-hex-entity", f"&#x{ord(word[0]):X};{word[1:]}:"
    yield "colon-entity", f"{word}&colon;"
    yield "colon-hex", f"{word}&#x3A;"
    yield "tab-inside", f"{word[:4]}\t{word[4:]}:"
    yield "newline-inside", f"{word[:4]}\n{word[4:]}:"
    yield "cr-inside", f"{word[:4]}\r{word[4:]}:"
    yield "tab-entity", f"{word[:4]}&#9;{word[4:]}:"
    yield "newline-entity", f"{word[:4]}&#10;{word[4:]}:"
    yield "named-tab", f"{word[:4]}&Tab;{word[4:]}:"
    yield "named-newline", f"{word[:4]}&NewLine;{word[4:]}:"
    yield "nul-inside", f"{word[:4]}\x00{word[4:]}:"
    yield "leading-space", f" {word}:"
    yield "leading-controls", f"\x01\x02\x1f{word}:"
    yield "leading-entity-space", f"&#32;{word}:"
    yield "leading-nbsp", f"\u00a0{word}:"
    yield "percent-colon", f"{word}%3A"
    yield "percent-scheme", "".join(f"%{ord(c):02X}" for c in word) + ":"
    yield "fullwidth", "".join(chr(ord(c) + 0xFEE0) for c in word) + ":"


DATA_SPELLINGS = (
    "plain",
    "upper",
    "entities-dec",
    "tab-inside",
    "leading-space",
    "leading-controls",
)


def scheme_urls() -> Iterator[tuple[str, str]]:
    """(name, URL) for every scheme that runs code, every spelling, every code; a name is
    `scheme/spelling/what`."""
    for spelling, prefix in _spellings("javascript"):
        yield f"javascript/{spelling}/run", f"{prefix}{RUN}"
        yield f"javascript/{spelling}/comment", f"{prefix}//%0a{RUN}"
    for spelling, prefix in _spellings("vbscript"):
        yield f"vbscript/{spelling}/msgbox", f'{prefix}msgbox("x")'
    data = {
        "html": "text/html,<script>window.__xss=1</script>",
        "html-base64": "text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==",
        "svg": "image/svg+xml,<svg onload='window.__xss=1'/>",
        "svg-base64": "image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+",
        "js": "application/javascript,window.__xss=1",
        "image": "image/png;base64,iVBORw0KGgo=",
        "no-type": ",<script>window.__xss=1</script>",
    }
    for spelling, prefix in _spellings("data"):
        if spelling not in DATA_SPELLINGS:
            continue
        for kind, rest in data.items():
            yield f"data/{spelling}/{kind}", f"{prefix}{rest}"


# -- where a URL goes ----------------------------------------------------------------------

URL_PLACES: dict[str, Callable[[str], str]] = {
    "md-link": lambda u: f"[click me]({u})",
    "md-link-angle": lambda u: f"[click me](<{u}>)",
    "md-link-title": lambda u: f'[click me]({u} "a title")',
    "md-image": lambda u: f"![alt text]({u})",
    "md-reference": lambda u: f"[click me][r]\n\n[r]: {u}",
    "md-reference-title": lambda u: f'[click me][r]\n\n[r]: <{u}> "t"',
    "md-collapsed-reference": lambda u: f"[r][]\n\n[r]: {u}",
    "md-autolink": lambda u: f"<{u}>",
    "md-image-reference": lambda u: f"![alt][img]\n\n[img]: {u}",
    "a-href": lambda u: f'<a href="{u}">click</a>',
    "a-href-unquoted": lambda u: f"<a href={u}>click</a>",
    "img-src": lambda u: f'<img src="{u}">',
    "iframe-src": lambda u: f'<iframe src="{u}"></iframe>',
    "form-action": lambda u: f'<form action="{u}"><button>go</button></form>',
    "button-formaction": lambda u: f'<form><button formaction="{u}">go</button></form>',
    "object-data": lambda u: f'<object data="{u}"></object>',
    "embed-src": lambda u: f'<embed src="{u}">',
    "base-href": lambda u: f'<base href="{u}">',
    "meta-refresh": lambda u: f'<meta http-equiv="refresh" content="0;url={u}">',
    "svg-xlink": lambda u: f'<svg><a xlink:href="{u}"><text y="20">x</text></a></svg>',
    "svg-set": lambda u: f'<svg><a><set attributeName="href" to="{u}"/><text>x</text></a></svg>',
    "svg-animate": lambda u: (
        f'<svg><a><animate attributeName="href" values="{u}"/><text>x</text></a></svg>'
    ),
    "math-href": lambda u: f'<math><mtext href="{u}">x</mtext></math>',
    "link-import": lambda u: f'<link rel="import" href="{u}">',
    # relative links between pages, with a scheme disguised behind a path
    "md-relative": lambda u: f"[click me](./{u})",
    "md-relative-up": lambda u: f"[click me](../../../../{u})",
    "md-relative-reference": lambda u: f"[click me][r]\n\n[r]: sub/{u}",
}


# -- tags and attributes that run code ----------------------------------------------------

TAGS: dict[str, Callable[[str], str]] = {
    "script": lambda c: f"<script>{c}</script>",
    "script-upper": lambda c: f"<SCRIPT>{c}</SCRIPT>",
    "script-mixed": lambda c: f"<ScRiPt>{c}</sCrIpT>",
    "script-src-data": lambda c: f"<script src=data:,{c}></script>",
    "script-slash": lambda c: f"<script/x>{c}</script>",
    "script-split": lambda c: f"<scr<script>ipt>{c}</scr</script>ipt>",
    "script-unclosed": lambda c: f"<script>{c}",
    "img-onerror": lambda c: f"<img src=x onerror={c}>",
    "img-onerror-quoted": lambda c: f'<img src="x" onerror="{c}">',
    "img-onerror-slash": lambda c: f"<img/src=x/onerror={c}>",
    "img-onerror-entity": lambda c: f"<img src=x onerror=&#x61;lert(1)>{c}",
    "svg-onload": lambda c: f"<svg onload={c}>",
    "svg-onload-slash": lambda c: f"<svg/onload={c}>",
    "body-onload": lambda c: f"<body onload={c}>",
    "input-autofocus": lambda c: f"<input autofocus onfocus={c}>",
    "select-autofocus": lambda c: f"<select autofocus onfocus={c}></select>",
    "textarea-autofocus": lambda c: f"<textarea autofocus onfocus={c}></textarea>",
    "details-ontoggle": lambda c: f"<details open ontoggle={c}><summary>x</summary></details>",
    "video-source": lambda c: f"<video><source onerror={c}></video>",
    "audio-onerror": lambda c: f"<audio src=x onerror={c}>",
    "marquee": lambda c: f"<marquee onstart={c}>x</marquee>",
    "div-onmouseover": lambda c: f'<div onmouseover="{c}" style="position:fixed;inset:0">x</div>',
    "a-onclick": lambda c: f'<a href="#" onclick="{c}">x</a>',
    "iframe-srcdoc": lambda c: f'<iframe srcdoc="<script>{c}</script>"></iframe>',
    "iframe-srcdoc-entities": lambda c: (
        f'<iframe srcdoc="&lt;img src=x onerror=&quot;{c}&quot;&gt;"></iframe>'
    ),
    "svg-script": lambda c: f"<svg><script>{c}</script></svg>",
    "svg-script-href": lambda c: f'<svg><script href="data:,{c}"/></svg>',
    "svg-animate-onbegin": lambda c: (
        f'<svg><animate onbegin="{c}" attributeName="x" dur="1s"/></svg>'
    ),
    "svg-set-onbegin": lambda c: f'<svg><set onbegin="{c}" attributeName="x" to="1"/></svg>',
    "svg-foreignobject": lambda c: (
        f"<svg><foreignObject><iframe srcdoc='<script>{c}</script>'></iframe></foreignObject></svg>"
    ),
    "math-script": lambda c: (
        f"<math><maction actiontype=statusline><script>{c}</script></maction></math>"
    ),
    "math-mtext-mxss": lambda c: (
        "<math><mtext><table><mglyph><style>"
        f"<img src=x onerror={c}></style></mglyph></table></mtext></math>"
    ),
    "noscript-mxss": lambda c: f'<noscript><p title="</noscript><img src=x onerror={c}>">',
    "style-expression": lambda c: f"<style>body{{width:expression({c})}}</style>",
    "style-url": lambda c: f"<style>body{{background:url(javascript:{c})}}</style>",
    "style-import": lambda c: f"<style>@import 'javascript:{c}';</style>",
    "style-attribute": lambda c: f'<div style="background:url(javascript:{c})">x</div>',
    "style-attribute-expression": lambda c: f'<div style="width: expression({c})">x</div>',
    "comment-wrapped": lambda c: f"<!--<img src=x onerror={c}>-->",
    "comment-breakout": lambda c: f"<!-- --!><img src=x onerror={c}> -->",
    "comment-dash": lambda c: f"<!--><img src=x onerror={c}>-->",
    "cdata": lambda c: f"<![CDATA[<script>{c}</script>]]>",
    "cdata-svg": lambda c: f"<svg><![CDATA[><image xlink:href=x onerror={c}>]]></svg>",
    "object-html": lambda c: (
        f'<object type="text/html" data="data:text/html,<script>{c}</script>">'
    ),
    "embed-svg": lambda c: f'<embed src="data:image/svg+xml,<svg onload={c}>">',
    "form-button": lambda c: f'<form><button formaction="javascript:{c}">x</button></form>',
    "isindex": lambda c: f'<isindex type=image src=1 onerror="{c}">',
    "template-script": lambda c: f"<template><script>{c}</script></template>",
    "htmx-on": lambda c: f'<div hx-on:load="{c}" hx-get="/">x</div>',
    "htmx-vals": lambda c: f"<div hx-get='/' hx-trigger=load hx-vals='js:{{a:{c}}}'>x</div>",
    "xml-namespace": lambda c: (
        f'<html xmlns:x="http://www.w3.org/1999/xhtml"><x:script>{c}</x:script>'
    ),
}


# -- text that breaks out of where a template puts it -------------------------------------

BREAKOUTS: dict[str, Callable[[str], str]] = {
    "double-quote": lambda c: f'" onmouseover="{c}" x="',
    "double-quote-autofocus": lambda c: f'" autofocus onfocus="{c}" x="',
    "single-quote": lambda c: f"' onfocus='{c}' autofocus='",
    "backtick": lambda c: f"` onmouseover=`{c}` x=`",
    "gt-tag": lambda c: f'"><img src=x onerror={c}>',
    "gt-script": lambda c: f"'><script>{c}</script>",
    "end-title": lambda c: f"</title><script>{c}</script>",
    "end-textarea": lambda c: f"</textarea><script>{c}</script>",
    "end-pre": lambda c: f"</pre><img src=x onerror={c}>",
    "end-code": lambda c: f"</code></pre><svg onload={c}>",
    "end-script": lambda c: f"</script><script>{c}</script>",
    "end-style": lambda c: f"</style><script>{c}</script>",
    "end-option": lambda c: f"</option></select><img src=x onerror={c}>",
    "jinja": lambda c: "{{ 7*7 }}{% raw %}" + f"<script>{c}</script>" + "{% endraw %}",
    "template-literal": lambda c: "${" + c + "}`;" + c + ";`",
    "js-string": lambda c: f"';{c};//\";{c};//",
    "entity-lt": lambda c: f"&lt;script&gt;{c}&lt;/script&gt;",
    "double-entity": lambda c: f"&amp;lt;img src=x onerror={c}&amp;gt;",
    "unicode-lt": lambda c: f"\uff1cscript\uff1e{c}\uff1c/script\uff1e",
    "json-close": lambda c: f'"}}]</script><script>{c}</script>',
    "url-attribute": lambda c: f"javascript:{c}",
    "css-breakout": lambda c: f"red;}}</style><script>{c}</script>",
}


# -- Markdown's own places, around a payload ----------------------------------------------

WRAPPERS: dict[str, Callable[[str], str]] = {
    "alone": lambda p: p,
    "heading": lambda p: f"# {p}",
    "list-item": lambda p: f"- {p}",
    "table-cell": lambda p: f"| a | b |\n| - | - |\n| {p} | x |",
    "quote": lambda p: f"> {p}",
    "emphasis": lambda p: f"*{p}*",
    "link-text": lambda p: f"[{p}](https://example.com/)",
    "link-title": lambda p: f'[x](https://example.com/ "{p}")',
    "image-alt": lambda p: f"![{p}](https://example.com/a.png)",
    "fence-info": lambda p: f"```{p}\ncode\n```",
    "code-span": lambda p: f"`{p}`",
    "indented-html": lambda p: f"<div>\n\n{p}\n\n</div>",
    # task lists, footnotes, headings listed in a table of contents, highlighted fences
    "task-item": lambda p: f"- [ ] {p}\n- [x] {p}",
    "footnote-label": lambda p: f"Claim[^{p}]\n\n[^{p}]: note",
    "footnote-label-no-space": lambda p: (
        f"Claim[^{p.replace(' ', '')}]\n\n[^{p.replace(' ', '')}]: note"
    ),
    "footnote-body": lambda p: f"Claim[^n]\n\n[^n]: {p}",
    "contents-heading": lambda p: f"## {p}\n\n## {p}\n\n### {p}\n\n## b\n\n## c",
    "highlighted-fence": lambda p: f"```python\n{p}\n```\n\n```html\n{p}\n```",
    "fence-language-known": lambda p: f"```python {p}\ncode\n```",
    "relative-link-text": lambda p: f"[{p}](../other)",
    "relative-link-path": lambda p: f"[x](../{p.replace(' ', '%20')})",
}

# Relative destinations that must keep only their text, whatever page they are read from.
RELATIVE_TRAPS = (
    "../../../../../../etc/passwd",
    "%2e%2e/%2e%2e/%2e%2e/x",
    "%2E%2E%2F%2E%2E%2Fx",
    "..%2f..%2fx",
    "\\\\host/share",
    "\\/evil.example",
    "//evil.example/x",
    "///evil.example",
    "/\\evil.example",
    "./javascript:alert(1)",
    "javascript:alert(1)//.md",
    "java%0ascript:alert(1)",
    "&#46;&#46;/&#46;&#46;/x",
    ".&#x2e;/x",
    "sub/..%00/x",
    "x.md%00.html",
    "a/../../../../../b",
)


def _tag_payloads() -> Iterator[Payload]:
    for tag, make in TAGS.items():
        for n, code in enumerate(CODES):
            yield Payload(f"tag/{tag}-{n}", make(code))


def _breakout_payloads() -> Iterator[Payload]:
    for breakout, make in BREAKOUTS.items():
        for n, code in enumerate(CODES):
            yield Payload(f"breakout/{breakout}-{n}", make(code))


def _url_payloads() -> Iterator[Payload]:
    for url_name, url in scheme_urls():
        for place, make in URL_PLACES.items():
            yield Payload(f"url/{place}/{url_name}", make(url))


def _relative_payloads() -> Iterator[Payload]:
    for n, trap in enumerate(RELATIVE_TRAPS):
        yield Payload(
            f"relative/link-{n}", f"[click me]({trap}) and [again][r{n}]\n\n[r{n}]: {trap}"
        )


def all_payloads() -> list[Payload]:
    """Every payload, in a fixed order: tags, breakouts, URLs and relative links alone, then
    the tags and breakouts inside each Markdown place."""
    found: list[Payload] = [
        *_tag_payloads(),
        *_breakout_payloads(),
        *_url_payloads(),
        *_relative_payloads(),
    ]
    inner = [*_tag_payloads(), *_breakout_payloads()]
    for wrapper, wrap in WRAPPERS.items():
        if wrapper == "alone":
            continue
        found.extend(
            Payload(f"{p.name}@{wrapper}", wrap(p.text)) for p in inner if p.name.endswith("-0")
        )
    return found


def kinds(payload: Payload) -> set[str]:
    """The families a payload stands for: its tag or breakout, or its URL's place, scheme,
    spelling and what it does; and the Markdown place around it."""
    head, _, wrapper = payload.name.partition("@")
    family, _, rest = head.partition("/")
    if family == "url":
        place, scheme, spelling, what = rest.split("/")
        found = {f"place/{place}", f"scheme/{scheme}", f"spelling/{spelling}", f"what/{what}"}
    else:
        found = {f"{family}/{rest.rsplit('-', 1)[0]}"}
    return found | {f"wrapper/{wrapper}"} if wrapper else found


def sample(count: int, *, seed: int = 2026) -> list[Payload]:
    """`count` payloads drawn the same way each run: first, greedily, the fewest that stand
    for every family (each tag, breakout, URL place, scheme, spelling and Markdown place),
    then the rest at random."""
    every = all_payloads()
    if count >= len(every):
        return every
    chosen: list[Payload] = []
    covered: set[str] = set()
    while len(chosen) < count:
        best = max(every, key=lambda p: len(kinds(p) - covered))
        if not kinds(best) - covered:
            break
        covered |= kinds(best)
        chosen.append(best)
    taken = {p.name for p in chosen}
    rest = [p for p in every if p.name not in taken]
    chosen.extend(random.Random(seed).sample(rest, count - len(chosen)))
    return chosen


BROWSER_SPELLINGS = ("plain", "entities-dec", "tab-inside", "leading-space", "named-newline")
BROWSER_PLACES = ("md-link", "md-link-angle", "md-reference", "md-autolink", "md-image")


def nastiest() -> list[Payload]:
    """The payloads a browser test loads: every tag and breakout that sets `window.__xss`,
    and `javascript:` in the spellings and Markdown places most likely to reach an href; none
    with a control character (the services refuse those) or a link to load from outside."""
    chosen = [p for p in [*_tag_payloads(), *_breakout_payloads()] if p.name.endswith("-0")]
    for url_name, url in scheme_urls():
        scheme, spelling, what = url_name.split("/")
        if scheme == "javascript" and what == "run" and spelling in BROWSER_SPELLINGS:
            chosen.extend(
                Payload(f"url/{p}/{url_name}", URL_PLACES[p](url)) for p in BROWSER_PLACES
            )
    return chosen
