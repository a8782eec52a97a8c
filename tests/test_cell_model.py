"""The shipped chip-or-not network: it loads, it matches the reader's cues, and bad files are refused."""

import json

import numpy as np
import pytest

from vision.cell_model import ChipNet, load_chip_nets
from vision.classify import CellReader
from vision.flipped import LINE_CUES
from vision.sim import random_spec, render


def test_shipped_nets_use_only_cues_the_reader_computes():
    scene = render(random_spec(11, edition="jumbo"))
    empty = render(random_spec(11, edition="jumbo"), empty=True).frame
    reader = CellReader(edition="jumbo")
    plain = reader.decision_inputs(reader.features(reader.rectify(scene.frame, scene.corners)))
    reader.set_reference(reader.rectify(empty, scene.corners))
    with_ref = reader.decision_inputs(reader.features(reader.rectify(scene.frame, scene.corners)))
    nets = load_chip_nets()
    assert set(nets["plain"].inputs) <= set(plain)
    assert set(nets["jumbo_white"].inputs) <= set(plain)
    assert set(nets["reference"].inputs) <= set(with_ref)
    assert nets["plain"].logit(plain).shape == (100,)
    assert nets["white_line"].inputs == LINE_CUES  # the line reading's window cues, in order


def test_only_the_jumbo_mat_without_a_reference_has_a_white_chip_network():
    nets = load_chip_nets()
    reader = CellReader(edition="jumbo")
    assert reader.chip_net is nets["plain"]
    assert reader.white_chip_net is nets["jumbo_white"]
    assert CellReader(edition="classic").white_chip_net is None
    scene = render(random_spec(11, edition="jumbo"))
    reader.set_reference(reader.rectify(render(random_spec(11, edition="jumbo"), empty=True).frame, scene.corners))
    assert reader.chip_net is nets["reference"]
    assert reader.white_chip_net is None


def test_round_trip_keeps_the_decision(tmp_path):
    net = load_chip_nets()["plain"]
    again = ChipNet.from_dict(json.loads(json.dumps(net.to_dict())))
    rng = np.random.default_rng(0)
    values = {name: rng.normal(float(m), float(s), 50)
              for name, m, s in zip(net.inputs, net.mean, net.scale, strict=True)}
    np.testing.assert_allclose(again.logit(values), net.logit(values), atol=1e-3)


def test_mismatched_shapes_are_refused():
    d = load_chip_nets()["plain"].to_dict()
    d["w2"] = d["w2"][:-1]
    with pytest.raises(ValueError, match="shapes"):
        ChipNet.from_dict(d)


def test_unknown_format_is_refused(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": 99, "nets": {}}))
    with pytest.raises(ValueError, match="format"):
        load_chip_nets(path)
