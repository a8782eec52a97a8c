"""Names for what a cell can hold: one source of truth for colours, labels and letters.

A *label* is what a camera (or a person) reports for one cell. A *team colour* is one of
the chip colours; a team is identified by its colour name everywhere (engine, vision,
web). The text notation letter of each colour is its upper-case initial; a locked
(flipped) chip of that colour is the lower-case letter.
"""

from __future__ import annotations

from enum import Enum


class Label(str, Enum):
    """What one cell shows. ``UNKNOWN`` is for cells vision could not see this frame."""

    FREE = "free"
    EMPTY = "empty"
    BLUE = "blue"
    GREEN = "green"
    RED = "red"
    YELLOW = "yellow"
    FLIPPED = "flipped"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


TEAM_COLOURS: tuple[str, ...] = ("blue", "green", "red", "yellow")
"""Chip colours a team can play. A taught marker (coins, say) plays under one of these names."""

DETECT_LABELS: tuple[str, ...] = ("free", "empty", *TEAM_COLOURS, "flipped")
"""Labels ``detect`` reports for a cell, in a fixed order (class index order in vision)."""

LETTER: dict[str, str] = {"blue": "B", "green": "G", "red": "R", "yellow": "Y"}
"""Text-notation letter of each team colour (upper case: a chip; lower case: a locked chip)."""
COLOUR_OF_LETTER: dict[str, str] = {v: k for k, v in LETTER.items()}

FREE_CHAR = "*"
EMPTY_CHAR = "."

CLASSIC_COLOURS: tuple[str, ...] = ("blue", "green", "red")
JUMBO_COLOURS: tuple[str, ...] = ("yellow", "red", "blue")


def edition_of_colours(colours: tuple[str, ...] | list[str]) -> str | None:
    """The edition whose chip set alone has one of ``colours`` (green: classic; yellow: Jumbo),
    or None when both sets have them all (blue and red)."""
    classic = any(c not in JUMBO_COLOURS for c in colours)
    jumbo = any(c not in CLASSIC_COLOURS for c in colours)
    if classic == jumbo:
        return None
    return "classic" if classic else "jumbo"


def parse_label(value: object) -> Label:
    """Return the ``Label`` named by ``value``; raise ``ValueError`` quoting it otherwise."""
    try:
        return Label(str(value).strip().lower())
    except ValueError:
        names = ", ".join(label.value for label in Label)
        raise ValueError(f"unknown cell label {value!r}; expected one of: {names}") from None


def parse_team_colour(value: object) -> str:
    """Return a team colour name; raise ``ValueError`` quoting a bad one."""
    name = str(value).strip().lower()
    if name not in TEAM_COLOURS:
        raise ValueError(f"unknown team colour {value!r}; expected one of: {', '.join(TEAM_COLOURS)}")
    return name
