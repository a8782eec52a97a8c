"""A second opinion on the cells the cue network is unsure of: a small CNN over the cell's pixels.

The cue network (``vision.cell_model``) sees a cell through named cues; a white chip on a
blurred white card of the Jumbo mat, or a glare-washed chip, leaves those cues near their
empty values. A convolutional network looking at the cell itself, next to its twin card (the
other cell printed with the same card, so the print it should show), still sees the disc's
faint outline and the print it hides. It is small (three 3x3 convolution layers over 20x20
pixels; the file holds the mean of three such networks fitted from other seeds, which fails on
fewer unfamiliar boards than any one of them) and run only on the cells the cue network leaves
in doubt, so a read stays within its time budget. Fitted by ``benchmarks/fit_patch_net.py``
(PyTorch, exported as ONNX) on rendered frames that no benchmark uses; run here by ONNX Runtime
(``vision.onnx_net``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from engine.layout import SIZE
from vision.onnx_net import OnnxNet
from vision.twins import TWIN

MODEL_PATH = Path(__file__).with_name("patch_net.onnx")
CLASSES = ("empty", "blue", "green", "red", "yellow", "flipped")
"""The network's outputs, in order: no chip, or a chip of one of these colours."""
N_CELLS = SIZE * SIZE


@dataclass(frozen=True)
class PatchConfig:
    """How a cell becomes the network's input (fixed by the fitted model: change only with a refit)."""

    cell_px: int = 16
    """Cell side after resampling the rectified grid (a Jumbo cell is squeezed to square)."""
    context_px: int = 2
    """Pixels of the neighbouring cells kept around each cell (a chip may overhang its cell)."""
    floor: float = 0.02
    """Smallest white-relative value before the logarithm (black print, deep shadow)."""
    ceiling: float = 4.0
    """Largest white-relative value (glare far above the card's white)."""

    @property
    def side(self) -> int:
        """Side of one input patch in pixels."""
        return self.cell_px + 2 * self.context_px


def cell_patches(grid: np.ndarray, white: np.ndarray, cells: np.ndarray,
                 config: PatchConfig = PatchConfig()) -> np.ndarray:
    """The network's input ``(k, 6, side, side)`` float32 for the flat cell indices ``cells`` ``(k,)``.

    ``grid``: the rectified board (``(10h, 10w, 3)`` uint8 BGR); ``white`` ``(100, 3)``: each
    cell's local card white (``CellReader.features()["white"]``). Channels 0-2 are the cell,
    3-5 its twin card, each divided by its own cell's white and taken as a logarithm, so the
    network sees neither the lamp's colour nor its brightness.
    """
    n = config.cell_px * SIZE
    small = cv2.resize(grid, (n, n), interpolation=cv2.INTER_AREA)
    pad = config.context_px
    padded = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    step, side = config.cell_px, config.side
    # (10, 10, 3, side, side) view: every cell's patch with its context, channels first.
    windows = sliding_window_view(padded, (side, side), axis=(0, 1))[::step, ::step]
    patches = windows.reshape(N_CELLS, 3, side, side)
    cells = np.asarray(cells, dtype=np.intp)
    both = np.concatenate([cells, TWIN[cells]])
    values = patches[both].astype(np.float32) / np.asarray(white, np.float32)[both][:, :, None, None]
    np.log(np.clip(values, config.floor, config.ceiling, out=values), out=values)
    k = len(cells)
    return np.concatenate([values[:k], values[k:]], axis=1)


def chip_logit(class_logits: np.ndarray) -> np.ndarray:
    """``(k,)`` log-odds of any chip against no chip from the network's ``(k, 6)`` class logits."""
    z = np.asarray(class_logits, np.float64)
    top = z.max(axis=1, keepdims=True)
    chips = np.log(np.exp(z[:, 1:] - top).sum(axis=1)) + top[:, 0]
    return (chips - z[:, 0]).astype(np.float32)


RULED_OUT = -1e4
"""The logit of a class ruled out: no probability, yet finite (no NaN in a softmax)."""


def only_classes(class_logits: np.ndarray, possible: tuple[str, ...]) -> np.ndarray:
    """``(k, 6)`` class logits with the classes not in ``possible`` ruled out: what the network
    sees, renormalised over what this table can show (a classic set has no white chips, so a
    dim card the network half takes for one is weighed as the card or a chip of a real colour)."""
    out = np.array(class_logits, np.float32)
    out[:, ~np.isin(np.array(CLASSES, dtype=object), np.array(possible, dtype=object))] = RULED_OUT
    return out


def probabilities(class_logits: np.ndarray) -> np.ndarray:
    """``(k, 6)`` class probabilities (softmax of each row of class logits)."""
    z = np.asarray(class_logits, np.float64)
    prob = np.exp(z - z.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    return prob


def sure_class(prob: np.ndarray, sure: float) -> np.ndarray:
    """``(k,)`` object array: the class (``CLASSES``) each row of class probabilities ``(k, 6)``
    (``probabilities``) reaches ``sure`` for, ``""`` where none does."""
    names = np.array((*CLASSES, ""), dtype=object)
    return names[np.where(prob.max(axis=1) >= sure, prob.argmax(axis=1), len(CLASSES))]


class PatchNet(OnnxNet):
    """The fitted network, loaded from ONNX; ``chip_logit(patches)`` per cell."""

    what = "patch network"
    model_path = MODEL_PATH

    def class_logits(self, patches: np.ndarray) -> np.ndarray:
        """``(k, 6)`` float32 class logits (``CLASSES`` order) for ``(k, 6, side, side)`` patches."""
        if len(patches) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        return self.run(patches).reshape(len(patches), len(CLASSES))

    def chip_logit(self, patches: np.ndarray) -> np.ndarray:
        """``(k,)`` chip log-odds for ``(k, 6, side, side)`` patches."""
        return chip_logit(self.class_logits(patches))


@functools.cache
def load_patch_net(path: Path = MODEL_PATH) -> PatchNet:
    """The network at ``path``, read once per process (readers of every table share it)."""
    return PatchNet(path)
