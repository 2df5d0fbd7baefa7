"""How commands print: text for people, `--json` for scripts, refusals as code and sentence."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import wraps
from typing import Any, TypeVar

import click

from codna.errors import CodnaError, NotFound, Unauthenticated
from codna.services import context
from codna.services.members import members
from codna.services.members.members import Member

F = TypeVar("F", bound=Callable[..., Any])


def plain(value: Any) -> Any:
    """Dataclasses, tuples and datetimes as JSON-ready values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


class Out:
    """What one command prints, in the form its caller asked for."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def result(self, value: Any, text: str | Callable[[], str]) -> None:
        if self.as_json:
            click.echo(json.dumps(plain(value), indent=2, ensure_ascii=False))
        else:
            click.echo(text() if callable(text) else text)


@contextmanager
def refusals(as_json: bool) -> Iterator[None]:
    """Turn a domain error into a non-zero exit with its code and sentence."""
    try:
        yield
    except CodnaError as error:
        if as_json:
            click.echo(json.dumps({"error": error.as_dict()}, ensure_ascii=False))
        click.echo(f"{error.code}: {error.message}", err=True)
        sys.exit(1)


def command_options(func: F) -> F:
    """`--json` and `--as` on a command; passes `out` and `actor` (a lazy lookup) to it."""

    @click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
    @click.option(
        "--as",
        "as_member",
        metavar="EMAIL",
        envvar="CODNA_AS",
        help="Act as this member (an e-mail or an agent's name); default: the first admin.",
    )
    @wraps(func)
    def wrapper(*args: Any, as_json: bool, as_member: str | None, **kwargs: Any) -> Any:
        with refusals(as_json):
            require_workspace()
            return func(*args, out=Out(as_json), actor=lambda: acting(as_member), **kwargs)

    return wrapper  # type: ignore[return-value]


def acting(handle: str | None) -> Member:
    """The member a command acts as. Whoever runs the command holds the database already, so
    naming a member is enough; without `--as` it is the workspace's first admin."""
    if not handle:
        return members.first_admin()
    member = members.member_by_handle(handle)
    if member.disabled:
        raise Unauthenticated(
            f"{member.handle} is disabled and cannot act; an admin can enable them with "
            f"`codna member enable {member.handle}`.",
            member=member.handle,
        )
    return member


def require_workspace() -> None:
    """Open the workspace a command works on, creating nothing. Raises NotFound, saying where
    it looked and how to choose another database or make one there."""
    try:
        context.open_workspace()
    except NotFound as error:
        default = (
            ""
            if os.environ.get("CODNA_DATABASE_URL")
            else " CODNA_DATABASE_URL is not set, so that is the default: data/codna.db under "
            "the current folder."
        )
        raise NotFound(
            f"{error.message}{default} Set CODNA_DATABASE_URL to your workspace's database, "
            "or run `codna init` to make a workspace there.",
            **error.fields,
        ) from None
