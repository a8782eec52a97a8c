"""Camera processing for the benchmarks and fit scripts keeps the truth: a frame turned, halved or
mirrored has its true corners moved with it, the colour ones leave the geometry alone, and a fit
scene's saturation is drawn as documented."""

import cv2
import numpy as np
import pytest

from benchmarks.camera_processing import FIT_SATURATION, FIT_SHADOW_TINT, PROCESSING, fit_processing, fit_shadow

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
    ("sharpened", (240, 320)), ("tungsten", (240, 320)), ("mixed_light", (240, 320)),
    ("colour_fringes", (240, 320)), ("shallow_focus", (240, 320)), ("shadow_band", (240, 320)),
])
def test_a_processed_frame_shows_each_corner_where_its_corners_say(name, shape):
    frame, corners = _marked_frame()
    out, moved = PROCESSING[name](frame, corners)
    assert out.shape[:2] == shape
    for k, (x, y) in enumerate(np.rint(moved).astype(int)):
        pixel = out[y, x].astype(int)
        assert np.abs(pixel - 128).max() > 60, (name, k)  # on a mark, not the grey around it
        assert np.linalg.norm(COLOURS - pixel, axis=1).argmin() == k, (name, k)  # on this corner's mark


def test_mixed_light_is_warm_on_the_left_and_cool_on_the_right():
    out, _ = PROCESSING["mixed_light"](np.full((60, 200, 3), 200, np.uint8), np.zeros((4, 2)))
    b, _g, r = out[30, 5].astype(int)
    assert r - b > 60
    b, _g, r = out[30, 195].astype(int)
    assert b - r > 40


def test_a_shadow_band_shades_the_boards_middle_and_not_its_far_corners():
    frame = np.full((300, 400, 3), 200, np.uint8)
    corners = np.array([[100.0, 50.0], [300.0, 50.0], [300.0, 250.0], [100.0, 250.0]])
    out, _ = PROCESSING["shadow_band"](frame, corners)
    assert (out[150, 200] <= 75).all()  # the middle at 35 % of the light
    assert (out[55, 295] == 200).all() and (out[245, 105] == 200).all()  # the corners across it
    assert out[150, 200].tolist() == out[150 + 30, 200 + 52].tolist() == out[150 - 30, 200 - 52].tolist()  # along


def test_a_daylight_shadow_is_blue_where_a_lamps_shadow_is_grey():
    frame = np.full((300, 400, 3), 200, np.uint8)
    corners = np.array([[100.0, 50.0], [300.0, 50.0], [300.0, 250.0], [100.0, 250.0]])
    grey, _ = PROCESSING["shadow_band"](frame, corners)
    blue, _ = PROCESSING["daylight_shadow"](frame, corners)
    b, g, r = blue[150, 200].astype(int)
    assert b > g + 20 > r + 40 and grey[150, 200].tolist() == [grey[150, 200, 0]] * 3
    assert (blue[55, 295] == 200).all()  # not past the band


def _centroid(channel: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(channel > 100)
    weights = channel[ys, xs].astype(float)
    return np.array([np.average(xs, weights=weights), np.average(ys, weights=weights)])


def test_colour_fringes_move_red_out_and_blue_in_towards_a_corner_and_leave_green():
    frame = np.zeros((240, 320, 3), np.uint8)
    frame[15:21, 15:21] = 255  # a white dot near the top-left corner
    out, _ = PROCESSING["colour_fringes"](frame, np.zeros((4, 2)))
    assert np.array_equal(out[..., 1], frame[..., 1])
    centre, green = np.array([159.5, 119.5]), _centroid(out[..., 1])
    red, blue = _centroid(out[..., 2]), _centroid(out[..., 0])
    assert np.linalg.norm(red - centre) - np.linalg.norm(green - centre) > 0.8
    assert np.linalg.norm(green - centre) - np.linalg.norm(blue - centre) > 0.8


def test_shallow_focus_keeps_the_near_rows_sharp_and_blurs_the_far_ones():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 256, (300, 200, 3), dtype=np.uint8)
    out, _ = PROCESSING["shallow_focus"](frame, np.zeros((4, 2)))
    assert np.array_equal(out[220:], frame[220:])  # below 70 % of the height: in focus
    assert out[:20].std() < 0.4 * frame[:20].std()  # the far end: blurred flat
    assert out[100:120].std() > out[:20].std()  # ever more blurred towards the top


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


def test_a_fit_scene_is_shaded_for_about_the_share_asked_and_only_ever_darkened():
    frame = np.full((120, 160, 3), 200, np.uint8)
    corners = np.array([[20.0, 10.0], [140.0, 10.0], [140.0, 110.0], [20.0, 110.0]])
    shaded = 0
    for seed in range(200):
        out, moved = fit_shadow(seed, 0.3)(frame, corners)
        assert moved is corners and (out <= frame).all()
        dark = float((out < 150).mean())
        shaded += dark > 0
        assert dark < 0.6  # a band, never the whole board
    assert 40 < shaded < 80
    assert all(np.array_equal(fit_shadow(seed, 0.0)(frame, corners)[0], frame) for seed in range(20))


def test_some_fit_shadows_are_lit_bluer_or_warmer_than_the_board_and_most_not_far():
    frame = np.full((120, 160, 3), 200, np.uint8)
    corners = np.array([[20.0, 10.0], [140.0, 10.0], [140.0, 110.0], [20.0, 110.0]])
    ratios = []
    for seed in range(300):
        out = fit_shadow(seed, 0.3)(frame, corners)[0].astype(np.float64)
        dark = out.sum(axis=2) < 450
        if dark.any():
            ratios.append(float(np.median(out[dark][:, 0] / np.maximum(out[dark][:, 2], 1.0))))
    ratios = np.array(ratios)
    assert (ratios > 1.2).sum() >= 5 and (ratios < 1 / 1.2).sum() >= 5  # window-lit and lamp-lit shadows
    assert (np.abs(np.log(ratios)) < 0.05).mean() > 0.4  # and grey ones
    assert np.abs(np.log(ratios)).max() < 2 * FIT_SHADOW_TINT + 0.1
