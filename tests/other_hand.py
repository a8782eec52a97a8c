"""Frames drawn by renderers written apart from ``vision.sim`` (``tests/data/*_other_hand``): a
picture and its truth, and the check that ``detect`` reads one as drawn."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.detect import DetectConfig, detect

DATA = Path(__file__).parent / "data"


def other_hand(name: str) -> tuple[np.ndarray, dict]:
    """The frame ``tests/data/<name>.jpg`` (BGR) and its truth ``<name>.json`` (corners, cells,
    edition)."""
    frame = cv2.imread(str(DATA / f"{name}.jpg"))
    assert frame is not None, name
    return frame, json.loads((DATA / f"{name}.json").read_text())


def assert_read_as_drawn(frame: np.ndarray, truth: dict, config: DetectConfig | None = None) -> None:
    """Every cell of ``frame`` read as ``truth`` has it, with its true corners and edition given,
    and with nothing given (under ``config``, by default ``DetectConfig()``)."""
    config = config or DetectConfig()
    given = detect(frame, corners=np.float32(truth["corners"]), edition=truth["edition"], config=config)
    assert given.labels == truth["cells"]
    found = detect(frame, config=config)
    assert found, found.reason
    assert found.labels == truth["cells"]
