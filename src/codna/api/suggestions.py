"""Suggested changes: make, list, read, decide, withdraw."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import EditIn, edits_to_wire
from codna.services import suggestions
from codna.services.suggestion_views import Suggestion
from codna.services.suggestions import SuggestResult

router = APIRouter(tags=["suggestions"])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuggestEdit(_Body):
    address: str
    edits: list[EditIn] = Field(default_factory=list)
    reason: str
    title: str | None = None
    tags_add: list[str] = Field(default_factory=list)
    tags_remove: list[str] = Field(default_factory=list)
    base_version: int | None = None
    dry_run: bool = False


class Decide(_Body):
    decision: str = Field(description="accept or reject")
    reason: str | None = None


@router.post("/suggestions", status_code=status.HTTP_201_CREATED, summary="Suggest a change")
def suggest_edit(member: Writer, body: SuggestEdit) -> SuggestResult:
    return suggestions.suggest_edit(
        member, edits=edits_to_wire(body.edits), **body.model_dump(exclude={"edits"})
    )


@router.get("/suggestions", summary="A page's suggestions, or one's own")
def list_suggestions(
    member: Reader, address: str | None = None, status: str | None = None, limit: int = 200
) -> list[Suggestion]:
    return suggestions.list_suggestions(member, address=address, status=status, limit=limit)


@router.get("/suggestions/{suggestion_id}", summary="One suggested change")
def read_suggestion(member: Reader, suggestion_id: int) -> Suggestion:
    return suggestions.read_suggestion(member, suggestion_id=suggestion_id)


@router.post("/suggestions/{suggestion_id}/decide", summary="Accept or reject a suggestion")
def decide(member: Writer, suggestion_id: int, body: Decide) -> Suggestion:
    return suggestions.decide_edit_suggestion(
        member, suggestion_id=suggestion_id, decision=body.decision, reason=body.reason
    )


@router.post("/suggestions/{suggestion_id}/withdraw", summary="Withdraw one's suggestion")
def withdraw(member: Writer, suggestion_id: int) -> Suggestion:
    return suggestions.withdraw_suggestion(member, suggestion_id=suggestion_id)
