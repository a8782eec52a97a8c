"""Where the camera clipped, under any white balance: a blown highlight scaled by a cast is still
found clipped, and a picture that did not clip is not taken for one that did."""

import numpy as np
import pytest

from benchmarks.camera_processing import PROCESSING
from vision.classify import CellReader
from vision.clipping import clip_levels
from vision.sim import random_spec, render


def _lit_card(gains=(1.0, 1.0, 1.0)) -> np.ndarray:
    """A 200x300 card: a lamp's smooth falloff from 120 to 240, and a blown spot clipped at 255,
    then scaled per channel (B, G, R) by ``gains`` as a camera white-balances after clipping."""
    ramp = np.linspace(120, 240, 300)[None, :, None] + np.random.default_rng(0).normal(0, 2, (200, 300, 3))
    ramp[60:120, 200:260] = 255  # 3600 pixels, 6 % of the card
    clipped = np.clip(ramp, 0, 255)
    return np.clip(np.rint(clipped * np.array(gains)), 0, 255).astype(np.uint8)


def test_a_picture_that_reaches_the_top_keeps_the_nominal_level():
    assert clip_levels(_lit_card()).tolist() == [250.0, 250.0, 250.0]


def test_a_clipped_spot_scaled_by_a_cold_cast_is_found_at_its_lowered_plateau():
    card = _lit_card((1.0, 0.9, 0.6))
    levels = clip_levels(card)
    assert levels[0] == 250.0
    assert levels[1:] == pytest.approx([250 * 230 / 255, 250 * 153 / 255], abs=1.0)
    clipped = (card >= levels).any(axis=2)
    assert clipped[60:120, 200:260].all()
    assert clipped[:, :150].mean() == 0.0  # the lamp's falloff, however bright, is not clipped


@pytest.mark.parametrize("top", [200, 100])
def test_a_picture_without_a_plateau_or_too_dim_to_clip_keeps_the_nominal_level(top):
    """A smooth ramp thins out towards its brightest pixel; a dim frame's brightest card (100)
    piles up but is no clipped highlight."""
    ramp = np.tile(np.linspace(20, 200, 400)[None, :, None], (100, 1, 3)).astype(np.uint8)
    if top == 100:
        ramp = np.full((100, 400, 3), 100, np.uint8)
        ramp[:, :200] = 60
    assert clip_levels(ramp).tolist() == [250.0, 250.0, 250.0]


def test_an_evenly_lit_card_that_did_not_clip_keeps_the_nominal_level():
    """A card white at 230 under a gentle falloff, with a camera's noise: its top levels are a thin
    tail, not a plateau, though one warm channel reaches 250."""
    rng = np.random.default_rng(1)
    falloff = np.linspace(-6, 6, 400)[None, :, None]
    card = np.clip(np.rint(np.array([222.0, 230.0, 244.0]) + falloff + rng.normal(0, 2, (300, 400, 3))), 0, 255)
    assert (card[..., 2] >= 250).any()
    assert clip_levels(card.astype(np.uint8)).tolist() == [250.0, 250.0, 250.0]


def test_float_pictures_are_read_on_the_same_scale():
    card = _lit_card((1.0, 0.9, 0.6))
    assert clip_levels(card.astype(np.float32)) == pytest.approx(clip_levels(card))


@pytest.mark.parametrize("cast", ["cold", "tungsten"])
def test_white_cards_a_lamp_clipped_stay_doubtful_under_a_cast(cast):
    """Seed 96059 (hard, Jumbo): a lamp clips a column of white chips on white cards, which the
    reader takes for empty cards at a confidence below 0.5 (a white chip and a card look alike
    where clipped). Under a cold cast the clipped channels came out below 250 and the reader was
    sure (0.73 to 0.83) of the same wrong reading."""
    scene = render(random_spec(96059, edition="jumbo", difficulty="hard"))
    frame, _ = PROCESSING[cast](scene.frame, np.asarray(scene.corners, np.float64))
    reading = CellReader(edition="jumbo").read(frame, scene.corners)
    column = [(r, 9) for r in range(1, 6)]
    assert all(scene.labels[r][c] == "flipped" for r, c in column)
    assert all(reading.confidence[r, c] < 0.5 for r, c in column if reading.labels[r][c] != "flipped")
