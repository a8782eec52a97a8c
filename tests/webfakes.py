"""Small stand-ins for the engine and camera, for web unit tests (the real ones in browser tests)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine.labels import LETTER
from engine.layout import SIZE, is_corner


@dataclass(frozen=True)
class FakeEvent:
    type: str
    cell: tuple[int, int] | None = None
    cells: tuple[tuple[int, int], ...] = ()
    team: str | None = None
    message: str = ""
    alert: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cell"] = list(self.cell) if self.cell else None
        data["cells"] = [list(c) for c in self.cells]
        return data


@dataclass
class FakeGame:
    """A board of labels with placed/removed/corrected/undone events and scripted sequences."""

    teams: tuple[str, ...] = ("blue", "green")
    edition: str = "classic"
    track_turns: bool = True
    cells: dict[tuple[int, int], str] = field(default_factory=dict)
    locked: set[tuple[int, int]] = field(default_factory=set)
    done: dict[str, int] = field(default_factory=dict)
    history: list[FakeEvent] = field(default_factory=list)
    winner: str | None = None

    def _emit(self, events: list[FakeEvent]) -> list[FakeEvent]:
        self.history.extend(events)
        return events

    def observe(self, labels: Any) -> list[FakeEvent]:
        events = []
        for r in range(SIZE):
            for c in range(SIZE):
                label = str(labels[r][c])
                if label in ("unknown", "free") or is_corner((r, c)):
                    continue
                before = self.cells.get((r, c), "empty")
                if label != before:
                    if label == "empty":
                        self.cells.pop((r, c), None)
                        events.append(FakeEvent("removed", (r, c), team=before, message=f"{before} removed"))
                    else:
                        self.cells[(r, c)] = label
                        events.append(FakeEvent("placed", (r, c), team=label, message=f"{label} placed"))
        return self._emit(events)

    def correct(self, cell: tuple[int, int], label: str) -> list[FakeEvent]:
        if label == "empty":
            self.cells.pop(cell, None)
        else:
            self.cells[cell] = label
        return self._emit([FakeEvent("corrected", cell, team=label, message=f"set to {label}")])

    def undo(self) -> list[FakeEvent]:
        if not self.history:
            raise ValueError("nothing to undo")
        return self._emit([FakeEvent("undone", message="undid the last event")])

    def complete(self, team: str, cells: list[tuple[int, int]]) -> list[FakeEvent]:
        for cell in cells:
            self.cells[cell] = team
            self.locked.add(cell)
        self.done[team] = self.done.get(team, 0) + 1
        return self._emit([FakeEvent("sequence", cells=tuple(cells), team=team, message=f"{team} sequence!")])

    def board_text(self) -> str:
        rows = []
        for r in range(SIZE):
            row = ""
            for c in range(SIZE):
                if is_corner((r, c)):
                    row += "*"
                elif (r, c) in self.cells:
                    letter = LETTER[self.cells[(r, c)]]
                    row += letter.lower() if (r, c) in self.locked else letter
                else:
                    row += "."
            rows.append(row)
        return "\n".join(rows)

    def dead_cards(self) -> list[str]:
        return []

    def state(self) -> dict[str, Any]:
        return {
            "board": self.board_text(),
            "edition": self.edition,
            "teams": [{"colour": t, "done": self.done.get(t, 0), "needed": 2} for t in self.teams],
            "locked": [list(c) for c in sorted(self.locked)],
            "turn": self.teams[0] if self.track_turns else None,
            "winner": self.winner,
            "last_events": [e.to_dict() for e in self.history[-5:]],
        }


class FakeStore:
    def __init__(self) -> None:
        self.games: dict[int, list[Any]] = {}

    def new_game(self, game: Any) -> int:
        game_id = len(self.games) + 1
        self.games[game_id] = []
        return game_id

    def append(self, game_id: int, events: list[Any], *, game: Any = None) -> None:
        self.games[game_id].extend(events)

    def list_games(self) -> list[dict[str, Any]]:
        return [{"id": k, "events": len(v)} for k, v in sorted(self.games.items(), reverse=True)]

    def export(self, game_id: int) -> dict[str, Any]:
        if game_id not in self.games:
            raise KeyError(game_id)
        return {"id": game_id, "events": [e.to_dict() for e in self.games[game_id]]}


class FakeCamera:
    """A pipeline stand-in: a fixed BGR frame, its JPEG, and pause/resume calls recorded."""

    def __init__(self, frame: np.ndarray | None = None) -> None:
        import cv2

        self.frame = frame if frame is not None else np.full((240, 320, 3), 90, np.uint8)
        self.jpeg = cv2.imencode(".jpg", self.frame)[1].tobytes()
        self.calls: list[str] = []

    def latest_frame(self) -> np.ndarray:
        return self.frame

    def latest_overlay_jpeg(self) -> bytes:
        return self.jpeg

    def pause(self) -> None:
        self.calls.append("pause")

    def resume(self) -> None:
        self.calls.append("resume")


def labels_with(chips: dict[tuple[int, int], str]) -> list[list[str]]:
    """A 10x10 label grid: free corners, the given chips, empty elsewhere."""
    return [
        ["free" if is_corner((r, c)) else chips.get((r, c), "empty") for c in range(SIZE)]
        for r in range(SIZE)
    ]
