"""Board geometry on seeded simulated frames: locate from scratch, orient, relocate from a reference.

For each difficulty and edition, N frames are rendered; the script prints, per mode:
found rate, orientation accuracy (canonical corners right), corner error as a fraction of the
grid diagonal (median, 95th percentile), the rate of frames whose error is under 0.5 %, and
median milliseconds per frame on one core, next to a bare ``cv2.warpPerspective`` of the frame
as the floor of this machine (so the figures can be compared across loaded machines).

    .venv/bin/python benchmarks/locate_accuracy.py --n 30
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from pathlib import Path

import cv2
import numpy as np

# Run as a script from anywhere: the repository root first (benchmarks/engine.py is a script,
# not the engine package).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fit_seeds import fitted_warning
from vision.geometry import corner_error, order_as_seen
from vision.locate import locate_grid
from vision.orient import orient_grid
from vision.reference import Reference, relocate
from vision.sim import random_spec, render

log = logging.getLogger("locate_accuracy")


def _ms(fn, *args, **kw):
    t = time.perf_counter()
    out = fn(*args, **kw)
    return out, (time.perf_counter() - t) * 1000.0


def warp_floor_ms(frame: np.ndarray, repeats: int = 20) -> float:
    """Median time of a bare full-frame warpPerspective: what 'fast' means on this machine."""
    h = np.array([[1, 0.01, 2], [0.01, 1, 3], [1e-5, 0, 1]])
    times = [_ms(cv2.warpPerspective, frame, h, (frame.shape[1], frame.shape[0]))[1] for _ in range(repeats)]
    return float(np.median(times))


def run(difficulty: str, edition: str, n: int, seed0: int) -> dict:
    rows = {"locate": [], "relocate": []}
    for seed in range(seed0, seed0 + n):
        spec = random_spec(seed, edition=edition, difficulty=difficulty)
        scene = render(spec)
        truth = scene.corners
        loc, ms = _ms(locate_grid, scene.frame)
        if loc:
            o, ms_o = _ms(orient_grid, scene.frame, loc.corners, edition=loc.edition)
            err = corner_error(loc.corners, order_as_seen(truth))
            oriented = corner_error(o.corners, truth) < 0.05
            rows["locate"].append((True, oriented, err, ms + ms_o))
        else:
            rows["locate"].append((False, False, np.nan, ms))
        empty = render(spec, empty=True)
        ref = Reference.build(empty.frame, empty.corners, edition=empty.edition)
        bumped = render(dataclasses.replace(spec, board_shift=(0.2, -0.15), board_rot=2.0))
        fit, ms = _ms(relocate, bumped.frame, ref)
        err = corner_error(fit.corners, bumped.corners) if fit else np.nan
        rows["relocate"].append((bool(fit), bool(fit), err, ms))
    return rows


def summarise(rows: list) -> str:
    found = np.array([r[0] for r in rows])
    oriented = np.array([r[1] for r in rows])
    err = np.array([r[2] for r in rows], dtype=float)
    ms = np.array([r[3] for r in rows])
    ok = err[np.isfinite(err)]
    med = np.median(ok) if len(ok) else np.nan
    p95 = np.percentile(ok, 95) if len(ok) else np.nan
    fine = np.mean(np.isfinite(err) & (err < 0.005) & oriented)
    return (
        f"found {found.mean():6.1%}  oriented {oriented.mean():6.1%}  err med {med:.4f} p95 {p95:.4f}  "
        f"<0.5%&oriented {fine:6.1%}  {np.median(ms):6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="frames per difficulty and edition")
    parser.add_argument("--seed", type=int, default=1000, help="first seed")
    parser.add_argument("--difficulties", default="easy,normal,hard")
    parser.add_argument("--editions", default="classic,jumbo")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    cv2.setNumThreads(1)
    floor = warp_floor_ms(render(random_spec(0)).frame)
    if warning := fitted_warning(range(args.seed, args.seed + args.n)):
        log.info("%s", warning)
    log.info("one core; bare warpPerspective of a 1280x720 frame: %.1f ms (the floor)", floor)
    for difficulty in args.difficulties.split(","):
        for edition in args.editions.split(","):
            rows = run(difficulty, edition, args.n, args.seed)
            for mode in ("locate", "relocate"):
                log.info("%-6s %-7s %-8s %s", difficulty, edition, mode, summarise(rows[mode]))


if __name__ == "__main__":
    main()
