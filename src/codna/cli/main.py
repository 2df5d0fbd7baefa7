"""`codna`: the workspace, its members and sharing; pages live in `codna page`."""

from __future__ import annotations

from collections.abc import Callable

import click

from codna import worker as outbox_worker
from codna.cli import suggestions as suggestions_cli
from codna.cli.automations import automation
from codna.cli.backup import backup
from codna.cli.check import check
from codna.cli.output import Out, command_options, refusals
from codna.cli.pages import page, show_history, show_page
from codna.cli.routines import routine
from codna.cli.server import mcp_stdio, serve, token, worker
from codna.cli.sharing import grants_list, share, unshare
from codna.cli.skill import skill
from codna.cli.transfer import export, import_
from codna.services import context
from codna.services.admin import demo
from codna.services.events import automations
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.pages import pages, revisions, search
from codna.services.suggestions import changes
from codna.vocabulary import SPACES


@click.group()
@click.version_option(package_name="codna")
def cli() -> None:
    """CoDNA: a Markdown wiki for a team and its agents. Every command works on the
    workspace in CODNA_DATABASE_URL (default: the SQLite file data/codna.db); only `init` and
    `demo` make one."""


cli.add_command(page)
cli.add_command(serve)
cli.add_command(mcp_stdio)
cli.add_command(token)
cli.add_command(import_)
cli.add_command(export)
cli.add_command(automation)
cli.add_command(worker)
cli.add_command(skill)
cli.add_command(routine)
cli.add_command(check)
for _sharing in (share, unshare, grants_list):
    cli.add_command(_sharing)
cli.add_command(backup)
for _command in (
    suggestions_cli.suggest,
    suggestions_cli.list_,
    suggestions_cli.decide,
    suggestions_cli.withdraw,
):
    cli.add_command(_command)


@cli.command()
@click.option("--admin-email", required=True)
@click.option("--admin-password", required=True)
@click.option("--admin-name", default="Admin", show_default=True)
@click.option("--json", "as_json", is_flag=True)
def init(admin_email: str, admin_password: str, admin_name: str, as_json: bool) -> None:
    """Make the workspace (its database, if need be) and its first admin."""
    with refusals(as_json):
        context.database()  # opens the configured database, making it if it is not there
        admin = members.init_workspace(
            admin_email=admin_email, admin_password=admin_password, admin_name=admin_name
        )
        where = context.location()
        Out(as_json).result(
            {"admin": admin, "database": where.url},
            f"Made the workspace at {where}; {admin.email} is its admin.",
        )


@cli.group()
def member() -> None:
    """People: add, list, disable."""


@member.command("add")
@click.argument("email")
@click.option("--name", required=True)
@click.option("--password")
@click.option("--admin", is_flag=True)
@command_options
def member_add(
    email: str, name: str, password: str | None, admin: bool, out: Out, actor: Callable[[], Member]
) -> None:
    """Add a person."""
    added = members.add_person(actor(), email=email, name=name, password=password, admin=admin)
    out.result(added, f"Added {added.name} <{added.email}>{' as an admin' if admin else ''}.")


@member.command("list")
@command_options
def member_list(out: Out, actor: Callable[[], Member]) -> None:
    """List every member."""
    found = members.list_members(actor())

    def text() -> str:
        lines = []
        for d in found:
            m = d.member
            extra = f" (responsible: {', '.join(d.responsible)})" if d.responsible else ""
            flags = " admin" * m.is_admin + " disabled" * m.disabled
            lines.append(f"{m.kind:6} {m.handle:32} {m.name}{flags}{extra}")
        return "\n".join(lines)

    out.result(found, text)


for _verb, _disabled in (("disable", True), ("enable", False)):

    def _toggle(handle: str, out: Out, actor: Callable[[], Member], _d: bool = _disabled) -> None:
        changed = members.set_disabled(actor(), handle=handle, disabled=_d)
        out.result(changed, f"{changed.handle} is {'disabled' if _d else 'enabled'}.")

    _toggle.__doc__ = f"{_verb.capitalize()} a member (an e-mail or an agent's name)."
    member.command(_verb)(click.argument("handle")(command_options(_toggle)))


@cli.group()
def agent() -> None:
    """Agent members: tokens only, and people responsible for them."""


@agent.command("add")
@click.argument("name")
@click.option("--responsible", "responsible", multiple=True, required=True, metavar="EMAIL")
@command_options
def agent_add(
    name: str, responsible: tuple[str, ...], out: Out, actor: Callable[[], Member]
) -> None:
    """Add an agent member."""
    added = members.add_agent(actor(), name=name, responsible=list(responsible))
    out.result(added, f"Added the agent {added.name}.")


@cli.command("search")
@click.argument("query")
@click.option("--space", type=click.Choice(SPACES))
@click.option("--limit", default=20, show_default=True)
@command_options
def search_(
    query: str, space: str | None, limit: int, out: Out, actor: Callable[[], Member]
) -> None:
    """Search the pages you can read."""
    hits = search.search(actor(), query=query, space=space, limit=limit)
    out.result(
        hits,
        lambda: (
            "\n".join(
                f"{h.address}  {h.title}{'  § ' + h.section if h.section else ''}\n    {h.snippet}"
                for h in hits
            )
            or "No pages match."
        ),
    )


@cli.command("demo")
@click.option("--json", "as_json", is_flag=True)
def demo_(as_json: bool) -> None:
    """Build the demo workspace (once) and show a page and its history."""
    with refusals(as_json):
        context.database()  # opens the configured database, making it if it is not there
        if not demo.demo_exists():
            ada = demo.build_demo()
            outbox_worker.load_handlers()  # decision-check, by name
            automations.add(
                ada, event="document.created", folder="wiki:decisions/", routine="decision-check"
            )
            click.echo(
                f"Built the demo workspace at {context.location()}: sign in as "
                f"{demo.ADMIN_EMAIL} / {demo.ADMIN_PASSWORD}. A new page under wiki:decisions/ "
                "starts decision-check, which suggests what the record lacks.",
                err=True,
            )
        ada = members.member_by_handle(demo.ADMIN_EMAIL)
        shown = pages.read_page(ada, address=demo.SHOWCASE)
        history = revisions.history(ada, address=demo.SHOWCASE)
        waiting = [
            s
            for p in pages.list_pages(ada, address="wiki:decisions/")
            for s in changes.list_suggestions(ada, address=p.address, status="pending")
        ]
        out = Out(as_json)
        out.result(
            {"page": shown, "history": history, "suggestions": waiting},
            lambda: (
                show_page(shown)
                + "\n\n"
                + show_history(history)
                + "\n\nSuggested changes waiting in wiki:decisions/:\n"
                + "\n".join(suggestions_cli.show(s) for s in waiting)
            ),
        )


def main() -> None:
    cli(prog_name="codna")


if __name__ == "__main__":
    main()
