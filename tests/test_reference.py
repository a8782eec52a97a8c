"""Relocation from an empty-board reference: chips, a bump, heavy occlusion, no board, bad inputs."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.geometry import corner_error
from vision.reference import Reference, relocate
from vision.sim import random_spec, render


@pytest.fixture(scope="module")
def setup():
    spec = random_spec(5, edition="classic", difficulty="normal")
    empty = render(spec, empty=True)
    ref = Reference.build(empty.frame, empty.corners, edition=empty.edition)
    return spec, ref


def test_chips_on_the_board(setup):
    spec, ref = setup
    scene = render(spec)
    fit = relocate(scene.frame, ref)
    assert fit, fit.reason
    assert corner_error(fit.corners, scene.corners) < 0.005
    assert fit.edition == "classic" and 0 < fit.score <= 1


def test_a_bumped_board_is_followed(setup):
    spec, ref = setup
    scene = render(dataclasses.replace(spec, board_shift=(0.4, -0.3), board_rot=3.0))
    fit = relocate(scene.frame, ref)
    assert fit, fit.reason
    assert corner_error(fit.corners, scene.corners) < 0.005


def test_heavy_occlusion(setup):
    spec, ref = setup
    scene = render(spec)
    frame = scene.frame.copy()
    # An arm over 40% of the board: a skin-toned band along one edge.
    c = scene.corners
    arm = np.array([c[0], c[0] + (c[1] - c[0]) * 0.4, c[3] + (c[2] - c[3]) * 0.4, c[3]], np.int32)
    cv2.fillConvexPoly(frame, arm, (120, 150, 200))
    fit = relocate(frame, ref)
    assert fit, fit.reason
    assert corner_error(fit.corners, scene.corners) < 0.02


def test_another_size_of_the_same_view(setup):
    spec, ref = setup
    scene = render(spec)
    half = cv2.resize(scene.frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    fit = relocate(half, ref)
    assert fit, fit.reason
    assert corner_error(fit.corners * 2, scene.corners) < 0.01


def test_no_board_is_falsy_with_a_reason(setup):
    _, ref = setup
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 2)
    fit = relocate(noise, ref)
    assert not fit
    assert fit.reason.startswith("board not found")


def test_bad_inputs_name_the_parameter(setup):
    spec, ref = setup
    with pytest.raises(ValueError, match="frame"):
        relocate(np.zeros((0, 0, 3), np.uint8), ref)
    with pytest.raises(ValueError, match="ref"):
        relocate(np.zeros((100, 100, 3), np.uint8), "reference.png")
    with pytest.raises(ValueError, match="empty_frame"):
        Reference.build(None, ref.corners, edition="classic")
    with pytest.raises(ValueError, match="empty_frame: only"):
        Reference.build(np.full((300, 300, 3), 128, np.uint8), ref.corners / 4, edition="classic")
    with pytest.raises(ValueError, match="edition"):
        Reference.build(render(spec, empty=True).frame, ref.corners, edition="travel")
