"""Could four corners be a photographed 10x10 grid, and if not, why, in words a player can act on
(too small, too steep, past the picture's edge)."""

from __future__ import annotations

import numpy as np

from engine.layout import SIZE
from vision.geometry import is_convex, metric_aspect, order_as_seen, roll_rows
from vision.locate_config import LocateConfig


def plausible(corners: np.ndarray, size: tuple[int, int], config: LocateConfig, *, aspect: bool = True) -> bool:
    """Could these corners be a photographed 10x10 grid? (convex, big enough, in view, not a sliver)

    The metric aspect (the slowest test) is left out with ``aspect=False``, for rough guesses.
    """
    return implausibility(corners, size, config, aspect=aspect) is None


def implausibility(corners: np.ndarray, size: tuple[int, int], config: LocateConfig, *,
                    aspect: bool = True, max_aspect: float | None = None) -> str | None:
    """Why these corners cannot be a photographed 10x10 grid, in words a player can act on;
    None where they can be (see ``plausible``). The measured aspect may be ``max_aspect``
    (``config.max_aspect`` when None) either way."""
    c = np.asarray(corners, dtype=np.float64)
    if c.shape != (4, 2) or not np.isfinite(c).all():
        return "the grid has no four finite corners"
    if not is_convex(c):
        return "the grid it found is folded over itself"
    sides = np.linalg.norm(roll_rows(c) - c, axis=1)
    if sides.min() < SIZE * config.min_cell_px:
        return "the board is too small in the picture: move the camera closer"
    if max(sides[0] / sides[2], sides[2] / sides[0], sides[1] / sides[3], sides[3] / sides[1]) > config.max_side_ratio:
        return "the board is seen too steeply: raise the camera or tilt it further down"
    outside = edges_crossed(c, size, config.max_outside)
    if outside:
        return (f"the board runs past the {' and '.join(outside)} edge of the picture: "
                "move the camera so the whole board shows")
    if not aspect:
        return None
    ratio = metric_aspect(order_as_seen(c), size)
    if max(ratio, 1.0 / max(ratio, 1e-9)) > (config.max_aspect if max_aspect is None else max_aspect):
        return "the grid it found is not the board's shape"
    return None


def edges_crossed(corners: np.ndarray, size: tuple[int, int], slack: float) -> list[str]:
    """The picture's edges (``"top"``, ``"right"``, ``"bottom"``, ``"left"``) that ``corners``
    ``(4, 2)`` lie beyond by more than ``slack`` of the picture's width or height."""
    w, h = size
    x, y = corners[:, 0], corners[:, 1]
    beyond = {"top": y.min() < -slack * h, "right": x.max() > w + slack * w,
              "bottom": y.max() > h + slack * h, "left": x.min() < -slack * w}
    return [edge for edge, out in beyond.items() if out]
