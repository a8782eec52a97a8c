"""Colour models: defaults, learning from samples, strict round trip through a dict."""

import numpy as np
import pytest

from vision.colour import ColourModel, balanced_lab


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
