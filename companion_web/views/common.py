"""Small helpers every blueprint uses: JSON bodies and 4xx answers."""

from __future__ import annotations

from typing import Any

from flask import request

from companion_web.security import BadInput, require_object


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a clear 400."""
    try:
        body = request.get_json(force=True, silent=True)
    except RecursionError:  # thousands of nested brackets: refuse, never a 500
        body = None
    if body is None:
        raise BadInput("the request body must be a JSON object (Content-Type: application/json)")
    return require_object(body)


def only_keys(body: dict[str, Any], allowed: set[str]) -> None:
    """Refuse unknown keys, so a typo is reported instead of silently ignored."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise BadInput(f"unknown field(s) {names}; expected: {', '.join(sorted(allowed))}")
