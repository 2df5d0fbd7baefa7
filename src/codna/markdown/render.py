"""A page's Markdown as sanitised HTML for the web UI, and the internal links it holds.

The body is read as CommonMark (markdown-it-py's "commonmark" preset) with tables and
strikethrough, and with raw HTML off: `<script>` written in a page is shown as text. Two
plugins of mdit-py-plugins add what teams write: footnotes (`[^note]` and `[^note]: text`, as
GitHub reads them: no inline `^[…]` notes) and task lists (`- [ ]`, `- [x]`: a disabled
checkbox, in a `<label>` with the item's text so it has a name). Between parsing and
rendering, one pass over the tokens decides what the HTML may hold:

- a heading gets an `id`, the slug of its text (`slug`); a slug met again, or one of the ids
  the caller keeps for the page around the body (`reserved`), gets `-2`, `-3` …
  (`heading_ids`); a footnote's ids (`fn:1`, `fnref:1`) hold a `:`, which no slug has, so the
  two never meet. A caller that renders a page in parts decides every heading's id over the
  whole page first and gives each part its own (`ids`): the HTML comes out with its final ids
  and anchors;
- a link is kept when its destination is `http:`, `https:` or `mailto:`, a fragment of the
  same page (`#limits`), an internal address: `space:path` with a space of `SPACES` and a
  page path (`wiki:decisions/0024-suggested-changes`, optionally with `#fragment`), or, when
  the caller names the page being rendered (`at`), a relative link to a page of the same
  space (`other`, `../home`, `./x`, `sub/page.md#part`: relative.py says how it resolves). An
  address goes through the caller's `page_url`, the fragment kept after it. `http:` and
  `https:` links get `rel="noopener noreferrer"`;
- every other destination keeps only the link's text. That covers every other scheme
  (`javascript:`, `data:`, `vbscript:`, `file:`, unknown ones, however spelled: markdown-it
  has decoded entities and percent-encoded the rest by then, and a scheme is only ever
  matched from an allow list), absolute paths (`/p/wiki/x`, `//host`), relative paths that
  climb above the space or hold what no page path holds (`%2e%2e`, `\\host`), an address
  too long to be a page's, and any relative path when `at` is not given;
- an image is kept when its source is `http:` or `https:`; otherwise its alt text stands;
- a fence's language is kept for `class="language-…"` only when it is a plain name
  (`python`, `c++`, `objective-c`); a fence in a language of highlight.LANGUAGES is
  highlighted on the server by Pygments, as spans with classes (markdown.css colours them),
  within highlight.py's budget of size and time; any other fence is plain escaped text;
- table cells lose markdown-it's `style="text-align:…"`: the page's CSP allows no inline
  style, so columns are not aligned;
- with `navigation` (a page's own view, where ids are kept), each heading ends with a link
  to itself (`<a class="anchor" href="#id" aria-label="Link to this section: …">`, shown on
  hover and focus), and a long page gets a table of contents before its first `##` heading
  (toc.py says when).

A render has a budget (RENDER_TOKENS tokens, RENDER_STEPS steps of work, BLOCK_AMPERSANDS
`&` in a block; so under RENDER_MEMORY bytes and a bounded time, whatever the body):
markdown-it's cost per byte varies a hundredfold with what the bytes are (table rows make a
token or more a character, `![` sends the inline parser looking ahead, and the sanitiser's
work grows with the square of the `&`s in a run of text). tests/hostile/test_bounded_render.py
holds the worst bodies to the budget and prints what each costs. Past the budget, the
top-level blocks that fitted are rendered and the rest is shown as written, escaped in a
`<pre>`; nesting is bounded by markdown-it's `maxNesting` (20, the CommonMark preset's). Two
plugin rules were quadratic and run bounded here: the task list rule looked for each item's
list from the start, and the footnote reference rule looked for a label's end from each `[^`
(labels are at most MOST_FOOTNOTE_LABEL characters here).

The HTML then goes through nh3 (Ammonia) with an allow list of exactly the tags, attributes
and classes that pass and the plugins can produce (an `<input>` is always made
`type="checkbox" disabled`), and only the `http`, `https` and `mailto` schemes (plus
relative URLs, which only `page_url` and same-page fragments give). The sanitiser is the
second wall, not the first: the token pass alone already refuses every link and attribute
above, and raw HTML never reaches the tokens.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import nh3
from markdown_it import MarkdownIt
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.table import table
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline, emphasis
from markdown_it.token import Token

from codna.markdown import highlight
from codna.markdown.headings import inline_tokens_text
from codna.markdown.plugins import use_plugins
from codna.markdown.relative import folder_of, resolve
from codna.markdown.toc import Heading, with_contents
from codna.vocabulary import MAX_PATH, SEGMENT, SPACES

# An internal address as markdown-it hands its destination over: entities decoded, anything
# outside URL characters percent-encoded. A folder (`wiki:decisions/`) is not a page to link.
_INTERNAL = re.compile(
    rf"(?P<address>(?:{'|'.join(SPACES)}):{SEGMENT}(?:/{SEGMENT})*)(?P<fragment>#.*)?",
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
    # a task's checkbox and its label, a footnote's reference and the list of footnotes,
    # the table of contents, and highlighted code
    *("input", "label", "sup", "section", "nav", "span"),
}
ALLOWED_ATTRIBUTES = {
    **{heading: {"id"} for heading in _HEADINGS},
    # `id` on a footnote's reference, `aria-label` on a heading's anchor and a footnote's
    # way back; a page's own links get neither (the token pass sets only href, title, rel).
    "a": {"href", "title", "rel", "id", "aria-label"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "li": {"id"},  # a footnote
    # Its value is only ever `language-` and a name the token pass checked.
    "code": {"class"},
    # The sanitiser sets `type="checkbox"` and `disabled` on every input (FORCED_ATTRIBUTES).
    "input": {"checked"},
    "section": {"aria-label"},
    "nav": {"aria-label"},
}
# The classes each tag may have; any other class is dropped.
ALLOWED_CLASSES = {
    "a": {"anchor", "footnote-backref"},
    "sup": {"footnote-ref"},
    "section": {"footnotes"},
    "ol": {"footnotes-list", "contains-task-list"},
    "ul": {"contains-task-list"},
    "li": {"footnote-item", "task-list-item"},
    "input": {"task-list-item-checkbox"},
    "nav": {"toc"},
    "p": {"toc-title"},
    "pre": {highlight.PRE_CLASS},
    "span": set(highlight.CLASSES),
}
FORCED_ATTRIBUTES = {"input": {"type": "checkbox", "disabled": "disabled"}}
ALLOWED_SCHEMES = {"http", "https", "mailto"}


# The budget of one render: tokens made (block and inline, in all; RENDER_MEMORY holds what
# they take while the page is laid out), and steps of work: each position the inline parser
# tries or skips over (its lookahead for a link's end included), and BLOCK_STEPS for each
# block it starts (a list item, a quoted line, a definition).
RENDER_TOKENS = 150_000
RENDER_STEPS = 1_000_000
BLOCK_STEPS = 4
# The most `&` one block's text may hold: the sanitiser takes time that grows with the square
# of the `&`s in one run of text.
BLOCK_AMPERSANDS = 20_000
RENDER_MEMORY = 128 * 1024 * 1024  # what the tests hold a render of the worst body to
_BUDGET = "codna_budget"
_REST_NOTE = (
    "<p>The rest of this page is too long or too intricate to lay out here; it is shown as "
    "written.</p>"
)


class _OverBudget(Exception):
    """A render passed its budget, in the block that starts on `line` (0-based) or within it."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


@dataclass
class _Budget:
    """What a render has spent: steps, and tokens outside the inline being parsed."""

    steps: int = 0
    tokens_before: int = 0
    blocks: list[Token] = field(default_factory=list)  # the block tokens, once made


def _budget(env: object) -> _Budget:
    """The budget of the parse `env` belongs to: each parse starts a fresh one."""
    assert isinstance(env, dict)
    budget = env.setdefault(_BUDGET, _Budget())
    assert isinstance(budget, _Budget)
    return budget


def _spend(budget: _Budget, steps: int, line: int) -> None:
    budget.steps += steps
    if budget.steps > RENDER_STEPS:
        raise _OverBudget(line)


def _block_budget(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """The first block rule, tried where each block starts: count the steps, and stop once
    the steps or the tokens pass the budget."""
    budget = _budget(state.env)
    budget.blocks = state.tokens
    _spend(budget, BLOCK_STEPS, start)
    if len(state.tokens) >= RENDER_TOKENS:
        raise _OverBudget(start)
    return False


def _table_within_budget(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """markdown-it's table rule, given only as many rows as the budget has tokens for: a row
    takes three tokens a column and two more, and the header's `|` bound its columns.

    It is also asked, on each line of a paragraph, whether a table starts there: that line
    costs BLOCK_STEPS, as a block does (a megabyte of `|x|` lines is one paragraph)."""
    _spend(_budget(state.env), BLOCK_STEPS, start)
    if silent or not table(state, start, end, True):
        return table(state, start, end, silent)
    columns = state.src.count("|", state.bMarks[start], state.eMarks[start]) + 1
    rows = (RENDER_TOKENS - len(state.tokens)) // (3 * columns + 2) - 1
    if rows < 2:
        raise _OverBudget(start)
    return table(state, start, min(end, start + rows), silent)


def _inline_budget(state: StateInline, silent: bool) -> bool:
    """The first inline rule, tried at each position the inline parser reaches (and at each
    it skips, which _InlineWithinBudget counts): count the step, and stop once the steps or
    the tokens pass the budget."""
    budget = _budget(state.env)
    if not silent:
        _spend(budget, 1, 0)
    if budget.tokens_before + len(state.tokens) > RENDER_TOKENS:
        raise _OverBudget(0)
    return False


def _emphasis_within_budget(state: StateInline, silent: bool) -> bool:
    """markdown-it's emphasis rule, refused a run of `*` or `_` that would pass the token
    budget: each character of a run is a delimiter kept until the inline text is parsed, and
    a run of a megabyte took three times RENDER_MEMORY in one step."""
    start = state.pos
    marker = state.src[start]
    if not silent and marker in "*_":
        end = start
        while end < state.posMax and state.src[end] == marker:
            end += 1
        budget = _budget(state.env)
        if budget.tokens_before + len(state.tokens) + len(state.delimiters) + end - start > (
            RENDER_TOKENS
        ):
            raise _OverBudget(0)
    return emphasis.tokenize(state, silent)


class _InlineWithinBudget(ParserInline):
    """markdown-it's inline parser, counting a step for each position it tries or skips.

    Skips are where the cost hides: the lookahead for a link's `]` skips over what follows,
    from the cache where it can, and a megabyte of `![` made some forty skips a byte."""

    def skipToken(self, state: StateInline) -> None:
        _spend(_budget(state.env), 1, 0)
        super().skipToken(state)


def _inline_within_budget(state: StateCore) -> None:
    """markdown-it's core rule that parses each block's inline text, keeping the count of
    the tokens made so far, and naming the block's line when the budget runs out."""
    budget = _budget(state.env)
    budget.tokens_before = len(state.tokens)
    for token in state.tokens:
        if token.content.count("&") > BLOCK_AMPERSANDS:
            raise _OverBudget(token.map[0] if token.map else 0)
        if token.type != "inline":
            continue
        token.children = []
        try:
            state.md.inline.parse(token.content, state.md, state.env, token.children)
        except _OverBudget:
            raise _OverBudget(token.map[0] if token.map else 0) from None
        budget.tokens_before += len(token.children)


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
    parser = _Parser("commonmark", {"html": False}).enable(["table", "strikethrough"])
    # The same parser and rules, with the skips counted: a subclass that adds no state.
    parser.inline.__class__ = _InlineWithinBudget
    parser.block.ruler.at("table", _table_within_budget, {"alt": ["paragraph", "reference"]})
    parser.block.ruler.before("table", "budget", _block_budget)
    parser.inline.ruler.before("text", "budget", _inline_budget)
    parser.inline.ruler.at("emphasis", _emphasis_within_budget)
    parser.core.ruler.at("inline", _inline_within_budget)
    use_plugins(parser)
    return parser


def _laid_out(body: str) -> tuple[list[Token], str]:
    """The tokens of as much of `body` as the budget lays out, whole top-level blocks from
    the start, and the rest of it (usually '')."""
    env: dict[str, object] = {}
    try:
        return _parser().parse(body, env), ""
    except _OverBudget as error:
        cut = _line_offset(body, _top_block_start(error, _budget(env).blocks))
    env.clear()  # the tokens made so far go before the blocks that fit are parsed again
    try:
        return (_parser().parse(body[:cut]) if cut else []), body[cut:]
    except _OverBudget:
        return [], body


def _top_block_start(error: _OverBudget, tokens: list[Token]) -> int:
    """The line the top-level block holding the line `error` names starts on."""
    starts = [
        token.map[0]
        for token in tokens
        if token.level == 0 and token.nesting >= 0 and token.map and token.map[0] <= error.line
    ]
    return max(starts, default=0)


def _line_offset(text: str, line: int) -> int:
    """Where the 0-based `line` of `text` starts."""
    offset = 0
    for _ in range(line):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return len(text)
    return offset


def slug(text: str) -> str:
    """The `id` a heading with this plain text gets, before repeats are numbered: lower case,
    punctuation dropped, each run of spaces one `-`; `section` when nothing is left.

    `Limits & costs` is `limits-costs`, `Étape 2` is `étape-2`.
    """
    kept = _NOT_IN_SLUG.sub("", text.lower()).strip()
    return _SPACES_IN_SLUG.sub("-", kept) or "section"


def unique_id(base: str, used: set[str], last: dict[str, int]) -> str:
    """`base`, or the first of `base-2`, `base-3` … not used yet. Each base's search starts
    after the number it last gave (the ones before are all used), so a page of 50,000 equal
    headings takes 50,000 steps, not a billion."""
    candidate, number = base, last.get(base, 1)
    while candidate in used:
        number += 1
        candidate = f"{base}-{number}"
    last[base] = number
    used.add(candidate)
    return candidate


def heading_ids(bases: Iterable[str], reserved: Iterable[str] = ()) -> list[str]:
    """The ids of a page's headings whose slugs are `bases`, in the page's order: each base
    as it is where it is free, else numbered (unique_id); the `reserved` ids (those the page
    around the body gives its own elements) are never free."""
    used: set[str] = set(reserved)
    last: dict[str, int] = {}
    return [unique_id(base, used, last) for base in bases]


class HeadingsDiffer(Exception):
    """The headings of a body are not those its ids were decided for (`ids`): a heading the
    scanner does not see (in a block quote, on a list marker's line), one it sees that is not
    rendered, or text it reads otherwise. The caller renders the page whole instead."""


# The id each heading of a body gets, by the 0-based line it starts on: (the slug of its
# text, its id).
HeadingIds = Mapping[int, tuple[str, str]]


def _internal_address(href: str) -> tuple[str, str] | None:
    """The address and the fragment (with its `#`, or '') an internal link points to."""
    match = _INTERNAL.fullmatch(href)
    if match is None or len(match["address"]) > MAX_PATH + len("output:"):
        return None
    return match["address"], match["fragment"] or ""


def _resolve(
    href: str, page_url: Callable[[str], str], folder: str | None
) -> tuple[str, bool] | None:
    """Where a link goes and whether it leaves the wiki, or None for a link to drop."""
    if _EXTERNAL.match(href):
        return href, True
    if _MAILTO.match(href) or href.startswith("#"):
        return href, False
    internal = _internal_address(href) or resolve(href, folder=folder)
    if internal is None:
        return None
    address, fragment = internal
    return page_url(address) + fragment, False


def _inline(
    children: list[Token], page_url: Callable[[str], str], folder: str | None
) -> Iterator[Token]:
    kept: list[bool] = []  # for each open link: whether its tags are kept
    for token in children:
        if token.type == "link_open":
            target = _resolve(str(token.attrGet("href") or ""), page_url, folder)
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


def _anchor(heading_id: str, text: str) -> list[Token]:
    """A heading's link to itself, shown on hover and focus (markdown.css)."""
    link = Token("link_open", "a", 1)
    link.attrs = {
        "class": "anchor",
        "href": f"#{heading_id}",
        "aria-label": f"Link to this section: {text}" if text else "Link to this section",
    }
    return [link, Token("text", "", 0, content="#"), Token("link_close", "a", -1)]


def _highlighted(token: Token, highlighter: highlight.Highlighter) -> None:
    """A fence in a language Pygments may highlight becomes its highlighted HTML."""
    shown = highlighter.html(token.content, token.info) if token.info else None
    if shown is not None:
        language = html.escape(token.info)
        token.type, token.content = (
            "html_block",
            (
                f'<pre class="{highlight.PRE_CLASS}"><code class="language-{language}">'
                f"{shown}</code></pre>\n"
            ),
        )


def _heading_id(token: Token, base: str, ids: HeadingIds) -> str:
    """The id decided for the heading `token` opens, whose text's slug is `base`."""
    given = ids.get(token.map[0]) if token.map else None
    if given is None or given[0] != base:
        raise HeadingsDiffer(token.map)
    return given[1]


def _prepare(
    tokens: list[Token],
    page_url: Callable[[str], str],
    folder: str | None,
    navigation: bool,
    ids: HeadingIds | None,
    reserved: Iterable[str],
) -> list[Heading]:
    """The token pass (the module's docstring says what it does); the headings, in order."""
    used_ids: set[str] = set(reserved)
    last_numbers: dict[str, int] = {}
    headings: list[Heading] = []
    highlighter = highlight.Highlighter()
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            inline = tokens[index + 1]
            text = inline_tokens_text(inline.children or [])
            if ids is None:
                heading_id = unique_id(slug(text), used_ids, last_numbers)
            else:
                heading_id = _heading_id(token, slug(text), ids)
            token.attrSet("id", heading_id)
            headings.append(Heading(int(token.tag[1]), heading_id, text, top=token.level == 0))
            if navigation:
                # Its own tokens, added once the heading's links are through _inline.
                inline.children = [
                    *_inline(inline.children or [], page_url, folder),
                    *_anchor(heading_id, text),
                ]
                inline.meta["prepared"] = True
        elif token.type == "fence":
            words = token.info.split(maxsplit=1)
            language = words[0] if words else ""
            token.info = language if _LANGUAGE.fullmatch(language) else ""
            _highlighted(token, highlighter)
        elif token.type in ("th_open", "td_open"):
            token.attrs.pop("style", None)
        elif token.type == "inline" and token.children and "prepared" not in token.meta:
            token.children = list(_inline(token.children, page_url, folder))
    return headings


@dataclass(frozen=True)
class Rendered:
    """A body as sanitised HTML, without its table of contents, and its headings."""

    html: str
    headings: list[Heading]


def render_parts(
    body: str,
    *,
    page_url: Callable[[str], str],
    at: str | None = None,
    navigation: bool = False,
    ids: HeadingIds | None = None,
    reserved: Iterable[str] = (),
) -> Rendered:
    """What render makes, before the table of contents goes in: for a caller that puts the
    HTML of a page together from its parts (codna.web.rendering).

    `ids` is the id each heading gets, decided by the caller (HeadingIds); without it, ids
    are made unique over the body, clear of `reserved`. Raises HeadingsDiffer when `ids` does
    not name exactly the headings rendered (those past the render budget aside).
    """
    body = body.replace("\r\n", "\n").replace("\r", "\n")  # the lines markdown-it counts
    tokens, rest = _laid_out(body)
    parser = _parser()
    folder = folder_of(at) if at else None
    headings = _prepare(tokens, page_url, folder, navigation, ids, reserved)
    if ids is not None:
        # Every heading rendered had its id; none of those laid out was left without one.
        laid_out = body.count("\n", 0, len(body) - len(rest)) if rest else len(body) + 1
        if len(headings) != sum(line < laid_out for line in ids):
            raise HeadingsDiffer(None)
    html_text = str(parser.renderer.render(tokens, parser.options, {}))
    cleaned = sanitise(html_text)
    if rest:
        # Text escaped whole, in an element of its own: nothing in it can be markup, so it
        # need not pass the sanitiser, whose time grows with the square of its `&`s.
        rest_html = html.escape(rest, quote=False)
        cleaned = f"{cleaned}{_REST_NOTE}<pre><code>{rest_html}</code></pre>"
    return Rendered(cleaned, headings)


def sanitise(html_text: str) -> str:
    """HTML with only what the allow lists name: tags, attributes, classes and schemes."""
    # `allowed_classes` is there from nh3 0.3 on; `rel` is ours, so nh3 adds none.
    return nh3.clean(
        html_text,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        set_tag_attribute_values=FORCED_ATTRIBUTES,
        url_schemes=ALLOWED_SCHEMES,
        link_rel=None,
    )


def render(
    body: str,
    *,
    page_url: Callable[[str], str],
    at: str | None = None,
    navigation: bool = False,
    reserved: Iterable[str] = (),
) -> str:
    """A page's Markdown body as sanitised HTML, within the render budget (the module's
    docstring says what is done past it).

    `page_url` turns an internal address without its fragment (`wiki:decisions/0024`) into the
    URL of that page (`/p/wiki/decisions/0024`); what it gives is trusted as a URL, still
    within the sanitiser's schemes. `at` is the address of the page the body is the text of:
    relative links resolve against its folder (without it they keep only their text).
    `navigation` gives each heading a link to itself and a long page its table of contents:
    for a page's own view, where heading ids are kept. `reserved` are ids the page around the
    body gives its own elements: no heading gets one. Raises nothing of its own; what
    `page_url` raises passes through.
    """
    made = render_parts(body, page_url=page_url, at=at, navigation=navigation, reserved=reserved)
    return with_contents(made.html, made.headings) if navigation else made.html


def internal_links(body: str) -> list[str]:
    """The internal addresses a body links to (`wiki:decisions/0024`, fragments left off), in
    the order they first appear, each once; the same links `render` resolves (so none in the
    part of a body past the render budget). Relative links are left out: outgoing.py finds
    them, with the page's address."""
    found: dict[str, None] = {}
    for token in _laid_out(body)[0]:
        for child in token.children or []:
            if child.type == "link_open":
                internal = _internal_address(str(child.attrGet("href") or ""))
                if internal is not None:
                    found.setdefault(internal[0])
    return list(found)
