"""Where the camera clipped: the raw level from which each channel of a picture is blown out.

A sensor clips before the camera white-balances, so under a cast a blown highlight does not
come out at 255: a cold camera that scales red by 0.6 shows it at about 153. What survives is a
plateau: many pixels piled up at the channel's top level, where a picture that did not clip
thins out towards its brightest pixel. ``clip_levels`` finds that plateau per channel, so the
reader's "clipped" cue means the same under any cast; on a channel that reaches the nominal
level (250 of 255) it is that level, as before.
"""

from __future__ import annotations

import cv2
import numpy as np

MIN_TOP = 128
"""A plateau lower than this is a dim picture's brightest card, not a clipped highlight: a
camera's white-balance gains do not take a clipped channel below half."""
BAND = 3
"""Levels below the top that count as on the plateau (JPEG smears it by a level or two)."""
MIN_SHARE = 0.02
"""Share of the pixels the plateau must hold. A card white that did not clip spreads over many
levels (the light falls off across the board, the print and the camera add noise), so its top
few levels hold a thin tail, far under this; a glare spot the camera clipped holds more."""


def clip_levels(image: np.ndarray, level: int = 250) -> np.ndarray:
    """``(3,)`` float32: per channel of a BGR ``image`` (uint8, or float on the 0..255 scale), the
    raw value from which a pixel counts as clipped. ``level`` where the channel reaches it or
    shows no plateau below it; where it piles up at a lower top (clipped, then scaled by a
    white-balance gain), ``level`` scaled by the same gain (``level * top / 255``), so a gain
    leaves the clipped pixels the same."""
    if image.dtype != np.uint8:
        image = np.clip(np.rint(image), 0, 255).astype(np.uint8)
    levels = np.full(3, float(level), np.float32)
    for c, plane in enumerate(cv2.split(image)):
        top = int(cv2.minMaxLoc(plane)[1])  # a tenth of NumPy's max over a trailing axis of three
        if top >= level or top < MIN_TOP:
            continue
        counts = np.bincount(plane.ravel(), minlength=256)
        on = counts[top - BAND + 1 : top + 1].sum()
        below = counts[top - 2 * BAND + 1 : top - BAND + 1].sum()
        if on >= MIN_SHARE * plane.size and on > below:
            levels[c] = level * top / 255.0
    return levels
