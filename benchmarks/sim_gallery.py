"""Contact sheet of random simulated frames (easy / normal / hard x classic / Jumbo) to look at.

    .venv/bin/python benchmarks/sim_gallery.py [-o out/sim_gallery.png] [--seed 0] [--per-cell 2]
        [--corners] [--game]

Rows are difficulties, columns editions (``--per-cell`` frames each). ``--corners`` marks the
ground-truth grid corners (TL red, TR green, BR blue, BL yellow) and hatches occluded cells;
``--game`` adds a row of frames from a simulated game. Prints render times per difficulty.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.sim import GameSpec, random_spec, render, simulate_game

TILE = (480, 270)
CORNER_COLOURS = ((0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255))


def _mark(frame: np.ndarray, corners: np.ndarray, occluded: np.ndarray) -> np.ndarray:
    out = frame.copy()
    cv2.polylines(out, [np.round(corners).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA)
    for i, (x, y) in enumerate(corners):
        cv2.circle(out, (round(x), round(y)), 7, CORNER_COLOURS[i], 2, cv2.LINE_AA)
    src = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    H = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    for r, c in zip(*np.nonzero(occluded), strict=True):
        cell = np.array([[[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]]], np.float32)
        pts = cv2.perspectiveTransform(cell, H)[0]
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (255, 0, 255), 2)
    return out


def _label(tile: np.ndarray, text: str) -> np.ndarray:
    cv2.putText(tile, text, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(tile, text, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return tile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", default="out/sim_gallery.png")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-cell", type=int, default=2)
    parser.add_argument("--corners", action="store_true")
    parser.add_argument("--game", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    seed = args.seed
    for difficulty in ("easy", "normal", "hard"):
        tiles, times = [], []
        for edition in ("classic", "jumbo"):
            for _ in range(args.per_cell):
                spec = random_spec(seed, edition=edition, difficulty=difficulty)
                start = time.perf_counter()
                scene = render(spec)
                times.append(time.perf_counter() - start)
                frame = _mark(scene.frame, scene.corners, scene.occluded) if args.corners else scene.frame
                text = f"{difficulty} {edition} seed {seed} {spec.variant} tilt {spec.camera.tilt:.0f}"
                tiles.append(_label(cv2.resize(frame, TILE, interpolation=cv2.INTER_AREA), text))
                seed += 1
        rows.append(np.hstack(tiles))
        print(f"{difficulty:7s} render ms (first renders include texture builds): "
              f"median {np.median(times) * 1000:.0f}  max {max(times) * 1000:.0f}")
    if args.game:
        sim = simulate_game(GameSpec(seed=args.seed, edition="jumbo", teams=("yellow", "red")))
        picks = np.linspace(0, len(sim) - 1, 2 * args.per_cell).astype(int)
        rows.append(np.hstack([_label(cv2.resize(sim.render(int(i)).frame, TILE, interpolation=cv2.INTER_AREA),
                                      f"game frame {i}") for i in picks]))
    sheet = np.vstack(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), sheet):
        print(f"cannot write {out}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
