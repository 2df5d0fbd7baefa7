"""Suggested changes: make, list, read, decide, withdraw."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field

from codna.api.auth import Reader, Writer
from codna.schemas import OFFSET, Edits, JsonVersion, TagChanges, UrlNumber, edits_of, window
from codna.services.limits import SUGGESTIONS
from codna.services.suggestions import changes
from codna.services.suggestions.changes import SuggestResult
from codna.services.suggestions.records import Suggestion

router = APIRouter(tags=["suggestions"])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SuggestEdit(_Body):
    address: str
    edits: Edits = None
    reason: str
    title: str | None = None
    tags: TagChanges = Field(default_factory=TagChanges)
    base_version: JsonVersion | None = None
    dry_run: bool = False


class Decide(_Body):
    decision: str = Field(description="accept or reject")
    reason: str | None = None


def _about_the_suggestion(operation: str) -> dict[str, object]:
    """An OpenAPI link from a suggestion made to `operation` (its method and path) on it."""
    method, path = operation.split(" ")
    pointer = path.replace("~", "~0").replace("/", "~1")
    return {
        "operationRef": f"#/paths/{pointer}/{method}",
        "parameters": {"suggestion_id": "$response.body#/suggestion/id"},
    }


# What a client does next with a suggestion made: read it, decide on it, withdraw it.
MADE_LINKS = {
    "ReadSuggestion": _about_the_suggestion("get /api/v1/suggestions/{suggestion_id}"),
    "DecideSuggestion": _about_the_suggestion("post /api/v1/suggestions/{suggestion_id}/decide"),
    "WithdrawSuggestion": _about_the_suggestion(
        "post /api/v1/suggestions/{suggestion_id}/withdraw"
    ),
}


@router.post(
    "/suggestions",
    status_code=status.HTTP_201_CREATED,
    summary="Suggest a change",
    responses={status.HTTP_201_CREATED: {"links": MADE_LINKS}},
)
async def suggest_edit(caller: Writer, body: SuggestEdit) -> SuggestResult:
    return await caller.run(
        changes.suggest_edit,
        address=body.address,
        edits=edits_of(body.edits),
        reason=body.reason,
        title=body.title,
        tags_add=body.tags.add,
        tags_remove=body.tags.remove,
        base_version=body.base_version,
        dry_run=body.dry_run,
    )


@router.get("/suggestions", summary="Suggestions on a page, folder or space, or one's own")
async def list_suggestions(
    caller: Reader,
    address: Annotated[
        str | None,
        Query(
            description="A page, a folder (wiki:decisions/, the slash may be left off) or a "
            "space (wiki); default one's own suggestions."
        ),
    ] = None,
    status: str | None = None,
    limit: Annotated[UrlNumber, Query(**window(SUGGESTIONS, "suggestions"))] = SUGGESTIONS.default,
    offset: Annotated[UrlNumber, Query(**OFFSET)] = 0,
    diff_now: Annotated[
        bool,
        Query(
            description="Also the diff accepting each would make to the page now, for a "
            "pending one written against an older version."
        ),
    ] = False,
) -> list[Suggestion]:
    return await caller.run(
        changes.list_suggestions,
        address=address,
        status=status,
        limit=limit,
        offset=offset,
        diff_now=diff_now,
    )


@router.get("/suggestions/{suggestion_id}", summary="One suggested change")
async def read_suggestion(caller: Reader, suggestion_id: UrlNumber) -> Suggestion:
    return await caller.run(changes.read_suggestion, suggestion_id=suggestion_id)


@router.post("/suggestions/{suggestion_id}/decide", summary="Accept or reject a suggestion")
async def decide(caller: Writer, suggestion_id: UrlNumber, body: Decide) -> Suggestion:
    return await caller.run(
        changes.decide_edit_suggestion,
        suggestion_id=suggestion_id,
        decision=body.decision,
        reason=body.reason,
    )


@router.post("/suggestions/{suggestion_id}/withdraw", summary="Withdraw one's suggestion")
async def withdraw(caller: Writer, suggestion_id: UrlNumber) -> Suggestion:
    return await caller.run(changes.withdraw_suggestion, suggestion_id=suggestion_id)
