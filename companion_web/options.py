"""Parsers for command-line values shared by several subcommands (corners, teams, editions).

Each raises ``ValueError`` with a message quoting the bad value, which ``cli.main`` turns
into a one-line error; argparse ``type=`` callables use the ``*_arg`` wrappers.
"""

from __future__ import annotations

import argparse
import math

from engine.labels import parse_team_colour
from engine.layout import EDITIONS

Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]


def parse_corners(text: str) -> Corners:
    """``"X1,Y1,X2,Y2,X3,Y3,X4,Y4"`` (TL, TR, BR, BL of the printed layout) -> four points."""
    parts = [p.strip() for p in str(text).replace(";", ",").split(",") if p.strip()]
    if len(parts) != 8:
        raise ValueError(
            f"--corners needs 8 numbers X1,Y1,...,X4,Y4 (TL, TR, BR, BL), got {len(parts)} in {text!r}"
        )
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--corners must be numbers, got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"--corners must be finite numbers, got {text!r}")
    points = tuple((values[i], values[i + 1]) for i in range(0, 8, 2))
    return points  # type: ignore[return-value]


def parse_teams(text: str) -> tuple[str, ...]:
    """``"blue,green"`` -> the team colours in turn order: two or three distinct colour names."""
    names = tuple(parse_team_colour(p) for p in str(text).split(",") if p.strip())
    if len(names) not in (2, 3):
        raise ValueError(f"--teams needs two or three colours in turn order, got {text!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"--teams colours must be different, got {text!r}")
    return names


def _argparse_type(parse, name: str):
    def convert(text: str):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = name
    return convert


corners_arg = _argparse_type(parse_corners, "corners")
teams_arg = _argparse_type(parse_teams, "teams")
EDITION_CHOICES: tuple[str, ...] = tuple(EDITIONS)
