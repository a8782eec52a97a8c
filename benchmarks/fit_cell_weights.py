"""Refit the cell reader's decision weights (``ReaderConfig.*_weights``) on rendered frames.

The reader decides "chip or not" with two small logistic scores over named physical cues
(see ``CellReader.decision_inputs``). This script renders seeded scenes (standard ones and
Jumbo scenes rich in flipped chips), computes the cues per cell, fits each score with every
weight held to its physical sign (more rim contrast never argues *against* a chip, more print
never argues *for* one), and prints the tuples to paste into ``vision/classify.py``. The
benchmark seeds (1000 and up) are never used here.

    .venv/bin/python benchmarks/fit_cell_weights.py [--frames 100] [--flipped-frames 60]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.layout import LAYOUT, is_corner
from vision.classify import CellReader
from vision.sim import random_spec, render

SIGN = {
    "rim": 1, "ring": 1, "l_offset": 1, "twin_cover": 1, "ref_change": 1, "ref_change_low": 1,
    "ref_median": 1, "chroma": 1, "texture": -1, "spread": -1, "d_flipped": -1, "d_colour": -1,
    "court_spread": -1,
}
"""Physical sign of each cue's weight (for a white chip, chroma argues against: sign flipped)."""
COLOUR_INPUTS = ["spread", "ring", "d_colour", "court_spread", "chroma", "rim"]
WHITE_INPUTS = ["l_offset", "ring", "rim", "spread", "d_flipped", "chroma", "twin_cover", "texture"]
REF_INPUTS = ["ref_change", "ref_median", "ref_change_low"]
DIFFICULTIES = ("easy", "normal", "hard")


def scenes(frames: int, flipped_frames: int):
    """Seeded (scene, empty frame) pairs: standard scenes, then Jumbo scenes dense in flipped chips."""
    for seed in range(200, 200 + frames):
        spec = random_spec(seed, difficulty=DIFFICULTIES[seed % 3])
        yield render(spec), render(spec, empty=True).frame
    for seed in range(5100, 5100 + flipped_frames):
        rng = np.random.default_rng(seed)
        choices = ["empty"] * 5 + ["flipped"] * 2 + ["yellow", "red", "blue"]
        labels = tuple(
            tuple("free" if is_corner((r, c)) else str(rng.choice(choices)) for c in range(10)) for r in range(10)
        )
        spec = random_spec(seed, edition="jumbo", difficulty=DIFFICULTIES[seed % 3], labels=labels)
        yield render(spec), render(spec, empty=True).frame


def cell_rows(frames: int, flipped_frames: int) -> list[dict]:
    """One dict per visible, non-corner cell: truth, edition, seed and every decision input."""
    rows = []
    for scene, empty in scenes(frames, flipped_frames):
        reader = CellReader(edition=scene.edition)
        reader.set_reference(reader.rectify(empty, scene.corners))
        inputs = reader.decision_inputs(reader.features(reader.rectify(scene.frame, scene.corners)))
        for i in range(100):
            r, c = divmod(i, 10)
            if scene.occluded[r, c] or LAYOUT[r][c] == "FREE":
                continue
            rows.append({"seed": scene.spec.seed, "edition": scene.edition, "truth": scene.labels[r][c],
                         **{k: float(v[i]) for k, v in inputs.items()}})
    return rows


def fit_signed(x: np.ndarray, y: np.ndarray, signs: np.ndarray, *, l2: float = 1e-3, steps: int = 3000,
               rate: float = 0.05) -> np.ndarray:
    """Logistic regression by Adam on standardised inputs, each weight projected onto its sign."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    n, d = z.shape
    w, b = np.zeros(d), 0.0
    m, v = np.zeros(d + 1), np.zeros(d + 1)
    for t in range(1, steps + 1):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        g = np.r_[z.T @ (p - y) / n + l2 * w, (p - y).mean()]
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        step = rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        w, b = w - step[:d], b - step[d]
        w = np.where(signs > 0, np.maximum(w, 0), np.minimum(w, 0))
    return np.r_[w / sd, b - (w * mu / sd).sum()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--flipped-frames", type=int, default=60)
    args = parser.parse_args(argv)
    rows = cell_rows(args.frames, args.flipped_frames)
    for kind in ("colour", "white"):
        for ref in (False, True):
            names = (COLOUR_INPUTS if kind == "colour" else WHITE_INPUTS) + (REF_INPUTS if ref else [])
            signs = np.array([-SIGN[n] if (kind == "white" and n == "chroma") else SIGN[n] for n in names])
            if kind == "colour":
                sel = [r for r in rows if r["truth"] != "flipped"]
                y = np.array([r["truth"] != "empty" for r in sel], float)
            else:
                sel = [r for r in rows if r["edition"] == "jumbo" and r["truth"] in ("flipped", "empty")]
                y = np.array([r["truth"] == "flipped" for r in sel], float)
            x = np.array([[r[n] for n in names] for r in sel])
            held = np.array([r["seed"] % 2 == 1 for r in sel])
            w_half = fit_signed(x[~held], y[~held], signs)
            errors = int((((np.c_[x[held], np.ones(held.sum())] @ w_half) > 0) != (y[held] > 0)).sum())
            weights = fit_signed(x, y, signs)
            name = f"{kind}_weights" + ("_ref" if ref else "")
            items = ", ".join(f'("{n}", {v:.4g})' for n, v in zip([*names, "bias"], weights, strict=True))
            print(f"# {name}: {errors} of {int(held.sum())} held-out cells wrong when fitted on the other half")
            print(f"{name}: tuple[tuple[str, float], ...] = ({items},)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
