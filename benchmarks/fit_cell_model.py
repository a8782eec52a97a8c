"""Fit the cell reader's chip-or-not network (``vision/cell_model.json``) on rendered frames.

The reader decides "chip or not" with a one-hidden-layer network over named physical cues
(``CellReader.decision_inputs``). This script renders seeded scenes (standard ones at every
difficulty, more standard ones at the hard difficulty, where glare washes chips out, Jumbo
scenes rich in flipped chips, and more of those at the hard difficulty, where glare hides
white chips), computes the cues of every visible cell, fits three networks
(without and with the empty-board comparison, and on the Jumbo mat without it a second one,
with more cues, that may add white chips), reports their errors on held-out scenes, and writes
the JSON. The benchmarks' seeds (1000-1299 for still frames, the low seeds of whole games) are
never used here.

    .venv/bin/python benchmarks/fit_cell_model.py [--frames 600] [--hard-frames 600]
        [--flipped-frames 200] [--hard-flipped-frames 300] [--processed 0.5] [--shadowed 0.3] [--hidden 16]
        [--only jumbo_white]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.camera_processing import fit_processing, fit_shadow
from benchmarks.fit_seeds import CELL_FLIPPED, CELL_HARD, CELL_HARD_FLIPPED, CELL_STANDARD
from engine.layout import LAYOUT, is_corner
from vision.cell_model import MODEL_PATH, ChipNet, load_chip_nets, save_chip_nets
from vision.classify import LOCAL_CUES, TWIN_CUES, CellReader
from vision.sim import random_spec, render

BASE_INPUTS = [
    "spread", "ring", "ring_median", "rim", "rim_median", "d_colour", "d_flipped", "court_spread", "l_deficit",
    "chroma", "saturated", "texture", "twin_change", "twin_change_low", "twin_cover", "twin_texture_gap",
    "white_possible", "court", "twin_texture", "twin_ncc",
]
DISC_COLOUR = ["chroma_high", "hue_coherence"]
"""A glare-washed chip's colour where the glare spared it, and its pixels' agreement on one hue."""
PLAIN_INPUTS = [*BASE_INPUTS, *DISC_COLOUR, "chroma_rel", "chroma_high_rel", "hue_coherence_rel"]
REF_INPUTS = [*BASE_INPUTS, "ref_change", "ref_change_low", "ref_median", "ref_ncc"]
JUMBO_INPUTS = [*BASE_INPUTS, *(f"twin_{n}" for n in TWIN_CUES), "ring_high", "rim_high",
                *(f"{n}_rel" for n in LOCAL_CUES), *DISC_COLOUR]
DIFFICULTIES = ("easy", "normal", "hard")
STANDARD_SEEDS = CELL_STANDARD.start
FLIPPED_SEEDS = CELL_FLIPPED.start
HARD_FLIPPED_SEEDS = CELL_HARD_FLIPPED.start
HARD_SEEDS = CELL_HARD.start
STANDARD, FLIPPED, HARD_FLIPPED = 0, 1, 2
"""Scene groups: ``plain`` and ``reference`` are fitted on the first two, ``jumbo_white`` on all three."""


def _flipped_spec(seed: int, difficulty: str, chips: str = "standard"):
    """A Jumbo scene's spec with about a fifth of its cells white chips (anywhere, not only in lines)."""
    rng = np.random.default_rng(seed)
    choices = ["empty"] * 5 + ["flipped"] * 2 + ["yellow", "red", "blue"]
    labels = tuple(
        tuple("free" if is_corner((r, c)) else str(rng.choice(choices)) for c in range(10)) for r in range(10)
    )
    return random_spec(seed, edition="jumbo", difficulty=difficulty, labels=labels, chips=chips)


def _flipped_scene(seed: int, difficulty: str):
    """``_flipped_spec``'s scene rendered, and the same scene without chips."""
    spec = _flipped_spec(seed, difficulty)
    return render(spec), render(spec, empty=True).frame


def scenes(frames: int, flipped_frames: int, hard_flipped_frames: int = 0, hard_frames: int = 0):
    """Seeded (group, scene, empty frame): standard scenes, more at the hard difficulty (both
    editions in turn), Jumbo scenes dense in flipped chips, then more of those at the hard difficulty."""
    for seed in range(STANDARD_SEEDS, STANDARD_SEEDS + frames):
        spec = random_spec(seed, difficulty=DIFFICULTIES[seed % 3])
        yield (STANDARD, render(spec), render(spec, empty=True).frame)
    for seed in range(HARD_SEEDS, HARD_SEEDS + hard_frames):
        spec = random_spec(seed, edition=("classic", "jumbo")[seed % 2], difficulty="hard")
        yield (STANDARD, render(spec), render(spec, empty=True).frame)
    for seed in range(FLIPPED_SEEDS, FLIPPED_SEEDS + flipped_frames):
        yield (FLIPPED, *_flipped_scene(seed, DIFFICULTIES[seed % 3]))
    for seed in range(HARD_FLIPPED_SEEDS, HARD_FLIPPED_SEEDS + hard_flipped_frames):
        yield (HARD_FLIPPED, *_flipped_scene(seed, "hard"))


def cell_table(frames: int, flipped_frames: int, hard_flipped_frames: int = 0, hard_frames: int = 0,
               processed: float = 0.0, shadowed: float = 0.0
               ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
    """Every decision input of every visible, non-corner cell, its true label, its scene seed and
    its scene group. A ``processed`` share of the scenes (and their empty frames: the same
    camera) first get a random saturation (``camera_processing.fit_processing``), and a
    ``shadowed`` share a band of shadow, grey or tinted (``camera_processing.fit_shadow``), over
    the frame and not the empty one: a player leans over the board during the game, not while
    it is calibrated."""
    columns: dict[str, list[np.ndarray]] = {}
    truth, seeds, groups = [], [], []
    keep = np.array([LAYOUT[r][c] != "FREE" for r in range(10) for c in range(10)])
    for group, scene, empty in scenes(frames, flipped_frames, hard_flipped_frames, hard_frames):
        _name, process = fit_processing(scene.spec.seed, processed)
        frame, _ = process(scene.frame, scene.corners)
        empty, _ = process(empty, scene.corners)
        frame, _ = fit_shadow(scene.spec.seed, shadowed)(frame, scene.corners)
        reader = CellReader(edition=scene.edition)
        reader.set_reference(reader.rectify(empty, scene.corners))
        inputs = reader.decision_inputs(reader.features(reader.rectify(frame, scene.corners)))
        sel = keep & ~np.asarray(scene.occluded, bool).ravel()
        for name, values in inputs.items():
            columns.setdefault(name, []).append(np.asarray(values, np.float64)[sel])
        labels = np.asarray(scene.labels, dtype=object).ravel()[sel]
        truth.append(labels.astype(str))
        seeds.append(np.full(int(sel.sum()), scene.spec.seed))
        groups.append(np.full(int(sel.sum()), group))
    return ({k: np.concatenate(v) for k, v in columns.items()}, np.concatenate(truth), np.concatenate(seeds),
            np.concatenate(groups))


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


def variants(table: dict[str, np.ndarray], groups: np.ndarray) -> dict[str, tuple[list[str], np.ndarray]]:
    """Each network's inputs and the table rows it is fitted on."""
    known = groups != HARD_FLIPPED
    # The Jumbo network learns from classic cells too: fitted on Jumbo cells alone it does worse.
    every = np.ones_like(known)
    return {"plain": (PLAIN_INPUTS, known), "reference": (REF_INPUTS, known), "jumbo_white": (JUMBO_INPUTS, every)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=CELL_STANDARD.frames)
    parser.add_argument("--flipped-frames", type=int, default=CELL_FLIPPED.frames)
    parser.add_argument("--hard-flipped-frames", type=int, default=CELL_HARD_FLIPPED.frames)
    parser.add_argument("--hard-frames", type=int, default=CELL_HARD.frames,
                        help="more standard scenes at the hard difficulty (fitted on by every network)")
    parser.add_argument("--processed", type=float, default=0.5,
                        help="share of the scenes whose saturation is scaled first (camera_processing.fit_processing)")
    parser.add_argument("--shadowed", type=float, default=0.3,
                        help="share of the scenes crossed by a band of shadow, grey or tinted "
                             "(camera_processing.fit_shadow)")
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--only", help="refit only these networks (comma-separated), keep the others as stored")
    parser.add_argument("--cache", type=Path, help="keep the cell table here (.npz) and reuse it")
    parser.add_argument("--dry-run", action="store_true", help="report held-out errors, write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.cache and args.cache.exists():
        data = np.load(args.cache)
        labels, seeds, groups = data["__truth"], data["__seed"], data["__group"]
        table = {k: data[k] for k in data.files if not k.startswith("__")}
    else:
        table, labels, seeds, groups = cell_table(args.frames, args.flipped_frames, args.hard_flipped_frames,
                                                  args.hard_frames, args.processed, args.shadowed)
        if args.cache:
            np.savez_compressed(args.cache, __truth=labels, __seed=seeds, __group=groups, **table)
    y = labels != "empty"
    print(f"{len(y)} cells ({int(y.sum())} chips) from {len(np.unique(seeds))} scenes "
          f"in {time.perf_counter() - start:.0f} s")
    chosen = variants(table, groups)
    if args.only:
        chosen = {k: v for k, v in chosen.items() if k in args.only.split(",")}
    nets = {}
    for variant, (names, rows) in chosen.items():
        x = np.stack([table[n][rows] for n in names], axis=1)
        yv = y[rows]
        held = seeds[rows] % 2 == 1
        half = fit_net(x[~held], yv[~held].astype(float), names, hidden=args.hidden, steps=args.steps, l2=args.l2)
        wrong = (half.logit({n: x[held, i] for i, n in enumerate(names)}) > 0) != yv[held]
        print(f"[{variant}] fitted on even seeds: {int(wrong.sum())} of {int(held.sum())} held-out cells wrong "
              f"({100.0 * wrong.mean():.3f} %)")
        nets[variant] = fit_net(x, yv.astype(float), names, hidden=args.hidden, steps=args.steps, l2=args.l2)
    if not args.dry_run:
        note = (f"benchmarks/fit_cell_model.py --frames {args.frames} --flipped-frames {args.flipped_frames} "
                f"--hard-flipped-frames {args.hard_flipped_frames} --hard-frames {args.hard_frames} "
                f"--processed {args.processed} --shadowed {args.shadowed} "
                f"--hidden {args.hidden} --steps {args.steps} "
                f"--l2 {args.l2}" + (f" --only {args.only}" if args.only else ""))
        # Networks this script does not fit (``white_line``, fitted by fit_line_model.py) are kept.
        kept = {k: v for k, v in load_chip_nets().items() if k not in nets}
        if args.only:
            note = f"{json.loads(MODEL_PATH.read_text()).get('note', '')}; then {note}"
        nets = {**kept, **nets}
        save_chip_nets(nets, note=note)
        print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
