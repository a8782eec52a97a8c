"""Finding the grid with no help: accuracy on rendered frames, any rotation, no board, bad inputs."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import cv2
import numpy as np
import pytest
from plain_outlines import plain_outlines

from benchmarks.camera_processing import PROCESSING
from vision.geometry import corner_error, order_as_seen
from vision.locate import LocateConfig, locate_grid
from vision.orient import orient_grid
from vision.outlines import blob_quads, texture_quads, whiteness
from vision.sim import random_spec, render


def ink_only() -> LocateConfig:
    """The default search reading the red/black ink alone: no court cards' art, no twin cards,
    no board network."""
    config = LocateConfig()
    return replace(config, use_net=False, ink=replace(config.ink, court_art=False, twin_cards=False),
                   ink_coarse=replace(config.ink_coarse, court_art=False, twin_cards=False))


def without_twins() -> LocateConfig:
    """The default search without the twin cards' pattern (``vision.twins``) or the board network."""
    config = LocateConfig()
    return replace(config, use_net=False, ink=replace(config.ink, twin_cards=False))


def assert_found_and_turned(scene, tolerance: float, config: LocateConfig | None = None):
    """Locate the board in ``scene`` with no help, check the grid lies within ``tolerance`` (of
    the diagonal) of the truth as seen and that the print turns it right; the fit."""
    fit = locate_grid(scene.frame) if config is None else locate_grid(scene.frame, config=config)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < tolerance
    o = orient_grid(scene.frame, fit.corners, edition=scene.edition)
    assert corner_error(o.corners, scene.corners) < tolerance
    return fit


@pytest.fixture(scope="module")
def scenes():
    return {
        (seed, ed): render(random_spec(seed, edition=ed, difficulty="easy"))
        for seed, ed in ((1, "classic"), (2, "classic"), (1, "jumbo"), (4, "classic"))
    }


@pytest.mark.parametrize("key", [(1, "classic"), (2, "classic"), (1, "jumbo"), (4, "classic")])
def test_found_sub_cell_accurate_and_orientable(scenes, key):
    scene = scenes[key]
    fit = locate_grid(scene.frame)
    assert fit, fit.reason
    # A seventh of a cell at most (the benchmark tracks the 0.5 % goal over many frames).
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01
    assert 0.0 < fit.score <= 1.0
    # Corners come back as seen (clockwise from the upper-left one) ...
    np.testing.assert_allclose(fit.corners, order_as_seen(fit.corners))
    # ... and orientation then recovers the canonical order.
    o = orient_grid(scene.frame, fit.corners, edition=scene.edition)
    assert corner_error(o.corners, scene.corners) < 0.01


def test_a_camera_turned_a_quarter_turn(scenes):
    scene = scenes[(2, "classic")]
    turned = cv2.rotate(scene.frame, cv2.ROTATE_90_CLOCKWISE)
    h = scene.frame.shape[0]
    # (x, y) -> (h - 1 - y, x) for a clockwise quarter turn of the image.
    truth = np.stack([h - 1 - scene.corners[:, 1], scene.corners[:, 0]], axis=1)
    fit = locate_grid(turned)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(truth)) < 0.01


def test_grayscale_frames_are_accepted(scenes):
    scene = scenes[(1, "classic")]
    fit = locate_grid(cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY))
    assert fit or fit.reason.startswith("no board")


@pytest.mark.parametrize("kind", ["noise", "stripes"])
def test_no_board_is_falsy_with_a_reason(kind):
    rng = np.random.default_rng(3)
    if kind == "noise":
        frame = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 3)
    else:  # a striped table cloth: many parallel lines but no card lattice
        frame = np.full((720, 1280, 3), 90, np.uint8)
        frame[:, (np.arange(1280) // 40) % 2 == 0] = (200, 210, 220)
    fit = locate_grid(frame)
    assert not fit
    assert fit.reason.startswith("no board")
    assert "edge of the picture" not in fit.reason  # no board to run past an edge
    # The print's score is cut, not rounded, to two places: one a hair short of the bar never
    # reads as meeting it (seed 25529 said "reads z 5.5 where 5.5 is needed" at 5.46).
    if kind == "noise":  # (the stripes show no grid of cards to score at all)
        assert re.search(r"print reads z -?\d+\.\d\d where 5\.5 is needed", fit.reason), fit.reason
    assert fit.corners is None


def test_a_picture_too_small_for_the_grid_says_so_with_its_size(scenes):
    """A thumbnail cannot show a hundred cards; the message gives its size, not "no board"."""
    small = cv2.resize(scenes[(1, "classic")].frame, (64, 36), interpolation=cv2.INTER_AREA)
    fit = locate_grid(small)
    assert not fit
    assert "64x36 pixels" in fit.reason and "too small" in fit.reason, fit.reason


@pytest.mark.parametrize(("seed", "edition"), [(97300, "classic"), (97303, "jumbo")])
def test_a_board_cut_by_the_pictures_edge_says_which_edge(seed, edition):
    """A camera that shows all but the last row and a half: the player is told which way to move
    it, whether the grid was placed and found hanging off the picture (classic) or the cut
    board showed too little print to place one (Jumbo)."""
    scene = render(random_spec(seed, edition=edition, difficulty="normal"))
    corners = np.asarray(scene.corners, np.float64)
    cell = np.linalg.norm(corners[2] - corners[0]) / (10 * np.sqrt(2))
    fit = locate_grid(scene.frame[: int(corners[:, 1].max() - 1.5 * cell)].copy())
    assert not fit
    assert "past the bottom edge of the picture" in fit.reason, fit.reason
    assert "top" not in fit.reason and "left" not in fit.reason and "right" not in fit.reason


def test_only_an_edge_the_board_reaches_is_named_where_it_is_not_found():
    """The edge named is where the board network sees the card area run out of the picture, not
    where a misplaced grid would hang: seed 26002 (hard classic) cut three cells short on the
    right was said to run past the top edge, and seed 25409 (hard Jumbo under 70 chips, wholly
    in view, not found) past the left edge too."""
    scene = render(random_spec(26002, edition="classic", difficulty="hard"))
    xs = scene.corners[:, 0]
    cut = locate_grid(np.ascontiguousarray(scene.frame[:, : int(xs.max() - 3 * (xs.max() - xs.min()) / 10)]))
    assert not cut
    assert "past the right edge of the picture" in cut.reason, cut.reason
    assert not any(edge in cut.reason for edge in ("left", "top", "bottom"))
    whole = locate_grid(render(random_spec(25409, edition="jumbo", difficulty="hard")).frame)
    assert not whole
    assert "edge of the picture" not in whole.reason and "whole board is in view" in whole.reason, whole.reason


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((720, 1280, 4), np.uint8),
                                 np.zeros((720, 1280, 3), np.float32), "frame.png"])
def test_bad_frames_raise_naming_the_parameter(bad):
    with pytest.raises(ValueError, match="frame"):
        locate_grid(bad)


def test_unknown_edition_is_a_value_error(scenes):
    with pytest.raises(ValueError, match="edition"):
        locate_grid(scenes[(1, "classic")].frame, edition="pocket")


def test_config_is_explicit_and_frozen():
    cfg = LocateConfig()
    with pytest.raises(AttributeError):
        cfg.min_z = 0.0  # type: ignore[misc]


def test_print_density_outlines_a_small_board_on_a_pale_table():
    # A small, blurred board on a pale, unevenly lit table: the brightest region is not the
    # card area, but the dense print is.
    scene = render(random_spec(1003, edition="classic", difficulty="hard"))
    white = whiteness(scene.frame)
    truth = order_as_seen(scene.corners)
    by_print = min(corner_error(q, truth) for q in texture_quads(white, LocateConfig()))
    assert by_print < 0.1
    assert min(corner_error(q, truth) for q in blob_quads(white, LocateConfig())) > by_print


def test_ink_places_a_lattice_registered_whole_cells_off(scenes):
    from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography
    from vision.placement import ink_match

    scene = scenes[(2, "classic")]
    truth = order_as_seen(scene.corners)
    h = grid_homography(truth)
    off = apply_homography(h @ np.array([[1, 0, -2], [0, 1, 1], [0, 0, 1.0]]), GRID_CORNERS_UV)
    match = ink_match(scene.frame, off, LocateConfig())
    assert corner_error(match.corners, truth) < 1e-3
    assert match.z > LocateConfig().min_z
    assert match.z - match.runner_up > LocateConfig().min_z_margin


def test_corner_order_of_a_candidate_does_not_matter(scenes):
    # Candidates come clockwise or mirrored (from line segments); both must read the layout.
    from vision.leaders import rank_leaders
    from vision.locate import _register_leaders

    scene = scenes[(1, "classic")]
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    white = whiteness(scene.frame)
    mirrored = order_as_seen(scene.corners)[[0, 3, 2, 1]]
    leaders = rank_leaders(scene.frame, [mirrored], LocateConfig())
    match = _register_leaders(scene.frame, gray, white, None, leaders, LocateConfig())
    assert match is not None and match.z > LocateConfig().min_z


def test_refine_corners_brings_a_few_pixels_off_back_onto_the_card_gaps():
    from vision.settle import refine_corners

    scene = render(random_spec(3004, edition="classic", difficulty="easy"))
    off = scene.corners + np.array([[3.0, -2.0], [-2.5, 2.0], [2.0, 3.0], [-3.0, -2.5]], np.float32)
    refined = refine_corners(scene.frame, off)
    assert np.abs(refined - scene.corners).max() < 1.0 < np.abs(off - scene.corners).max()
    # nothing to fit to (a blank frame): the corners come back unchanged
    blank = np.full_like(scene.frame, 128)
    assert np.array_equal(refine_corners(blank, off), off)


def test_a_grid_bent_most_of_a_cell_at_one_corner_is_pulled_onto_the_gaps():
    """A rough grid whose far corner is 0.6 cells off (a cup on it, a blurred edge) must come
    back onto the card gaps: the gap fit measures only across each line, so the misplaced
    along-positions of its samples do not bend the fit."""
    from vision.settle import refine_corners

    scene = render(random_spec(3006, edition="jumbo", difficulty="normal", chip_density=0.0))
    cell = np.linalg.norm(scene.corners[1] - scene.corners[0]) / 10
    bent = scene.corners.copy()
    bent[2] += 0.45 * cell  # BR moved 0.64 cells along the diagonal
    refined = refine_corners(scene.frame, bent)
    assert np.linalg.norm(refined - scene.corners, axis=1).max() < 0.1 * cell


@pytest.mark.parametrize("shift", [(1, 0), (0, -1), (2, 1)])
def test_where_the_card_gaps_end_places_the_grid(scenes, shift):
    """The layout's suits run along rows, so the ink tells a board from a cell off poorly;
    the gaps end at the board's edge and say which whole-cell shift is the board."""
    from vision.geometry import GRID_CORNERS_UV, apply_homography, grid_homography
    from vision.lattice import lattice_extent
    from vision.placement import ink_match

    scene = scenes[(1, "jumbo")]
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    truth = order_as_seen(scene.corners)
    du, dv = shift
    off = apply_homography(grid_homography(truth) @ np.array([[1, 0, du], [0, 1, dv], [0, 0, 1.0]]), GRID_CORNERS_UV)
    scores, strength = lattice_extent(gray, off, 3)
    assert strength > LocateConfig().extent_min_grey
    assert tuple(np.argmax(scores, axis=1)) == (3 - dv, 3 - du)  # rows first: back by the shift
    match = ink_match(scene.frame, off, LocateConfig(), gray=gray)
    assert match.placed and corner_error(match.corners, truth) < 1e-3


def test_no_visible_lattice_places_nothing():
    from vision.placement import placed_by_gaps

    blank = np.full((480, 640), 128, np.uint8)
    quad = np.array([[100, 100], [500, 100], [500, 400], [100, 400]], np.float32)
    assert placed_by_gaps(blank, quad, 2, LocateConfig()) is None


def test_the_final_fit_pulls_a_corner_bent_over_a_cell_back_when_the_gaps_place_it():
    """A candidate right at three corners and 1.3 cells off at the fourth passes the ink test;
    the gaps over most of the board still give the true lattice, and where they end places it."""
    from vision.locate import _finish
    from vision.placement import InkMatch

    scene = render(random_spec(3008, edition="classic", difficulty="easy", chip_density=0.0))
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    truth = order_as_seen(scene.corners)
    cell = np.linalg.norm(truth[1] - truth[0]) / 10
    bent = truth.copy()
    bent[1] += np.array([0.9, -0.9]) * cell
    config = LocateConfig()
    done = _finish(scene.frame, gray, whiteness(scene.frame), None, InkMatch(bent, 7.5, 4.0, 100), config)
    assert np.linalg.norm(done.corners - truth, axis=1).max() < 0.1 * cell


def test_a_glare_spot_does_not_hide_the_print():
    """A lamp's glare on a vinyl Jumbo mat (a live game's first frame) lifts the board's one
    white so far that plain card reads as grey ink; each cell's local white still shows the
    layout, so the board is found and placed where it is."""
    from vision.placement import ink_match
    from vision.sim import GameSpec, simulate_game

    spec = GameSpec(seed=204, edition="jumbo", teams=("yellow", "red", "blue"), fps=15, size=(1280, 720), max_moves=2)
    scene = render(simulate_game(spec).scene_at(0))
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    truth = order_as_seen(scene.corners)
    one_white = replace(ink_only(), ink_both_whites=False)
    assert ink_match(scene.frame, truth, one_white, reach=1, gray=gray).z < 3.5
    both = ink_match(scene.frame, truth, ink_only(), reach=1, gray=gray)
    assert both.placed and both.z > 6.0 and both.z - both.runner_up > 3.0
    fit = locate_grid(scene.frame, edition="jumbo")
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01


def test_a_board_covered_in_chips_is_found_when_its_turns_differ_clearly():
    """Chips cover most cards, so little print is left to read (ink z about 2.5). The card gaps
    place the grid edge to edge, and the layout's best turn beats the other three by over 2 z:
    that is the board, however faint."""
    from vision.placement import ink_match

    scene = render(random_spec(1003, edition="classic", difficulty="normal"))
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    truth = order_as_seen(scene.corners)
    at_truth = ink_match(scene.frame, truth, ink_only(), reach=1, gray=gray)
    assert at_truth.placed and at_truth.z < LocateConfig().min_z_placed
    assert at_truth.z - at_truth.runner_up > LocateConfig().placed_clear_margin
    fit = locate_grid(scene.frame, config=ink_only())
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01
    o = orient_grid(scene.frame, fit.corners, edition=scene.edition)
    assert corner_error(o.corners, scene.corners) < 0.01


def test_the_free_corners_place_a_grid_the_card_gaps_cannot():
    """A Jumbo mat has no gaps between its cards and its pips are fine, so the ink alone
    cannot tell the board from a cell off (z 4.4); the four corner logos place it, and then
    only the turns are in question."""
    from vision.placement import ink_match

    scene = render(random_spec(1012, edition="jumbo", difficulty="normal"))
    gray = cv2.cvtColor(scene.frame, cv2.COLOR_BGR2GRAY)
    truth = order_as_seen(scene.corners)
    match = ink_match(scene.frame, truth, ink_only(), gray=gray)
    assert match.framed and not match.placed
    assert not locate_grid(scene.frame, config=replace(ink_only(), use_corners=False))
    fit = locate_grid(scene.frame, config=ink_only())
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01
    o = orient_grid(scene.frame, fit.corners, edition=scene.edition)
    assert corner_error(o.corners, scene.corners) < 0.01


@pytest.mark.parametrize("seed", [7009, 7098])
def test_the_court_cards_art_shows_the_layout_where_the_pips_do_not(seed):
    """A Jumbo mat far away (pips washed out) or a board under chips (few pips left): the ink
    alone does not show the layout clearly enough, but the Queens' and Kings' pictures are
    where the layout prints them, and with them the board is found and turned right.
    (Both searches leave out the outlines that fit the card borders, ``lattice_top``: with them
    the card gaps place 7009's grid, and its faint ink then tells the turn alone.)"""
    edition = ("classic", "jumbo")[seed % 2]
    scene = render(random_spec(seed, edition=edition, difficulty="normal"))
    assert not locate_grid(scene.frame, config=replace(ink_only(), lattice_top=0))
    assert_found_and_turned(scene, 0.02, replace(LocateConfig(), lattice_top=0))


@pytest.mark.parametrize("seed", [3014, 3081])
def test_the_twin_cards_show_the_layout_where_the_pips_colours_wash_out(seed):
    """A small board, steeply seen, dim and blurred: red and black pips read too faintly for
    the ink to place the grid, but every card's picture still matches its twin's, and with
    them the board is found and turned right."""
    edition = ("classic", "jumbo")[seed % 2]
    scene = render(random_spec(seed, edition=edition, difficulty="hard"))
    assert not locate_grid(scene.frame, config=without_twins())
    assert_found_and_turned(scene, 0.03)


def test_a_board_on_a_checked_tablecloth_is_told_apart_by_colour():
    """On a red-and-white gingham cloth the table is as bright and as busy with small marks as
    the cards, so neither brightness nor print density outlines the board; its colours
    (grey margin, white cards, chips) stand apart from the cloth's, blurred, all the same.
    (The board network outlines it too: it is left out here.)"""
    from vision.outlines import table_quads

    scene = render(random_spec(7054, edition="classic", difficulty="normal"))
    truth = order_as_seen(scene.corners)
    config = LocateConfig()
    white = whiteness(scene.frame)
    others = blob_quads(white, config) + texture_quads(white, config)
    assert min(corner_error(q, truth) for q in others) > 0.3  # nowhere near the board
    assert min(corner_error(q, truth) for q in table_quads(scene.frame, config)) < 0.12  # the margin's outline
    assert not locate_grid(scene.frame, config=replace(config, use_table=False, use_net=False))
    fit = locate_grid(scene.frame)
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01


def test_a_thorough_search_keeps_looking_past_a_bent_lattice_that_passes():
    """An empty Jumbo mat under glare: the first placement to pass the test is a lattice
    registered over most of the cards but a cell off at one corner. The quick search stops
    there; the thorough one (for the empty-board reference and calibration) goes on until the
    card gaps place the grid edge to edge. (When written, the quick search put this grid over a
    cell off.)"""
    scene = render(random_spec(5119, edition="jumbo", difficulty="hard"), empty=True)
    truth = order_as_seen(scene.corners)
    fit = locate_grid(scene.frame, config=LocateConfig(thorough=True))
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01


@pytest.mark.parametrize("seed", [3067, 7029])
def test_a_jumbo_mat_whose_pips_wash_out_is_framed_by_its_corners_and_turned_by_its_art(seed):
    """Washed-out Jumbo mats under chips: the pips show too little to tell the turn (ink z 2.3;
    on 7029 too few cells show print to read the ink at all), but the four free corners frame
    the grid clearly and the Queens' and Kings' pictures show where the layout prints them.
    (When written, both were not found: the art only counted where the ink's own best turn
    agreed with it, and 7029's grid then showed too few inked cells.)"""
    scene = render(random_spec(seed, edition="jumbo", difficulty="normal"))
    fit = locate_grid(scene.frame)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01
    o = orient_grid(scene.frame, fit.corners, edition="jumbo")
    assert corner_error(o.corners, scene.corners) < 0.01


def test_a_board_outline_the_gaps_place_with_weak_ink_does_not_end_the_search():
    """An easy classic board with wide printed margins: its outline, margin and all, is the
    first leader, and the card gaps "place" the lattice registered there (the columns are right,
    the rows stretched over the margins) with the ink at z 3.9. The grids fitted inside the
    outline come next and show the layout at z 8. (When written, the search stopped at the
    outline and returned a grid 1.8 cells off, then turned it the wrong way.)"""
    scene = render(random_spec(1144, edition="classic", difficulty="easy"))
    fit = locate_grid(scene.frame)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01


def test_a_small_board_outlined_again_is_found_where_the_usual_outlines_miss_it():
    """A board far away on a dim tablecloth (hard): every outline the thumbnail gives is two
    or more cells off, and no grid registered from them shows the layout. Outlined once more
    from a crop around it, the board is found, and turned right. (When first tried before the
    segment lattice and the table's colours, and at the usual ink z, the closer outlines also
    let a grid four cells off pass on this frame at z 6.0. The board network outlines it too:
    it is left out of the search without the closer look.)"""
    scene = render(random_spec(3000, edition="classic", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), use_zoom=False, use_net=False))
    fit = locate_grid(scene.frame)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.03
    o = orient_grid(scene.frame, fit.corners, edition="classic")
    assert corner_error(o.corners, scene.corners) < 0.03


@pytest.mark.parametrize("seed, edition", [(6028, "classic"), (6071, "jumbo")])
def test_a_small_empty_board_is_outlined_again_from_a_closer_look(seed, edition):
    """An empty board far away, dim and blurred (hard): in the frame's thumbnail its outline is
    a few dozen pixels and comes out a cell or more off, too far for any registration to
    recover. Outlined once more from a crop around it, it is found (calibration, a reference).
    (The board network outlines both well enough: it is left out of the search without the
    closer look.)"""
    scene = render(random_spec(seed, edition=edition, difficulty="hard"), empty=True)
    config = LocateConfig.for_empty_board()
    assert not locate_grid(scene.frame, config=replace(config, use_zoom=False, use_net=False))
    fit = locate_grid(scene.frame, config=config)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.03


def test_the_empty_board_search_registers_past_a_weak_placement_of_the_gaps():
    """An easy, sharp empty board: the first leader registers to a lattice stretched over the
    margin that the card gaps "place" while the ink shows the layout weakly (z 3.8); the
    board itself (z 9) is a later leader. (When written, the search stopped at the first and
    returned a grid 1.9 cells off, and every frame read against it would have been off too.)"""
    scene = render(random_spec(1090, edition="classic", difficulty="easy"), empty=True)
    fit = locate_grid(scene.frame, config=LocateConfig.for_empty_board())
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01


@pytest.mark.parametrize("seed, difficulty", [(1129, "normal"), (1293, "hard")])
def test_the_empty_board_is_not_placed_by_the_free_corners_alone(seed, difficulty):
    """Empty Jumbo mats whose ink is weak: the four free corners framed a grid 1.5 and 4.3
    cells off, and the ink then told a turn. For the one-off look at the empty board a grid
    not found (the frames are then located on their own) is far better than a wrong one."""
    scene = render(random_spec(seed, edition="jumbo", difficulty=difficulty), empty=True)
    fit = locate_grid(scene.frame, config=LocateConfig.for_empty_board())
    assert not fit or corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01


def test_placements_ranked_below_the_leaders_are_registered_before_giving_up():
    """A Jumbo mat on gingham: the quick ink look ranks the one outline that registers onto
    the board (the table's colours, four cells off) tenth of its stage, below weak duplicates;
    registering only the leading placements misses the board, the deeper look finds it.
    (The closer outlines of ``zoomed_quads`` and the board network find it too: they are left
    out here.)"""
    scene = render(random_spec(7055, edition="jumbo", difficulty="normal"))
    truth = order_as_seen(scene.corners)
    config = replace(LocateConfig(), use_zoom=False, use_net=False)
    assert not locate_grid(scene.frame, config=replace(config, deep_top=config.refine_top))
    fit = locate_grid(scene.frame, config=config)
    assert fit, fit.reason
    assert corner_error(fit.corners, truth) < 0.01


def test_the_deeper_look_wants_the_card_gaps_under_a_grid_the_ink_alone_placed():
    """A classic board, hard view: no leading placement passes, and among the placements ranked
    below them a lattice six cells off the board shows the layout at z 5.9 by chance (the
    more lattices tried, the likelier). No card gaps lie along it, so it is not returned."""
    from vision.geometry import grid_diagonal

    scene = render(random_spec(2238, edition="classic", difficulty="hard"))
    fit = locate_grid(scene.frame)
    cell = grid_diagonal(order_as_seen(scene.corners)) / (10 * np.sqrt(2.0))
    if fit:  # a better locator may find the board; it must not return the grid off it
        assert np.abs(order_as_seen(fit.corners) - order_as_seen(scene.corners)).max() < 0.5 * cell


@pytest.mark.parametrize("seed", [4503, 4597])
def test_a_mat_mostly_under_chips_is_found_on_the_print_it_still_shows(seed):
    """A Jumbo mat late in a game: chips hide more than half the cards, and the print shows on
    only a few dozen cells, but those show the layout beyond doubt (z over 9). The grid is found
    and turned right; asking for half the cells to show print would reject it (unless the turn
    network vouches for the grid, which it is not asked to here)."""
    scene = render(random_spec(seed, edition="jumbo", difficulty="normal"))
    plain = LocateConfig()
    no_net = replace(plain.ink, turn_net_sure=0.0)
    assert not locate_grid(scene.frame, config=replace(plain, min_ink_cells=50, ink=no_net))
    fit = assert_found_and_turned(scene, 0.03)
    assert fit.details["z"] > 8.0


@pytest.mark.parametrize("seed", [3030, 3053])
def test_outlines_that_fit_the_card_borders_are_registered_though_the_quick_ink_ranks_them_low(seed):
    """A small board far away, steeply seen and blurred: at the quick look's resolution its
    pips blur into noise, and outlines off the board outrank the right one; the outline that
    best fits a lattice of card borders is registered too, and the board is found. (The board
    network outlines 3053 well enough without them: it is left out here.)"""
    edition = ("classic", "jumbo")[seed % 2]
    scene = render(random_spec(seed, edition=edition, difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), lattice_top=0, use_net=False))
    assert_found_and_turned(scene, 0.05)


def test_a_placement_short_of_a_stricter_stage_test_is_finished_before_it_is_dropped():
    """A Jumbo mat far away and blurred, found only by the closer look, whose stricter ink
    test a rough outline registered a fifth of a cell off does not pass (z 6.2 under 6.5):
    the final, finer registration brings it onto the cards, where it reads clearly (z 8.4)."""
    scene = render(random_spec(3017, edition="jumbo", difficulty="hard"))
    fit = assert_found_and_turned(scene, 0.03)
    assert fit.details["z"] > LocateConfig().zoom_min_z


# ----------------------------------------------------------------------------- the turn network's verdict


def _without_net_verdict() -> LocateConfig:
    """The locator as it was before the turn network judged whole grids: it never refuses one,
    and is never sure of a turn (so it vouches for none)."""
    plain = LocateConfig()
    return replace(plain, net_refuses=1.01, ink=replace(plain.ink, turn_net_sure=0.0))


def test_a_grid_the_turn_network_sees_no_board_under_is_passed_over_for_the_board():
    """A hard classic view where the ink shows the layout by chance on a grid 1.6 cells off the
    board (z 7.6). The turn network is sure no board lies there, so the search goes on past
    it, and finds the board itself. (Seed 6020 showed it until the board network's outlines
    were fitted past piles of chips: its grid off the board is no longer found.)"""
    from vision.geometry import grid_diagonal

    scene = render(random_spec(6021, edition="classic", difficulty="hard"))
    truth = order_as_seen(scene.corners)
    cell = grid_diagonal(truth) / (10 * np.sqrt(2.0))
    wrong = locate_grid(scene.frame, config=_without_net_verdict())
    assert wrong and np.abs(order_as_seen(wrong.corners) - truth).max() > 1.5 * cell
    assert_found_and_turned(scene, 0.03)


@pytest.mark.parametrize(("seed", "edition"), [(6073, "jumbo"), (6134, "classic")])
def test_a_board_the_turn_network_vouches_for_is_found_where_the_print_alone_falls_short(seed, edition):
    """Two hard views the print alone leaves unfound: a steep view of a Jumbo mat whose metric
    aspect, measured from one view, reads 1.6 (the mat is 1.19), and a dim classic board whose
    ink reads z 5.4 against the 5.5 asked. The turn network is sure of a turn on the grid
    there, which it never is a cell off, so the board is found, and turned right."""
    scene = render(random_spec(seed, edition=edition, difficulty="hard"))
    assert not locate_grid(scene.frame, config=_without_net_verdict())
    assert_found_and_turned(scene, 0.02)


def test_a_board_its_card_area_places_is_kept_though_its_shape_measured_from_one_view_is_off():
    """Seed 148867, hard Jumbo under a lamp: the print is too faint to place the grid (z 3.1)
    and the board network's card area places it, where its width/height measured from this one
    view reads over 1.6 (the true grid's own reads 1.59; the mat is 1.19). The looser bound
    (``max_aspect``) keeps it, and the board is found and turned right."""
    scene = render(random_spec(148867, edition="jumbo", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), max_aspect=1.6))
    assert_found_and_turned(scene, 0.1 * CELL)


def test_a_washed_out_board_is_placed_by_the_turn_network_climbing_onto_it():
    """A hard classic view so washed out that its print places no grid: every placement the
    ink tries reads near chance. The board network outlines the cards a cell or so off; the
    turn network pulls that outline onto the grid, and the board is found and turned right.
    (Where the outline's sides are fitted plainly: the robust fit outlines it well enough.)"""
    scene = render(random_spec(6062, edition="classic", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(plain_outlines(), net_climb_outlines=0))
    assert_found_and_turned(scene, 0.03)


CELL = 1.0 / (10 * np.sqrt(2.0))
"""One cell as a fraction of a square grid's diagonal (``corner_error``'s unit)."""


def test_a_board_whose_card_area_comes_out_rounded_is_climbed_onto_from_the_rectangle_around_it():
    """Seed 25529 (hard Jumbo, small and dim on a gingham cloth): the print falls just short
    (z 5.46), and the board network's card area comes out with its corners rounded off, so the
    outlines drawn from its hull lie 3.3 to 4 cells off, beyond the climb's reach; the rectangle
    around it lies about a cell off, and the climb from there finds the grid, turned right."""
    scene = render(random_spec(25529, edition="jumbo", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), net_boxes=False, even_light_reach=0.0))
    assert_found_and_turned(scene, 0.25 * CELL)


def test_a_climb_the_turn_network_is_less_sure_of_is_kept_once_it_vouches_for_the_polished_grid(monkeypatch):
    """Seed 6148, hard classic: only the climb places this faint board. Where the climb ends at
    log-odds between 3 and 4 (as the first turn network's did on a few hard views), the grid is
    still kept, because the locator's finish asks the network again on the polished grid, and
    it is sure of a turn there; from 4 up only, the board is lost."""
    import vision.locate as locate

    real_climb = locate.climb
    monkeypatch.setattr(locate, "climb", lambda *a, **k: (real_climb(*a, **k)[0], 3.5))
    scene = render(random_spec(6148, edition="classic", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), climb_min_odds=4.0))
    assert_found_and_turned(scene, 0.25 * CELL)


def test_a_climbed_grid_is_turned_by_the_network_even_where_it_doubts_the_placement():
    """Seed 21087, hard Jumbo: only the climb places this board. Once registered on the grid,
    the turn network gives the right turn 0.79, the other turns 0.01 together and "not the
    board here" 0.20: it doubts the placement, not the turn. The climb has placed the grid,
    so the turn is read given the board is there, and the board is found and turned right;
    asked to be sure of the placement too, the locator loses it."""
    from vision.detect import detect

    scene = render(random_spec(21087, edition="jumbo", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), climb_placed_sure=0.0))
    found = detect(scene.frame)
    assert found, found.reason
    assert corner_error(found.corners, scene.corners) < 0.25 * CELL  # (placed and turned right)
    assert found.orientation_confidence > 0.9


def test_the_corner_network_may_move_an_outline_drawn_over_part_of_the_cards_to_the_whole_grid():
    """Seed 28215, hard Jumbo on a checked tablecloth: the board network's card area has a hole,
    so its outlines cover only the lower part of the cards, three or four cells short. The
    corner network moves them onto the whole grid: 7 to 12 of the short outline's small cells,
    3.5 to 4.8 of the grid's. Measured in the grid's cells that is a look at this
    board, and the climb from there finds it and turns it right."""
    from vision.geometry import apply_homography, grid_homography, move_in_nearer_cells

    scene = render(random_spec(28215, edition="jumbo", difficulty="hard"))
    true = order_as_seen(scene.corners.astype(np.float32))
    lower_rows = np.array([[0, 6], [10, 6], [10, 10], [0, 10]], np.float64)  # (the lower four rows)
    short = apply_homography(grid_homography(true), lower_rows).astype(np.float32)
    assert move_in_nearer_cells(short, true) == pytest.approx(6.0, abs=0.01)  # (15 of the short cells)
    assert move_in_nearer_cells(true, short) == pytest.approx(6.0, abs=0.01)
    assert_found_and_turned(scene, 0.25 * CELL)


def test_a_climbed_grid_whose_finished_corners_the_network_doubts_gives_way_to_another_climb():
    """Seed 28053, hard Jumbo, a small board under a lamp: only the climb places it. The first
    climb ends with log-odds 5.6 and one corner about a cell off, and the fine corner network,
    which cannot see that corner, leaves it 0.9 cells off: the network then rates the grid 2.8.
    The climb from the outline as drawn is tried too, and its grid (rated 6.8) is returned,
    every corner within a fifth of a cell; were 2.8 enough, the bent grid would be (from the
    outlines fitted plainly: the robust fit's do not lead the first climb astray)."""
    scene = render(random_spec(28053, edition="jumbo", difficulty="hard"))
    bent = locate_grid(scene.frame, config=replace(plain_outlines(), climb_min_odds=2.5))
    assert bent and corner_error(bent.corners, order_as_seen(scene.corners)) > 0.5 * CELL
    assert_found_and_turned(scene, 0.2 * CELL)


def test_a_small_board_the_board_network_outlines_cells_off_is_found_from_its_closer_look():
    """Seed 28389, hard Jumbo: a small board (cells 18 px) on a bright checked tablecloth, a hand
    reaching in. On the frame's thumbnail the board network outlines it 2.6 to 3.6 cells off,
    too far for any climb. Looking again at a crop around its first outline, it outlines the
    cards 0.4 cells off, and the climb from there finds the board and turns it right."""
    scene = render(random_spec(28389, edition="jumbo", difficulty="hard"))
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), net_zoom=0.0))
    assert_found_and_turned(scene, 0.25 * CELL)


def test_the_fine_corner_network_brings_a_corner_over_half_a_cell_off_home():
    """Seed 21461, hard Jumbo: the ink places the grid weakly (z 4.5) and the card gaps do not
    register it, so it is left with one corner 0.6 cells off: a false board. The fine corner
    network's two looks move that corner the 0.6 cells home, to within a fifth of a cell."""
    scene = render(random_spec(21461, edition="jumbo", difficulty="hard"))
    short = locate_grid(scene.frame, config=replace(LocateConfig(), polish_max_move=0.5))
    assert short and corner_error(short.corners, order_as_seen(scene.corners)) > 0.5 * CELL
    assert_found_and_turned(scene, 0.2 * CELL)


def test_a_board_whose_print_is_plain_is_kept_whatever_the_turn_network_says(monkeypatch, scenes):
    """The turn network learned the boards we render; a real board it has never seen may look
    like no board to it. Where the ink shows the layout beyond doubt, the ink's statistical
    test stands, and only a grid whose ink is faint is dropped on the network's word."""
    import vision.net_verdict as net_verdict

    monkeypatch.setattr(net_verdict, "ask_turn_net", lambda *a, **k: np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
    scene = scenes[(4, "classic")]
    fit = locate_grid(scene.frame)
    assert fit and fit.details["ink_z"] >= LocateConfig().net_overruled_z
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01
    assert not locate_grid(scene.frame, config=replace(LocateConfig(), net_overruled_z=100.0, card_area_overrules=0.0))


def test_a_board_the_turn_network_doubts_short_of_certainty_is_kept_where_its_print_is_plain(monkeypatch, scenes):
    """The network doubted grids lying on boards drawn by other hands at "not the board" 0.5 to
    0.9975 where their print read z 6 to 7, and was certain (0.99999 and more) of the grids off
    our own boards whose print read that plainly. Where the search finds nothing else, a doubt
    short of ``net_certain`` gives way to print at ``net_doubt_overruled_z``; a certain one
    does not."""
    import vision.net_verdict as net_verdict

    scene = scenes[(4, "classic")]
    # Neither the ink's usual bar nor the card area may keep the grid: plain print alone.
    config = replace(LocateConfig(), net_overruled_z=100.0, card_area_overrules=0.0)
    monkeypatch.setattr(net_verdict, "ask_turn_net", lambda *a, **k: np.array([0.0, 0.0, 0.0, 0.04, 0.96]))
    fit = locate_grid(scene.frame, config=config)
    assert fit and fit.details["print_overruled"]
    assert fit.details["ink_z"] >= config.net_doubt_overruled_z
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01
    assert not locate_grid(scene.frame, config=replace(config, net_doubt_overruled_z=100.0))
    monkeypatch.setattr(net_verdict, "ask_turn_net", lambda *a, **k: np.array([0.0, 0.0, 0.0, 0.0001, 0.9999]))
    assert not locate_grid(scene.frame, config=config)


def test_a_board_the_turn_network_refuses_is_kept_where_the_card_area_lies_on_its_grid(monkeypatch, scenes):
    """Where the ink alone does not overrule the network and the search finds nothing else, the
    grid it refused is still the board if the board network's card area lies on it: two
    witnesses blind to the printing against one that learned our boards. (Boards drawn by
    another hand were refused within 2.4 pixels of their grids, print at z 5.5 to 6.9.)"""
    import vision.net_verdict as net_verdict

    monkeypatch.setattr(net_verdict, "ask_turn_net", lambda *a, **k: np.array([0.0, 0.0, 0.0, 0.0, 1.0]))
    scene = scenes[(4, "classic")]
    deaf_ink = replace(LocateConfig(), net_overruled_z=100.0)
    fit = locate_grid(scene.frame, config=deaf_ink)
    assert fit and fit.details["card_area_overruled"]
    assert corner_error(fit.corners, order_as_seen(scene.corners)) < 0.01
    # Only where the card area agrees with the grid closely enough (the network's outline of a
    # board it sees whole agrees 0.9 to 0.99; no area agrees 0.999).
    assert not locate_grid(scene.frame, config=replace(deaf_ink, card_area_overrules=0.999))


def test_a_grid_bent_a_cell_off_under_a_hand_gives_way_where_the_network_and_the_print_both_prefer_another(
        monkeypatch):
    """Seed 29736, hard classic, hands over the top left: the grid found there is bent, two
    corners 0.8 and 1.1 cells off, yet its print reads z 7, so the turn network's refusal is
    overruled. The network climbs from it to a grid it vouches for, whose print reads plainer
    still (8.9), and that one is returned; without the climb (and with the outlines fitted
    plainly, whose bent grid the robust fit no longer draws), the bent grid would be."""
    import vision.locate as locate

    scene = render(random_spec(29736, edition="classic", difficulty="hard"))
    assert_found_and_turned(scene, 0.2 * CELL)
    monkeypatch.setattr(locate, "_climbed_past_overruled", lambda *args: None)
    bent = locate_grid(scene.frame, config=plain_outlines())
    assert bent and bent.details["ink_z"] >= LocateConfig().net_overruled_z
    assert corner_error(bent.corners, order_as_seen(scene.corners)) > 0.5 * CELL


def test_a_board_covered_in_chips_takes_the_climbed_grid_where_its_print_reads_far_plainer(monkeypatch):
    """Seed 7018 at 1920x1080 (normal classic, 70 chips): the first grid found lies half a cell
    off, print z 7.3, so the turn network's refusal is overruled. The network climbs from it to
    the grid, whose print reads 9.4, but with so few cards showing it rates that grid only at
    log-odds 2, short of being sure; the print is the plainer witness, and the climbed grid is
    returned. With the bar of a sure network, the grid half a cell off would be."""
    scene = render(random_spec(7018, difficulty="normal", size=(1920, 1080)))
    assert_found_and_turned(scene, 0.05 * CELL)
    off = locate_grid(scene.frame, config=replace(LocateConfig(), overruled_ink_margin=100.0))
    assert off and off.details["ink_z"] >= LocateConfig().net_overruled_z
    assert corner_error(off.corners, order_as_seen(scene.corners)) > 0.3 * CELL


def test_the_empty_board_search_lets_the_turn_network_refuse_a_grid_on_the_tablecloth(monkeypatch):
    """Seed 6186 (hard, classic, empty board on a gingham cloth): the cloth's checks are a
    lattice of gaps, which places a grid there whose ink then passes the placed test by chance.
    The empty-board search may not let the network tell turns, but the network still refuses
    that grid, and the search goes on to the board."""
    import vision.net_verdict as net_verdict

    empty = render(random_spec(6186, edition="classic", difficulty="hard"), empty=True)
    config = LocateConfig.for_empty_board()
    fit = locate_grid(empty.frame, config=config)
    assert fit and corner_error(fit.corners, order_as_seen(empty.corners)) < 0.02
    monkeypatch.setattr(net_verdict, "ask_turn_net", lambda *a, **k: np.array([1.0, 0.0, 0.0, 0.0, 0.0]))
    # (That grid is no board's shape either: the loose aspect bound refuses it too, so it is lifted here.)
    fooled = locate_grid(empty.frame, config=replace(config, sliver_aspect=math.inf))
    assert fooled and corner_error(fooled.corners, order_as_seen(empty.corners)) > 0.5


def test_a_pile_of_chips_against_the_boards_corner_does_not_bend_the_grid():
    """Seed 142002 (normal classic, three piles of chips beside the board): a pile spills onto the
    margin at one corner and the board network takes it for card area. The outline's sides
    along the cards still place that corner; before, the grid was found with it a cell out."""
    from vision.sim.variety import with_chip_piles

    scene = render(with_chip_piles(random_spec(142002, edition="classic", difficulty="normal"), 3))
    assert_found_and_turned(scene, 0.2 * CELL)


def test_a_board_crossed_by_a_band_of_shadow_is_found():
    """A player leaning over shades a band across the board's middle: the board network sees the
    lit part of the card area only, and the search there fails; the light evened out joins the
    shaded part back on (``even_light_reach``)."""
    scene = render(random_spec(46921, edition="jumbo", difficulty="easy"))
    frame, corners = PROCESSING["shadow_band"](scene.frame, np.asarray(scene.corners, np.float32))
    fit = locate_grid(frame)
    assert fit, fit.reason
    assert corner_error(fit.corners, order_as_seen(corners)) < 0.01
