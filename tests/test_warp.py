"""Rectifying the grid and mapping back: shapes, aspect, round trip, bad corners."""

import cv2
import numpy as np
import pytest

from vision.warp import (
    cell_centres,
    cells_outside,
    check_corners,
    grid_geometry,
    grid_lines,
    grid_to_image,
    homography,
    warp_grid,
)

CORNERS = np.array([[300, 100], [900, 130], [980, 650], [250, 620]], dtype=np.float32)


def _painted_frame(corners: np.ndarray, geometry) -> tuple[np.ndarray, np.ndarray]:
    """A frame whose grid shows each cell in its own grey level, and that level per cell."""
    levels = (np.arange(100).reshape(10, 10) * 2 + 30).astype(np.uint8)
    w, h = geometry.size
    flat = cv2.resize(levels, (w, h), interpolation=cv2.INTER_NEAREST)
    flat = cv2.cvtColor(flat, cv2.COLOR_GRAY2BGR)
    inverse = np.linalg.inv(homography(corners, geometry))
    frame = cv2.warpPerspective(flat, inverse, (1280, 720), flags=cv2.INTER_NEAREST)
    return frame, levels


@pytest.mark.parametrize("edition", ["classic", "jumbo"])
def test_rectified_cells_hold_their_own_content(edition):
    geom = grid_geometry(edition)
    frame, levels = _painted_frame(CORNERS, geom)
    grid = warp_grid(frame, CORNERS, geom)
    assert grid.shape == (10 * geom.cell_h, 10 * geom.cell_w, 3)
    centres = grid[geom.cell_h // 2 :: geom.cell_h, geom.cell_w // 2 :: geom.cell_w, 0]
    assert np.abs(centres.astype(int) - levels).max() <= 2


def test_jumbo_cells_are_wider_than_tall():
    classic, jumbo = grid_geometry("classic"), grid_geometry("jumbo")
    assert classic.cell_w == classic.cell_h
    assert jumbo.cell_w / jumbo.cell_h == pytest.approx(32 / 27, abs=0.03)


def test_grid_to_image_maps_corners_and_centres():
    unit = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], dtype=np.float32)
    assert np.allclose(grid_to_image(unit, CORNERS), CORNERS, atol=1e-3)
    centres = cell_centres(CORNERS)
    assert centres.shape == (10, 10, 2)
    # the centre of the board is the intersection of the diagonals, not the corner average
    mid = grid_to_image(np.array([5.0, 5.0]), CORNERS)
    p, r = CORNERS[0], CORNERS[2] - CORNERS[0]
    q, s = CORNERS[1], CORNERS[3] - CORNERS[1]
    def cross(u, v):
        return u[0] * v[1] - u[1] * v[0]

    t = cross(q - p, s) / cross(r, s)
    assert np.allclose(mid, p + t * r, atol=1e-3)
    assert grid_lines(CORNERS).shape == (22, 2, 2)


@pytest.mark.parametrize(
    "bad", [np.zeros((3, 2)), [[0, 0], [1, 1], [2, 2], [3, 3]], [[0, 0], [10, 0], [np.nan, 5], [0, 10]]]
)
def test_bad_corners_are_refused(bad):
    with pytest.raises(ValueError, match="corners"):
        check_corners(bad)


def test_unknown_edition_is_refused():
    with pytest.raises(ValueError, match="edition"):
        grid_geometry("travel")


def test_corners_follow_a_camera_resolution_but_not_a_change_of_picture_shape():
    from vision.warp import corners_in_frame

    corners = np.array([[100, 50], [500, 60], [520, 400], [90, 390]], np.float32)
    assert np.array_equal(corners_in_frame(corners, None, (720, 1280, 3)), corners)
    assert np.array_equal(corners_in_frame(corners, (1280, 720), (720, 1280, 3)), corners)
    assert np.allclose(corners_in_frame(corners, (640, 360), (1080, 1920, 3)), corners * 3)
    assert corners_in_frame(corners, (640, 480), (720, 1280, 3)) is None  # 4:3 then 16:9: a crop


def test_cells_whose_centre_lies_past_the_picture_s_edge_are_outside():
    """A square grid of 100 px cells from x = 0 to 1000 in a 900 px wide frame: the last column's
    centres (x = 950) lie past the right edge, the ninth's (850) inside, free corners aside (no
    chip is put there); turned upside down in the corners' order, the same cells, now column 0
    of the grid."""
    square = np.array([[0, 0], [1000, 0], [1000, 1000], [0, 1000]], dtype=np.float32)
    outside = cells_outside(square, (1000, 900, 3))
    assert outside[1:9, 9].all() and not outside[[0, 9], 9].any() and not outside[:, :9].any()
    assert np.array_equal(cells_outside(square[[2, 3, 0, 1]], (1000, 900)), outside[::-1, ::-1])
    assert not cells_outside(square, (1000, 1000)).any()
