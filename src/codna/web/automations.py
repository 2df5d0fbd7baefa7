"""Automations and the runs of routines: anyone signed in sees their own (an admin, everyone's),
adds one and disables one, by form, as `codna automation` and the API do.

A refused automation shows the form again with what was chosen in it and the service's
sentence beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from codna.errors import CodnaError, Duplicate, InvalidRequest, NotFound, ReadOnly
from codna.services.events import automations, runs
from codna.services.events.automations import EVENT_TYPES, Automation
from codna.services.events.runs import Run
from codna.services.members.members import Member
from codna.web.forms import FormRoute
from codna.web.templating import render
from codna.web.visitor import Seen

router = APIRouter(include_in_schema=False, route_class=FormRoute)

HERE = "/automations"
RECENT_RUNS = 20
# Refusals the form answers itself: a bad folder or routine, a folder one cannot read, the
# same rule twice, a member who may not make one.
KEPT_IN_FORM = (InvalidRequest, NotFound, Duplicate, ReadOnly)


@dataclass(frozen=True)
class Choice:
    """What the form to add an automation holds: empty, or what was sent."""

    event: str = EVENT_TYPES[0]
    folder: str = ""
    routine: str = ""


@dataclass(frozen=True)
class Shown:
    member: Member
    automations: list[Automation]
    runs: list[Run]
    routines: list[str]  # what an automation may run: built in, registered, commands
    choice: Choice
    refused: CodnaError | None = None


def _shown(member: Member, choice: Choice, refused: CodnaError | None = None) -> Shown:
    known = automations.known_routines() | {r.name for r in runs.command_routines()}
    return Shown(
        member,
        automations.list_automations(member),
        runs.list_runs(member, limit=RECENT_RUNS),
        sorted(known),
        choice,
        refused,
    )


def _page(request: Request, seen: Seen, shown: Shown) -> Response:
    return render(
        request,
        seen,
        "automations.html",
        member=shown.member,
        status=shown.refused.status if shown.refused else 200,
        shown=shown,
        events=EVENT_TYPES,
        error=shown.refused.message if shown.refused else None,
    )


@router.get(HERE)
async def listed(request: Request, seen: Seen) -> Response:
    shown = await seen.run(_shown, Choice())
    return _page(request, seen, shown)


def _add(member: Member, choice: Choice) -> Shown | None:
    """Add the automation chosen; the page again with the refusal, or None once added."""
    try:
        automations.add(member, event=choice.event, folder=choice.folder, routine=choice.routine)
    except KEPT_IN_FORM as refused:
        return _shown(member, choice, refused)
    return None


@router.post(HERE)
async def add(
    request: Request,
    seen: Seen,
    event: Annotated[str, Form()] = "",
    folder: Annotated[str, Form()] = "",
    routine: Annotated[str, Form()] = "",
    csrf: Annotated[str, Form()] = "",
) -> Response:
    seen.check_csrf(csrf)
    refused = await seen.run(_add, Choice(event, folder, routine))
    if refused is None:
        return RedirectResponse(HERE, status_code=303)
    return _page(request, seen, refused)


@router.post(f"{HERE}/disable")
async def disable(
    seen: Seen, automation_id: Annotated[int, Form()] = 0, csrf: Annotated[str, Form()] = ""
) -> Response:
    seen.check_csrf(csrf)
    await seen.run(lambda member: automations.disable(member, automation_id=automation_id))
    return RedirectResponse(HERE, status_code=303)
