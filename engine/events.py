"""``Event``: one thing that happened in a game, with a plain message for the table.

Events are the game's history, its save format (``engine.store``) and what the tablet and
``replay --jsonl`` show. ``group`` numbers the action (one observation, correction or undo)
that produced an event; undo reverts one group. Messages are built here so every surface
says the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.layout import CORNERS, Cell, card_at, in_bounds

PLACED = "placed"
REMOVED = "removed"
SEQUENCE = "sequence"
WIN = "win"
ALERT = "alert"
CORRECTED = "corrected"
UNDONE = "undone"
EVENT_TYPES: tuple[str, ...] = (PLACED, REMOVED, SEQUENCE, WIN, ALERT, CORRECTED, UNDONE)
STATE_CHANGING: frozenset[str] = frozenset({PLACED, REMOVED, SEQUENCE, WIN, CORRECTED})
"""Event types that change the position (an undo reverts the group holding them)."""

# Alert codes: what a legal game cannot do (``Event.alert``).
LOCKED_REMOVED = "locked_removed"
COLOUR_CHANGED = "colour_changed"
MULTIPLE_PLACED = "multiple_placed"
MULTIPLE_REMOVED = "multiple_removed"
WRONG_TEAM = "wrong_team"
CHIP_ON_CORNER = "chip_on_corner"
FLIPPED_UNLOCKED = "flipped_unlocked"
UNKNOWN_COLOUR = "unknown_colour"
ALERT_CODES: tuple[str, ...] = (
    LOCKED_REMOVED,
    COLOUR_CHANGED,
    MULTIPLE_PLACED,
    MULTIPLE_REMOVED,
    WRONG_TEAM,
    CHIP_ON_CORNER,
    FLIPPED_UNLOCKED,
    UNKNOWN_COLOUR,
)

_CORNER_NAMES = dict(zip(CORNERS, ("top-left", "top-right", "bottom-right", "bottom-left"), strict=True))


class EventError(ValueError):
    """A stored or posted event dict is malformed; the message quotes it."""


@dataclass(frozen=True)
class Event:
    """One event. ``cell`` for placements, removals, corrections and per-cell alerts;
    ``cells`` for a sequence (five cells) or a multi-cell alert; ``team`` a colour name;
    ``alert`` the alert code (alerts only); ``label`` the label set by a correction."""

    type: str
    cell: Cell | None = None
    cells: tuple[Cell, ...] = ()
    team: str | None = None
    message: str = ""
    alert: str | None = None
    label: str | None = None
    group: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; cells as ``[r, c]`` lists."""
        return {
            "type": self.type,
            "cell": list(self.cell) if self.cell is not None else None,
            "cells": [list(c) for c in self.cells],
            "team": self.team,
            "message": self.message,
            "alert": self.alert,
            "label": self.label,
            "group": self.group,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        """Inverse of ``to_dict``; raises ``EventError`` for a malformed dict."""
        if not isinstance(data, dict):
            raise EventError(f"an event must be a JSON object, got {data!r}")
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise EventError(f"unknown event keys {sorted(unknown)!r} in {data!r}")
        kind = data.get("type")
        if kind not in EVENT_TYPES:
            raise EventError(f"unknown event type {kind!r} in {data!r}")
        alert = data.get("alert")
        if alert is not None and alert not in ALERT_CODES:
            raise EventError(f"unknown alert code {alert!r} in {data!r}")
        try:
            cell = _cell(data["cell"]) if data.get("cell") is not None else None
            cells = tuple(_cell(c) for c in data.get("cells") or ())
            group = int(data.get("group", 0))
        except (TypeError, ValueError) as exc:
            raise EventError(f"bad cell or group in event {data!r}: {exc}") from None
        return cls(
            type=kind,
            cell=cell,
            cells=cells,
            team=data.get("team"),
            message=str(data.get("message", "")),
            alert=alert,
            label=data.get("label"),
            group=group,
        )


def _cell(value: Any) -> Cell:
    r, c = value
    if not (isinstance(r, int) and isinstance(c, int) and in_bounds((r, c))):
        raise ValueError(f"{value!r} is not a cell")
    return (r, c)


def cell_name(cell: Cell) -> str:
    """How the table names a cell: ``7D (row 2, col 7)`` or ``the top-left corner``."""
    if cell in _CORNER_NAMES:
        return f"the {_CORNER_NAMES[cell]} free corner"
    return f"{card_at(cell)} (row {cell[0]}, col {cell[1]})"


def team_name(team: str) -> str:
    """``blue`` -> ``Blue``."""
    return team.capitalize()


# Message builders: one per event kind, plain words for people at the table.


def placed_message(team: str, cell: Cell) -> str:
    return f"{team_name(team)} placed a chip on {cell_name(cell)}."


def removed_message(team: str, cell: Cell) -> str:
    return f"The {team} chip on {cell_name(cell)} was removed."


def sequence_message(team: str, done: int, needed: int) -> str:
    return f"{team_name(team)} completed a sequence! ({done} of {needed})"


def win_message(team: str) -> str:
    return f"{team_name(team)} wins the game!"


def locked_removed_message(team: str, cell: Cell) -> str:
    return f"A locked {team} chip was removed from {cell_name(cell)}: put it back."


def colour_changed_message(old: str, new: str, cell: Cell) -> str:
    return f"The {old} chip on {cell_name(cell)} now looks {new}: chips never change colour. Put the {old} chip back."


def multiple_placed_message(cells: tuple[Cell, ...]) -> str:
    where = ", ".join(cell_name(c) for c in cells)
    return (f"{len(cells)} new chips appeared at once ({where}): one chip per turn. Take back the extra chips, "
            "or move whatever lies on those cells.")


def multiple_removed_message(cells: tuple[Cell, ...]) -> str:
    where = ", ".join(cell_name(c) for c in cells)
    return f"{len(cells)} chips were removed at once ({where}): one chip per turn. Put them back."


def wrong_team_message(team: str, expected: str, cell: Cell) -> str:
    return f"{team_name(team)} placed a chip on {cell_name(cell)}, but it was {team_name(expected)}'s turn."


def chip_on_corner_message(cell: Cell) -> str:
    return f"A chip is on {cell_name(cell)}: corners are free for everyone. Take it off."


def flipped_unlocked_message(cell: Cell) -> str:
    return f"A flipped (white) chip is on {cell_name(cell)}, but no sequence is locked there: flip it back."


def unknown_colour_message(colour: str, cell: Cell) -> str:
    return f"A {colour} chip is on {cell_name(cell)}, but {colour} is not playing in this game."


def corrected_message(cell: Cell, label: str) -> str:
    return f"Corrected {cell_name(cell)} to {label}."


def undone_message(undone: Event | None) -> str:
    return f"Undone: {undone.message}" if undone is not None else "Undone."
