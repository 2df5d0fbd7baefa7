"""The JSON API under /api/v1: parse, call one service, shape the answer."""
