"""The turn network: its input is the grid under each quarter turn, as the orientation counts
them, without the lamp; the shipped model turns grids whose print the other cues cannot, and
is not sure of any turn of a grid a cell off the board."""

from dataclasses import replace

import numpy as np
import pytest

from vision.detect import detect
from vision.geometry import apply_homography, corner_error, grid_homography
from vision.locate import LocateConfig, locate_grid
from vision.orient import OrientConfig, ink_lattice, net_turn, orient_grid, turn_z
from vision.sim import random_spec, render
from vision.turn_net import NOT_PLACED, SIDE, load_turn_net, turn_input

OPEN_TURN = [(90024, "classic"), (90037, "jumbo")]
"""Hard frames (held out of the network's fit) whose ink, twin cards and art leave the turn
open even at the true corners."""
SQUARE = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)


def _scene(seed: int, edition: str):
    return render(random_spec(seed, edition=edition, difficulty="hard"))


def test_input_turns_the_grid_as_the_orientation_counts_turns():
    grid = np.random.default_rng(0).integers(0, 256, (240, 240, 3)).astype(np.uint8)
    upright, turned = turn_input(grid), turn_input(np.ascontiguousarray(np.rot90(grid)))
    assert upright.shape == (4, 3, SIDE, SIDE)
    assert upright[0].reshape(3, -1).mean(axis=1) == pytest.approx([0, 0, 0], abs=1e-4)
    for k in range(3):
        assert np.allclose(turned[k], upright[k + 1], atol=1e-5)


def test_input_does_not_see_the_lamp():
    scene = _scene(*OPEN_TURN[0])
    grid = ink_lattice(scene.frame, scene.corners, 24)
    dim = np.clip(grid * np.array([0.9, 0.7, 0.5]), 0, 255).astype(np.uint8)
    assert np.abs(turn_input(grid) - turn_input(dim)).mean() < 0.05


@pytest.mark.parametrize("seed,edition", OPEN_TURN)
def test_the_network_turns_a_grid_the_print_cues_cannot(seed, edition):
    scene = _scene(seed, edition)
    config = OrientConfig()
    z = np.sort(turn_z(scene.frame, scene.corners, config))
    assert not (z[-1] >= config.decisive_z and z[-1] - z[-2] >= config.decisive_margin)  # the premise
    for k in range(4):
        seen = np.roll(scene.corners, k, axis=0)
        found = orient_grid(scene.frame, seen, edition=edition)
        assert np.allclose(found.corners, scene.corners) and found.confidence >= config.turn_net_sure


@pytest.mark.parametrize("seed,edition", OPEN_TURN)
def test_the_network_is_sure_of_no_turn_a_cell_off(seed, edition):
    scene = _scene(seed, edition)
    h = grid_homography(scene.corners)
    for shift in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        grid = ink_lattice(scene.frame, apply_homography(h, SQUARE + shift).astype(np.float32), 24)
        assert net_turn(grid, OrientConfig()) is None
        assert load_turn_net().probabilities(grid)[NOT_PLACED] > 0.5


@pytest.mark.parametrize("seed,edition", [(6004, "classic"), (6003, "jumbo")])
def test_the_locator_finds_a_board_only_the_network_turns(seed, edition):
    """Hard frames the locator places but cannot turn by the print's own cues: without the
    network the board is not found; with it, found where it lies and turned right."""
    scene = _scene(seed, edition)
    plain = LocateConfig()
    assert not locate_grid(scene.frame, config=replace(plain, ink=replace(plain.ink, turn_net_sure=0.0)))
    found = detect(scene.frame)
    assert found and corner_error(found.corners, scene.corners) < 0.5 / (10 * np.sqrt(2))


@pytest.mark.parametrize("seed", [8328, 8524])
def test_the_networks_sure_turn_wins_over_a_wrong_decisive_print(seed):
    """Hard frames, each grid a fraction of a cell off, whose print shows a wrong turn decisively."""
    scene = _scene(seed, "classic")
    rng = np.random.default_rng(seed)
    near = apply_homography(grid_homography(scene.corners), SQUARE + rng.uniform(-0.3, 0.3, (4, 2)))
    turns = int(rng.integers(4))
    seen = np.roll(near.astype(np.float32), turns, axis=0)
    config = OrientConfig()
    z = turn_z(scene.frame, seen, config)
    assert int(np.argmax(z)) != turns and np.sort(z)[-1] - np.sort(z)[-2] >= config.decisive_margin  # the premise
    found = orient_grid(scene.frame, seen, edition="classic")
    assert found.rotation == turns and np.allclose(found.corners, near, atol=1e-3)


def test_detect_asks_the_network_about_the_located_grid_once(monkeypatch):
    """The locator's last verdict and the orientation look at the same corners: the network's
    answer is passed on, not computed twice, and the orientation is the same as asked afresh."""
    scene = render(random_spec(3, edition="jumbo", difficulty="normal", size=(1280, 720)))
    fit = locate_grid(scene.frame)
    assert fit and fit.details["turn_probabilities"] is not None
    fresh = orient_grid(scene.frame, fit.corners, edition="jumbo")
    net = load_turn_net()
    asked: list[bytes] = []
    real = type(net).probabilities_of

    def counting(self, turns):
        asked.append(turns.tobytes())
        return real(self, turns)

    monkeypatch.setattr(type(net), "probabilities_of", counting)
    det = detect(scene.frame)
    final = ink_lattice(scene.frame, fit.corners, OrientConfig().turn_net_px)
    assert asked.count(turn_input(final).astype(np.float32).tobytes()) == 1
    assert len(asked) == len(set(asked))
    np.testing.assert_array_equal(det.corners, fresh.corners)
    assert det.orientation_confidence == pytest.approx(fresh.confidence)
