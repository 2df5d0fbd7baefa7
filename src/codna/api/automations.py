"""Automations: add, list, disable."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import UrlNumber
from codna.services.events import automations
from codna.services.events.automations import EVENT_TYPES, Automation

router = APIRouter(tags=["automations"])


class AddAutomation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    event: str = Field(description=f"What starts it: {' or '.join(EVENT_TYPES)}.")
    folder: str = Field(description="A space or a folder the caller can read: wiki:decisions/.")
    routine: str = Field(description="The routine to run as the caller, such as decision-check.")


@router.get("/automations", summary="Automations: all for an admin, one's own else")
async def list_automations(caller: Reader) -> list[Automation]:
    return await caller.run(automations.list_automations)


@router.post(
    "/automations",
    status_code=status.HTTP_201_CREATED,
    summary="Run a routine as oneself when a page under a folder is created or changed",
)
async def add_automation(caller: Writer, body: AddAutomation) -> Automation:
    return await caller.run(
        automations.add, event=body.event, folder=body.folder, routine=body.routine
    )


@router.post("/automations/{automation_id}/disable", summary="Stop an automation")
async def disable_automation(caller: Writer, automation_id: UrlNumber) -> Automation:
    return await caller.run(automations.disable, automation_id=automation_id)
