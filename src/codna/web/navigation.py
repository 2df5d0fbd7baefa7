"""Finding one's way: the tree of a space, recent changes, tag pages."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
