"""``sequence-companion replay``: events in order with their frame, clear one-line errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion_web import cmd_replay
from companion_web.cli import main


def picture(board: int) -> np.ndarray:
    """A frame standing for 'board number' ``board`` (blue channel), over a gradient."""
    image = np.full((48, 64, 3), 100, np.uint8)
    image[:, :, 0] = 60 + board
    image[:, :, 1] = np.arange(64, dtype=np.uint8)[None, :]
    return image


def write_folder(folder: Path, boards: list[int | None]) -> Path:
    folder.mkdir(exist_ok=True)
    for i, board in enumerate(boards):
        image = np.zeros((48, 64, 3), np.uint8) if board is None else picture(board)
        cv2.imwrite(str(folder / f"frame{i}.png"), image)
    return folder


@dataclass
class Update:
    state: str
    committed: list[list[str]] | None = None
    corners: Any = None
    labels: list[list[str]] | None = None
    message: str = ""


class FakeTracker:
    """Board number n = n blue chips along row 1; board 99 = nothing readable (no board)."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.committed: int | None = None

    def update(self, frame: np.ndarray, *, t: float, index: int) -> Update:
        board = int(frame[0, 0, 0]) - 60
        if board == 99:
            return Update("no_board", message="board lost; looking for it")
        grid = [["empty"] * 10 for _ in range(10)]
        for c in range(board):
            grid[1][c] = "blue"
        commit = grid if board != self.committed else None
        self.committed = board
        return Update("live", commit, labels=grid)


@dataclass(frozen=True)
class FakeEvent:
    type: str
    cell: tuple[int, int] | None
    team: str | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "cell": self.cell, "cells": None, "team": self.team,
                "message": self.message, "alert": None}


class FakeGame:
    def __init__(self, teams: tuple[str, ...], edition: str) -> None:
        self.teams, self.edition = teams, edition
        self.chips = 0

    def observe(self, labels: list[list[str]]) -> list[FakeEvent]:
        count = labels[1].count("blue")
        events = [FakeEvent("placed", (1, c), "blue", f"blue placed at (1, {c})")
                  for c in range(self.chips, count)]
        events += [FakeEvent("removed", (1, c), "blue", f"blue chip removed from (1, {c})")
                   for c in range(count, self.chips)]
        self.chips = count
        return events


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    made: dict[str, Any] = {}

    def game(teams: tuple[str, ...], edition: str) -> FakeGame:
        made["game"] = FakeGame(teams, edition)
        return made["game"]

    def tracker(**options: Any) -> FakeTracker:
        made["tracker"] = FakeTracker(**options)
        return made["tracker"]

    monkeypatch.setattr(cmd_replay, "build_game", game)
    monkeypatch.setattr(cmd_replay, "build_tracker", tracker)
    return made


def test_jsonl_gives_each_event_with_its_frame_and_time(tmp_path: Path, fakes, capsys) -> None:
    folder = write_folder(tmp_path / "clip", [0, 0, 1, 1, 2, 2, 1])
    assert main(["replay", str(folder), "--jsonl", "--fps", "10", "--teams", "green,blue,red"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    events = [r for r in lines if r["type"] != "status"]
    assert [(r["type"], r["frame"], r["cell"], r["team"]) for r in events] == [
        ("placed", 2, [1, 0], "blue"), ("placed", 4, [1, 1], "blue"), ("removed", 6, [1, 1], "blue"),
    ]
    assert [r["t"] for r in events] == pytest.approx([0.2, 0.4, 0.6])
    assert set(events[0]) >= {"frame", "t", "type", "cell", "cells", "team", "message"}
    statuses = [r for r in lines if r["type"] == "status"]
    assert [s["state"] for s in statuses] == ["live", "ended"]
    assert fakes["game"].teams == ("green", "blue", "red") and fakes["game"].edition == "classic"


def test_readable_output_has_events_and_board_lost_lines(tmp_path: Path, fakes, capsys) -> None:
    folder = write_folder(tmp_path / "clip", [0, 1, 99, 99, 1, None, 2])
    assert main(["replay", str(folder), "--edition", "jumbo"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any("placed" in line and "frame      1" in line for line in out)
    assert any("no board" in line and "board lost" in line for line in out)
    assert any("dark" in line for line in out)
    assert out[-1].startswith("end: 7 frames, 2 events")
    assert not any(line.lstrip().startswith("{") for line in out)
    assert fakes["tracker"].options["edition"] == "jumbo"


def test_corners_reach_the_tracker(tmp_path: Path, fakes, capsys) -> None:
    folder = write_folder(tmp_path / "clip", [0, 1])
    assert main(["replay", str(folder), "--corners", "1,2,60,2,60,40,1,40"]) == 0
    assert np.allclose(np.asarray(fakes["tracker"].options["corners"]), [[1, 2], [60, 2], [60, 40], [1, 40]])


def test_a_clip_where_the_board_is_never_read_exits_non_zero(tmp_path: Path, fakes, capsys) -> None:
    folder = write_folder(tmp_path / "clip", [99, 99, 99])
    assert main(["replay", str(folder), "--jsonl"]) == 1
    assert "never read" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["{missing}"], "no such file"),
        (["{text}"], "not a video"),
        (["{empty}"], "holds no images"),
        (["{clip}", "--teams", "blue"], "two or three"),
        (["{clip}", "--teams", "blue,blue"], "different"),
        (["{clip}", "--teams", "blue,purple"], "purple"),
        (["{clip}", "--corners", "1,2,3"], "8 numbers"),
        (["{clip}", "--corners", "0,0,50,0,0,40,50,40"], "in order"),
        (["{clip}", "--profile", "{missing}"], "no such profile"),
        (["{clip}", "--fps", "0"], "--fps"),
        (["rtsp://127.0.0.1:1/stream"], "cannot reach"),
    ],
)
def test_bad_inputs_give_one_line_and_a_non_zero_exit(tmp_path: Path, fakes, capsys, argv, words) -> None:
    paths = {"missing": tmp_path / "missing.mp4", "text": tmp_path / "notes.txt",
             "empty": tmp_path / "empty", "clip": write_folder(tmp_path / "clip", [0])}
    paths["text"].write_text("not a video")
    paths["empty"].mkdir()
    code = main(["replay", *(a.format(**{k: str(v) for k, v in paths.items()}) for a in argv)])
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert words in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


# ----------------------------------------------------------------------------- a real rendered game


@pytest.fixture(scope="module")
def rendered_clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict]]:
    """A short simulated game (three moves, hands crossing the board) written as JPEG frames."""
    from vision.sim import GameSpec, simulate_game
    from vision.sim.clip import write_clip

    sim = simulate_game(GameSpec(seed=2, max_moves=3))
    folder = tmp_path_factory.mktemp("replay") / "game"
    write_clip(sim, folder, max_frames=sim.events[-1]["frame"] + 20)
    return folder, list(sim.events)


@pytest.mark.slow
def test_replay_of_a_rendered_clip_gives_exactly_the_true_moves(rendered_clip, capsys) -> None:
    folder, truth = rendered_clip
    assert main(["replay", str(folder), "--jsonl", "--fps", "15"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    moves = [r for r in records if r["type"] in ("placed", "removed")]
    expected = [e for e in truth if e["type"] in ("placed", "removed")]
    assert [(r["type"], r["cell"], r["team"]) for r in moves] == [
        (e["type"], e["cell"], e["team"]) for e in expected
    ]
    for record, event in zip(moves, expected, strict=True):
        assert 0 <= record["frame"] - event["frame"] <= 15  # seen once the hand left, within a second
        assert record["t"] == pytest.approx(record["frame"] / 15, abs=1e-3)
    assert [(r["type"], sorted(map(tuple, r["cells"] or [])), r["team"]) for r in records
            if r["type"] in ("sequence", "win")] == [
        (e["type"], sorted(map(tuple, e.get("cells") or [])), e["team"]) for e in truth
        if e["type"] in ("sequence", "win")
    ]
    assert records[-1] == {**records[-1], "type": "status", "state": "ended"}


@pytest.mark.parametrize(("teams", "edition"), [("blue,green", "classic"), ("yellow,red", "jumbo"), ("blue,red", None)])
def test_the_teams_colours_tell_the_edition(tmp_path: Path, fakes, capsys, teams, edition) -> None:
    folder = write_folder(tmp_path / "clip", [0, 1])
    assert main(["replay", str(folder), "--teams", teams]) == 0
    assert fakes["tracker"].options["edition"] == edition
    assert fakes["game"].edition == (edition or "classic")
