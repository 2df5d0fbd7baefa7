"""A member's own account: name, password, tokens, sessions."""

from __future__ import annotations

from fastapi import APIRouter

from codna.web.forms import FormRoute

router = APIRouter(include_in_schema=False, route_class=FormRoute)
