"""A fitted network exported as ONNX, run by ONNX Runtime on the calling thread.

The board, patch and turn networks (``vision.board_net``, ``vision.patch_net``,
``vision.turn_net``) and the corner networks are each this plus their own input and output
shapes. ONNX Runtime runs them 1.4 to 3 times faster than OpenCV's ``dnn`` did (a read's
patch network on 40 cells, 1.1 ms against 3.5 ms; the turn network's four views, 1.4 ms
against 3.7 ms; one thread each), which is what keeps a read of a Jumbo board within its 10 ms.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class OnnxNet:
    """One network read from ``path``; ``run(blob)`` returns its output.

    One thread per call, the caller's: the networks are small, a pipeline runs on one thread,
    and ``vision_speed.py`` measures on one core. ONNX Runtime sessions may be run from several
    threads at once, so nothing is locked.
    """

    what = "network"
    """Named in the error for an unreadable file."""
    model_path: Path | None = None
    """The shipped model, read when no ``path`` is given."""

    def __init__(self, path: Path | None = None) -> None:
        import onnxruntime  # ~0.1 s to import: only once a network is wanted

        path = path if path is not None else self.model_path
        if path is None:
            raise ValueError(f"no model file given for the {self.what}")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # (operators run one after another by default)
        options.log_severity_level = 3  # errors only: no notes on stderr about the graph
        try:
            self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # ONNX Runtime's own error types derive from Exception only
            raise ValueError(f"{path}: not a readable {self.what} ({exc})") from exc
        self._input = self._session.get_inputs()[0].name

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The network's float32 output for one input ``blob`` (any batch the model allows)."""
        feed = {self._input: np.ascontiguousarray(blob, dtype=np.float32)}
        return np.asarray(self._session.run(None, feed)[0], np.float32)
