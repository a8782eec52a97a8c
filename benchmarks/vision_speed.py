"""Speed of the vision stages at 1280x720 on one core, against a bare warpPerspective as the floor.

Prints the median time to read all 100 cells once the board is located (``CellReader.read``:
rectify + classify; target <= 10 ms), to locate and orient from scratch (target <= 100 ms), the
whole ``detect`` with nothing given, and a bare ``cv2.warpPerspective`` of the full frame.
CPU times (``time.process_time``) are printed too: a busy machine disturbs them far less.

    .venv/bin/python benchmarks/vision_speed.py [--frames 20] [--repeats 20] [--detect-repeats 5] [--seed 1]
"""

from __future__ import annotations

import os

# One core means NumPy's BLAS too, not only OpenCV: its threads (the twin cards' matrix
# products) would otherwise run on a second core, outside cv2.setNumThreads(1). Set before
# NumPy is imported, which reads it once.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.classify import CellReader
from vision.detect import detect
from vision.sim import random_spec, render


def median_ms(fn: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Median time of ``fn`` in milliseconds over ``repeats`` calls (after one warm-up).

    ``clock`` is wall time by default; ``time.process_time`` gives this process's CPU time,
    which a machine busy with other work disturbs far less.
    """
    fn()
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(1000.0 * (clock() - start))
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=20, help="reads per frame")
    parser.add_argument("--detect-repeats", type=int, default=5, help="detections per frame (nothing given)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    read_ms, locate_ms, detect_ms, floor_ms = [], [], [], []
    read_cpu, floor_cpu, detect_cpu = [], [], []
    for i in range(args.frames):
        edition = ("classic", "jumbo")[i % 2]
        scene = render(random_spec(args.seed + i, edition=edition, difficulty="normal", size=(1280, 720)))
        frame, corners = scene.frame, scene.corners
        reader = CellReader(edition=scene.edition)
        read_ms.append(median_ms(lambda: reader.read(frame, corners), args.repeats))  # noqa: B023
        matrix = np.eye(3, dtype=np.float64)
        floor_ms.append(median_ms(
            lambda: cv2.warpPerspective(frame, matrix, (frame.shape[1], frame.shape[0])),  # noqa: B023
            args.repeats,
        ))
        read_cpu.append(median_ms(lambda: reader.read(frame, corners), args.repeats, time.process_time))  # noqa: B023
        floor_cpu.append(median_ms(
            lambda: cv2.warpPerspective(frame, matrix, (frame.shape[1], frame.shape[0])),  # noqa: B023
            args.repeats, time.process_time,
        ))
        # Per frame, the median of several detections: one run of 100 ms on a shared machine
        # swings by a fifth; the repeats do the same work (nothing is cached between them).
        runs, cpus = [], []
        for _ in range(args.detect_repeats):
            cpu = time.process_time()
            runs.append(detect(frame).timings)
            cpus.append(1000.0 * (time.process_time() - cpu))
        detect_cpu.append(statistics.median(cpus))
        locate_ms.append(statistics.median(t.get("locate", float("nan")) + t.get("orient", 0.0) for t in runs))
        detect_ms.append(statistics.median(t.get("total", float("nan")) for t in runs))
    read, floor = statistics.median(read_ms), statistics.median(floor_ms)
    print(f"vision speed at 1280x720, one core (cv2.setNumThreads(1)), {args.frames} frames "
          f"(median of {args.repeats} reads and {args.detect_repeats} detections each)")
    print(f"  read all cells once located   median {read:6.2f} ms   (target <= 10 ms)")
    locate = statistics.median(locate_ms)
    print(f"  locate + orient from scratch  median {locate:6.2f} ms   (target <= 100 ms)")
    print(f"  detect, nothing given         median {statistics.median(detect_ms):6.2f} ms")
    print(f"  bare warpPerspective (floor)  median {floor:6.2f} ms")
    print(f"  read / floor ratio            {read / floor:6.2f}x")
    rc, fc = statistics.median(read_cpu), statistics.median(floor_cpu)
    print(f"  CPU time (process_time): read {rc:.2f} ms, floor {fc:.2f} ms, ratio {rc / fc:.2f}x;"
          f" detect with nothing given {statistics.median(detect_cpu):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
