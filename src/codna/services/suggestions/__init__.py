"""Suggestions (ADR 0024, SPEC 3): the one lifecycle (`lifecycle.py`), what a member does with
a suggestion of either kind (`actions.py`), and its two kinds: suggested changes
(`changes.py`) and suggested links (`links.py`)."""
