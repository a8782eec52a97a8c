"""How `detect` (nothing given) holds up when the camera processes its picture in ways the simulated
camera does not: a phone's saturation boost or a dim webcam's washed colours, sharpening halos,
other tone curves, colour casts past the renderer's range, a phone's local tone mapping and noise
reduction, a lens's vignette, a portrait photo, half the pixels, heavy compression, a mirrored
webcam; light of two colours across the board, a lens's colour fringes, a far end out of focus.

Every frame is rendered once, then put through each processing (``PROCESSING``); the figures
per processing set against those of the plain frame show what the reader learned from the
renderer's look rather than from the board. Seeds default far from the benchmark's and the fit
scripts'.

    .venv/bin/python benchmarks/vision_stress.py                       # 60 frames, normal and hard
    .venv/bin/python benchmarks/vision_stress.py --difficulty hard --only plain,saturation_x1.6
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.camera_processing import PROCESSING
from benchmarks.fit_seeds import fitted_warning
from benchmarks.vision_accuracy import DIFFICULTIES, EDITIONS, Tally
from vision.detect import Detection, detect
from vision.sim import random_spec, render

Scored = tuple[str, Detection, np.ndarray]
"""A processing's name, what detect made of the processed frame, and where the true corners are in it."""


def _one(job: tuple[int, str, str, tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray, list[Scored]]:
    """Render one seeded frame and run detect on it under each named processing; the frame's
    true labels and visible cells ``(10, 10)`` with the detections."""
    seed, difficulty, edition, names = job
    cv2.setNumThreads(1)
    scene = render(random_spec(seed, edition=edition, difficulty=difficulty))
    detections = []
    for name in names:
        frame, corners = PROCESSING[name](scene.frame, np.asarray(scene.corners, np.float64))
        detections.append((name, detect(frame), corners))
    return np.asarray(scene.labels, dtype=object), ~np.asarray(scene.occluded, dtype=bool), detections


def _run(jobs: list, processes: int) -> Iterator[tuple[np.ndarray, np.ndarray, list[Scored]]]:
    """``_one`` of each job in order, in this process or in ``processes`` spawned ones (not
    forked: a fork of a process whose OpenCV threads already ran can hang)."""
    if processes <= 1:
        yield from map(_one, jobs)
        return
    with get_context("spawn").Pool(processes) as pool:
        yield from pool.imap(_one, jobs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=60)
    parser.add_argument("--seed", type=int, default=96000)
    parser.add_argument("--difficulty", choices=DIFFICULTIES, action="append",
                        help="only these difficulties (default: normal and hard)")
    parser.add_argument("--only", default="", help=f"comma-separated processings, of: {', '.join(PROCESSING)}")
    parser.add_argument("--jobs", type=int, default=1, help="frames scored in parallel processes")
    args = parser.parse_args(argv)
    names = tuple(n for n in args.only.split(",") if n) or tuple(PROCESSING)
    unknown = [n for n in names if n not in PROCESSING]
    if unknown:
        parser.error(f"unknown processing {', '.join(unknown)}; choose from {', '.join(PROCESSING)}")
    combos = itertools.cycle(itertools.product(args.difficulty or ("normal", "hard"), EDITIONS))
    jobs = [(args.seed + i, *next(combos), names) for i in range(args.frames)]
    totals = {name: Tally() for name in names}
    start = time.perf_counter()
    for truth, visible, detections in _run(jobs, args.jobs):
        for name, det, corners in detections:
            totals[name].score(det, corners, truth, visible)
    print(f"vision stress: {args.frames} frames from seed {args.seed} "
          f"({', '.join(args.difficulty or ('normal', 'hard'))}; {', '.join(EDITIONS)}), nothing given, "
          f"in {time.perf_counter() - start:.0f} s")
    if warning := fitted_warning(range(args.seed, args.seed + args.frames)):
        print(warning)
    print(f"  {'processing':16s} {'found+oriented':>15s} {'false':>6s} {'per-cell error':>15s} "
          f"{'sure+wrong':>11s} {'all right':>10s}")
    for name in names:
        t = totals[name]
        n = max(t.frames, 1)
        print(f"  {name:16s} {100.0 * t.oriented / n:13.2f} % {t.false_boards:6d} "
              f"{100.0 * t.cell_errors / max(t.cells, 1):13.4f} % {t.sure_errors:11d} {100.0 * t.all_right / n:8.2f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
