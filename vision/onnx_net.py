"""A fitted network exported as ONNX, run by OpenCV's ``dnn`` module (no other runtime needed).

The board, patch and turn networks (``vision.board_net``, ``vision.patch_net``,
``vision.turn_net``) are each this plus their own input and output shapes.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np


class OnnxNet:
    """One network read from ``path``; ``run(blob)`` returns its output.

    An OpenCV ``dnn`` network is not safe to run from two threads at once, so calls are
    serialised (a pipeline runs on one thread; the lock only guards against sharing one).
    """

    what = "network"
    """Named in the error for an unreadable file."""
    model_path: Path | None = None
    """The shipped model, read when no ``path`` is given."""

    def __init__(self, path: Path | None = None) -> None:
        path = path if path is not None else self.model_path
        if path is None:
            raise ValueError(f"no model file given for the {self.what}")
        try:
            self._net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise ValueError(f"{path}: not a readable {self.what} ({exc})") from exc
        self._lock = threading.Lock()

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The network's float32 output for one input ``blob`` (any batch)."""
        with self._lock:
            self._net.setInput(np.ascontiguousarray(blob, dtype=np.float32))
            return np.asarray(self._net.forward(), np.float32)
