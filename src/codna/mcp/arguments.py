"""The arguments the tools take, each saying its format with an example.

A model fills in arguments from their schemas and descriptions alone, and reads every one of
them on every turn, so they are short and exact. The edits schema is the edit language's own
(`codna.schemas.Edits`) said once as one object with an `op`, rather than one variant per op:
the same rules in a quarter of the characters. Parsing still decides (`edits_of`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, WithJsonSchema

from codna import vocabulary
from codna.schemas import Edits as FullEdits
from codna.schemas import JsonVersion as Version
from codna.schemas import Number
from codna.services.limits import (
    HISTORY,
    INBOX,
    MAX_EDITS,
    MAX_REASON_CHARS,
    PAGES,
    PENDING,
    SEARCH,
    SUGGESTIONS,
    Window,
)

# What each op does, said once for a model; a test holds it to the edit language's ops.
OPS = {
    "replace": "{old,new}: old, found exactly once, becomes new.",
    "insert_after": "{anchor,text}: text goes right after the one anchor.",
    "insert_before": "{anchor,text}: right before it.",
    "append": "{text}: at the end.",
    "replace_section": "{heading,body}: what is under the heading becomes body.",
    "delete_section": "{heading}: the heading and its section go.",
}


def _compact_edits(description: str | None = None) -> dict[str, Any]:
    full = TypeAdapter(FullEdits).json_schema()
    fields: dict[str, dict[str, str]] = {}
    for variant in full["items"]["oneOf"]:
        fields.update({n: {"type": "string"} for n in variant["properties"] if n != "op"})
    return {
        "type": "array",
        "maxItems": MAX_EDITS,
        "description": description
        or (
            "In order, all or none; each quotes exact text of the page, never a whole body. "
            + " ".join(f"{op} {what}" for op, what in OPS.items())
            + " A heading is named by its text ('Limits', '### Limits' or 'Decision > Limits')."
            " Text that starts a block (a heading, list, fence, quote, table row, rule, or"
            " lines ending in a newline) becomes its own block, a blank line apart (none"
            " within one list, table or quote); mid-line, text with a newline splits the line;"
            " other text goes in exactly there."
            ' Example: [{"op":"replace","old":"At most ten.","new":"At most twelve."}]'
        ),
        "items": {
            "type": "object",
            "properties": {"op": {"enum": list(OPS)}} | fields,
            "required": ["op"],
        },
    }


Address = Annotated[str, Field(description="Such as wiki:team/plan.")]
Place = Annotated[
    str | None,
    Field(description="A space (wiki:) or folder (wiki:decisions/); default all."),
]
AtVersion = Annotated[Version, Field(description="Such as 3.")]
OlderVersion = Annotated[Version | None, Field(description="An older one, such as 3.")]
BaseVersion = Annotated[
    Version | None,
    Field(description="The version you read, such as 3; refused (conflict) if the page moved on."),
]
# A suggestion's base is kept, never refused for being old: its diff is against it.
SuggestedBase = Annotated[
    Version | None,
    Field(description="The version you read, such as 3: the edits apply to it and now."),
]
Edits = Annotated[Any, WithJsonSchema(_compact_edits())]
# The same edits, said once in the tool list: edit_document's describes them.
SuggestedEdits = Annotated[Any, WithJsonSchema(_compact_edits("Exactly as edit_document's edits."))]
Title = Annotated[str | None, Field(description="A new title, such as 'Agents suggest'.")]
Tags = Annotated[list[str] | None, Field(description="Such as ['perf', 'api'].")]
NewTags = Annotated[
    list[str] | None, Field(description="All its tags afterwards, such as ['perf'].")
]
TagsAdd = Annotated[list[str] | None, Field(description="Such as ['perf'].")]
TagsRemove = Annotated[list[str] | None, Field(description="Such as ['draft'].")]
Summary = Annotated[str | None, Field(description="For the history, such as 'Fix the limit'.")]
Reason = Annotated[
    str,
    Field(description=f"Why, in a sentence or two (at most {MAX_REASON_CHARS} characters)."),
]
DecisionReason = Annotated[
    str | None, Field(description="For the suggester, such as 'We list no alternatives'.")
]
DryRun = Annotated[bool, Field(description="true: check all, show the diff, save nothing.")]
Status = Annotated[
    vocabulary.Status | None,
    Field(description="Only with this status."),
]
Kind = Annotated[Literal["change", "link"] | None, Field(description="Only changes, or links.")]
Start = Annotated[
    Number, Field(description="Character to start from.", json_schema_extra={"minimum": 0})
]
Offset = Annotated[
    Number,
    Field(description="How many to skip.", json_schema_extra={"minimum": 0}),
]


def _limit(bounds: Window) -> Any:  # the default is the example
    return Field(
        description="How many at most.",
        json_schema_extra={"minimum": 1, "maximum": bounds.most},
    )


PagesLimit = Annotated[Number, _limit(PAGES)]
HitsLimit = Annotated[Number, _limit(SEARCH)]
SuggestionsLimit = Annotated[Number, _limit(SUGGESTIONS)]
PendingLimit = Annotated[Number, _limit(PENDING)]
InboxLimit = Annotated[Number, _limit(INBOX)]
HistoryLimit = Annotated[Number, _limit(HISTORY)]
After = Annotated[
    Number | None,
    Field(description="The latest you saw: only what is newer."),
]
NotificationIds = Annotated[
    list[Number] | None,
    Field(description="From inbox, such as [41, 42]; default all."),
]

SuggestionKind = Literal["change", "link"]


def _id(description: str) -> Any:
    # Strict: true is no id, nor is "12" (a model that sends one has misread the answer).
    return Field(description=description, strict=True, json_schema_extra={"minimum": 1})


SuggestionId = Annotated[int, _id("A suggested change's, such as 12.")]
LinkSuggestionId = Annotated[int, _id("A suggested link's, such as 5.")]
OneSuggestionId = Annotated[
    int | None,
    _id("One in full, such as 12 (kind link for a link's)."),
]
Decision = Annotated[
    vocabulary.Decision,
    Field(description="accept (applied to the page as it is now) or reject."),
]
