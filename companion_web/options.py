"""Parsers for command-line values shared by several subcommands (corners, teams, editions).

Each raises ``ValueError`` with a message quoting the bad value, which ``cli.main`` turns
into a one-line error; argparse ``type=`` callables use the ``*_arg`` wrappers.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
from typing import TYPE_CHECKING

from engine.labels import parse_team_colour
from engine.layout import EDITIONS

if TYPE_CHECKING:
    from vision.sources import SourceConfig

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


def parse_camera_size(text: str) -> tuple[int, int] | None:
    """``"1280x720"`` -> ``(1280, 720)``; ``"native"`` -> None (the camera's own mode)."""
    value = str(text).strip().lower()
    if value == "native":
        return None
    return parse_frame_size(value, option="--camera-size", also="or 'native'")


def parse_frame_size(text: str, *, option: str, also: str = "") -> tuple[int, int]:
    """``"1280x720"`` -> ``(1280, 720)``, a camera's frame size (160x120 to 8192x8192); the
    ``ValueError`` names ``option`` and ``also`` the other values it takes."""
    match = re.fullmatch(r"(\d{2,5})\s*[x\u00d7]\s*(\d{2,5})", str(text).strip().lower())
    if not match:
        raise ValueError(f"{option} must be WIDTHxHEIGHT (e.g. 1280x720){' ' + also if also else ''}, got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (160 <= width <= 8192 and 120 <= height <= 8192):
        raise ValueError(f"{option} {text!r} is not a camera's frame size (160x120 to 8192x8192)")
    return width, height


def add_camera_size(parser: argparse.ArgumentParser) -> None:
    """The ``--camera-size`` option of the commands that may open a webcam (read by
    ``source_config``, which says what is wrong with a bad value in one line)."""
    from vision.sources import DEFAULT_CONFIG

    default = DEFAULT_CONFIG.camera_size
    shown = "x".join(map(str, default)) if default else "native"
    parser.add_argument(
        "--camera-size", metavar="WxH|native",
        help=f"frame size to ask a webcam for (default {shown}; it takes its nearest mode; "
        "'native': whatever it gives)",
    )


def source_config(args: argparse.Namespace) -> SourceConfig:
    """The frame sources' settings with what the command line
    changed: ``--camera-size`` (``ValueError`` quoting a bad one)."""
    from vision.sources import DEFAULT_CONFIG

    text = getattr(args, "camera_size", None)
    if text is None:
        return DEFAULT_CONFIG
    return dataclasses.replace(DEFAULT_CONFIG, camera_size=parse_camera_size(text))


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
