"""Suggest, edit, accept, reject, withdraw and revert in any order, against a plain model.

A hypothesis state machine drives the services on one page, as an agent (who suggests and
withdraws) and a writer (who edits, decides and reverts the latest revision) would, and keeps
a model of what should be: the page's text as five slots (`slot2: c`), each version's text,
and each suggestion's edit, status and the versions that accepted and reverted it. Every
call's outcome, a refusal included, is what the model predicts, and after every step:

- the page's text and version are the model's, and every version reads back as it was saved
  (when made, and all of them again at the end);
- the versions are 1 to the latest, with no gap;
- each accepted suggestion has exactly one revision, of the kind an acceptance makes, at the
  version it names, whose summary gives its reason; no other revision is of that kind;
- every suggestion's status and versions are the model's;
- the same edit as a rejected suggestion is refused (RejectedBefore) whenever it is tried.

It runs on SQLite and PostgreSQL; `pytest --long` runs more and longer sequences.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from codna.errors import (
    AlreadyDecided,
    CodnaError,
    Duplicate,
    InvalidRequest,
    LimitReached,
    NoLongerApplies,
    RejectedBefore,
)
from codna.markdown.edits import parse_edits
from codna.services import limits
from codna.services.members import members
from codna.services.members.members import Member
from codna.services.pages import editing, pages, revisions
from codna.services.suggestions import changes, reverts
from tests.services.conftest import Team, team

__all__ = ["team"]  # the fixture, reused as it is

SLOTS = 5
VALUES = "abc"  # few, so edits meet again: the same edit suggested twice, an old text back
PER_PAGE = limits.PER_PAGE_LIMIT


def text_of(slots: tuple[str, ...]) -> str:
    return "".join(f"slot{i}: {v}\n" for i, v in enumerate(slots))


@dataclass
class Suggested:
    """The model of one suggestion: the edit it makes, and what became of it."""

    slot: int
    old: str
    new: str
    reason: str
    status: str = "pending"
    accepted_version: int | None = None
    reverted_in: int | None = None

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.slot, self.old, self.new)


class SuggestionLoop(RuleBasedStateMachine):
    """The services against the model, on one new page per run."""

    team: Team  # set by the test before it runs the machine

    suggested = Bundle("suggested")

    def __init__(self) -> None:
        super().__init__()
        self.address = f"wiki:model/{uuid.uuid4().hex[:10]}"
        self.slots = ("a",) * SLOTS
        self.versions = [text_of(self.slots)]  # the text of version n at n - 1
        self.accepted_at: dict[int, int] = {}  # version -> the suggestion accepted in it
        self.model: dict[int, Suggested] = {}
        self.reasons = itertools.count()
        self.read_back = 0  # the versions read back and found as saved, 1 to this

    @initialize()
    def make_page(self) -> None:
        pages.create_page(
            self.team.writer, address=self.address, title="Model", body=self.versions[0]
        )

    # Helpers ---------------------------------------------------------------------------

    @property
    def agent(self) -> Member:
        return self.team.agent

    @property
    def writer(self) -> Member:
        return self.team.writer

    def _saved(self, slots: tuple[str, ...]) -> None:
        self.slots = slots
        self.versions.append(text_of(slots))

    def _replace(self, slot: int, old: str, new: str) -> list[dict[str, str]]:
        return [{"op": "replace", "old": f"slot{slot}: {old}\n", "new": f"slot{slot}: {new}\n"}]

    def _read_back(self, *, since: int) -> None:
        """Read each version after `since` and check it is the text saved as it."""
        for version in range(since + 1, len(self.versions) + 1):
            read = revisions.read_revision(self.writer, address=self.address, version=version)
            assert read.body == self.versions[version - 1], version
        self.read_back = len(self.versions)

    def _open_with(self, key: tuple[int, str, str]) -> str | None:
        for made in self.model.values():
            if made.key == key and made.status in ("pending", "rejected"):
                return made.status
        return None

    # Rules ------------------------------------------------------------------------------

    @rule(target=suggested, slot=st.integers(0, SLOTS - 1), new=st.sampled_from(VALUES))
    def suggest(self, slot: int, new: str) -> int:
        old = self.slots[slot]
        reason = f"Reason {next(self.reasons)}."
        open_with = self._open_with((slot, old, new))
        pending = sum(m.status == "pending" for m in self.model.values())
        expected: type[CodnaError] | None = None
        if new == old:
            expected = InvalidRequest
        elif open_with == "rejected":
            expected = RejectedBefore
        elif open_with == "pending":
            expected = Duplicate
        elif pending >= PER_PAGE:
            expected = LimitReached
        try:
            made = changes.suggest_edit(
                self.agent,
                address=self.address,
                edits=parse_edits(self._replace(slot, old, new)),
                reason=reason,
            )
        except CodnaError as refused:
            assert expected is not None and isinstance(refused, expected), refused
            return -1
        assert expected is None, f"{expected.__name__} expected, the suggestion was made"
        assert made.suggestion is not None
        self.model[made.suggestion.id] = Suggested(slot, old, new, reason)
        return made.suggestion.id

    @rule(slot=st.integers(0, SLOTS - 1), new=st.sampled_from(VALUES))
    def edit(self, slot: int, new: str) -> None:
        old = self.slots[slot]
        try:
            editing.edit_page(
                self.writer, address=self.address, edits=parse_edits(self._replace(slot, old, new))
            )
        except InvalidRequest:
            assert new == old  # edits that change nothing are refused
            return
        assert new != old
        self._saved((*self.slots[:slot], new, *self.slots[slot + 1 :]))

    @rule(suggestion_id=suggested)
    def accept(self, suggestion_id: int) -> None:
        made = self.model.get(suggestion_id)
        if made is None:
            return  # a suggestion refused when made
        try:
            changes.decide_edit_suggestion(
                self.writer, suggestion_id=suggestion_id, decision="accept"
            )
        except AlreadyDecided:
            assert made.status != "pending"
            return
        except NoLongerApplies:
            assert made.status == "pending" and self.slots[made.slot] != made.old
            return
        assert made.status == "pending" and self.slots[made.slot] == made.old
        self._saved((*self.slots[: made.slot], made.new, *self.slots[made.slot + 1 :]))
        made.status, made.accepted_version = "accepted", len(self.versions)
        self.accepted_at[len(self.versions)] = suggestion_id

    @rule(suggestion_id=suggested)
    def reject(self, suggestion_id: int) -> None:
        made = self.model.get(suggestion_id)
        if made is None:
            return
        try:
            changes.decide_edit_suggestion(
                self.writer, suggestion_id=suggestion_id, decision="reject", reason="No."
            )
        except AlreadyDecided:
            assert made.status != "pending"
            return
        assert made.status == "pending"
        made.status = "rejected"

    @rule(suggestion_id=suggested)
    def withdraw(self, suggestion_id: int) -> None:
        made = self.model.get(suggestion_id)
        if made is None:
            return
        try:
            changes.withdraw_suggestion(self.agent, suggestion_id=suggestion_id)
        except AlreadyDecided:
            assert made.status != "pending"
            return
        assert made.status == "pending"
        made.status = "withdrawn"

    @rule()
    def revert_latest(self) -> None:
        latest = len(self.versions)
        before = self.versions[-2] if latest > 1 else None
        try:
            reverts.revert_revision(self.writer, address=self.address, version=latest)
        except InvalidRequest:
            assert before is None or before == self.versions[-1]
            return
        assert before is not None and before != self.versions[-1]
        slots = tuple(line.split(": ")[1] for line in before.splitlines())
        self._saved(slots)
        made = len(self.versions)
        for suggested in self.model.values():
            if suggested.status != "accepted":
                continue
            if suggested.accepted_version == latest:
                suggested.reverted_in = made
            elif suggested.reverted_in == latest:
                suggested.reverted_in = None

    # Invariants -------------------------------------------------------------------------

    @invariant()
    def the_page_and_every_version_are_the_models(self) -> None:
        page = pages.read_page(self.writer, address=self.address)
        assert (page.body, page.version) == (self.versions[-1], len(self.versions))
        history = revisions.history(self.writer, address=self.address)
        assert [r.version for r in history] == list(range(len(self.versions), 0, -1))
        self._read_back(since=self.read_back)
        accepting = {r.version: r for r in history if r.kind == "accept_suggestion"}
        assert set(accepting) == set(self.accepted_at)
        for version, suggestion_id in self.accepted_at.items():
            assert self.model[suggestion_id].reason in accepting[version].summary

    @invariant()
    def every_suggestion_is_as_the_model_says(self) -> None:
        listed = changes.list_suggestions(self.writer, address=self.address, limit=200)
        seen = {s.id: s for s in listed}
        assert set(seen) == set(self.model)
        for suggestion_id, made in self.model.items():
            got = seen[suggestion_id]
            assert (got.status, got.accepted_version, got.reverted_in_version) == (
                made.status,
                made.accepted_version,
                made.reverted_in,
            ), suggestion_id

    @invariant()
    def a_rejected_edit_cannot_be_suggested_again(self) -> None:
        for made in self.model.values():
            if made.status != "rejected" or self.slots[made.slot] != made.old:
                continue
            with pytest.raises(RejectedBefore):
                changes.suggest_edit(
                    self.agent,
                    address=self.address,
                    edits=parse_edits(self._replace(made.slot, made.old, made.new)),
                    reason="Again.",
                    dry_run=True,
                )

    def teardown(self) -> None:
        # Each version was read back once it was made; all of them once more, after the rest.
        self._read_back(since=0)
        # The agent's suggestions waiting anywhere count against its limit of all pages.
        for suggestion_id, made in self.model.items():
            if made.status == "pending":
                changes.withdraw_suggestion(self.agent, suggestion_id=suggestion_id)


def test_suggestions_edits_decisions_and_reverts_in_any_order_keep_to_the_model(
    team: Team, long_form: bool
) -> None:
    assert members.member_by_handle("checker").id == team.agent.id
    SuggestionLoop.team = team
    run_state_machine_as_test(
        SuggestionLoop,
        settings=settings(
            max_examples=200 if long_form else 10,
            stateful_step_count=40 if long_form else 15,
            deadline=None,
            database=None,
            derandomize=not long_form,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
