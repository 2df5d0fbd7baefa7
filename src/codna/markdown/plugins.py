"""The plugins of mdit-py-plugins a page's Markdown is read with, bounded and named as the
renderer needs (render.py's docstring says why): footnotes and task lists.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import footnote_ref
from mdit_py_plugins.tasklists import tasklists_plugin

# A footnote's label, at most this long: the plugin looks for a reference's `]` up to the
# end of the text, from each `[^`, which a megabyte of `[^` would make quadratic.
MOST_FOOTNOTE_LABEL = 100
_FOOTNOTE_REFERENCE = re.compile(rf"\[\^[^ \n\]]{{1,{MOST_FOOTNOTE_LABEL}}}\]")


def _footnote_reference(state: StateInline, silent: bool) -> bool:
    """The footnote plugin's rule for a reference (`[^note]`), tried only where one of at
    most MOST_FOOTNOTE_LABEL characters starts."""
    if not state.src.startswith("[^", state.pos):
        return False
    if _FOOTNOTE_REFERENCE.match(state.src, state.pos, state.posMax) is None:
        return False
    return footnote_ref(state, silent)


def _task_items(mark: Callable[[StateCore], None], state: StateCore) -> None:
    """The task list plugin's rule, given each list item alone with its list.

    The plugin looks for each task item's list by walking back over every token before it,
    so a list of a hundred thousand tasks took hours; this pass keeps the open lists instead
    and lets the plugin mark one item at a time (its checkbox and label, and the classes)."""
    tokens = state.tokens
    lists: list[Token] = []
    for index, token in enumerate(tokens):
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists.append(token)
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif (
            token.type == "list_item_open"
            and lists
            and index + 3 < len(tokens)
            and tokens[index + 1].type == "paragraph_open"
            and tokens[index + 2].type == "inline"
            and tokens[index + 2].content.startswith("[")
        ):
            mark(StateCore("", state.md, state.env, [lists[-1], *tokens[index : index + 4]]))


def _footnote_name(
    self: object, tokens: list[Token], idx: int, options: object, env: object
) -> str:
    """What follows `fn` and `fnref` in a footnote's ids: `:1`, so `fn:1`. A heading's id is
    a slug, which has no `:`, so the two never meet."""
    return f":{tokens[idx].meta['id'] + 1}"


def _footnotes_open(
    self: object, tokens: list[Token], idx: int, options: object, env: object
) -> str:
    return '<section class="footnotes" aria-label="Footnotes">\n<ol class="footnotes-list">\n'


def _footnote_way_back(
    self: object, tokens: list[Token], idx: int, options: object, env: object
) -> str:
    """The link from a footnote back to its reference (the n-th one, when several)."""
    meta = tokens[idx].meta
    number, again = meta["id"] + 1, meta["subId"]
    target = f"fnref:{number}" + (f":{again}" if again else "")
    label = f"Back to reference {number}" + (f" ({again + 1})" if again else "")
    return f' <a href="#{target}" class="footnote-backref" aria-label="{label}">\u21a9\ufe0e</a>'


def use_plugins(parser: MarkdownIt) -> None:
    """Footnotes as GitHub reads them (no inline `^[…]` notes), and task lists whose
    checkboxes are disabled, each in a label with its text so it has a name."""
    parser.use(footnote_plugin, inline=False)
    parser.inline.ruler.at("footnote_ref", _footnote_reference)
    parser.add_render_rule("footnote_anchor_name", _footnote_name)
    parser.add_render_rule("footnote_block_open", _footnotes_open)
    parser.add_render_rule("footnote_anchor", _footnote_way_back)
    parser.use(tasklists_plugin, label=True)
    rules = parser.core.ruler.__rules__
    mark = rules[parser.core.ruler.__find__("github-tasklists")].fn
    parser.core.ruler.at("github-tasklists", functools.partial(_task_items, mark))
