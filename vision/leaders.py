"""Which of the many rough grid candidates to register first: each is placed by a quick read of
the ink, candidates on one placement vote together, and outlines that lie on a lattice of card
borders get a turn of their own (``vision.locate`` registers them in that order)."""

from __future__ import annotations

import numpy as np

from engine.layout import SIZE
from vision.geometry import grid_diagonal, order_as_seen
from vision.lattice import lattice_contrast
from vision.locate_config import LocateConfig
from vision.placement import ink_match


def rank_leaders(frame, candidates: list, config: LocateConfig) -> list[np.ndarray]:
    """The rough candidates worth registering, one per quick placement, the most voted first.

    Every candidate is placed by a quick look at the ink (a few cells each way); the
    candidates that come from the board land on the same placement, so placements are
    ranked by their summed evidence (a vote, steadier than any one rough candidate's score),
    and each is represented by its candidate that read the layout most strongly.
    """
    if not candidates:
        return []
    # Clockwise as seen: a mirrored corner order would read the layout mirrored.
    quick = [ink_match(frame, order_as_seen(c), config, config.rank_reach, config.ink_coarse) for c in candidates]
    clusters: list[list[int]] = []
    seen = [order_as_seen(m.corners) for m in quick]
    for i, m in enumerate(quick):
        if m.z <= 0:
            continue
        for cluster in clusters:
            if same_placement(seen[cluster[0]], seen[i], config):
                cluster.append(i)
                break
        else:
            clusters.append([i])
    # The strongest read of a placement counts fully, the other candidates on it a little
    # (many weak duplicates must not outvote one candidate that reads the layout clearly).
    clusters.sort(key=lambda cl: -_vote(sorted((quick[i].z for i in cl), reverse=True), config))
    return [order_as_seen(candidates[max(cluster, key=lambda i: quick[i].z)]) for cluster in clusters]


def same_placement(a: np.ndarray, b: np.ndarray, config: LocateConfig) -> bool:
    """Whether two outlines (corners in the same order) lie within ``vote_cells`` of a cell of
    ``b`` of each other at every corner: one placement, to be counted or registered once."""
    cell = grid_diagonal(b) / (SIZE * np.sqrt(2.0))
    return bool(np.abs(np.asarray(a) - np.asarray(b)).max() < config.vote_cells * cell)


def lattice_leaders(white: np.ndarray, candidates: list, leaders: list[np.ndarray],
                     config: LocateConfig) -> list[np.ndarray]:
    """The rough candidates whose outlines lie best on a lattice of card borders
    (``lattice_contrast``), up to ``lattice_top``, none within ``vote_cells`` of the
    ``leaders`` or of each other: registered after the leaders.

    The quick ink read that ranks the leaders is noisy on a small, blurred board (its cells
    span a few pixels at that resolution), and there a candidate on the board itself can rank
    far down; how well its outline fits the card borders does not depend on reading the print.
    """
    if config.lattice_top <= 0 or not candidates:
        return []
    quads = [order_as_seen(c) for c in candidates]
    contrast = lattice_contrast(white, quads, config)
    picked: list[np.ndarray] = []
    for i in np.argsort(-contrast):
        if not any(same_placement(q, quads[i], config) for q in [*leaders, *picked]):
            picked.append(quads[i])
            if len(picked) >= config.lattice_top:
                break
    return picked


def _vote(zs: list[float], config: LocateConfig) -> float:
    """A placement's evidence from the quick z-scores of the candidates on it, strongest first."""
    return zs[0] + config.vote_others * sum(zs[1:])
