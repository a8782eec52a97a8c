"""Shared grid geometry: input checks, corner order, homographies, aspect and edition guesses."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from vision.geometry import (
    GRID_CORNERS_UV,
    GridFit,
    apply_homography,
    check_corners,
    check_corners_in,
    check_frame,
    corner_error,
    grid_homography,
    guess_edition,
    line_homography,
    metric_aspect,
    order_as_seen,
    roll_corners,
)

SQUARE = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], dtype=np.float32)


def _project(aspect: float, tilt_deg: float, roll_deg: float, f: float = 900.0) -> np.ndarray:
    """Image of a width x 1 rectangle under a pinhole camera at 1280x720 (independent of vision)."""
    w, h = aspect, 1.0
    pts = np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], float) - [w / 2, h / 2, 0]
    t, r = np.radians(tilt_deg), np.radians(roll_deg)
    rz = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    cam = (rx @ rz @ pts.T).T + np.array([0.0, 0.0, 2.5])
    k = np.array([[f, 0, 640], [0, f, 360], [0, 0, 1]])
    q = (k @ cam.T).T
    return (q[:, :2] / q[:, 2:]).astype(np.float32)


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((50, 50, 4), np.uint8),
                                 np.zeros((50, 50, 3), np.float32), [[1, 2], [3, 4]]])
def test_check_frame_names_the_parameter(bad):
    with pytest.raises(ValueError, match="frame"):
        check_frame(bad)


def test_check_frame_grayscale_is_optional():
    gray = np.zeros((40, 40), np.uint8)
    assert check_frame(gray) is gray
    with pytest.raises(ValueError, match=r"frame must be \(H, W, 3\) BGR, got shape \(40, 40\)"):
        check_frame(gray, allow_gray=False)


@pytest.mark.parametrize("bad", [None, np.zeros((3, 2)), [[0, 0], [1, 1], [2, 2], [np.nan, 0]],
                                 [[0, 0], [10, 10], [10, 0], [0, 10]], [[0, 0], [1, 0], [1, 1], [0, 1]]])
def test_check_corners_rejects_unusable_quads(bad):
    with pytest.raises(ValueError, match="corners"):
        check_corners(bad)


def test_corners_must_be_a_grid_of_this_picture_but_the_frame_may_cut_the_board():
    """A board cut by the picture's edge is still a board (a corner a little off the picture);
    corners far off it, or around a centre outside it, are meant for another picture."""
    size = (640, 480)
    cut = SQUARE + np.array([-150.0, 0.0], np.float32)  # TL and BL 50 px left of the picture
    assert np.allclose(check_corners_in(cut, size), cut)
    for far in (SQUARE + 1000.0, SQUARE + np.array([500.0, 0.0], np.float32)):
        with pytest.raises(ValueError, match="outside the 640x480 picture"):
            check_corners_in(far, size, "--corners")


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_order_as_seen_starts_up_left_and_runs_clockwise(turn):
    shuffled = np.roll(SQUARE, turn, axis=0)[[2, 0, 3, 1]]
    np.testing.assert_allclose(order_as_seen(shuffled), SQUARE)


def test_order_as_seen_on_a_diamond_is_clockwise_on_screen():
    diamond = np.array([[200, 50], [350, 200], [200, 350], [50, 200]], np.float32)
    out = order_as_seen(diamond[::-1])
    # clockwise on screen (y down) means a positive shoelace sum
    x, y = out[:, 0], out[:, 1]
    assert np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) > 0


def test_grid_homography_maps_grid_corners_and_cell_centres():
    h = grid_homography(SQUARE)
    np.testing.assert_allclose(apply_homography(h, GRID_CORNERS_UV), SQUARE, atol=1e-3)
    np.testing.assert_allclose(apply_homography(h, [[0.5, 0.5]]), [[110, 110]], atol=1e-3)


def test_roll_and_corner_error():
    assert corner_error(SQUARE, SQUARE) == 0.0
    np.testing.assert_array_equal(roll_corners(SQUARE, 1)[0], SQUARE[1])
    moved = SQUARE + np.array([[2.0, 0.0], [0, 0], [0, 0], [0, 0]], np.float32)
    assert corner_error(moved, SQUARE) == pytest.approx(2.0 / np.hypot(200, 200))


@pytest.mark.parametrize("aspect", [1.0, 32 / 27])
@pytest.mark.parametrize(("tilt", "roll"), [(0, 0), (25, 20), (45, 35), (40, 65)])
def test_metric_aspect_recovers_the_rectangle(aspect, tilt, roll):
    corners = order_as_seen(_project(aspect, tilt, roll))
    measured = metric_aspect(corners, (1280, 720))
    folded = max(measured, 1 / measured)
    assert folded == pytest.approx(aspect, rel=0.04)
    assert guess_edition(corners, (1280, 720))[0] == ("classic" if aspect == 1.0 else "jumbo")


def test_gridfit_is_falsy_with_a_reason():
    fail = GridFit.failed("no board: nothing here", score=0.1)
    assert not fail and fail.reason == "no board: nothing here" and fail.details["score"] == 0.1
    assert GridFit(SQUARE, 0.9, "classic")


def test_line_homography_needs_only_the_distance_across_each_line():
    """Samples on the true lines at arbitrary places along them, plus stray ones, give the grid."""
    rng = np.random.default_rng(3)
    truth = grid_homography(_project(1.0, 35.0, 20.0))
    n = 300
    vertical = rng.random(n) < 0.5
    k = rng.integers(1, 10, n).astype(float)
    along = rng.uniform(0, 10, n)  # where along the line: not known to the fit
    grid = np.where(vertical[:, None], np.c_[k, along], np.c_[along, k])
    img = apply_homography(truth, grid)
    stray = rng.random(n) < 0.3  # print taken for a gap: a third of a cell off its line
    img[stray] = apply_homography(truth, grid[stray] + np.where(vertical[stray, None], [0.3, 0], [0, 0.3]))
    h = line_homography(k, vertical, img, threshold=0.05)
    assert h is not None
    fitted = apply_homography(h, GRID_CORNERS_UV)
    assert np.abs(fitted - apply_homography(truth, GRID_CORNERS_UV)).max() < 0.05
    # One family alone cannot fix the grid.
    assert line_homography(k[vertical], vertical[vertical], img[vertical], threshold=0.05) is None


def test_a_point_on_the_horizon_maps_to_infinity_without_a_warning():
    """The locator extends steep candidate grids past their horizon; NumPy's divide warning
    must not reach the terminal of ``detect``."""
    h = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.1, 1.0]])  # horizon at y = -10
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = apply_homography(h, [[3.0, -10.0], [3.0, 0.0]])
    assert not np.isfinite(out[0]).all()
    np.testing.assert_allclose(out[1], [3.0, 0.0])
