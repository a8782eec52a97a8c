"""Fit a corner network (``vision.corner_net``) on rendered frames and export it as ONNX.

Renders seeded scenes of both editions at every difficulty (more of them hard) and, on each,
rough outlines of the grid the way the board network draws them when it is off: the true
corners scaled about the grid's centre, shifted, and each moved on its own, by up to about
three cells in all (with ``--fine``: grids a fraction of a cell off, as located, for the
network that looks closer). Each outline's input (``vision.corner_net.corner_input``) is fitted to
where the true corners lie in the outline's cells. Each batch is also turned a random number
of quarter turns and mirrored, with its corners relabelled to match, so the network learns
where a grid's corners are, not which of them the outline called first.
Trains with PyTorch (``pip install -e ".[fit]"``; only the fit scripts need it), writes
``vision/corner_net.onnx`` (with ``--fine``, ``vision/corner_fine_net.onnx``), checks OpenCV
reads it back to the same outputs, and prints on held-out hard frames how far the outlines'
corners are from the grid's before and after one and two looks. Seeds: 100000 up (training),
110000 up (held out); no benchmark uses them.

    python benchmarks/fit_corner_net.py [--fine] [--frames 6000] [--epochs 10]
"""

from __future__ import annotations

import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.fit_loop import (
    adam_epochs,
    cached,
    export_onnx,
    fit_parser,
    load_torch,
    report_read_back,
    scene_difficulty,
    seed_ranges,
)
from benchmarks.fit_seeds import CORNER_HELD_OUT, CORNER_TRAIN
from engine.layout import SIZE
from vision.corner_net import FINE, MODEL_PATHS, REACH, CornerNet, CornerView, corner_input
from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography
from vision.sim import random_spec, render

TRAIN_SEEDS, HELD_OUT_SEEDS = CORNER_TRAIN.start, CORNER_HELD_OUT.start
DIFFICULTY_CYCLE = ("easy", "normal", "hard", "hard", "hard")
OUTLINES = 4
"""Rough outlines cut from each frame."""
SCALE = (0.72, 1.2)
"""Range of the outline's size against the grid's (the board network errs more often inside)."""
SHIFT, CORNER = 0.7, 0.6
"""Spread, in cells, of the outline's shift and of each corner's own move (each clipped at 1.5)."""


def _spec(seed: int, held: bool):
    """Training: the difficulties in turn (hard three times in five); held out: hard."""
    difficulty = scene_difficulty(seed, DIFFICULTY_CYCLE, held)
    return random_spec(seed, edition=("classic", "jumbo")[seed % 2], difficulty=difficulty)


def rough_outline(rng: np.random.Generator, view: CornerView) -> np.ndarray:
    """An outline ``(4, 2)`` in the grid's cell units: as the board network may draw it, or for
    the ``FINE`` network, as a grid is located a fraction of a cell off."""
    if view == FINE:
        scale, shift, own = rng.uniform(0.97, 1.03, 2), rng.uniform(-0.2, 0.2, 2), rng.uniform(-0.3, 0.3, (4, 2))
    else:
        scale = rng.uniform(*SCALE, size=2)
        shift = np.clip(rng.normal(0.0, SHIFT, 2), -1.5, 1.5)
        own = np.clip(rng.normal(0.0, CORNER, (4, 2)), -1.5, 1.5)
    return (GRID_CORNERS_UV - SIZE / 2) * scale + SIZE / 2 + shift + own


def frame_rows(job: tuple[int, bool, CornerView]) -> tuple[np.ndarray, np.ndarray]:
    """One scene's outlines: inputs ``(OUTLINES, 3, side, side)`` float16 and the true corners'
    offsets ``(OUTLINES, 8)`` float32 in each outline's cells."""
    seed, held, view = job
    cv2.setNumThreads(1)
    scene = render(_spec(seed, held))
    rng = np.random.default_rng(seed)
    truth = np.asarray(scene.corners, np.float32)
    h = grid_homography(truth)
    xs, ys = [], []
    for _ in range(OUTLINES):
        outline = apply_homography(h, rough_outline(rng, view)).astype(np.float32)
        to_outline = np.linalg.inv(grid_homography(outline))
        xs.append(corner_input(scene.frame, outline, view).astype(np.float16))
        ys.append((apply_homography(to_outline, truth.astype(np.float64)) - GRID_CORNERS_UV).ravel())
    return np.stack(xs), np.array(ys, np.float32)


def collect(jobs: list[tuple[int, bool, CornerView]], workers: int) -> tuple[np.ndarray, np.ndarray]:
    """Every job's rows, stacked."""
    with Pool(workers) as pool:
        rows = pool.map(frame_rows, jobs, chunksize=8)
    xs, ys = zip(*rows, strict=True)
    return np.concatenate(xs), np.concatenate(ys)


def make_net(side: int):
    """Four 3x3 convolutions, each followed by a 2x2 max-pool (a sixteenth of ``side`` is
    left), a hidden layer of 64, and the eight offsets."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(3, 12, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(12, 24, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(24, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(48 * (side // 16) ** 2, 64), nn.ReLU(), nn.Linear(64, 8),
    )


def turned_targets(y: np.ndarray, k: int, mirror: bool) -> np.ndarray:
    """The offsets ``(n, 8)`` of inputs turned ``k`` quarter turns (``np.rot90(x, k, (2, 3))``)
    and then, if ``mirror``, flipped left to right: corners relabelled and their (u, v) turned."""
    c = np.asarray(y).reshape(-1, 4, 2)
    for _ in range(k % 4):
        # A quarter turn counterclockwise of the input: what was the outline's corner i+1 is now
        # corner i, and a move (du, dv) becomes (dv, -du).
        c = np.roll(c, -1, axis=1)
        c = np.stack([c[..., 1], -c[..., 0]], axis=-1)
    if mirror:
        # Left-right flip: corners TL,TR,BR,BL become TR,TL,BL,BR, and du changes sign.
        c = c[:, [1, 0, 3, 2]]
        c = np.stack([-c[..., 0], c[..., 1]], axis=-1)
    return c.reshape(-1, 8)


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int = 0):
    """Adam with a decaying rate on the smooth-L1 error of the offsets (cells); each batch
    turned and mirrored at random, its brightness and white balance shifted."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = make_net(x.shape[-1])
    loss_fn = torch.nn.SmoothL1Loss(beta=0.25)
    xs = torch.from_numpy(x)

    def batch_loss(net, idx):
        xb = xs[idx].float()
        xb = xb * (1.0 + 0.1 * torch.randn(len(idx), 1, 1, 1)) + 0.1 * torch.randn(len(idx), 3, 1, 1)
        k, mirror = int(rng.integers(4)), bool(rng.random() < 0.5)
        xb = torch.rot90(xb, k, (2, 3))
        if mirror:
            xb = torch.flip(xb, (3,))
        return loss_fn(net(xb), torch.from_numpy(turned_targets(y[idx.numpy()], k, mirror)))

    return adam_epochs(net, len(xs), batch_loss, epochs=epochs, batch=128, lr=2e-3, decay=0.75)


def report(net: CornerNet, held_seeds: range) -> None:
    """Held-out hard frames: each outline's worst corner error (cells) as drawn, after one look
    and after two."""
    errors: list[list[float]] = [[], [], []]
    for seed in held_seeds:
        scene = render(_spec(seed, True))
        truth = np.asarray(scene.corners, np.float32)
        h = grid_homography(truth)
        to_grid = np.linalg.inv(h)
        rng = np.random.default_rng(seed)
        for _ in range(OUTLINES):
            outline = apply_homography(h, rough_outline(rng, net.view)).astype(np.float32)
            for looks in range(3):
                c = net.refine(scene.frame, outline, looks) if looks else outline
                uv = apply_homography(to_grid, c.astype(np.float64))
                errors[looks].append(float(np.abs(uv - GRID_CORNERS_UV).max()))
    for looks, e in enumerate(errors):
        e = np.array(e)
        print(f"  {('as drawn', 'one look', 'two looks')[looks]:<9} median {np.median(e):.2f} cells, "
              f"90th percentile {np.percentile(e, 90):.2f}, within half a cell {100 * (e <= 0.5).mean():.1f} %")


def main(argv: list[str] | None = None) -> int:
    parser = fit_parser(__doc__.splitlines()[0], frames=CORNER_TRAIN.frames, held_out=CORNER_HELD_OUT.frames, epochs=10,
                        out=MODEL_PATHS[REACH])
    parser.add_argument("--fine", action="store_true", help="fit the network that looks closer")
    args = parser.parse_args(argv)
    view = FINE if args.fine else REACH
    if args.fine and args.out == MODEL_PATHS[REACH]:
        args.out = MODEL_PATHS[FINE]
    torch = load_torch("fit_corner_net", args.threads)
    if torch is None:
        return 2
    start = time.perf_counter()
    fit_seeds, held_seeds = seed_ranges(TRAIN_SEEDS, args.frames, HELD_OUT_SEEDS, args.held_out)
    data = cached(args.cache, lambda: dict(zip(("x", "y"), collect([(s, False, view) for s in fit_seeds], args.jobs),
                                               strict=True)))
    x, y = data["x"], data["y"]
    print(f"{len(y)} training outlines, in {time.perf_counter() - start:.0f} s", flush=True)
    net = train(x, y, args.epochs)
    export_onnx(net, args.out, (1, 3, view.side, view.side), "outline", "offsets")
    onnx_net = CornerNet(args.out, view)
    report_read_back(net, onnx_net.run, x[:1].astype(np.float32), args.out)
    print(f"held-out hard frames (seeds {HELD_OUT_SEEDS}-{HELD_OUT_SEEDS + args.held_out - 1}), "
          f"{OUTLINES} outlines each, worst corner's error:")
    report(onnx_net, held_seeds)
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
