"""Where the card area probably is: a small fully convolutional network over a thumbnail.

The locator's own outlines come from brightness, print density and the table's colours, and
each fails somewhere: a gingham tablecloth is as white and as busy as the cards, a white table
as bright, a dim far board spans few pixels. A network that has seen many rendered tables
draws the card area's outline from all of it at once. Its outlines are *proposals*: each is
placed and tested by the printed layout like any other (``vision.locate``), so a wrong outline
costs time, and a table unlike any it has seen loses nothing but its help. Where the print is
too faint to place a grid by itself, the card area may place it (whole cells only), and the
print must still show the board's turn clearly. Fitted by ``benchmarks/fit_board_net.py``
(PyTorch, exported as ONNX) on rendered frames that no benchmark uses; run by ONNX Runtime.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import grids_a_cell_off
from vision.onnx_net import OnnxNet

MODEL_PATH = Path(__file__).with_name("board_net.onnx")


@dataclass(frozen=True)
class BoardNetConfig:
    """The network's input and output grid (fixed by the fitted model: change only with a refit)."""

    width: int = 320
    height: int = 192
    """Input size: the frame is shrunk to fit inside it, keeping its aspect, and padded."""
    stride: int = 4
    """The network's output is this many input pixels per value."""


def board_input(
    frame: np.ndarray, config: BoardNetConfig = BoardNetConfig()
) -> tuple[np.ndarray, float, tuple[int, int]]:
    """The network's input ``(1, 3, height, width)`` float32, the scale from frame to input
    pixels, and the ``(w, h)`` of the frame's part of the input (the rest is padding).

    Each channel is standardised over the frame's pixels, so neither the exposure nor the
    white balance reaches the network.
    """
    img = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    s = min(config.width / w, config.height / h)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    small = cv2.resize(img, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    mean, std = cv2.meanStdDev(small)
    mean = mean.reshape(1, 1, 3).astype(np.float32)
    std = np.maximum(std.reshape(1, 1, 3), 1.0).astype(np.float32)
    small = (small - mean) / std
    blob = np.zeros((1, 3, config.height, config.width), np.float32)
    blob[0, :, : size[1], : size[0]] = small.transpose(2, 0, 1)
    return blob, s, size


@dataclass(frozen=True)
class BoardView:
    """The card area's probability over a thumbnail of one frame, as the network sees it."""

    prob: np.ndarray
    """``(h, w)`` float32 in 0..1."""
    scale: float
    """Thumbnail pixels per frame pixel."""

    def edges_reached(self, share: float, min_solidity: float, depth: int = 2) -> list[str]:
        """The picture's edges (``"top"``, ``"right"``, ``"bottom"``, ``"left"``) that a solid
        patch of card area reaches along at least ``share`` of their length, within ``depth``
        thumbnail pixels: where a board the picture cuts runs out of it. Solid: at least
        ``min_solidity`` of its convex hull, as a board's card area is (0.95 to 0.97 on boards
        cut 3 cells short) and the scattered area a busy texture raises is not (0.70 on noise).
        On the 300 rendered frames of ``benchmarks/vision_accuracy.py --seed 25200`` (all
        uncut, boards within 0.6 cells of an edge among them) it named no edge; on the first
        120 of seed 26000 cut 3 cells short by the right edge, the right edge on 95, no other."""
        _, labels = cv2.connectedComponents((self.prob > 0.5).astype(np.uint8), connectivity=8)
        strips = {"top": labels[:depth].T, "right": labels[:, -depth:], "bottom": labels[-depth:].T,
                  "left": labels[:, :depth]}
        touching = np.unique(np.concatenate([strip.ravel() for strip in strips.values()]))
        solid = [k for k in touching if k and _solidity(labels == k) >= min_solidity]
        return [edge for edge, strip in strips.items()
                if strip.size and np.isin(strip, solid).any(axis=1).mean() >= share]

    def agreement(self, corners: np.ndarray) -> float:
        """How well the grid ``corners`` (``(4, 2)`` frame pixels) covers the card area: the
        intersection over union of the quadrilateral and the area the network sees (``prob`` >
        0.5), in 0..1."""
        area = self.prob > 0.5
        quad = np.zeros(area.shape, np.uint8)
        cv2.fillPoly(quad, [np.round(np.asarray(corners, np.float64) * self.scale).astype(np.int32)], 1)
        inside = quad.astype(bool)
        return float((area & inside).sum()) / max(float((area | inside).sum()), 1.0)

    def centred_on(self, corners: np.ndarray, min_agreement: float) -> bool:
        """Does the card area lie on the grid ``corners``: it covers it at ``min_agreement`` at
        least (``agreement``), and better than every grid a cell off (``grids_a_cell_off``)?
        A witness of its own that the grid is the board, whatever the board's printing: the
        network outlines cards it has never seen as well as ours (0.94 to 0.99 on boards drawn
        by another hand), while a placement a cell or more off loses a tenth of the area."""
        own = self.agreement(corners)
        return own >= min_agreement and all(own > self.agreement(q) for q in grids_a_cell_off(corners))

    def extended_by(self, other: BoardView, min_gain: float) -> BoardView | None:
        """This view with the card area ``other`` (a view of the same frame, the light evened)
        sees joined on wherever it touches the area this one sees; None where that adds under
        ``min_gain`` of this area. A shadow band cuts the shaded part off the board the network
        sees; evened, the table around a board looks like card area too, so only what joins the
        area seen in the first place is taken."""
        seen = self.prob > 0.5
        if not seen.any():
            return None
        _, labels = cv2.connectedComponents((other.prob > 0.5).astype(np.uint8), connectivity=8)
        joined = np.isin(labels, np.unique(labels[seen & (labels > 0)]))
        if (joined & ~seen).sum() < min_gain * seen.sum():
            return None
        return BoardView(np.where(joined, np.maximum(self.prob, other.prob), self.prob), self.scale)


def _solidity(mask: np.ndarray) -> float:
    """Area over convex-hull area of the largest outline in ``mask`` (bool): 1 for a convex patch."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return 0.0
    outline = max(contours, key=cv2.contourArea)
    return float(cv2.contourArea(outline)) / max(float(cv2.contourArea(cv2.convexHull(outline))), 1.0)


class BoardNet(OnnxNet):
    """The fitted network, loaded from ONNX; ``view(frame)``: the card area's probability."""

    what = "board network"
    model_path = MODEL_PATH

    def __init__(self, path: Path | None = None, config: BoardNetConfig = BoardNetConfig()) -> None:
        super().__init__(path)
        self.config = config

    def logits(self, blob: np.ndarray) -> np.ndarray:
        """``(height / stride, width / stride)`` float32 card-area logits for one input blob."""
        c = self.config
        return self.run(blob).reshape(c.height // c.stride, c.width // c.stride)

    def view(self, frame: np.ndarray) -> BoardView:
        """The card area's probability over the frame's thumbnail (``board_input``).

        A portrait frame (a phone held upright) is looked at turned a quarter: the input is
        landscape, and shrunk upright into it the board would span half the pixels it does
        turned (the network learned boards at every turn, so the turn costs it nothing)."""
        upright = frame.shape[0] > frame.shape[1] and self.config.width > self.config.height
        if upright:
            frame = cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE)
        blob, s, size = board_input(frame, self.config)
        seen = view_of_logits(self.logits(blob), s, size, self.config)
        if upright:
            return BoardView(np.ascontiguousarray(cv2.rotate(seen.prob, cv2.ROTATE_90_COUNTERCLOCKWISE)), s)
        return seen


def view_of_logits(logits: np.ndarray, scale: float, size: tuple[int, int],
                   config: BoardNetConfig = BoardNetConfig()) -> BoardView:
    """The network's output grid of logits as a probability over the ``size`` = ``(w, h)``
    thumbnail part of its input, upsampled to input pixels."""
    w, h = size
    full = cv2.resize(logits, (config.width, config.height), interpolation=cv2.INTER_LINEAR)
    return BoardView((1.0 / (1.0 + np.exp(-full[:h, :w]))).astype(np.float32), scale)


@functools.cache
def load_board_net(path: Path = MODEL_PATH) -> BoardNet:
    """The network at ``path``, read once per process."""
    return BoardNet(path)
