"""`codna share`, `codna unshare` and `codna grants [--log]`: who may read and write what, and
the record of every change of a grant."""

from __future__ import annotations

from collections.abc import Callable

import click

from codna.cli.output import Out, command_options
from codna.services.members import access, grant_changes
from codna.services.members.grant_changes import CHANGES, GrantChange
from codna.services.members.members import Member


@click.command()
@click.argument("address")
@click.argument("member_handle", metavar="MEMBER")
@click.argument("level", type=click.Choice(["read", "write"]))
@command_options
def share(
    address: str, member_handle: str, level: str, out: Out, actor: Callable[[], Member]
) -> None:
    """Give MEMBER read or write on a space, a folder (wiki:decisions/) or a page."""
    grant = access.share(actor(), address=address, member=member_handle, level=level)
    out.result(grant, f"{grant.member} may {grant.level} {grant.address}.")


@click.command()
@click.argument("address")
@click.argument("member_handle", metavar="MEMBER")
@command_options
def unshare(address: str, member_handle: str, out: Out, actor: Callable[[], Member]) -> None:
    """Take back what MEMBER was given on ADDRESS (whoever could give it may)."""
    access.unshare(actor(), address=address, member=member_handle)
    out.result({"address": address, "member": member_handle}, f"Unshared {address}.")


def show_change(c: GrantChange) -> str:
    levels = f"{c.before or '-'} -> {c.after or '-'}"
    return (
        f"{c.changed_at:%Y-%m-%d %H:%M:%S}  {c.changed_by:28} {c.change.replace('_', ' '):10} "
        f"{levels:15} "
        f"{c.address:40} {c.member}"
    )


@click.command("grants")
@click.option("--log", is_flag=True, help="List the changes of grants instead, newest first.")
@click.option("--limit", default=CHANGES.default, show_default=True, help="With --log.")
@click.option("--offset", default=0, show_default=True, help="With --log.")
@command_options
def grants_list(log: bool, limit: int, offset: int, out: Out, actor: Callable[[], Member]) -> None:
    """List grants (all for an admin, your own otherwise); with --log, who changed which grant
    and when (all for an admin; otherwise the changes you made, those of your grants and those
    of the agents you are responsible for)."""
    if log:
        changes = grant_changes.list_grant_changes(actor(), limit=limit, offset=offset)
        out.result(changes, lambda: "\n".join(map(show_change, changes)) or "No changes.")
        return
    found = access.list_grants(actor())
    out.result(found, lambda: "\n".join(f"{g.level:5} {g.address:40} {g.member}" for g in found))
