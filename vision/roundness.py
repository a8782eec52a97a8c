"""Chips are round: their outlines measure the board's cell aspect, and so tell the edition.

The classic board's cells are square; the Jumbo mat's are about 1.19 times wider than tall.
The grid's outline alone tells them apart only as well as the camera's focal length is known
(``vision.geometry.guess_edition``), which from one view of a tilted board is poorly: on rendered
hard frames it was right about half the time. A chip is a disc, so in a grid rectified with square
cells it shows as an ellipse whose width over height is the inverse of the real cell aspect,
whatever the camera. The median over the chips read surely is steady to a few percent; motion blur
stretches chips too, so a median between the editions decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.labels import TEAM_COLOURS
from engine.layout import EDITIONS
from vision.warp import GridGeometry, warp_grid


@dataclass(frozen=True)
class RoundnessConfig:
    """How chip outlines are measured (chosen on rendered frames of seeds 97600-98199; on the
    true chips of 97660-98199, with these values, the edition was told on 474 frames of 540 and
    never wrong)."""

    cell_px: int = 40
    """Side of a cell in the rectified grid the outlines are measured in."""
    min_chroma: float = 8.0
    """A chip whose centre is less colourful than this (Lab chroma, half of it the outline's
    threshold) is too washed out to outline."""
    min_area: float = 0.09
    """Smallest outline kept, in cell areas (a chip covers about a third of its cell)."""
    min_confidence: float = 0.9
    """Cells read as a team colour at least this surely are measured (``sure_chips``)."""
    max_chips: int = 24
    """Most chips outlined (the surest first): their median is steady long before that, and
    each costs about a fifth of a millisecond."""
    min_chips: int = 3
    """Outlines needed before their median says anything."""
    undecided: float = 0.035
    """Half-width, in log aspect, of the band around the midpoint between the editions' aspects
    where nothing is decided (1.05 to 1.13 between the classic board and the Jumbo mat)."""


@dataclass(frozen=True)
class ChipRoundness:
    """The cell aspect (width over height, row 0 along the width) the chips' outlines measure,
    and how many chips were measured. Not folded: a chip blurred along the columns reads below 1,
    which only the square cells are near (folded, it read as the Jumbo mat on seed 97922)."""

    aspect: float
    chips: int


def chip_roundness(
    frame: np.ndarray, corners: np.ndarray, cells: list[tuple[int, int]], config: RoundnessConfig = RoundnessConfig()
) -> ChipRoundness | None:
    """The cell aspect measured from the outlines of the chips on ``cells`` of the grid whose
    canonical ``corners`` ``(4, 2)`` lie in ``frame`` (BGR uint8); None with too few outlines.

    Each chip's outline is the colourful region around its cell's centre (its chroma above half
    the centre's), kept when it lies inside the 2x2-cell window around the cell (a run of touching
    chips or a coloured picture card is no outline); its filled shape's second moments give its
    width over height.
    """
    square = GridGeometry("classic", config.cell_px, config.cell_px)  # square cells, whatever the edition
    grid = warp_grid(frame, corners, square)
    lab = cv2.cvtColor(grid, cv2.COLOR_BGR2Lab).astype(np.float32)
    chroma = np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0)
    ratios = [r for r in (_outline_ratio(chroma, cell, config) for cell in cells) if r is not None]
    if len(ratios) < config.min_chips:
        return None
    return ChipRoundness(float(np.median(ratios)), len(ratios))


def sure_chips(
    labels: list[list[str]], confidence: np.ndarray, config: RoundnessConfig = RoundnessConfig()
) -> list[tuple[int, int]]:
    """The cells of a reading (``labels`` 10x10, ``confidence`` ``(10, 10)``) read as a team
    colour at least ``config.min_confidence`` surely, the surest first and at most
    ``config.max_chips``: the chips worth outlining."""
    conf = np.asarray(confidence, dtype=np.float32)
    cells = [
        (r, c)
        for r, row in enumerate(labels)
        for c, label in enumerate(row)
        if label in TEAM_COLOURS and conf[r, c] >= config.min_confidence
    ]
    return sorted(cells, key=lambda cell: -conf[cell])[: config.max_chips]


def edition_by_roundness(measured: ChipRoundness | None, config: RoundnessConfig = RoundnessConfig()) -> str | None:
    """The edition whose cell aspect ``measured`` is nearest, unless it lies within
    ``config.undecided`` of the midpoint between two editions (or nothing was measured)."""
    if measured is None:
        return None
    distance = {name: abs(np.log(measured.aspect / ed.grid_aspect)) for name, ed in EDITIONS.items()}
    best, second = sorted(distance, key=distance.__getitem__)[:2]
    return best if distance[second] - distance[best] > 2.0 * config.undecided else None


def _outline_ratio(chroma: np.ndarray, cell: tuple[int, int], config: RoundnessConfig) -> float | None:
    """Width over height of the chip outline on ``cell`` in the rectified ``chroma``, or None."""
    s = config.cell_px
    r, c = cell
    y0, x0 = max(0, round((r - 0.5) * s)), max(0, round((c - 0.5) * s))
    window = chroma[y0 : round((r + 1.5) * s), x0 : round((c + 1.5) * s)]
    cy, cx = round((r + 0.5) * s) - y0, round((c + 0.5) * s) - x0
    k = max(1, s // 6)
    centre = float(np.median(window[cy - k : cy + k, cx - k : cx + k]))
    if centre < config.min_chroma:
        return None
    mask = cv2.morphologyEx((window > 0.5 * centre).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _, components, stats, _ = cv2.connectedComponentsWithStats(mask)
    label = components[cy, cx]
    if label == 0:
        return None
    x, y, w, h, _ = stats[label]
    if x == 0 or y == 0 or x + w >= window.shape[1] or y + h >= window.shape[0]:
        return None
    outlines, _ = cv2.findContours((components == label).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    m = cv2.moments(max(outlines, key=cv2.contourArea))
    if m["m00"] < config.min_area * s * s or m["mu20"] <= 0 or m["mu02"] <= 0:
        return None
    # A disc on cells a times wider than tall shows 1/a as wide as tall: the aspect is height over width.
    return float(np.sqrt(m["mu02"] / m["mu20"]))
