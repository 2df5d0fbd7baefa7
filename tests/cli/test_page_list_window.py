"""`codna page list` lists a window of pages by address with --limit and --offset, and says
how to see more when the window is full."""

from __future__ import annotations

import json

from tests.cli.conftest import invoke


def addresses(*options: str) -> list[str]:
    listed = json.loads(invoke(["page", "list", "wiki:win/", "--json", *options]).stdout)
    return [page["address"] for page in listed]


def test_page_list_takes_a_window_and_says_how_to_see_more(workspace: None) -> None:
    made = [f"wiki:win/p{n}" for n in range(3)]
    for address in made:
        invoke(["page", "create", address, "--title", "P", "--body-file", "-"], stdin="Text.\n")
    assert addresses() == made
    assert addresses("--limit", "2") == made[:2]
    assert addresses("--limit", "2", "--offset", "2") == made[2:]
    shown = invoke(["page", "list", "wiki:win/", "--limit", "2"]).stdout.splitlines()
    assert shown[-1] == "There may be more: give --offset 2."
    whole = invoke(["page", "list", "wiki:win/"]).stdout
    assert len(whole.splitlines()) == 3 and "more" not in whole
