"""Fit the card-area network (``vision.board_net``) on rendered frames and export it as ONNX.

Renders seeded scenes of both editions at every difficulty (more of them hard, some framed
4:3), shrinks each as the locator does (``vision.board_net.board_input``) and draws the true
card area as the target, at the network's output grid (soft at the edges). Trains with
PyTorch (``pip install -e ".[fit]"``; only this script needs it), writes
``vision/board_net.onnx``, checks OpenCV reads it back to the same outputs, and prints, on
held-out hard frames, the mask's overlap with the truth and how far the best outline the
locator draws from it (``vision.outlines.mask_quads``) lies from the true corners. Seeds: 50000
up (training), 59000 up (held out); no benchmark uses them.

    python benchmarks/fit_board_net.py [--frames 6000] [--epochs 10]
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
from benchmarks.fit_seeds import BOARD_HELD_OUT, BOARD_TRAIN
from vision.board_net import MODEL_PATH, BoardNet, BoardNetConfig, board_input, view_of_logits
from vision.sim import random_spec, render

TRAIN_SEEDS, HELD_OUT_SEEDS = BOARD_TRAIN.start, BOARD_HELD_OUT.start
DIFFICULTY_CYCLE = ("easy", "normal", "hard", "hard")
SUPERSAMPLE = 4
EDGE_WEIGHT = 4.0


def _spec(seed: int, held: bool):
    """Training: the difficulties in turn (hard twice), one frame in five framed 4:3; held out: hard, 16:9."""
    difficulty = scene_difficulty(seed, DIFFICULTY_CYCLE, held)
    size = (960, 720) if (not held and seed % 5 == 0) else (1280, 720)
    return random_spec(seed, difficulty=difficulty, size=size)


def target(corners: np.ndarray, scale: float, config: BoardNetConfig) -> np.ndarray:
    """The card area at the output grid, ``(height / stride, width / stride)`` float32 in 0..1
    (the share of each output cell inside the grid's outline)."""
    k = SUPERSAMPLE
    canvas = np.zeros((config.height * k, config.width * k), np.uint8)
    pts = np.round(np.asarray(corners, np.float64) * scale * k * 16).astype(np.int32)
    cv2.fillConvexPoly(canvas, pts, 255, lineType=cv2.LINE_AA, shift=4)
    out = (config.width // config.stride, config.height // config.stride)
    return cv2.resize(canvas, out, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def frame_row(job: tuple[int, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """One scene: the input blob ``(3, H, W)`` float16, the target, the true corners and the scale."""
    seed, held = job
    cv2.setNumThreads(1)
    scene = render(_spec(seed, held))
    config = BoardNetConfig()
    blob, s, _ = board_input(scene.frame, config)
    return blob[0].astype(np.float16), target(scene.corners, s, config), np.asarray(scene.corners, np.float32), s


def collect(jobs: list[tuple[int, bool]], workers: int):
    """Every job's rows, stacked."""
    with Pool(workers) as pool:
        rows = pool.map(frame_row, jobs, chunksize=8)
    x, y, corners, scales = zip(*rows, strict=True)
    return np.stack(x), np.stack(y), np.stack(corners), np.array(scales)


def make_net():
    """Four stride-2 3x3 convolutions down to 1/16, two dilated ones for context across the
    board, and two upsampling steps joined with the encoder's maps, out at 1/4 of the input."""
    import torch
    from torch import nn

    def block(i: int, o: int, stride: int = 1, dilation: int = 1):
        return nn.Sequential(nn.Conv2d(i, o, 3, stride, padding=dilation, dilation=dilation),
                             nn.BatchNorm2d(o), nn.ReLU())

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.e1, self.e2 = block(3, 16, 2), block(16, 32, 2)
            self.e3, self.e4 = block(32, 48, 2), block(48, 64, 2)
            self.c1, self.c2 = block(64, 64, dilation=2), block(64, 64, dilation=4)
            self.d3, self.d2 = block(112, 48), block(80, 32)
            self.head = nn.Conv2d(32, 1, 1)
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)

        def forward(self, x):
            e2 = self.e2(self.e1(x))
            e3 = self.e3(e2)
            c = self.c2(self.c1(self.e4(e3)))
            d3 = self.d3(torch.cat([self.up(c), e3], 1))
            d2 = self.d2(torch.cat([self.up(d3), e2], 1))
            return self.head(d2)

    return Net()


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int = 0):
    """Adam with a decaying rate on the pixels' cross-entropy, weighted up within two output
    pixels of the outline (where the corners are decided); each batch mirrored at random (both
    ways: the outline, not the print, is learnt)."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = make_net()
    pool = torch.nn.MaxPool2d(5, 1, 2)
    xs, ys = torch.from_numpy(x), torch.from_numpy(y)[:, None]

    def batch_loss(net, idx):
        xb, yb = xs[idx].float(), ys[idx]
        dims = [d for d, flip in ((3, rng.random() < 0.5), (2, rng.random() < 0.5)) if flip]
        if dims:
            xb, yb = torch.flip(xb, dims), torch.flip(yb, dims)
        edge = (pool(yb) + pool(-yb)) > 0.5  # within two pixels of both inside and outside
        weight = 1.0 + EDGE_WEIGHT * edge.float()
        return torch.nn.functional.binary_cross_entropy_with_logits(net(xb), yb, weight=weight)

    return adam_epochs(net, len(xs), batch_loss, epochs=epochs, batch=32, lr=3e-3, decay=0.75)


def report(net: BoardNet, x: np.ndarray, y: np.ndarray, corners: np.ndarray, scales: np.ndarray) -> None:
    """Held-out figures: mean IoU of the mask, and the best outline's corner error in cells."""
    from vision.locate_config import LocateConfig
    from vision.outlines import mask_quads

    ious, errs = [], []
    for blob, truth_mask, truth, s in zip(x, y, corners, scales, strict=True):
        logits = net.logits(blob[None].astype(np.float32))
        pred = logits > 0
        gt = truth_mask > 0.5
        ious.append((pred & gt).sum() / max((pred | gt).sum(), 1))
        c = BoardNetConfig()
        quads = mask_quads(view_of_logits(logits, float(s), (c.width, c.height), c), LocateConfig())
        cell = np.linalg.norm(truth[2] - truth[0]) / (10 * np.sqrt(2))
        best = min((min(np.abs(np.roll(q[::d], k, 0) - truth).max() for k in range(4) for d in (1, -1))
                    for q in quads), default=np.inf)
        errs.append(best / cell)
    errs = np.array(errs)
    print(f"  mask IoU mean {np.mean(ious):.3f}; best outline within 0.5 / 1 / 2 cells of the truth: "
          f"{(errs <= 0.5).mean():.1%} / {(errs <= 1).mean():.1%} / {(errs <= 2).mean():.1%} "
          f"(none drawn: {np.isinf(errs).mean():.1%})")


def main(argv: list[str] | None = None) -> int:
    parser = fit_parser(__doc__.splitlines()[0], frames=BOARD_TRAIN.frames, held_out=BOARD_HELD_OUT.frames, epochs=10,
                        out=MODEL_PATH)
    args = parser.parse_args(argv)
    torch = load_torch("fit_board_net", args.threads)
    if torch is None:
        return 2
    start = time.perf_counter()

    fit_seeds, held_seeds = seed_ranges(TRAIN_SEEDS, args.frames, HELD_OUT_SEEDS, args.held_out)

    def build() -> dict[str, np.ndarray]:
        x, y, _, _ = collect([(s, False) for s in fit_seeds], args.jobs)
        xh, yh, ch, sh = collect([(s, True) for s in held_seeds], args.jobs)
        return {"x": x, "y": y, "xh": xh, "yh": yh, "ch": ch, "sh": sh}

    data = cached(args.cache, build)
    x, y, xh, yh, ch, sh = (data[k] for k in ("x", "y", "xh", "yh", "ch", "sh"))
    print(f"{len(x)} training frames, {len(xh)} held out, in {time.perf_counter() - start:.0f} s", flush=True)
    net = train(x, y, args.epochs)
    export_onnx(net, args.out, (1, 3, BoardNetConfig().height, BoardNetConfig().width), "frame", "logits")
    onnx_net = BoardNet(args.out)
    report_read_back(net, onnx_net.logits, xh[:1].astype(np.float32), args.out)
    print(f"held-out hard frames (seeds {HELD_OUT_SEEDS}-{HELD_OUT_SEEDS + args.held_out - 1}):")
    report(onnx_net, xh, yh, ch, sh)
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
