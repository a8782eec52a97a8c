"""Which way round a placed grid lies, and whether it lies on the board at all: a small CNN.

The locator's own turn test correlates each cell's red/black ink, the twin cards and the court
cards' art with the layout. On a blurred, dim or washed-out board each of those cues falls
short, although the layout is still there to see, spread over a hundred cells. A network
that looks at the whole rectified grid at once reads it from all of them together: of 400
held-out hard rendered frames, the cues leave the turn open at the true corners on 99, and
it tells 91 of those (``benchmarks/fit_turn_net.py`` prints the held-out figures).

One network ``f`` scores a grid as it is; the four quarter turns are ``f`` of the grid turned
(so every turn is judged alike), and a fifth, learned constant score stands for "not the board
here": grids whole cells off the board, or bent or scaled off it, are fitted to it, so the
network is sure of a turn only where the grid lies on the cards. Its input is the grid's
print standardised per channel, so neither exposure nor white balance reaches it; it was
fitted with each cell's print also turned round in place, so it reads the layout, not the
way one board's cards are printed.
Fitted with PyTorch on rendered frames no benchmark uses; run by ONNX Runtime.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np

from engine.layout import SIZE
from vision.onnx_net import OnnxNet

MODEL_PATH = Path(__file__).with_name("turn_net.onnx")
SIDE = 80
"""Side of the network's input in pixels (8 per cell)."""
NOT_PLACED = 4
"""Index of the "not the board here" class after the four turns."""


def standardised(grid: np.ndarray, side: int = SIDE) -> np.ndarray:
    """A rectified grid (``(n, n, 3)`` uint8 BGR, any ``n``) shrunk to a network's
    ``(3, side, side)`` float32 input, each channel standardised over the grid (so neither
    exposure nor white balance reaches the network)."""
    small = cv2.resize(grid, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
    mean, std = cv2.meanStdDev(small)
    small = (small - mean.reshape(1, 1, 3)) / (std.reshape(1, 1, 3) + 1.0)
    return small.transpose(2, 0, 1)


def turned(chw: np.ndarray) -> np.ndarray:
    """The network's input ``(4, 3, SIDE, SIDE)`` float32: a ``standardised`` grid under each
    quarter turn ``k`` (``np.rot90(grid, k)``, as ``vision.orient`` counts turns)."""
    return np.stack([np.rot90(chw, k, axes=(1, 2)) for k in range(4)]).astype(np.float32)


def turn_input(grid: np.ndarray) -> np.ndarray:
    """The network's input ``(4, 3, SIDE, SIDE)`` for a rectified 10x10 grid (``turned``)."""
    return turned(standardised(grid))


class TurnNet(OnnxNet):
    """The fitted network, loaded from ONNX; ``probabilities(grid)`` of each turn and of none."""

    what = "turn network"
    model_path = MODEL_PATH

    def probabilities(self, grid: np.ndarray) -> np.ndarray:
        """``(5,)`` float64: the probability that ``np.rot90(grid, k)`` is the board upright for
        ``k`` in 0..3, and (``NOT_PLACED``) that the grid is not on the board's cells."""
        if grid.shape[0] != grid.shape[1] or grid.shape[0] < SIZE:
            raise ValueError(f"a rectified grid must be square and at least {SIZE} px, not {grid.shape[:2]}")
        return self.probabilities_of(turn_input(grid))

    def probabilities_of(self, turns: np.ndarray) -> np.ndarray:
        """``(5,)`` float64 probabilities for an input already made (``turn_input``)."""
        logits = self.run(turns).astype(np.float64).ravel()
        p = np.exp(logits - logits.max())
        return p / p.sum()


@functools.cache
def load_turn_net(path: Path = MODEL_PATH) -> TurnNet:
    """The network at ``path``, read once per process."""
    return TurnNet(path)
