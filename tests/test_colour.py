"""Colour models: defaults, learning from samples, strict round trip through a dict."""

import numpy as np
import pytest

from vision.colour import CLIP_DRIFT, ColourModel, balanced_lab, display_hue, hue_sectors, lacks_colour


def _patch(bgr, n=200, noise=6.0, seed=0):
    rng = np.random.default_rng(seed)
    return np.clip(np.array(bgr, np.float32) + rng.normal(0, noise, (n, 3)), 0, 255).astype(np.uint8)


def _classify(model, bgr, white=(255, 255, 255)):
    lab = balanced_lab((np.array(bgr, np.float32) / np.array(white, np.float32)).reshape(1, 1, 3))
    return model.labels[int(model.distances(lab.reshape(3)).argmin())]


def test_white_maps_to_lab_white():
    lab = balanced_lab(np.ones((2, 2, 3), np.float32))
    assert np.allclose(lab, [100, 0, 0], atol=0.5)


def test_defaults_name_physical_colours():
    classic = ColourModel.default("classic")
    assert classic.labels == ("blue", "green", "red")
    assert _classify(classic, (170, 70, 20)) == "blue"
    assert _classify(classic, (60, 150, 30)) == "green"
    assert _classify(classic, (40, 40, 190)) == "red"
    jumbo = ColourModel.default("jumbo")
    assert set(jumbo.labels) == {"yellow", "red", "blue", "flipped"}
    assert _classify(jumbo, (30, 200, 230)) == "yellow"
    assert _classify(jumbo, (245, 245, 245)) == "flipped"


def test_defaults_hold_under_a_warm_cast_once_balanced():
    warm_white = np.array([170.0, 215.0, 250.0])  # BGR: a tungsten lamp
    cast_blue = np.array([170, 70, 20]) * warm_white / 255
    assert _classify(ColourModel.default("classic"), cast_blue, white=warm_white) == "blue"


def test_a_taught_marker_replaces_a_colour():
    coins = _patch((120, 150, 165))  # dull brass, nothing like a red chip
    model = ColourModel.learn({"red": [coins]}, base=ColourModel.default("classic"))
    assert _classify(model, (120, 150, 165)) == "red"
    assert _classify(model, (170, 70, 20)) == "blue"


def test_coloured_labels_leave_out_white_chips_and_grey_markers():
    assert ColourModel.default("jumbo").coloured_labels == ("blue", "red", "yellow")
    silver = _patch((168, 170, 172))  # silver coins taught as the red team's markers
    model = ColourModel.learn({"red": [silver]}, base=ColourModel.default("classic"))
    assert model.coloured_labels == ("blue", "green")


def test_learning_uses_the_frame_white():
    white = (200.0, 200.0, 200.0)
    samples = {"flipped": _patch((196, 196, 196)), "blue": _patch((140, 50, 15))}
    model = ColourModel.learn(samples, white=white)
    assert model.prototypes["flipped"].mean[0] > 95


def test_round_trip_and_strictness():
    model = ColourModel.learn({"green": _patch((60, 150, 30))}, base=ColourModel.default("jumbo"))
    again = ColourModel.from_dict(model.to_dict())
    assert again.labels == model.labels
    assert np.allclose(again.prototypes["green"].mean, model.prototypes["green"].mean, atol=1e-2)
    data = model.to_dict()
    for bad in (
        {**data, "extra": 1},
        {**data, "version": 99},
        {**data, "prototypes": {"purple": {"mean": [1, 2, 3], "spread": [1, 1, 1]}}},
        {**data, "prototypes": {"blue": {"mean": [1, 2], "spread": [1, 1, 1]}}},
        {**data, "prototypes": {"blue": {"mean": [1, 2, 3], "spread": [1, 0, 1]}}},
        {**data, "prototypes": {"blue": {"mean": [1, 2, 3], "spread": [1, 1, 1], "x": 0}}},
        {**data, "prototypes": {}},
        "not a dict",
    ):
        with pytest.raises(ValueError):
            ColourModel.from_dict(bad)


def test_learning_refuses_unknown_labels_and_empty_samples():
    with pytest.raises(ValueError, match="purple"):
        ColourModel.learn({"purple": [_patch((1, 2, 3))]})
    with pytest.raises(ValueError, match="no pixels"):
        ColourModel.learn({"blue": [np.zeros((0, 3), np.uint8)]})


def _hue_label(model, bgr):
    lab = balanced_lab((np.array(bgr, np.float32) / 255.0).reshape(1, 1, 3)).reshape(3)
    return model.labels[int(model.hue_labels(lab))]


def test_a_washed_out_chip_keeps_its_hue():
    classic = ColourModel.default("classic")
    blue, green, red = (170, 70, 20), (60, 150, 30), (40, 40, 190)
    for bgr in (blue, green, red):
        for glare in (0.0, 0.5, 0.8):  # white light added: lighter and paler, same channel order
            washed = np.array(bgr) * (1 - glare) + 255 * glare
            assert _hue_label(classic, washed) == _classify(classic, bgr)
    # Glare clipped the blue channel and nearly the green: a pale cyan the Lab distance calls
    # green, the hue sector blue.
    cyan = (253, 250, 200)
    assert _classify(classic, cyan) == "green"
    assert _hue_label(classic, cyan) == "blue"


def test_display_hue_is_the_hsv_hue_of_the_balanced_colour():
    for bgr, hue in (((0, 0, 255), 0.0), ((0, 255, 255), 60.0), ((255, 255, 0), 180.0), ((255, 0, 0), 240.0)):
        lab = balanced_lab((np.array(bgr, np.float32) / 255.0).reshape(1, 1, 3)).reshape(3)
        assert abs((float(display_hue(lab)) - hue + 180) % 360 - 180) < 1.0


def test_hue_sectors_claim_a_prototypes_sextant_and_drift_past_a_shared_tie():
    # blue (B top) and green (G top) wash out towards cyan (180); the brighter blue drifts past it
    table = hue_sectors(((0, 225.0, 0.63), (1, 143.0, 0.49), (2, 2.0, 0.8)))
    assert table[int(180 - CLIP_DRIFT)] == 0 and table[int(180 - CLIP_DRIFT) - 1] == 1
    assert table[120] == 1 and table[239] == 0 and table[0] == 2 and table[59] == 2
    # no chip washes out to these hues: the prototype nearest in hue takes them
    assert (table[60:72] == 2).all() and (table[72:120] == 1).all()
    assert (table[240:294] == 0).all() and (table[294:360] == 2).all()
    # red and yellow share a sextant: each takes the hues nearer its own
    table = hue_sectors(((0, 2.0, 0.8), (1, 45.0, 0.95), (2, 225.0, 0.63)))
    assert (table[0:23] == 0).all() and (table[24:60] == 1).all() and (table[180:240] == 2).all()
    assert (hue_sectors(()) == -1).all()


def _chip_colour(model, bgr):
    lab = balanced_lab((np.array(bgr, np.float32) / 255.0).reshape(1, 1, 3)).reshape(3)
    nearest = model.distances(lab).argmin()
    return model.labels[int(model.chip_colours(nearest, lab))]


def test_a_chip_is_named_by_its_hue_where_its_lightness_and_chroma_are_another_makers():
    pink = (212, 152, 254)  # another set's red chip, brightly lit: pale and pink (display hue 324)
    orange_red = (20, 70, 200)  # a red chip a warm camera pushed towards orange (hue 15)
    for edition in ("classic", "jumbo"):
        model = ColourModel.default(edition)
        assert _classify(model, pink) == "blue"  # the premise: in Lab it lies nearer blue
        assert _chip_colour(model, pink) == "red"
        assert _chip_colour(model, orange_red) == "red"
    jumbo = ColourModel.default("jumbo")
    assert _chip_colour(jumbo, (30, 150, 230)) == "yellow"  # an orange-yellow chip (hue 35)
    assert _chip_colour(jumbo, (245, 245, 245)) == "flipped"  # a white chip keeps its label


def test_a_grey_marker_taught_as_a_team_keeps_its_name_whatever_its_faint_hue():
    silver = (168, 170, 172)  # silver coins taught as the red team's markers
    model = ColourModel.learn({"red": [_patch(silver)]}, base=ColourModel.default("classic"))
    for tinted in ((176, 170, 166), (166, 172, 168), (168, 170, 176)):  # a cool, a green, a warm cast
        assert _chip_colour(model, tinted) == "red"
    assert _chip_colour(model, (170, 70, 20)) == "blue"


def _grey_copies(frame: np.ndarray) -> dict[str, np.ndarray]:
    """A colour frame as a greyscale photo, a noisy night-mode webcam and a JPEG of the photo."""
    import cv2

    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    noise = np.random.default_rng(1).normal(0.0, 4.0, grey.shape)
    noisy = np.clip(grey + noise, 0, 255).astype(np.uint8)
    jpeg = cv2.imdecode(cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 40])[1], cv2.IMREAD_COLOR)
    return {"grey": grey, "noisy": noisy, "jpeg": jpeg}


@pytest.mark.parametrize("difficulty", ["easy", "hard"])
def test_a_grey_picture_is_told_from_a_dull_colour_one(difficulty):
    """Chips cannot be read from a greyscale photo or a night-mode webcam; a dim, washed-out
    colour frame still carries their colours."""
    import cv2

    from vision.sim import random_spec, render

    frame = render(random_spec(3, edition="classic", difficulty=difficulty)).frame
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    hsv[..., 1] //= 3
    dull = (cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR) * 0.4).astype(np.uint8)
    assert not lacks_colour(frame) and not lacks_colour(dull)
    for name, grey in _grey_copies(frame).items():
        assert lacks_colour(grey), name


@pytest.mark.parametrize("level", [0, 90, 255])
def test_a_view_with_nothing_in_it_is_not_called_grey(level):
    """A covered lens or a bare wall shows no board, which is what a user should be told."""
    assert not lacks_colour(np.full((360, 640, 3), level, np.uint8))
