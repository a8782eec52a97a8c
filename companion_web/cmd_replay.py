"""``sequence-companion replay SOURCE``: follow a recorded (or live) game and print its events.

Runs the same pipeline as ``serve`` (source -> tracker -> engine) over every frame of a video
file or a folder of frames (or a live camera / ``sim`` until Ctrl-C) and prints each engine
event in order.

With ``--jsonl`` each line is one JSON object. Engine events::

    {"frame": N, "t": seconds, "type": "placed"|"removed"|"sequence"|"win"|"alert",
     "cell": [r, c] | null, "cells": [[r, c], ...] | null, "team": "blue" | null,
     "message": "...", "alert": "machine-code" | null}

``frame`` is the index of the frame at which the change was committed and ``t`` its time in
the source (frame index / fps for files). Camera state changes are objects of type
``"status"``: ``{"frame": N, "t": s, "type": "status", "state": "no_board", "message": "..."}``
(states as on the page: starting, live, occluded, relocking, no_board, camera_lost,
reconnecting, frozen, dark, paused, ended). When the source starts another game (the ``sim``
table looping) a ``{"frame": N, "t": s, "type": "new_game", "message": "..."}`` object marks
where a fresh engine game begins. Consumers that only want moves skip both.
Without ``--jsonl`` the same appear as readable lines (hands passing over the board, the
``occluded`` state, are left out there).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from companion_web.errors import CliError
from companion_web.options import EDITION_CHOICES, add_camera_size, parse_corners, parse_teams, source_config
from companion_web.pipeline import CameraStatus, Pipeline
from engine.labels import edition_of_colours
from vision.geometry import check_corners
from vision.sources import SourceError, open_source

HELP = "follow a recorded game (video file, folder of frames, camera) and print its events"
QUIET_STATES: frozenset[str] = frozenset({"occluded"})
"""States readable output leaves out: a hand over the board is normal play."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "replay",
        help=HELP,
        description=HELP + ". Each placement, removal, completed sequence, win and rule alert is "
        "printed in order with the frame at which it was seen; --jsonl prints one JSON object per "
        "line (events, and camera state changes with type \"status\").",
    )
    parser.add_argument("source", metavar="SOURCE",
                        help="video file, folder of frames (natural order), camera index, device, "
                        "rtsp:// or http:// URL, or 'sim'")
    parser.add_argument(
        "--corners", metavar="X1,Y1,X2,Y2,X3,Y3,X4,Y4",
        help="outer corners of the 10x10 grid in pixels, TL, TR, BR, BL of the printed layout "
        "(TL is the free corner left of 2S); default: found automatically",
    )
    parser.add_argument("--profile", metavar="PROFILE", help="calibration profile (from `calibrate`)")
    parser.add_argument("--teams", default="blue,green", metavar="COLOURS",
                        help="team colours in turn order, 2 or 3 of blue, green, red, yellow "
                        "(default: blue,green)")
    parser.add_argument("--edition", choices=EDITION_CHOICES,
                        help="board edition (default: the profile's; else classic with green chips, jumbo "
                        "with yellow ones, else told from the grid's shape)")
    parser.add_argument("--fps", type=float, metavar="FPS",
                        help="frame rate of a folder of frames (default 15), or to override a video's")
    parser.add_argument("--jsonl", action="store_true", help="one JSON object per line")
    add_camera_size(parser)
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``replay``: 0 when the input was followed to its end, 1 when no board was ever seen."""
    teams = parse_teams(args.teams)
    corners = check_corners(parse_corners(args.corners), "--corners") if args.corners is not None else None
    if args.fps is not None and not (0 < args.fps <= 1000):
        raise CliError(f"--fps must be between 0 and 1000, got {args.fps:g}")
    profile = reference = None
    if args.profile:
        from calibration.profile import load_profile_and_reference

        profile, reference = load_profile_and_reference(args.profile)
    # Green chips come only with the classic board, yellow only with the Jumbo mat; otherwise
    # None lets the tracker tell the edition from the grid's shape (the Jumbo mat's cells are wider).
    edition = args.edition or (profile.edition if profile is not None else None) or edition_of_colours(teams)
    try:
        source = open_source(args.source, fps=args.fps, config=source_config(args))
    except SourceError as exc:
        raise CliError(str(exc)) from None
    current: dict[str, Any] = {}

    def new_tracker() -> Any:
        current["tracker"] = build_tracker(edition=edition, corners=corners, profile=profile, reference=reference)
        return current["tracker"]

    def new_game() -> Any:  # made at the first board read, when the tracker knows the edition
        return build_game(teams, edition or getattr(current.get("tracker"), "edition", None) or "classic")

    with source:
        printer = EventPrinter(sys.stdout, jsonl=args.jsonl, new_game=new_game)

        def on_new_game(frame: Any) -> None:  # the simulated table looped to its next game
            printer.restart(frame.index, frame.t)
            pipeline.set_tracker(new_tracker())

        pipeline = Pipeline(source, new_tracker(), on_board=printer.on_board, on_status=printer.status,
                            on_new_game=on_new_game)
        pipeline.run()
    if pipeline.boards_committed == 0:
        hint = ("check --corners: the grid's outer corners in this input's picture" if corners is not None
                else "try --corners or --profile")
        print(f"sequence-companion replay: the board was never read in {source.description} "
              f"({pipeline.frames_seen} frames); {hint}", file=sys.stderr)
        return 1
    if not args.jsonl:
        printer.line(f"end: {pipeline.frames_seen} frames, {printer.events} events")
    return 0


def build_game(teams: tuple[str, ...], edition: str) -> Any:
    """The engine game the replay feeds."""
    from engine.game import Game

    return Game(teams=teams, edition=edition)


def build_tracker(**options: Any) -> Any:
    """The live tracker (``vision.track.BoardTracker``) with the command's options."""
    from vision.track import BoardTracker

    return BoardTracker(**options)


class EventPrinter:
    """Feeds committed boards to the engine game and writes its events and the camera states
    to ``out``, as JSON lines or readable lines. ``new_game()`` makes a fresh engine game."""

    def __init__(self, out: TextIO, *, jsonl: bool, new_game: Callable[[], Any]) -> None:
        self.out = out
        self.jsonl = jsonl
        self.events = 0
        self._new_game = new_game
        self.game: Any = None
        """The engine game, made when the first board is read (``new_game()``)."""
        self._last_state = ""

    def on_board(self, labels: list[list[str]], index: int, t: float) -> list[Any]:
        """``on_board`` for the pipeline: feed the engine, print what it says, return its events."""
        if self.game is None:
            self.game = self._new_game()
        events = list(self.game.observe(labels))
        for event in events:
            self.event(event, index, t)
        return events

    def restart(self, index: int, t: float) -> None:
        """The source started another game: a fresh engine game from its first board on."""
        self.game = None
        if self.jsonl:
            self._json({"frame": int(index), "t": round(float(t), 3), "type": "new_game",
                        "message": "the source started a new game"})
        else:
            self.line(f"{t:8.2f}s  frame {index:>6}  {'new game':<8} the source started a new game")

    def event(self, event: Any, index: int, t: float) -> None:
        self.events += 1
        record = event_record(event, index, t)
        if self.jsonl:
            self._json(record)
        else:
            where = f" at {tuple(record['cell'])}" if record["cell"] is not None else ""
            message = record["message"] or f"{record['team'] or ''} {record['type']}{where}".strip()
            self.line(f"{t:8.2f}s  frame {index:>6}  {record['type']:<8} {message}")

    def status(self, status: CameraStatus) -> None:
        previous, self._last_state = self._last_state, status.state
        if self.jsonl:
            self._json({"frame": status.frame_index, "t": round(status.t, 3), "type": "status",
                        "state": status.state, "message": status.detail})
            return
        if status.state in QUIET_STATES or (status.state == "live" and previous in QUIET_STATES):
            return
        detail = f": {status.detail}" if status.detail else ""
        frame = f"frame {status.frame_index:>6}" if status.frame_index >= 0 else " " * 12
        self.line(f"{status.t:8.2f}s  {frame}  {'camera':<8} {status.state.replace('_', ' ')}{detail}")

    def line(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def _json(self, record: dict[str, Any]) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()


def event_record(event: Any, index: int, t: float) -> dict[str, Any]:
    """One engine event as the ``--jsonl`` object (cells as ``[r, c]`` lists)."""
    data = event.to_dict() if hasattr(event, "to_dict") else dict(event)
    cell = data.get("cell")
    cells = data.get("cells")
    return {
        "frame": int(index),
        "t": round(float(t), 3),
        "type": data.get("type"),
        "cell": None if cell is None else [int(v) for v in cell],
        "cells": None if cells is None else [[int(v) for v in c] for c in cells],
        "team": data.get("team"),
        "message": data.get("message") or "",
        "alert": data.get("alert"),
    }
