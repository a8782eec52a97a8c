"""Time measured in frame times: how long a wait between two frames lasted."""

from __future__ import annotations

from typing import Any

TIME_SLACK = 1e-6
"""Seconds by which a wait may fall short and still count as over (see ``lasted``)."""


def lasted(elapsed: Any, seconds: Any) -> Any:
    """Whether ``elapsed`` (a difference of frame times, a float or an array) reaches ``seconds``,
    up to float rounding. Frame times are multiples of 1/fps, and their differences are not exact:
    at 5 frames a second 0.6 - 0.4 is 0.19999999999999996, which must count as the 0.2 s a
    setting asks for, not one frame more (at 15 fps the same rounding cost every fourth read a
    frame)."""
    return elapsed >= seconds - TIME_SLACK
