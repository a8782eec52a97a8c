"""The cell reader's chip-or-not decision: a small neural network over named physical cues.

The cues (``CellReader.decision_inputs``: rim contrast, print hidden, colour distances, change
from the twin card or the empty board, ...) each say something about a chip, but not linearly:
"plain centre" means a chip on a number card and nothing on a Queen's art; a white disc means a
flipped chip only where white chips can exist. One hidden layer learns those interactions.
Weights are fitted by ``benchmarks/fit_cell_model.py`` on rendered frames (never the benchmark's
seeds) and stored as JSON beside this module; three variants: without and with an empty-board
reference, and on the Jumbo mat without one a second network over more cues that may add white
chips (``jumbo_white``).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).with_name("cell_model.json")
MODEL_FORMAT = 1


@dataclass(frozen=True)
class ChipNet:
    """``logit = w2 . tanh(w1 . ((x - mean) / scale) + b1) + b2`` over the named ``inputs``."""

    inputs: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    def logit(self, values: dict[str, np.ndarray]) -> np.ndarray:
        """Chip logit ``(N,)`` float32 from cue arrays ``(N,)`` (positive: a chip is there)."""
        x = np.stack([np.asarray(values[name], np.float32) for name in self.inputs], axis=1)
        hidden = np.tanh(((x - self.mean) / self.scale) @ self.w1 + self.b1)
        return (hidden @ self.w2 + self.b2).astype(np.float32)

    def to_dict(self) -> dict[str, object]:
        def rounded(a: np.ndarray) -> list:
            return np.round(a.astype(np.float64), 5).tolist()

        return {"inputs": list(self.inputs), "mean": rounded(self.mean), "scale": rounded(self.scale),
                "w1": rounded(self.w1), "b1": rounded(self.b1), "w2": rounded(self.w2), "b2": round(self.b2, 5)}

    @classmethod
    def from_dict(cls, d: dict) -> ChipNet:
        n = len(d["inputs"])
        net = cls(
            inputs=tuple(d["inputs"]),
            mean=np.asarray(d["mean"], np.float32),
            scale=np.asarray(d["scale"], np.float32),
            w1=np.asarray(d["w1"], np.float32),
            b1=np.asarray(d["b1"], np.float32),
            w2=np.asarray(d["w2"], np.float32),
            b2=float(d["b2"]),
        )
        hidden = net.b1.shape[0]
        if net.mean.shape != (n,) or net.scale.shape != (n,) or net.w1.shape != (n, hidden) \
                or net.w2.shape != (hidden,):
            raise ValueError("cell model: array shapes do not match its inputs")
        return net


@functools.cache
def load_chip_nets(path: Path = MODEL_PATH) -> dict[str, ChipNet]:
    """The fitted networks by variant name (``plain``, ``reference``, ``jumbo_white``); read once per process."""
    data = json.loads(Path(path).read_text())
    if data.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: unknown cell model format {data.get('format')!r}")
    return {name: ChipNet.from_dict(d) for name, d in data["nets"].items()}


def save_chip_nets(nets: dict[str, ChipNet], path: Path = MODEL_PATH, *, note: str = "") -> None:
    """Write the networks as JSON (the fit script's output, committed with the code)."""
    data = {"format": MODEL_FORMAT, "note": note, "nets": {k: v.to_dict() for k, v in nets.items()}}
    Path(path).write_text(json.dumps(data, indent=1) + "\n")
