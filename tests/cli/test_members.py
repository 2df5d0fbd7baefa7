"""Whom a command acts as (`--as`), and whose tokens `codna token list` shows."""

from __future__ import annotations

import json

from tests.cli.conftest import invoke


def tokens_listed(*args: str) -> list[tuple[str, str]]:
    found = json.loads(invoke(["token", "list", "--json", *args]).stdout)
    return [(t["member"], t["name"]) for t in found]


def test_token_list_shows_ones_own_tokens_and_everyones_only_to_an_admin_asking_for_all(
    workspace: None,
) -> None:
    invoke(["token", "create", "ada@example.com", "--name", "ada-laptop"])
    invoke(["token", "create", "ben@example.com", "--name", "ben-laptop"])
    invoke(["token", "create", "checker", "--name", "checker-ci"])
    assert tokens_listed() == [("ada@example.com", "ada-laptop")]
    assert tokens_listed("--as", "ben@example.com") == [("ben@example.com", "ben-laptop")]
    assert tokens_listed("--all") == [
        ("ada@example.com", "ada-laptop"),
        ("ben@example.com", "ben-laptop"),
        ("checker", "checker-ci"),
    ]
    assert tokens_listed("checker") == [("checker", "checker-ci")]
    refused = invoke(["token", "list", "--all", "--as", "ben@example.com"], ok=False)
    assert refused.stderr == "read_only: Only an admin can list everyone's tokens.\n"
    both = invoke(["token", "list", "checker", "--all"], ok=False)
    assert both.stderr == "invalid_request: Give either MEMBER or --all, not both.\n"


def test_acting_as_a_disabled_member_is_refused_with_a_sentence_saying_they_are_disabled(
    workspace: None,
) -> None:
    invoke(["member", "disable", "ben@example.com"])
    for command in (["page", "list"], ["mcp"], ["token", "list"]):
        refused = invoke([*command, "--as", "ben@example.com"], ok=False)
        assert refused.stderr.startswith(
            "unauthenticated: ben@example.com is disabled and cannot act;"
        ), refused.stderr
    invoke(["member", "enable", "ben@example.com"])
    invoke(["page", "list", "--as", "ben@example.com"])
