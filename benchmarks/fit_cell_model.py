"""Fit the cell reader's chip-or-not network (``vision/cell_model.json``) on rendered frames.

The reader decides "chip or not" with a one-hidden-layer network over named physical cues
(``CellReader.decision_inputs``). This script renders seeded scenes (standard ones at every
difficulty, and Jumbo scenes rich in flipped chips), computes the cues of every visible cell,
fits two networks (without and with the empty-board comparison), reports their errors on
held-out scenes, and writes the JSON. The benchmarks' seeds (1000 and up for still frames,
the low seeds of whole games) are never used here.

    .venv/bin/python benchmarks/fit_cell_model.py [--frames 600] [--flipped-frames 200] [--hidden 16]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.layout import LAYOUT, is_corner
from vision.cell_model import MODEL_PATH, ChipNet, save_chip_nets
from vision.classify import CellReader
from vision.sim import random_spec, render

PLAIN_INPUTS = [
    "spread", "ring", "ring_median", "rim", "rim_median", "d_colour", "d_flipped", "court_spread", "l_deficit",
    "chroma", "saturated", "texture", "twin_change", "twin_change_low", "twin_cover", "twin_texture_gap",
    "white_possible", "court", "twin_texture", "twin_ncc",
]
REF_INPUTS = [*PLAIN_INPUTS, "ref_change", "ref_change_low", "ref_median", "ref_ncc"]
DIFFICULTIES = ("easy", "normal", "hard")
STANDARD_SEEDS = 200
FLIPPED_SEEDS = 5100


def scenes(frames: int, flipped_frames: int):
    """Seeded (scene, empty frame) pairs: standard scenes, then Jumbo scenes dense in flipped chips."""
    for seed in range(STANDARD_SEEDS, STANDARD_SEEDS + frames):
        spec = random_spec(seed, difficulty=DIFFICULTIES[seed % 3])
        yield render(spec), render(spec, empty=True).frame
    for seed in range(FLIPPED_SEEDS, FLIPPED_SEEDS + flipped_frames):
        rng = np.random.default_rng(seed)
        choices = ["empty"] * 5 + ["flipped"] * 2 + ["yellow", "red", "blue"]
        labels = tuple(
            tuple("free" if is_corner((r, c)) else str(rng.choice(choices)) for c in range(10)) for r in range(10)
        )
        spec = random_spec(seed, edition="jumbo", difficulty=DIFFICULTIES[seed % 3], labels=labels)
        yield render(spec), render(spec, empty=True).frame


def cell_table(frames: int, flipped_frames: int) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Every decision input of every visible, non-corner cell, its true label and its scene seed."""
    columns: dict[str, list[np.ndarray]] = {}
    truth, seeds = [], []
    keep = np.array([LAYOUT[r][c] != "FREE" for r in range(10) for c in range(10)])
    for scene, empty in scenes(frames, flipped_frames):
        reader = CellReader(edition=scene.edition)
        reader.set_reference(reader.rectify(empty, scene.corners))
        inputs = reader.decision_inputs(reader.features(reader.rectify(scene.frame, scene.corners)))
        sel = keep & ~np.asarray(scene.occluded, bool).ravel()
        for name, values in inputs.items():
            columns.setdefault(name, []).append(np.asarray(values, np.float64)[sel])
        labels = np.asarray(scene.labels, dtype=object).ravel()[sel]
        truth.append(labels.astype(str))
        seeds.append(np.full(int(sel.sum()), scene.spec.seed))
    return {k: np.concatenate(v) for k, v in columns.items()}, np.concatenate(truth), np.concatenate(seeds)


def fit_net(x: np.ndarray, y: np.ndarray, names: list[str], *, hidden: int, steps: int, l2: float,
            seed: int = 0) -> ChipNet:
    """One hidden tanh layer, logistic output, full-batch Adam on standardised inputs."""
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    n, d = z.shape
    params = [rng.normal(0, 1 / np.sqrt(d), (d, hidden)), np.zeros(hidden), rng.normal(0, 1 / np.sqrt(hidden), hidden),
              np.zeros(1)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    rate = 0.02
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        h = np.tanh(z @ w1 + b1)
        p = 1.0 / (1.0 + np.exp(-np.clip(h @ w2 + b2[0], -30, 30)))
        g_out = (p - y) / n
        g_w2 = h.T @ g_out + l2 * w2
        g_b2 = np.array([g_out.sum()])
        g_h = np.outer(g_out, w2) * (1 - h * h)
        g_w1 = z.T @ g_h + l2 * w1
        g_b1 = g_h.sum(0)
        for i, g in enumerate((g_w1, g_b1, g_w2, g_b2)):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            params[i] = params[i] - rate * (m[i] / (1 - 0.9**t)) / (np.sqrt(v[i] / (1 - 0.999**t)) + 1e-8)
    w1, b1, w2, b2 = params
    return ChipNet(tuple(names), mean.astype(np.float32), scale.astype(np.float32), w1.astype(np.float32),
                   b1.astype(np.float32), w2.astype(np.float32), float(b2[0]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=600)
    parser.add_argument("--flipped-frames", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--cache", type=Path, help="keep the cell table here (.npz) and reuse it")
    parser.add_argument("--dry-run", action="store_true", help="report held-out errors, write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.cache and args.cache.exists():
        data = np.load(args.cache)
        labels, seeds = data["__truth"], data["__seed"]
        table = {k: data[k] for k in data.files if not k.startswith("__")}
    else:
        table, labels, seeds = cell_table(args.frames, args.flipped_frames)
        if args.cache:
            np.savez_compressed(args.cache, __truth=labels, __seed=seeds, **table)
    y = labels != "empty"
    print(f"{len(y)} cells ({int(y.sum())} chips) from {len(np.unique(seeds))} scenes "
          f"in {time.perf_counter() - start:.0f} s")
    nets = {}
    for variant, names in (("plain", PLAIN_INPUTS), ("reference", REF_INPUTS)):
        x = np.stack([table[n] for n in names], axis=1)
        held = seeds % 2 == 1
        half = fit_net(x[~held], y[~held].astype(float), names, hidden=args.hidden, steps=args.steps, l2=args.l2)
        wrong = (half.logit({n: x[held, i] for i, n in enumerate(names)}) > 0) != y[held]
        print(f"[{variant}] fitted on even seeds: {int(wrong.sum())} of {int(held.sum())} held-out cells wrong "
              f"({100.0 * wrong.mean():.3f} %)")
        nets[variant] = fit_net(x, y.astype(float), names, hidden=args.hidden, steps=args.steps, l2=args.l2)
    if not args.dry_run:
        save_chip_nets(nets, note=f"benchmarks/fit_cell_model.py --frames {args.frames} --flipped-frames "
                                  f"{args.flipped_frames} --hidden {args.hidden} --steps {args.steps} --l2 {args.l2}")
        print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
