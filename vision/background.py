"""The tracker's memories of how the board looks: the *background* (the board as it was at the
last commit, which every frame is compared with) and each cell's *empty look* (the cell as it
looked with no chip, which says whether a chip was taken off).

Both are kept on the tracker's small rectified board (``vision.motion.Rectifier``) and updated
cell by cell as moves are committed and the light drifts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.layout import SIZE
from vision.motion import MotionConfig, Rectifier, grey, skin_mask


def blend(old: np.ndarray, new: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``new`` where ``mask`` is 1, ``old`` where it is 0 (and in between where it is between)."""
    return old * (1 - mask) + new * mask


@dataclass
class Background:
    """The board at the last commit: rectified ``full`` (gain-normalised, float32), its ``grey``,
    its ``coarse`` block means and the ``skin``-coloured coarse pixels already there."""

    full: np.ndarray
    grey: np.ndarray
    coarse: np.ndarray
    skin: np.ndarray

    @classmethod
    def taken(cls, rf: Rectifier, rect: np.ndarray, motion: MotionConfig) -> Background:
        """The rectified board ``rect`` as the new background."""
        coarse = rf.coarse(rect)
        return cls(rect, grey(rect), coarse, skin_mask(coarse, motion))

    def absorb(self, rf: Rectifier, norm: np.ndarray, cells: np.ndarray, motion: MotionConfig) -> None:
        """The current look of ``cells`` (``(10, 10)`` bool) becomes theirs (``norm``: the
        gain-normalised rectified frame)."""
        self.full = blend(self.full, norm, rf.cell_mask(cells, coarse=False))
        self.grey = grey(self.full)
        mc = rf.cell_mask(cells, coarse=True)
        norm_co = rf.coarse(norm)
        self.coarse = blend(self.coarse, norm_co, mc)
        self.skin = np.where(mc[..., 0] > 0, skin_mask(norm_co, motion), self.skin)

    def absorb_margin(self, rf: Rectifier, co_norm: np.ndarray, cells: np.ndarray) -> None:
        """The current coarse look (``co_norm``) of the margin beside the edge cells among ``cells``
        becomes its background (light changed it, no arm)."""
        self.coarse = blend(self.coarse, co_norm, rf.margin_mask(cells))

    def follow(self, rf: Rectifier, co_norm: np.ndarray, cells: np.ndarray, rate: float) -> None:
        """``cells``' coarse background moves ``rate`` of the way to their current look: slow
        light changes are followed (the full background serves alignment, which ignores light)."""
        m = rf.cell_mask(cells, coarse=True) * rate
        self.coarse = self.coarse + (co_norm - self.coarse) * m


@dataclass
class EmptyLooks:
    """Each cell's coarse look with no chip on it, where ``known`` (``(10, 10)`` bool)."""

    coarse: np.ndarray | None = None
    known: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), dtype=bool))

    def remember(self, coarse: np.ndarray, empty: np.ndarray) -> None:
        """A board whose ``empty`` cells (``(10, 10)`` bool) hold no chip: their looks in ``coarse``."""
        self.coarse = coarse.copy()
        self.known = empty

    def forget(self) -> None:
        """No cell's empty look is known (the grid moved under them)."""
        self.coarse = None
        self.known = np.zeros((SIZE, SIZE), dtype=bool)

    def learn(self, rf: Rectifier, cells: np.ndarray, coarse: np.ndarray) -> None:
        """``cells`` were just seen empty, looking as in ``coarse``."""
        if self._take(rf, cells, coarse):
            self.known |= cells

    def relearn(self, rf: Rectifier, cells: np.ndarray, coarse: np.ndarray) -> None:
        """A new light: the empty ``cells`` look as in ``coarse``, and no other cell's empty look
        is known any more."""
        if self._take(rf, cells, coarse):
            self.known = cells

    def _take(self, rf: Rectifier, cells: np.ndarray, coarse: np.ndarray) -> bool:
        """``cells``' looks in ``coarse`` become their empty looks; False (nothing taken) before
        any empty board was remembered."""
        if self.coarse is None:
            return False
        self.coarse = blend(self.coarse, coarse, rf.cell_mask(cells, coarse=True))
        return True
