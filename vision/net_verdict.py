"""What the turn network (``vision.turn_net``) says of a located grid: it vouches for it, refuses
it, or is overruled by a print that shows the layout plainly. The network's word weighs where
the ink is faint; the ink's where the network meets a board unlike those it learned."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.locate_config import LocateConfig
from vision.orient import ask_turn_net, given_placed, sure_turn, sure_turn_given_placed
from vision.turn_net import NOT_PLACED


@dataclass(frozen=True)
class NetVerdict:
    """What the turn network says of a located grid: it ``vouches`` for it (sure of one turn,
    so the grid lies on the cards) or ``refuses`` it (sure the board is not there)."""

    vouches: bool = False
    refuses: bool = False
    probabilities: np.ndarray | None = None
    """The network's ``(5,)`` probabilities the verdict came from (None: not asked), given
    the board is there where it vouches ``on_turn_alone``."""
    on_turn_alone: bool = False
    """It vouches for a grid it placed itself, sure of the turn but not of the placement."""
    overruled: bool = False
    """It would refuse the grid, but the grid's ink shows the layout too plainly (``net_overruled_z``)."""


def net_verdict(frame: np.ndarray, corners: np.ndarray, config: LocateConfig, ink_z: float = -1.0,
                 *, placed: bool = False) -> NetVerdict:
    """The turn network's verdict on the grid ``corners`` (as seen) whose ink reads ``ink_z``;
    none where it is not asked (``use_net`` off). It refuses no grid whose ink reads
    ``net_overruled_z`` or more (it is ``overruled`` there), and vouches for none where it may
    not tell turns (``turn_net_sure`` 0, as on an empty board: there it may still refuse a
    grid). ``placed``: the network itself has placed the grid (a climb), so where it is not
    sure of the grid but names one turn at ``climb_placed_sure``, it is asked only which turn
    (``given_placed``; those probabilities are returned)."""
    if not config.use_net:
        return NetVerdict()
    p = ask_turn_net(frame, corners, config.ink)
    doubts = bool(p[NOT_PLACED] >= config.net_refuses)
    refuses = doubts and ink_z < config.net_overruled_z
    vouches = config.ink.turn_net_sure > 0 and sure_turn(p, config.ink) is not None
    if vouches or not placed or config.climb_placed_sure <= 0 or config.ink.turn_net_sure <= 0 \
            or sure_turn_given_placed(p, config.ink, config.climb_placed_sure) is None:
        return NetVerdict(vouches, refuses, p, overruled=doubts and not refuses)
    return NetVerdict(True, refuses, given_placed(p), on_turn_alone=True)
