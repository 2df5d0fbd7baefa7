"""`codna grants --log`: who changed which grant and when, as the services let each member
read it; `codna unshare` refused to one who could not give the grant."""

from __future__ import annotations

import json

from tests.cli.conftest import invoke


def test_grants_log_lists_each_change_newest_first_and_only_what_concerns_the_member(
    workspace: None,
) -> None:
    invoke(["share", "wiki:team/", "checker", "read", "--as", "ben@example.com"])
    invoke(["unshare", "wiki:team/", "checker", "--as", "ben@example.com"])
    log = json.loads(invoke(["grants", "--log", "--json"]).stdout)
    assert [(c["change"], c["changed_by"], c["member"], c["address"]) for c in log] == [
        ("taken_back", "ben@example.com", "checker", "wiki:team/"),
        ("given", "ben@example.com", "checker", "wiki:team/"),
        ("given", "ada@example.com", "checker", "wiki:decisions/"),
        ("given", "ada@example.com", "ben@example.com", "wiki"),
    ]
    text = invoke(["grants", "--log", "--limit", "1"]).stdout
    assert text.count("\n") == 1 and "taken back" in text
    assert "ben@example.com" in text and "read -> -" in text and "wiki:team/" in text
    # Ben made two and was given one; checker's responsible person is Ada, not Ben.
    bens = json.loads(invoke(["grants", "--log", "--json", "--as", "ben@example.com"]).stdout)
    assert len(bens) == 3


def test_unshare_by_one_who_could_not_give_the_grant_is_refused(workspace: None) -> None:
    invoke(["member", "add", "cy@example.com", "--name", "Cy"])
    invoke(["share", "wiki", "cy@example.com", "read"])
    refused = invoke(["unshare", "wiki:decisions/", "checker", "--as", "cy@example.com"], ok=False)
    assert refused.stderr == (
        "read_only: Only an admin or someone who can write all of wiki:decisions/ can take "
        "back what was given on it.\n"
    )
    assert json.loads(invoke(["grants", "--json", "--as", "checker"]).stdout) == [
        {"member": "checker", "address": "wiki:decisions/", "level": "read"}
    ]
