"""How `detect` (nothing given) holds up when the camera processes its picture in ways the simulated
camera does not: a phone's saturation boost or a dim webcam's washed colours, sharpening halos,
other tone curves, colour casts past the renderer's range, a portrait photo, half the pixels,
heavy compression, a mirrored webcam.

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
from collections.abc import Callable, Iterator
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_accuracy import DIFFICULTIES, EDITIONS, Tally
from vision.detect import Detection, detect
from vision.sim import random_spec, render

Processing = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
"""A frame ``(H, W, 3)`` uint8 and its true corners ``(4, 2)`` in, the processed frame and where
those corners are in it out."""


def _tone(curve: Callable[[np.ndarray], np.ndarray]) -> Processing:
    """A processing that maps every channel's level through ``curve`` (levels in [0, 1])."""
    table = np.clip(np.rint(curve(np.arange(256) / 255.0) * 255.0), 0, 255).astype(np.uint8)
    return lambda frame, corners: (cv2.LUT(frame, table), corners)


def _gains(b: float, g: float, r: float) -> Processing:
    """A colour cast: each channel scaled (B, G, R), clipped as a camera would."""
    gains = np.array([b, g, r], np.float32)
    return lambda frame, corners: (np.clip(frame * gains, 0, 255).astype(np.uint8), corners)


def _saturation(factor: float) -> Processing:
    """The camera's colour saturation scaled by ``factor`` (HSV S channel)."""

    def apply(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        hsv[..., 1] = np.clip(hsv[..., 1] * np.float32(factor), 0, 255).astype(np.uint8)
        return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR), corners

    return apply


def _sharpen(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone's unsharp mask: halos along every edge."""
    return cv2.addWeighted(frame, 2.2, cv2.GaussianBlur(frame, (0, 0), 2.0), -1.2, 0), corners


def _jpeg(quality: int) -> Processing:
    """The frame saved as a JPEG of ``quality`` and read back (a cheap webcam's stream)."""

    def apply(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(buf, cv2.IMREAD_COLOR), corners

    return apply


def _half(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half the pixels each way (a 640x360 webcam mode)."""
    h, w = frame.shape[:2]
    # pixel centres: x_small = (x + 0.5) / 2 - 0.5
    return cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA), (corners + 0.5) / 2.0 - 0.5


def _portrait(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A phone held upright: the frame turned a quarter clockwise."""
    h = frame.shape[0]
    return cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE), np.stack([h - 1 - corners[:, 1], corners[:, 0]], axis=1)


def _mirror(frame: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A webcam set to mirror its picture (as video-call previews do)."""
    w = frame.shape[1]
    return cv2.flip(frame, 1), np.stack([w - 1 - corners[:, 0], corners[:, 1]], axis=1)


PROCESSING: dict[str, Processing] = {
    "plain": lambda frame, corners: (frame, corners),
    "saturation_x1.6": _saturation(1.6),
    "saturation_x0.5": _saturation(0.5),
    "sharpened": _sharpen,
    "gamma_0.6": _tone(lambda v: v**0.6),
    "gamma_1.6": _tone(lambda v: v**1.6),
    "s_curve": _tone(lambda v: 0.5 - 0.5 * np.cos(np.pi * v)),
    "tungsten": _gains(0.55, 0.85, 1.0),
    "cold": _gains(1.0, 0.9, 0.6),
    "jpeg_25": _jpeg(25),
    "half_size": _half,
    "portrait": _portrait,
    "mirrored": _mirror,
}
"""Each processing by name, the plain frame first."""


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
