"""Relative links between pages resolve against the page's folder, within its space."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codna.markdown.relative import folder_of, resolve

AT = "wiki:decisions/0024"


@pytest.mark.parametrize(
    ("address", "folder"),
    [
        ("wiki:decisions/0024", "wiki:decisions"),
        ("wiki:home", "wiki:"),
        ("raw:a/b/c", "raw:a/b"),
        ("wiki:", None),
        ("wiki:a/", None),
        ("nowhere:a", None),
    ],
)
def test_a_pages_folder_is_its_address_without_its_last_segment(
    address: str, folder: str | None
) -> None:
    assert folder_of(address) == folder


@pytest.mark.parametrize(
    ("destination", "resolved"),
    [
        ("other", ("wiki:decisions/other", "")),
        ("./x", ("wiki:decisions/x", "")),
        ("../home", ("wiki:home", "")),
        ("sub/page", ("wiki:decisions/sub/page", "")),
        ("other.md", ("wiki:decisions/other", "")),
        ("other.MD#limits", ("wiki:decisions/other", "#limits")),
        ("../guides/./start.md#step-2", ("wiki:guides/start", "#step-2")),
        ("a/../b", ("wiki:decisions/b", "")),
        ("v1.2-notes", ("wiki:decisions/v1.2-notes", "")),
    ],
)
def test_a_relative_destination_resolves_against_the_pages_folder(
    destination: str, resolved: tuple[str, str]
) -> None:
    assert resolve(destination, folder=folder_of(AT)) == resolved


@pytest.mark.parametrize(
    "destination",
    [
        "../../home",  # above the space
        "../../../../etc/passwd",
        "/p/wiki/x",  # absolute
        "//evil.example/x",
        "%2e%2e/%2e%2e/x",  # as markdown-it keeps it: a `%` is no page path's
        "%5Chost/x",  # `\host`, percent-encoded by markdown-it
        "..",  # a folder
        "../",
        "sub/",
        ".",
        "",
        "#limits",  # a fragment is the same page, not a relative link
        "other?x=1",
        "a//b",
        ".hidden",
        "-dash",
        "java%0ascript:alert(1)",
        "javascript:alert(1)",
        "a b",
        "x/" + "a" * 501,
    ],
)
def test_what_is_not_a_page_of_the_space_does_not_resolve(destination: str) -> None:
    assert resolve(destination, folder=folder_of(AT)) is None


def test_nothing_resolves_without_the_pages_address() -> None:
    assert resolve("other", folder=None) is None
    assert resolve("other", folder=folder_of("not an address")) is None


def test_a_link_from_a_page_at_the_top_of_its_space_stays_in_it() -> None:
    assert resolve("other", folder="wiki:") == ("wiki:other", "")
    assert resolve("../other", folder="wiki:") is None


@given(st.text(alphabet="./a%:#\\-_", max_size=60))
def test_whatever_resolves_is_a_page_of_the_same_space(destination: str) -> None:
    found = resolve(destination, folder="raw:x/y")
    if found is not None:
        address, fragment = found
        assert address.startswith("raw:") and folder_of(address) is not None
        assert ".." not in address.split("/") and "." not in address.split("/")
        assert fragment == "" or fragment.startswith("#")
