"""Text CoDNA quotes into Markdown reads as the text it is: whatever a title, an anchor or a
reason holds, parsed as the wiki parses it, it is one paragraph (or list item) of exactly that
text, and a link made of it points at its target and nowhere else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from codna.markdown.escape import link_destination, markdown_link, markdown_text
from codna.markdown.render import _parser

# Markup characters, weighted in, and any other printable text.
MARKUP = "\\`*_[]<>&~|!()#>+=-.:0123456789 \t\n"
texts = st.text(
    alphabet=st.one_of(st.sampled_from(MARKUP), st.characters(codec="utf-8", categories=["L"])),
    max_size=40,
)
targets = st.text(alphabet=st.sampled_from("wiki:abc/-_ ()<>\\\"'[]"), min_size=1, max_size=30)


def _inline_children(markdown: str) -> list[Token]:
    """The inline tokens of the one block `markdown` makes; fails if it makes another block."""
    tokens = _parser().parse(markdown)
    kinds = [t.type for t in tokens if t.type != "inline"]
    assert kinds in (
        ["paragraph_open", "paragraph_close"],
        ["bullet_list_open", "list_item_open", "paragraph_open", "paragraph_close",
         "list_item_close", "bullet_list_close"],
    ), (markdown, kinds)  # fmt: skip
    (inline,) = [t for t in tokens if t.type == "inline"]
    return inline.children or []


def _plain(children: list[Token]) -> str:
    return "".join(c.content for c in children if c.type in ("text", "code_inline"))


@settings(max_examples=400)
@given(texts.filter(lambda t: t.split()), st.sampled_from(["", "- ", "Said: "]))
def test_quoted_text_is_exactly_its_text(text: str, before: str) -> None:
    children = _inline_children(before + markdown_text(text))
    assert {c.type for c in children} <= {"text", "softbreak"}
    assert _plain(children) == before.removeprefix("- ") + " ".join(text.split())


@settings(max_examples=400)
@given(texts.filter(lambda t: t.split()), targets.filter(lambda t: t.strip() == t))
def test_a_link_shows_its_label_and_points_at_its_target(label: str, target: str) -> None:
    children = _inline_children(f"- {markdown_link(label, target)}: why")
    opens = [c for c in children if c.type == "link_open"]
    assert len(opens) == 1, children
    kinds = [c.type for c in children]
    assert kinds[0] == "link_open"
    closing = kinds.index("link_close")
    assert _plain(children[1:closing]) == " ".join(label.split())
    assert _parser().normalizeLink(target) == opens[0].attrGet("href")


def test_a_title_cannot_open_a_link_of_its_own() -> None:
    made = markdown_link("Evil](https://evil.example) [x", "wiki:decisions/0002")
    children = _inline_children(made)
    hrefs = [c.attrGet("href") for c in children if c.type == "link_open"]
    assert hrefs == ["wiki:decisions/0002"]
    assert link_destination("wiki:a b)") == "wiki:a%20b\\)"
