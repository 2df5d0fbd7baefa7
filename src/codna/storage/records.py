"""Rows as the services read them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Row = Mapping[Any, Any]
