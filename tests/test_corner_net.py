"""The corner networks: the input turns with the outline's corner names; the shipped models
bring an outline a few cells off the grid to within a fraction of a cell, and a grid a
fraction of a cell off closer still."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from gridcells import cells_off
from plain_outlines import plain_outlines

from benchmarks.fit_corner_net import turned_targets
from vision.corner_net import FINE, REACH, corner_input, load_corner_net
from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography, order_as_seen
from vision.locate import locate_grid
from vision.sim import random_spec, render


def outline(scene, scale: float, shift: tuple[float, float]) -> np.ndarray:
    """The true grid scaled about its centre and shifted (cells), as seen."""
    uv = (GRID_CORNERS_UV - 5.0) * scale + 5.0 + np.asarray(shift)
    return order_as_seen(apply_homography(grid_homography(scene.corners), uv).astype(np.float32))


@pytest.fixture(scope="module")
def scenes():
    """Frames the network was not fitted on (it was fitted on seeds 100000 up)."""
    return [render(random_spec(seed, edition=edition, difficulty=difficulty))
            for seed, edition, difficulty in [(6210, "classic", "normal"), (6211, "jumbo", "normal"),
                                              (6012, "classic", "hard")]]


def test_input_turns_with_the_corner_names(scenes):
    """Naming the outline's corners from the next one is the input turned a quarter turn, and
    naming them the other way round is it mirrored: the network sees corners, not names."""
    scene = scenes[0]
    quad = outline(scene, 0.8, (0.5, -0.3))
    base = corner_input(scene.frame, quad)
    assert base.shape == (3, REACH.side, REACH.side) and base.dtype == np.float32
    # (Alike to the warp's rounding: a pixel off, they would differ by about 0.4 on average.)
    for k in range(1, 4):
        assert np.abs(corner_input(scene.frame, np.roll(quad, -k, axis=0)) - np.rot90(base, k, (1, 2))).max() < 0.03
    assert np.abs(corner_input(scene.frame, quad[[1, 0, 3, 2]]) - base[:, :, ::-1]).max() < 0.03
    assert np.abs(corner_input(scene.frame, np.roll(quad, -1, axis=0)) - base).mean() > 0.3


def test_the_fit_relabels_the_corners_as_it_turns_the_input(scenes):
    """The fit turns and mirrors its inputs at random (``turned_targets``): the offsets it then
    fits must be those of the same outline with its corners named as the turned input shows them."""
    scene = scenes[0]
    quad = outline(scene, 0.8, (0.5, -0.3))
    truth = scene.corners.astype(np.float64)

    def offsets(names: np.ndarray) -> np.ndarray:
        to_outline = np.linalg.inv(grid_homography(quad[names]))
        return (apply_homography(to_outline, truth[names]) - GRID_CORNERS_UV).ravel()

    base = offsets(np.arange(4))[None]
    for k in range(4):
        for mirror in (False, True):
            names = np.roll(np.arange(4), -k)
            names = names[[1, 0, 3, 2]] if mirror else names
            assert np.allclose(turned_targets(base, k, mirror)[0], offsets(names), atol=1e-6)


def test_input_does_not_see_the_lamp(scenes):
    scene = scenes[1]
    quad = outline(scene, 1.1, (0.0, 0.0))
    dim = np.clip(scene.frame * np.array([0.9, 0.7, 0.5]), 0, 255).astype(np.uint8)
    assert np.abs(corner_input(scene.frame, quad) - corner_input(dim, quad)).mean() < 0.05


@pytest.mark.parametrize("scale,shift", [(0.75, (0.5, 0.0)), (0.8, (-0.6, 0.8)), (1.15, (0.0, -0.7))])
def test_an_outline_cells_off_is_brought_onto_the_grid(scenes, scale, shift):
    """Outlines two cells off, shrunk into the cards or grown past them, the way the board
    network's are on small and washed-out boards, are brought within the turn network's climb
    (``vision.net_climb``: about a cell)."""
    net = load_corner_net()
    for scene in scenes:
        quad = outline(scene, scale, shift)
        before = cells_off(quad, scene.corners)
        assert before > 1.4
        assert cells_off(net.refine(scene.frame, quad), scene.corners) < min(0.8, before / 2)


@pytest.mark.parametrize("seed,edition,difficulty", [(6211, "jumbo", "normal"), (6212, "classic", "normal"),
                                                     (6015, "jumbo", "hard")])
def test_the_fine_network_brings_a_grid_a_fraction_off_onto_the_cards(seed, edition, difficulty):
    """A grid located up to a third of a cell off, each corner its own way (the card gaps not
    registering it), is brought within a tenth of a cell by the network that looks closer."""
    scene = render(random_spec(seed, edition=edition, difficulty=difficulty))
    h = grid_homography(scene.corners)
    for moves in ([[0.3, -0.2], [0.25, 0.3], [-0.2, 0.3], [-0.3, -0.25]],
                  [[-0.25, 0.0], [0.0, -0.3], [0.3, 0.1], [0.1, 0.3]]):
        located = apply_homography(h, GRID_CORNERS_UV + np.array(moves)).astype(np.float32)
        assert cells_off(load_corner_net(FINE).refine(scene.frame, located), scene.corners) < 0.1


def test_corners_that_enclose_nothing_are_refused(scenes):
    with pytest.raises(ValueError):
        load_corner_net().refine(scenes[0].frame, np.full((4, 2), 50.0, np.float32))


@pytest.mark.parametrize("seed,edition", [(6138, "classic"), (6097, "jumbo")])
def test_the_locator_finds_boards_only_the_corner_network_brings_within_reach(seed, edition):
    """Hard frames whose print is too faint to place a grid and whose board-network outlines lie
    two cells or more off: climbed as drawn, none reaches the grid; from where the corner
    network puts them, one does. (Outlines with their sides fitted plainly: the robust fit
    draws these two well enough to need no corner network; and the rectangles around the card
    area, ``net_boxes``, left out: climbed as drawn, they reach both grids.)"""
    scene = render(random_spec(seed, edition=edition, difficulty="hard"))
    as_drawn = locate_grid(scene.frame, config=replace(plain_outlines(), corner_looks=0, net_boxes=False))
    assert not as_drawn or cells_off(as_drawn.corners, scene.corners) > 0.5
    found = locate_grid(scene.frame)
    assert found and cells_off(found.corners, scene.corners) < 0.5
