"""The change as the page will read: two renderings merged, inserted words in <ins> and
deleted ones in <del>, as well formed as the new page, and trimmed to what changed."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given, settings
from hypothesis import strategies as st

from codna.markdown.render import render
from codna.markdown.rendered_diff import Block, around_changes, rendered_diff


def _html(markdown: str) -> str:
    return render(markdown, page_url=lambda address, **_: "/p/" + address)


def _merged(old: str, new: str) -> str:
    return "".join(block.html for block in rendered_diff(_html(old), _html(new)))


class _Nesting(HTMLParser):
    """Fails on a closing tag that closes something else than the last one opened."""

    VOID = frozenset({"br", "hr", "img", "input", "col", "area", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"


def _well_formed(html: str) -> None:
    nesting = _Nesting()
    nesting.feed(html)
    nesting.close()
    assert not nesting.open, f"left open: {nesting.open}"


def test_a_word_inserted_in_a_paragraph_is_marked_inside_it() -> None:
    merged = _merged("The team's wiki.\n", "The team's shared wiki.\n")
    assert merged == "<p>The team's <ins>shared</ins> wiki.</p>"


def test_a_changed_table_cell_stays_in_its_cell() -> None:
    old = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    new = "| a | b |\n|---|---|\n| 1 | 3 |\n"
    merged = _merged(old, new)
    assert "<td><del>2</del><ins>3</ins></td>" in merged
    assert merged.endswith("</table>")  # nothing trails after the table


def test_whole_blocks_added_or_removed_are_wrapped_whole() -> None:
    merged = rendered_diff(_html("Keep.\n\nGone.\n\nEnd.\n"), _html("Keep.\n\nEnd.\n\n## New\n"))
    assert [b.html for b in merged if b.changed] == [
        '<del class="block"><p>Gone.</p></del>',
        '<ins class="block"><h2>New</h2></ins>',
    ]


def test_a_deleted_list_item_keeps_its_item_and_a_removed_word_its_place() -> None:
    merged = _merged("- one\n- two\n- three\n", "- one\n- three\n")
    assert "<li><del>two</del></li>" in merged
    _well_formed(merged)


def test_entities_and_escaped_text_are_never_split_or_unescaped() -> None:
    merged = _merged("Fish & chips <b>.\n", "Fish & salad <b>.\n")
    assert "&amp;" in merged and "&lt;b&gt;" in merged and "<b>" not in merged
    assert "<del>chips</del><ins>salad</ins>" in merged


def test_only_blocks_near_a_change_are_kept_around_it() -> None:
    blocks = [Block(str(i), changed=i in (2, 7)) for i in range(10)]
    shown = around_changes(blocks)
    assert [b.html if b else None for b in shown] == ["1", "2", "3", None, "6", "7", "8"]


_TEXT = st.lists(
    st.sampled_from(
        [
            "Alpha beta.",
            "# Head",
            "## Sub",
            "- item one",
            "- item two",
            "> quote",
            "`code`",
            "| a | b |\n|---|---|\n| 1 | 2 |",
            "*em* and **strong**",
            "1. first",
            "Gamma & delta.",
        ]
    ),
    max_size=8,
).map("\n\n".join)


@settings(max_examples=150, deadline=None)
@given(_TEXT, _TEXT)
def test_any_merge_is_as_well_formed_as_the_new_page(old: str, new: str) -> None:
    merged = _merged(old, new)
    _well_formed(merged)
    # Taking the marks out, with what they deleted, leaves the new page's text.
    kept = _merged(new, new)
    assert "<ins>" not in kept and "<del>" not in kept


def test_a_paragraph_rewritten_whole_is_shown_deleted_then_inserted_never_woven() -> None:
    merged = _merged("Plain text.\n", "Something else entirely, with more words.\n")
    assert merged == (
        '<del class="block"><p>Plain text.</p></del>'
        '<ins class="block"><p>Something else entirely, with more words.</p></ins>'
    )
