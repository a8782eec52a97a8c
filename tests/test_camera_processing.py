"""Camera processing for the benchmarks and fit scripts keeps the truth: a frame turned, halved or
mirrored has its true corners moved with it, the colour ones leave the geometry alone, and a fit
scene's saturation is drawn as documented."""

import cv2
import numpy as np
import pytest

from benchmarks.camera_processing import FIT_SATURATION, PROCESSING, fit_processing

COLOURS = np.array([(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)])


def _marked_frame() -> tuple[np.ndarray, np.ndarray]:
    """A 240x320 grey frame with a differently coloured 8x8 square at each of four "corners",
    and the squares' centres."""
    frame = np.full((240, 320, 3), 128, np.uint8)
    centres = np.array([[40.5, 30.5], [270.5, 50.5], [250.5, 200.5], [60.5, 180.5]])
    for (x, y), colour in zip(centres, COLOURS, strict=True):
        frame[int(y) - 3 : int(y) + 5, int(x) - 3 : int(x) + 5] = colour
    return frame, centres


@pytest.mark.parametrize(("name", "shape"), [
    ("plain", (240, 320)), ("portrait", (320, 240)), ("half_size", (120, 160)), ("mirrored", (240, 320)),
    ("sharpened", (240, 320)), ("tungsten", (240, 320)),
])
def test_a_processed_frame_shows_each_corner_where_its_corners_say(name, shape):
    frame, corners = _marked_frame()
    out, moved = PROCESSING[name](frame, corners)
    assert out.shape[:2] == shape
    for k, (x, y) in enumerate(np.rint(moved).astype(int)):
        pixel = out[y, x].astype(int)
        assert np.abs(pixel - 128).max() > 60, (name, k)  # on a mark, not the grey around it
        assert np.linalg.norm(COLOURS - pixel, axis=1).argmin() == k, (name, k)  # on this corner's mark



def _saturation(frame: np.ndarray) -> float:
    """Median HSV saturation of a frame's pixels."""
    return float(np.median(cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)[..., 1]))


def test_a_fit_scene_is_processed_for_about_the_share_asked_and_never_outside_the_range():
    names = [fit_processing(seed, 0.5)[0] for seed in range(400)]
    factors = [float(n.removeprefix("saturation_x")) for n in names if n != "plain"]
    assert 150 < len(factors) < 250
    assert FIT_SATURATION[0] <= min(factors) < 0.6 and 1.5 < max(factors) <= FIT_SATURATION[1]
    assert all(fit_processing(seed, 0.0)[0] == "plain" for seed in range(50))
    assert all(fit_processing(seed, 1.0)[0] != "plain" for seed in range(50))


def test_a_fit_scene_keeps_its_processing_whatever_else_is_fitted():
    """The same seed and share give the same processing: a cached table and a refit agree."""
    assert [fit_processing(s, 0.5)[0] for s in range(30)] == [fit_processing(s, 0.5)[0] for s in range(30)]


def test_a_fit_processing_scales_the_saturation_by_its_factor_and_leaves_grey_alone():
    frame = np.zeros((20, 40, 3), np.uint8)
    frame[:, :20] = (40, 90, 160)  # a muted orange
    frame[:, 20:] = 200  # grey card
    seed = next(s for s in range(100) if fit_processing(s, 1.0)[0] != "plain"
                and float(fit_processing(s, 1.0)[0].removeprefix("saturation_x")) < 0.8)
    name, process = fit_processing(seed, 1.0)
    factor = float(name.removeprefix("saturation_x"))
    out, corners = process(frame, np.zeros((4, 2)))
    assert _saturation(out[:, :20]) == pytest.approx(factor * _saturation(frame[:, :20]), abs=3)
    assert np.array_equal(out[:, 20:], frame[:, 20:])
    assert np.array_equal(corners, np.zeros((4, 2)))
