"""A rendered Jumbo mat under a lamp's glare spot, and the same table without it."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from vision.sim import random_spec, render

SEED = 3
"""A normal Jumbo scene whose glare spot, put on the board's centre, blinds about ten cells."""


@functools.lru_cache(maxsize=4)
def glare_scene(*, glare: bool = True, empty: bool = False):
    """The scene of ``SEED`` with a strong glare spot on the board's centre (``glare``), chips on
    it or not (``empty``); cached, since several tests read the same frames."""
    spec = random_spec(SEED, edition="jumbo", difficulty="normal")
    if glare:
        centre = render(spec, empty=True).corners.mean(axis=0) / np.array(spec.size)
        lit = dataclasses.replace(spec.lighting, glare=(float(centre[0]), float(centre[1]), 0.08, 0.9))
        spec = dataclasses.replace(spec, lighting=lit)
    return render(spec, empty=empty)
