"""A profile made once, used on later nights: the board put away and laid down elsewhere.

For each seeded table a profile is calibrated on a render of its empty board (true corners, as
the wizard's handles would give). On a later night the same board holds chips, lies up to
``--max-shift`` cells from its old place and is turned up to ``--max-turn`` degrees, under the
lighting of another seed. The live tracker watches that still frame for two seconds, once with
the profile and its empty-board picture, once with nothing but the edition, and once locked onto
the profile's corners as they were (``MODES``), and the script
prints, per difficulty: boards committed, cells wrong in the first committed grid, boards all
right, and the median seconds of frames (15 per second) to the first commit.

    .venv/bin/python benchmarks/profile_nights.py --tables 60 --seed 300000 --jobs 2
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

# Run as a script from anywhere: the repository root first (benchmarks/engine.py is a script,
# not the engine package).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.build import calibrate
from engine.layout import SIZE
from vision.sim import random_spec, render
from vision.track import BoardTracker

FPS = 15.0
DIFFICULTIES = ("easy", "normal", "hard")
EDITIONS = ("classic", "jumbo")
MODES = ("profile", "no profile", "old corners")
"""With the profile and its empty-board picture; with the edition only; and locked onto the
profile's corners as they were (what the tracker did before it searched for a profiled board)."""


@dataclasses.dataclass(frozen=True)
class Night:
    """One table's outcome in one mode: cells wrong in the first commit (None: none made)."""

    difficulty: str
    mode: str
    wrong: int | None
    seconds: float | None


def _emptied(labels: tuple) -> tuple:
    return tuple(tuple("free" if label == "free" else "empty" for label in row) for row in labels)


def one_table(seed: int, max_shift: float, max_turn: float, seconds: float) -> list[Night]:
    """Calibrate on the empty board, then follow the moved, relit board with and without it."""
    difficulty = DIFFICULTIES[seed % len(DIFFICULTIES)]
    edition = EDITIONS[(seed // len(DIFFICULTIES)) % len(EDITIONS)]
    spec = random_spec(seed, edition=edition, difficulty=difficulty)
    empty = render(dataclasses.replace(spec, labels=_emptied(spec.labels), clutter=()))
    profile = calibrate(empty.frame, corners=empty.corners, edition=edition)
    if not profile:
        raise RuntimeError(f"seed {seed}: calibration failed: {profile.reason}")
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, 2 * np.pi)
    shift = rng.uniform(0, max_shift) * np.array([np.cos(angle), np.sin(angle)])
    lighting = random_spec(seed + 1_000_000, edition=edition, difficulty=difficulty).lighting
    night = render(dataclasses.replace(spec, board_shift=(float(shift[0]), float(shift[1])),
                                       board_rot=float(rng.uniform(-max_turn, max_turn)), lighting=lighting))
    truth = np.array(night.labels)
    out = []
    for mode, options in (("profile", {"profile": profile, "reference": empty.frame}),
                          ("no profile", {"edition": edition}),
                          ("old corners", {"profile": profile, "reference": empty.frame, "corners": profile.corners})):
        tracker = BoardTracker(**options)
        wrong = seconds_to_commit = None
        for i in range(round(seconds * FPS)):
            update = tracker.update(night.frame, t=i / FPS, index=i)
            if update.committed is not None:
                wrong, seconds_to_commit = int((np.array(update.committed) != truth).sum()), i / FPS
                break
        out.append(Night(difficulty, mode, wrong, seconds_to_commit))
    return out


def _report(nights: list[Night]) -> None:
    print(f"{'difficulty':<10} {'mode':<11} {'tables':>6} {'committed':>9} {'cells wrong':>11} "
          f"{'error %':>8} {'all right':>9} {'median s':>8}")
    for difficulty in (*DIFFICULTIES, "all"):
        for mode in MODES:
            rows = [n for n in nights if n.mode == mode and difficulty in ("all", n.difficulty)]
            if not rows:
                continue
            done = [n for n in rows if n.wrong is not None]
            wrong = sum(n.wrong or 0 for n in done)
            cells = len(done) * (SIZE * SIZE - 4)
            right = sum(n.wrong == 0 for n in done)
            median = float(np.median([n.seconds for n in done])) if done else float("nan")
            print(f"{difficulty:<10} {mode:<11} {len(rows):>6} {len(done):>9} {wrong:>11} "
                  f"{100.0 * wrong / max(cells, 1):>8.4f} {100.0 * right / len(rows):>8.2f}% {median:>8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=60, help="seeded tables (default 60)")
    parser.add_argument("--seed", type=int, default=300000, help="first seed (default 300000)")
    parser.add_argument("--max-shift", type=float, default=1.5, help="cells the board may lie from its old place")
    parser.add_argument("--max-turn", type=float, default=8.0, help="degrees it may be turned")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of frames watched per table")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the tracker warns of every moved board
    if args.tables < 1 or args.jobs < 1 or args.seconds <= 0:
        parser.error("--tables, --jobs and --seconds must be positive")
    seeds = range(args.seed, args.seed + args.tables)
    task = [(s, args.max_shift, args.max_turn, args.seconds) for s in seeds]
    if args.jobs == 1:
        results = [one_table(*t) for t in task]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one_table, *zip(*task, strict=True)))
    _report([night for table in results for night in table])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
