"""Fit the white-line network (``white_line`` in ``vision/cell_model.json``) on rendered Jumbo frames.

``vision.flipped`` reads white chips as whole five-in-a-rows. Its rule sums the cells' chip
logits, which on a frame glare has made near-blind cannot tell a faint real line from a row of
glare-lifted cards. The line network sees each window whole (``vision.flipped.line_cues``: how the
line stands out from the cells flanking it, what lies past its ends, where it ranks among the
frame's readings) and adds its logit to the rule's support. This script renders seeded Jumbo
scenes (two hard to one normal), reads them cell by cell with the true corners, fits the network
on every window no coloured chip closes (a window is a line when all its cells are white chips),
reports how the line reading does on held-out scenes with and without it, and writes the JSON
(the other networks kept as stored). The benchmarks' seeds are never used here. Its inputs are
the cue and patch networks' outputs: refit it after refitting either.

    .venv/bin/python benchmarks/fit_line_model.py [--frames 3000] [--hidden 8] [--cache lines.npz]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fit_cell_model import fit_net
from benchmarks.fit_seeds import LINE_TRAIN
from engine.layout import SIZE
from vision.cell_model import MODEL_PATH, ChipNet, load_chip_nets, save_chip_nets
from vision.colour import ColourModel
from vision.detect import DetectConfig, detect
from vision.flipped import LINE_CUES, FlippedPrior, line_inputs, read_flipped_as_lines, white_windows
from vision.sim import random_spec, render

LINE_SEEDS = LINE_TRAIN.start
"""First seed of the fitting scenes (``benchmarks.fit_seeds``)."""
DIFFICULTIES = ("hard", "hard", "normal")
"""Glare hides white lines at the hard difficulty; the normal scenes keep the clear lines right."""
NAMES = ColourModel.default("jumbo").labels
"""The colour names a Jumbo reading uses (white among them)."""
LABEL_DTYPE = "U8"
"""Wide enough for every label (``flipped``, ``unknown``): a set of scenes with none of the longest
would otherwise be stored too narrow to take one."""


def read_scenes(frames: int) -> dict[str, np.ndarray]:
    """Each scene's truth, visibility and cell-by-cell reading (what the line reading starts from)."""
    rows: dict[str, list[np.ndarray]] = {k: [] for k in ("seed", "truth", "visible", "labels", "confidence",
                                                          "chip_logit", "proto_dist", "core_lab", "patch_probs")}
    cellwise = DetectConfig(flipped=None)
    for i in range(frames):
        seed = LINE_SEEDS + i
        scene = render(random_spec(seed, edition="jumbo", difficulty=DIFFICULTIES[i % len(DIFFICULTIES)]))
        det = detect(scene.frame, corners=scene.corners, edition="jumbo", config=cellwise)
        rows["seed"].append(np.array(seed))
        rows["truth"].append(np.asarray(scene.labels, dtype=LABEL_DTYPE).reshape(-1))
        rows["visible"].append(~np.asarray(scene.occluded, bool).reshape(-1))
        rows["labels"].append(np.asarray(det.labels, dtype=LABEL_DTYPE).reshape(-1))
        rows["confidence"].append(np.asarray(det.confidence, np.float32).reshape(-1))
        for key in ("chip_logit", "proto_dist", "core_lab", "patch_probs"):
            rows[key].append(np.asarray(det.features[key], np.float32).reshape(SIZE * SIZE, -1).squeeze())
    return {k: np.stack(v) for k, v in rows.items()}


def _features(scenes: dict[str, np.ndarray], i: int) -> dict[str, np.ndarray]:
    return {"core_lab": scenes["core_lab"][i], "patch_probs": scenes["patch_probs"][i]}


def window_table(scenes: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, len(LINE_CUES))`` cues of every open window (no coloured chip in it), ``(n,)`` bool
    whether it is a line (all its cells white chips, free corners counting) and ``(n,)`` its seed."""
    x, y, seeds = [], [], []
    for i, seed in enumerate(scenes["seed"]):
        labels = scenes["labels"][i].reshape(SIZE, SIZE).tolist()
        found = line_inputs(labels, scenes["chip_logit"][i], scenes["proto_dist"][i], NAMES, _features(scenes, i))
        assert found is not None
        cues, open_windows = found
        x.append(np.stack([cues[name] for name in LINE_CUES], axis=1)[open_windows])
        y.append(white_windows(scenes["truth"][i] == "flipped")[open_windows])
        seeds.append(np.full(int(open_windows.sum()), seed))
    return np.concatenate(x), np.concatenate(y), np.concatenate(seeds)


def wrong_cells(scenes: dict[str, np.ndarray], rows: np.ndarray, net: ChipNet | None) -> tuple[int, int]:
    """Visible cells the line reading gets wrong, and scenes with every visible cell right, over
    the scenes ``rows`` (``net`` None: the rule alone)."""
    prior = FlippedPrior() if net is not None else FlippedPrior(line_gain=0.0)
    wrong = right = 0
    for i in np.flatnonzero(rows):
        labels, _ = read_flipped_as_lines(
            scenes["labels"][i].reshape(SIZE, SIZE).tolist(), scenes["confidence"][i].reshape(SIZE, SIZE),
            scenes["chip_logit"][i], scenes["proto_dist"][i], NAMES, prior, _features(scenes, i), line_net=net)
        bad = int(((np.asarray(labels).reshape(-1) != scenes["truth"][i]) & scenes["visible"][i]).sum())
        wrong += bad
        right += bad == 0
    return wrong, right


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=LINE_TRAIN.frames)
    parser.add_argument("--hidden", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--cache", type=Path, help="keep the scenes' readings here (.npz) and reuse them")
    parser.add_argument("--dry-run", action="store_true", help="report held-out figures, write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.cache and args.cache.exists():
        with np.load(args.cache) as data:
            scenes = {k: data[k] for k in data.files}
    else:
        scenes = read_scenes(args.frames)
        if args.cache:
            np.savez_compressed(args.cache, **scenes)
    x, y, seeds = window_table(scenes)
    print(f"{len(y)} open windows ({int(y.sum())} lines) from {len(scenes['seed'])} scenes "
          f"in {time.perf_counter() - start:.0f} s")
    held = seeds % 2 == 1
    half = fit_net(x[~held], y[~held].astype(float), list(LINE_CUES), hidden=args.hidden, steps=args.steps, l2=args.l2)
    scored = half.logit({name: x[held, j] for j, name in enumerate(LINE_CUES)}) > 0
    print(f"fitted on even seeds: {int((scored != y[held]).sum())} of {int(held.sum())} held-out windows wrong "
          f"({int((y[held] & ~scored).sum())} lines missed)")
    odd = scenes["seed"] % 2 == 1
    for name, net in (("rule alone", None), ("with the network", half)):
        wrong, right = wrong_cells(scenes, odd, net)
        print(f"  held-out scenes, {name}: {wrong} visible cells wrong, {right} of {int(odd.sum())} all right")
    if not args.dry_run:
        net = fit_net(x, y.astype(float), list(LINE_CUES), hidden=args.hidden, steps=args.steps, l2=args.l2)
        stored = json.loads(MODEL_PATH.read_text()).get("note", "").split("; white_line: ")[0]
        note = (f"{stored}; white_line: benchmarks/fit_line_model.py --frames {args.frames} "
                f"--hidden {args.hidden} --steps {args.steps} --l2 {args.l2}")
        save_chip_nets({**load_chip_nets(), "white_line": net}, note=note)
        print(f"wrote {MODEL_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
