"""Frames per second the live pipeline (tracker + engine) sustains on one core, at 720p and 1080p.

Frames of a simulated game (hands crossing, chips placed) are rendered first and kept in
memory, so rendering is not counted; then they go through ``companion_web.pipeline.Pipeline``
with a ``vision.track.BoardTracker`` (locating the board itself) and an ``engine.Game``, the
same code path as ``replay``. Prints the overall rate, the steady rate after the board is
locked, and the median, 95th-percentile and worst time of one ``tracker.update``.

    .venv/bin/python benchmarks/live_speed.py [--frames 150] [--seed 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion_web.pipeline import Pipeline
from engine import Game
from vision.sim import GameSpec, simulate_game
from vision.sources import OrderedSource
from vision.track import BoardTracker

FPS = 15.0
SIZES = ((1280, 720), (1920, 1080))


class TimedTracker:
    """Wraps a tracker to time each ``update`` (the pipeline sees the same interface)."""

    def __init__(self, tracker: BoardTracker) -> None:
        self.tracker = tracker
        self.times: list[float] = []
        self.updates: list[Any] = []

    def update(self, frame: np.ndarray, *, t: float, index: int) -> Any:
        start = time.perf_counter()
        out = self.tracker.update(frame, t=t, index=index)
        self.times.append(time.perf_counter() - start)
        self.updates.append(out)
        return out


def prerender(seed: int, size: tuple[int, int], n: int, skip: int) -> list[np.ndarray]:
    """``n`` frames of a seeded game after the first ``skip`` (so hands are about)."""
    spec = GameSpec(seed=seed, edition="classic", teams=("blue", "green"), fps=FPS, size=size)
    frames = []
    for f in simulate_game(spec).frames():
        if f.index < skip:
            continue
        frames.append(f.frame)
        if len(frames) >= n:
            break
    return frames


def measure(frames: list[np.ndarray]) -> dict[str, float]:
    """Run the frames through the pipeline; rates overall and once the first board is committed."""
    game = Game(["blue", "green"], edition="classic")
    timed = TimedTracker(BoardTracker(edition="classic"))
    marks: list[float] = []

    def on_update(frame: Any, update: Any) -> None:
        marks.append(time.perf_counter())

    source = OrderedSource(iter(enumerate(frames)), fps=FPS, description="pre-rendered frames")
    pipeline = Pipeline(source, timed, on_board=lambda labels, index, t: game.observe(labels), on_update=on_update)
    start = time.perf_counter()
    pipeline.run()
    total = time.perf_counter() - start
    source.close()
    first = next((i for i, u in enumerate(timed.updates) if u.committed is not None), 0)
    steady = marks[first:]
    ms = [1000.0 * x for x in timed.times[first + 1 :]]
    return {
        "fps": len(frames) / total,
        "steady_fps": (len(steady) - 1) / max(steady[-1] - steady[0], 1e-9) if len(steady) > 1 else float("nan"),
        "median_ms": statistics.median(ms) if ms else float("nan"),
        "p95_ms": float(np.percentile(ms, 95)) if ms else float("nan"),
        "max_ms": max(ms, default=float("nan")),
        "committed": pipeline.boards_committed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=150)
    parser.add_argument("--skip", type=int, default=0, help="frames of the game skipped first")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"one core (cv2.setNumThreads(1)); {args.frames} pre-rendered frames per size")
    for size in SIZES:
        frames = prerender(args.seed, size, args.frames, args.skip)
        r = measure(frames)
        print(f"{size[0]}x{size[1]}: {r['steady_fps']:.1f} fps sustained once locked"
              f" ({r['fps']:.1f} fps including the search for the board);"
              f" tracker.update median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms,"
              f" max {r['max_ms']:.0f} ms; boards committed {r['committed']}")
        del frames
    return 0


if __name__ == "__main__":
    sys.exit(main())
