"""Write a simulated game to disk (a video or a folder of JPEGs) with its truth, and read it back.

Layout on disk:
- video: ``game.mp4`` and ``game.truth.json`` beside it;
- folder: ``DIR/frame_000000.jpg ...`` and ``DIR/truth.json``.

The truth JSON holds the game spec, fps, frame count, the true events, the chips on the
board at every change (``boards``), the grid corners at every change (``corners``, they
move when the board is bumped) and the frame ranges where a hand covers the board.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import cv2
import numpy as np

from vision.sim.game import GameSim
from vision.sim.scene import Scene, grid_corners

log = logging.getLogger(__name__)

TRUTH_VERSION = 1
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov")


def truth_path(path: str | Path) -> Path:
    """Where the truth of the clip at ``path`` lives."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        return p
    if p.suffix.lower() in VIDEO_SUFFIXES:
        return p.with_suffix(".truth.json")
    return p / "truth.json"


def write_clip(sim: GameSim, path: str | Path, *, max_frames: int | None = None, quality: int = 92) -> Path:
    """Render ``sim`` into a video (by suffix: .mp4 .avi .mkv .mov, codec mp4v) or a folder of
    JPEGs, with the truth JSON beside it. Returns the truth file's path."""
    out = Path(path)
    is_video = out.suffix.lower() in VIDEO_SUFFIXES
    if is_video:
        out.parent.mkdir(parents=True, exist_ok=True)
        writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), float(sim.spec.fps),
                                 tuple(sim.spec.size))
        if not writer.isOpened():
            raise OSError(f"cannot write video {out} (OpenCV has no mp4v encoder for it)")
    else:
        out.mkdir(parents=True, exist_ok=True)
        writer = None
    n = len(sim) if max_frames is None else min(len(sim), max_frames)
    hands: list[list[int]] = []
    boards: list[dict] = []
    corners: list[dict] = []
    last_labels, last_corners = None, None
    try:
        for i in range(n):
            f = sim.render(i)
            if writer is not None:
                writer.write(f.frame)
            elif not cv2.imwrite(str(out / f"frame_{i:06d}.jpg"), f.frame, [cv2.IMWRITE_JPEG_QUALITY, quality]):
                raise OSError(f"cannot write {out / f'frame_{i:06d}.jpg'}")
            if f.hand_visible:
                if hands and hands[-1][1] == i:
                    hands[-1][1] = i + 1
                else:
                    hands.append([i, i + 1])
            if f.labels != last_labels:
                boards.append({"frame": i, "labels": f.labels})
                last_labels = f.labels
            st = sim.states[i]
            if (st.shift, st.rot) != last_corners:
                c = grid_corners(sim.scene_at(i))
                corners.append({"frame": i, "corners": np.round(c, 3).tolist()})
                last_corners = (st.shift, st.rot)
    finally:
        if writer is not None:
            writer.release()
    truth = {
        "version": TRUTH_VERSION,
        "spec": _jsonable(dataclasses.asdict(sim.spec)),
        "fps": sim.spec.fps,
        "size": list(sim.spec.size),
        "n_frames": n,
        "events": [_jsonable(e) for e in sim.events if e["frame"] < n],
        "boards": boards,
        "corners": corners,
        "hand_frames": hands,
    }
    tp = truth_path(out)
    tp.write_text(json.dumps(truth, indent=1))
    log.info("wrote %d frames to %s and truth to %s", n, out, tp)
    return tp


def read_truth(path: str | Path) -> dict:
    """The truth dict of a clip (``path``: the video, the frame folder or the JSON itself).

    Raises ``ValueError`` with a one-line reason for a missing or malformed file."""
    tp = truth_path(path)
    try:
        data = json.loads(tp.read_text())
    except FileNotFoundError:
        raise ValueError(f"no simulated-clip truth at {tp}") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read clip truth {tp}: {exc}") from None
    if not isinstance(data, dict) or data.get("version") != TRUTH_VERSION:
        raise ValueError(f"{tp} is not a version-{TRUTH_VERSION} simulated-clip truth file")
    return data


def labels_at(truth: dict, frame: int) -> list[list[str]]:
    """The true 10x10 labels at ``frame`` from a truth dict."""
    current = None
    for b in truth["boards"]:
        if b["frame"] > frame:
            break
        current = b["labels"]
    if current is None:
        raise ValueError(f"frame {frame} is before the first recorded board")
    return current


def write_scene(scene: Scene, path: str | Path, *, quality: int = 95) -> Path:
    """Save a still frame (PNG or JPEG by suffix) with ``<name>.truth.json`` beside it
    (corners in canonical order, labels, edition, occluded cells)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    params = [cv2.IMWRITE_JPEG_QUALITY, quality] if p.suffix.lower() in (".jpg", ".jpeg") else []
    if not cv2.imwrite(str(p), scene.frame, params):
        raise OSError(f"cannot write image {p}")
    tp = p.with_suffix(".truth.json")
    tp.write_text(json.dumps({"version": TRUTH_VERSION, "edition": scene.edition,
                              "corners": np.round(scene.corners, 3).tolist(), "labels": scene.labels,
                              "occluded": scene.occluded.tolist(), "seed": scene.spec.seed}))
    return tp


def _jsonable(value: object) -> object:
    """Plain JSON types (tuples to lists, NumPy scalars to Python numbers)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
