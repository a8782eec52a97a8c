"""The board network: its input does not see the lamp, the shipped model outlines the card area
on tables the locator's own outlines miss, and its outline places a grid only where it is clear."""

from dataclasses import replace

import cv2
import numpy as np
import pytest
from plain_outlines import plain_outlines

from vision.board_net import BoardNetConfig, BoardView, board_input, load_board_net
from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography
from vision.locate import LocateConfig, locate_grid
from vision.outlines import mask_quads
from vision.placement import accepted, ink_match
from vision.sim import random_spec, render

GINGHAM = (6104, "classic")
"""A small, dim board on a gingham tablecloth: brightness, print density and colour all fail to
outline it (the nearest of the locator's own outlines lies 11 cells off)."""


def _scene(seed: int, edition: str):
    return render(random_spec(seed, edition=edition, difficulty="hard"))


def _card_area(corners: np.ndarray, view: BoardView) -> np.ndarray:
    """The true card area over the network's thumbnail, bool."""
    mask = np.zeros(view.prob.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners * view.scale).astype(np.int32), 1)
    return mask.astype(bool)


def _cells_off(quad: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance of ``quad`` (any start, either way round) from ``truth``, in cells."""
    cell = np.linalg.norm(truth[2] - truth[0]) / (10 * np.sqrt(2))
    return min(np.abs(np.roll(quad[::d], k, 0) - truth).max() for k in range(4) for d in (1, -1)) / cell


def test_input_is_the_frame_shrunk_padded_and_standardised():
    frame = np.random.default_rng(0).integers(0, 256, (480, 640, 3)).astype(np.uint8)
    blob, s, (w, h) = board_input(frame)
    c = BoardNetConfig()
    assert blob.shape == (1, 3, c.height, c.width) and s == pytest.approx(c.height / 480)
    assert (w, h) == (256, 192)
    assert not blob[0, :, :, w:].any()  # padding
    inside = blob[0, :, :h, :w].reshape(3, -1)
    assert inside.mean(axis=1) == pytest.approx([0, 0, 0], abs=1e-4)
    assert inside.std(axis=1) == pytest.approx([1, 1, 1], abs=1e-3)


def test_input_does_not_see_the_lamp():
    """A dimmer, bluer exposure of the same frame gives (almost) the same input."""
    frame = _scene(*GINGHAM).frame
    dim = np.clip(frame * np.array([0.9, 0.7, 0.5]), 0, 255).astype(np.uint8)
    a, _, _ = board_input(frame)
    b, _, _ = board_input(dim)
    assert np.abs(a - b).mean() < 0.05


@pytest.mark.parametrize("seed,edition", [GINGHAM, (6089, "jumbo"), (6000, "classic"), (6086, "classic")])
def test_the_shipped_network_outlines_the_card_area(seed, edition):
    scene = _scene(seed, edition)
    view = load_board_net().view(scene.frame)
    truth = _card_area(scene.corners, view)
    seen = view.prob > 0.5
    assert (seen & truth).sum() / (seen | truth).sum() > 0.8
    assert min(_cells_off(q, scene.corners) for q in mask_quads(view, LocateConfig())) < 1.5


def test_a_card_area_with_a_corner_cut_off_is_still_outlined():
    """A box and a mug by the right corner of a small board far off cut that corner off the
    card area: its hull has five sides, then three, never four. Climbed from the outline, the
    grid is found."""
    scene = _scene(29804, "classic")
    quads = mask_quads(load_board_net().view(scene.frame), LocateConfig())
    assert quads and min(_cells_off(q, scene.corners) for q in quads) < 2.0
    fit = locate_grid(scene.frame)
    assert fit and _cells_off(fit.corners, scene.corners) < 0.2


def test_the_network_finds_a_board_the_other_outlines_miss():
    scene = _scene(*GINGHAM)
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), use_net=False))
    fit = locate_grid(scene.frame)
    assert fit and _cells_off(fit.corners, scene.corners) < 0.5


@pytest.mark.parametrize("seed,edition", [(6106, "classic"), (6179, "jumbo")])
def test_the_card_area_places_a_grid_whose_print_is_too_faint_to(seed, edition):
    """A grid registered a cell off on a small, washed-out board: the ink alone does not pass
    (on 6179 its best window is nearly two cells off). The card area the network sees places
    it back, and the print then tells its turn."""
    scene = _scene(seed, edition)
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    h = grid_homography(scene.corners.astype(np.float32))
    off = apply_homography(h, GRID_CORNERS_UV + np.array([1.0, -1.0])).astype(np.float32)
    config = LocateConfig()
    assert not accepted(ink_match(scene.frame, off, config, gray=gray), config)
    placed = ink_match(scene.frame, off, config, gray=gray, board=load_board_net().view(scene.frame))
    assert accepted(placed, config) and placed.framed
    assert _cells_off(placed.corners, scene.corners) < 0.05


def test_the_card_area_does_not_place_a_grid_whose_turn_the_print_does_not_tell():
    """The same shift on a board whose print shows no turn: the network's placement alone is
    not enough. (The turn network tells this one's turn; here it is left out.)"""
    scene = _scene(6003, "jumbo")
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    plain = LocateConfig()
    config = replace(plain, ink=replace(plain.ink, turn_net_sure=0.0))
    match = ink_match(scene.frame, scene.corners, config, gray=gray, board=load_board_net().view(scene.frame))
    assert not accepted(match, config) and not match.framed


@pytest.mark.parametrize("seed", [6014, 6124])
def test_the_card_area_places_a_grid_the_deeper_look_registers(seed):
    """Small, faint classic boards whose lattice only a placement ranked below the leaders
    registers (``_deep_search``): the card area places it there too, and the print tells its
    turn. Without the network's placement (nor the turn network) neither is found, where the
    outlines' sides are fitted plainly (the robust fit outlines 6014 well enough)."""
    scene = _scene(seed, "classic")
    plain = plain_outlines()
    assert not locate_grid(scene.frame, config=replace(plain, place_by_net=False,
                                                       ink=replace(plain.ink, turn_net_sure=0.0)))
    fit = locate_grid(scene.frame)
    assert fit and _cells_off(fit.corners, scene.corners) < 0.5


def _blurred_area(quad: np.ndarray, shape: tuple[int, int], *, pile: tuple[float, float, float] | None = None
                  ) -> BoardView:
    """A probability map as the network draws it: the filled ``quad`` (thumbnail pixels),
    softened, with a disc ``pile`` (x, y, radius) of chips taken for card area where given."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 255, shift=4)
    if pile is not None:
        cv2.circle(mask, (round(pile[0]), round(pile[1])), round(pile[2]), 255, -1)
    prob = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.5)
    return BoardView(prob=prob, scale=1.0)


SLANTED = np.array([[70.0, 40.0], [230.0, 30.0], [250.0, 150.0], [60.0, 160.0]])
"""A card area seen at a slant, in thumbnail pixels."""


def test_the_outline_of_the_card_area_follows_its_sides():
    view = _blurred_area(SLANTED, (180, 320))
    quads = mask_quads(view, LocateConfig())
    assert min(np.abs(np.roll(q, k, 0) - SLANTED).max() for q in quads for k in range(4)) < 1.5


@pytest.mark.parametrize("corner", range(4))
def test_a_pile_of_chips_against_a_corner_does_not_pull_the_outline_out(corner):
    """The network takes chips for card area, also a pile spilling onto the margin. The hull
    reaches out to the pile; the sides along the cards still say where the corner is."""
    centre = SLANTED.mean(axis=0)
    out = SLANTED[corner] + 16.0 * (SLANTED[corner] - centre) / np.linalg.norm(SLANTED[corner] - centre)
    view = _blurred_area(SLANTED, (180, 320), pile=(out[0], out[1], 18.0))
    quads = mask_quads(view, LocateConfig())
    assert min(np.abs(np.roll(q, k, 0) - SLANTED).max() for q in quads for k in range(4)) < 2.0


def test_a_portrait_frame_is_looked_at_turned_a_quarter():
    """A phone held upright: shrunk upright into the network's landscape input, a far board
    spans a few dozen pixels and the network misses it (seed 16414, 720x1280: nothing above
    0.5 on the card area); turned, it is seen at the scale of a landscape frame, and the map
    comes back upright over the frame's own pixels."""
    scene = render(random_spec(16414, difficulty="hard", size=(720, 1280)))
    view = load_board_net().view(scene.frame)
    c = BoardNetConfig()
    assert view.prob.shape == (round(1280 * c.width / 1280), round(720 * c.width / 1280))
    assert view.scale == pytest.approx(c.width / 1280)
    truth = _card_area(scene.corners, view)
    seen = view.prob > 0.5
    assert (seen & truth).sum() / (seen | truth).sum() > 0.8
    assert min(_cells_off(q, scene.corners) for q in mask_quads(view, LocateConfig())) < 1.0
    fit = locate_grid(scene.frame)
    assert fit and _cells_off(fit.corners, scene.corners) < 0.5


def test_a_board_with_twelve_pixel_cells_is_outlined():
    """A board far off in a 1280x720 frame (12-pixel cells) covers 1.5 % of the network's
    thumbnail, less than the brightness outlines' smallest region; the network's own smallest
    outline (``net_min_area``) keeps it, and the board is found from it."""
    spec = random_spec(16500, difficulty="normal")
    scene = render(replace(spec, camera=replace(spec.camera, fill=0.25)))
    view = load_board_net().view(scene.frame)
    config = LocateConfig()
    assert not mask_quads(view, replace(config, net_min_area=config.blob_min_area))
    assert min(_cells_off(q, scene.corners) for q in mask_quads(view, config)) < 1.0
    fit = locate_grid(scene.frame)
    assert fit and _cells_off(fit.corners, scene.corners) < 0.5


def test_the_card_area_is_centred_on_its_own_grid_and_on_no_grid_a_cell_off():
    """A card area drawn as a slanted quadrilateral: it lies on that grid, and on none shifted a
    cell or with one side a cell out or in, nor on its own grid where it covers too little."""
    corners = np.float64([[60, 40], [250, 55], [235, 170], [45, 150]])
    view = BoardView(prob=_card_area(corners, BoardView(np.zeros((180, 320), np.float32), 1.0)).astype(np.float32),
                     scale=1.0)
    assert view.agreement(corners) == pytest.approx(1.0, abs=0.02)
    assert view.centred_on(corners, 0.85)
    for off in (np.float64([[1, 0], [11, 0], [11, 10], [1, 10]]),  # shifted a cell along the rows
                np.float64([[0, -1], [10, -1], [10, 10], [0, 10]]),  # the top side a cell out
                np.float64([[0, 0], [10, 0], [10, 9], [0, 9]])):  # the bottom side a cell in
        quad = apply_homography(grid_homography(np.float32(corners)), off)
        assert not view.centred_on(quad, 0.85), off
    # At full-frame scale the thumbnail's pixels are frame pixels times ``scale``.
    half = BoardView(prob=cv2.resize(view.prob, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_NEAREST), scale=0.5)
    assert half.centred_on(corners, 0.85)
    assert not half.centred_on(corners, 0.99)


def test_an_evened_view_extends_only_the_card_area_it_joins():
    """The area the light evened out adds is taken where it touches the area seen first (the
    shaded part of a board), not where it lies apart (a table evened to look like cards)."""
    seen = np.zeros((40, 60), np.float32)
    seen[5:20, 5:30] = 0.9  # the lit part of a board
    evened = seen.copy()
    evened[20:35, 5:30] = 0.8  # its shaded part, joined on
    evened[5:35, 45:58] = 0.9  # the table beside it
    extended = BoardView(seen, 0.5).extended_by(BoardView(evened, 0.5), min_gain=0.1)
    assert extended is not None and extended.scale == 0.5
    assert (extended.prob[20:35, 5:30] == 0.8).all()
    assert (extended.prob[5:35, 45:58] == 0.0).all()
    assert np.array_equal(extended.prob[5:20, 5:30], seen[5:20, 5:30])


def test_an_evened_view_that_adds_little_or_has_nothing_to_join_extends_nothing():
    seen = np.zeros((40, 60), np.float32)
    seen[5:30, 5:30] = 0.9
    barely = seen.copy()
    barely[30:31, 5:30] = 0.9  # one row more: under a tenth
    assert BoardView(seen, 1.0).extended_by(BoardView(barely, 1.0), min_gain=0.1) is None
    nothing = np.zeros_like(seen)
    assert BoardView(nothing, 1.0).extended_by(BoardView(seen, 1.0), min_gain=0.1) is None
