"""Naming cells for the people at the table: a few one by one, more by the rows and columns they
span. Shared by what ``detect``, ``calibrate`` and the tablet say about cells they cannot read
(glare, ``vision.glare``; the picture's edge, ``outside_advice``)."""

from __future__ import annotations

import numpy as np

MAX_NAMED = 6
"""Most cells named one by one; more are given as the rows and columns they span."""


def cells_where(cells: np.ndarray) -> tuple[int, str]:
    """How many cells ``cells`` (``(10, 10)`` bool) holds and where, in words:
    ``"(0, 8), (0, 9)"`` or ``"rows 0-3, columns 7-9"``; ``(0, "")`` for none."""
    at = [(int(r), int(c)) for r, c in np.argwhere(np.asarray(cells, dtype=bool))]
    if len(at) <= MAX_NAMED:
        return len(at), ", ".join(f"({r}, {c})" for r, c in at)
    rows, cols = zip(*at, strict=True)
    return len(at), f"rows {min(rows)}-{max(rows)}, columns {min(cols)}-{max(cols)}"


def as_sentence(advice: str) -> str:
    """One line of advice (``glare_advice``, ``outside_advice``) as a sentence of its own,
    capitalised with a full stop, for messages in prose: the calibration's and the wizard's;
    "" for no advice."""
    return f"{advice[0].upper()}{advice[1:]}." if advice else ""


def outside_advice(outside: np.ndarray) -> str:
    """One line about the cells that lie outside the picture (``(10, 10)`` bool,
    ``vision.warp.cells_outside``); "" when there are none."""
    count, where = cells_where(outside)
    if not count:
        return ""
    what = "cell lies past its edge ({}); its label is a guess" if count == 1 else \
        "cells lie past its edge ({}); their labels are guesses"
    return f"outside the picture: {count} {what.format(where)}: move the camera so the whole board is in view"
