"""White chips are read as whole sequences: lines vouch for faint chips and drop lone glints."""

import numpy as np
import pytest
from labelgrids import board_labels
from other_hand import assert_read_as_drawn, other_hand

from vision.cell_model import load_chip_nets
from vision.detect import DetectConfig, detect
from vision.flipped import (
    FlippedPrior,
    being_flipped,
    flipped_lines,
    line_inputs,
    read_flipped_as_lines,
    to_be_flipped,
    white_windows,
)
from vision.patch_net import CLASSES as PATCH_CLASSES
from vision.sim import random_spec, render

NAMES = ("blue", "red", "yellow", "flipped")


def _logits(labels: list[list[str]], faint: dict[tuple[int, int], float] | None = None) -> np.ndarray:
    """Clear chips at +8, empty cards at -7, ``faint`` cells at their own logit."""
    logit = np.where(np.isin(np.array(labels), ("empty", "free")), -7.0, 8.0).astype(np.float32)
    for (r, c), v in (faint or {}).items():
        logit[r, c] = v
    return logit


def _dist(labels: list[list[str]]) -> np.ndarray:
    """Prototype distances: 0.5 to the cell's own colour, 3 to white, 6 to the rest."""
    dist = np.full((10, 10, len(NAMES)), 6.0, np.float32)
    dist[..., NAMES.index("flipped")] = 3.0
    for r in range(10):
        for c in range(10):
            if labels[r][c] in NAMES:
                dist[r, c, NAMES.index(labels[r][c])] = 0.5
    return dist


def _read(labels, logit):
    return read_flipped_as_lines(labels, np.ones((10, 10), np.float32), logit, _dist(labels), NAMES)


def test_four_clear_white_chips_vouch_for_a_faint_fifth():
    line = {(4, c): "flipped" for c in range(2, 6)}
    labels = board_labels(line)
    out, conf = _read(labels, _logits(labels, faint={(4, 6): -1.0}))
    assert [out[4][c] for c in range(2, 7)] == ["flipped"] * 5
    assert conf[4, 6] < 0.5  # inferred, not seen
    assert conf[4, 2] == 1.0


def test_a_lone_white_reading_is_an_empty_card():
    labels = board_labels({(5, 5): "flipped"})
    out, _ = _read(labels, _logits(labels, faint={(5, 5): 1.5}))
    assert out[5][5] == "empty"


def test_a_lone_white_reading_that_is_surely_a_chip_takes_its_next_colour():
    labels = board_labels({(5, 5): "flipped"})
    dist = _dist(labels)
    dist[5, 5, NAMES.index("red")] = 2.0
    out, _ = read_flipped_as_lines(labels, np.ones((10, 10), np.float32), _logits(labels), dist, NAMES)
    assert out[5][5] == "red"


def _patch_says(cell: tuple[int, int], **probs: float) -> dict[str, np.ndarray]:
    """Reading features in which the patch network gave ``cell`` these class probabilities."""
    out = np.zeros((10, 10, len(PATCH_CLASSES)), np.float32)
    for name, p in probs.items():
        out[cell][PATCH_CLASSES.index(name)] = p
    return {"patch_probs": out}


def test_a_lone_white_reading_the_patch_network_sees_in_a_team_colour_takes_that_colour():
    """Glare washes a red chip white in colour; the patch network still sees a red chip (even
    odds or better), and a white chip off every line cannot be one anyway."""
    labels = board_labels({(5, 5): "flipped"})
    logit = _logits(labels, faint={(5, 5): 1.5})
    conf = np.ones((10, 10), np.float32)
    out, _ = read_flipped_as_lines(labels, conf, logit, _dist(labels), NAMES,
                                   features=_patch_says((5, 5), red=0.7, flipped=0.3))
    assert out[5][5] == "red"
    out, _ = read_flipped_as_lines(labels, conf, logit, _dist(labels), NAMES,
                                   features=_patch_says((5, 5), red=0.4, flipped=0.6))
    assert out[5][5] == "empty"  # not sure enough: a faint glint stays a card


def test_a_lone_white_reading_the_patch_network_is_sure_is_empty_is_an_empty_card():
    """A dim mat's empty card lit like a white chip: the cue network is sure of a chip, but off
    every line and with the patch network sure it is empty, it is an empty card, not a chip of
    the next-nearest colour."""
    labels = board_labels({(5, 5): "flipped"})
    dist = _dist(labels)
    dist[5, 5, NAMES.index("blue")] = 2.0
    conf = np.ones((10, 10), np.float32)
    out, new_conf = read_flipped_as_lines(labels, conf, _logits(labels), dist, NAMES,
                                          features=_patch_says((5, 5), empty=1.0))
    assert out[5][5] == "empty" and new_conf[5, 5] < 0.5
    out, _ = read_flipped_as_lines(labels, conf, _logits(labels), dist, NAMES,
                                   features=_patch_says((5, 5), empty=0.6, blue=0.4))
    assert out[5][5] == "blue"  # the network unsure: the chip the cue network saw
    out, _ = read_flipped_as_lines(labels, conf, _logits(labels), dist, NAMES,
                                   features=_patch_says((5, 5), empty=1.0), prior=FlippedPrior(patch_empty=1.01))
    assert out[5][5] == "blue"


def test_a_lone_white_chip_both_networks_are_sure_of_stays_white():
    """A clear white chip whose line the frame does not show whole (hidden, or read as another
    colour) is still a white chip, not the next-nearest colour."""
    labels = board_labels({(5, 5): "flipped"})
    conf = np.ones((10, 10), np.float32)
    out, _ = read_flipped_as_lines(labels, conf, _logits(labels), _dist(labels), NAMES,
                                   features=_patch_says((5, 5), flipped=0.999))
    assert out[5][5] == "flipped"
    out, _ = read_flipped_as_lines(labels, conf, _logits(labels, faint={(5, 5): 2.0}), _dist(labels), NAMES,
                                   features=_patch_says((5, 5), flipped=0.999))
    assert out[5][5] == "empty"  # the cue network is not sure there is a chip at all


def test_a_free_corner_completes_a_white_line():
    line = {(0, c): "flipped" for c in range(1, 5)}
    labels = board_labels(line)
    out, _ = _read(labels, _logits(labels))
    assert [out[0][c] for c in range(1, 5)] == ["flipped"] * 4
    assert out[0][0] == "free" and out[0][5] == "empty"


def test_a_white_line_does_not_run_through_a_coloured_chip():
    cells = {(3, c): "flipped" for c in (1, 2, 4, 5)}
    cells[(3, 3)] = "blue"
    labels = board_labels(cells)
    out, _ = _read(labels, _logits(labels))
    assert out[3][3] == "blue"
    assert all(out[3][c] != "flipped" for c in (1, 2, 4, 5))


def test_a_white_line_passes_a_chip_the_light_tinted_nearly_white():
    """Under a warm lamp a white chip can look pale yellow: read as yellow, but barely nearer
    yellow than white. The four clear white chips around it then make it the fifth."""
    cells = {(3, c): "flipped" for c in (1, 2, 4, 5)}
    cells[(3, 3)] = "yellow"
    labels = board_labels(cells)
    dist = _dist(labels)
    dist[3, 3, NAMES.index("flipped")] = 1.5  # white only 1.0 farther than its yellow
    out, conf = read_flipped_as_lines(labels, np.ones((10, 10), np.float32), _logits(labels), dist, NAMES)
    assert [out[3][c] for c in range(1, 6)] == ["flipped"] * 5
    assert conf[3, 3] < 0.5
    # A clearly yellow chip (the test above: white 2.5 farther) still stops the line.
    dist[3, 3, NAMES.index("flipped")] = 3.0
    out, _ = read_flipped_as_lines(labels, np.ones((10, 10), np.float32), _logits(labels), dist, NAMES)
    assert out[3][3] == "yellow" and out[3][1] != "flipped"


def test_a_line_is_not_stretched_past_five_by_a_faint_neighbour():
    labels = board_labels({(6, c): "flipped" for c in range(1, 6)})
    out, _ = _read(labels, _logits(labels, faint={(6, 6): -0.5}))
    assert out[6][6] == "empty"  # a sixth would share four cells with the first sequence


def test_six_in_a_row_with_a_crossing_sequence_are_all_white():
    """Six white chips in a row, and a diagonal sequence through the first: the players flipped
    the row's last five and the diagonal. A greedy pick of the row's first five (as good on its
    own) would leave the sixth a stray; every white reading must end on a line."""
    cells = {(3, c): "flipped" for c in range(4, 10)} | {(3 - k, 4 + k): "flipped" for k in range(-1, 4)}
    labels = board_labels(cells)
    out, _ = _read(labels, _logits(labels))
    assert all(out[r][c] == "flipped" for r, c in cells)
    assert sum(v == "flipped" for row in out for v in row) == len(cells)


def test_two_sequences_may_share_one_cell():
    cells = {(2, c): "flipped" for c in range(2, 7)} | {(r, 4): "flipped" for r in range(3, 7)}
    labels = board_labels(cells)
    taken = flipped_lines(_logits(labels).reshape(-1), np.zeros(100, bool)).reshape(10, 10)
    assert taken[2, 2:7].all() and taken[2:7, 4].all()
    assert taken.sum() == 9


def test_no_more_white_lines_are_read_than_a_game_can_leave():
    """Two teams end a game with at most three sequences (the winners' two, one of the
    others'). Here four rows of cards a lamp has lifted read faintly chip-like (as on a sunlit
    mat); of four lines there, one at least is a misreading."""
    rows = (1, 3, 5, 7)
    labels = board_labels({})
    out, _ = _read(labels, _logits(labels, faint={(r, c): 0.5 for r in rows for c in range(2, 7)}))
    white = [sum(out[r][c] == "flipped" for c in range(2, 7)) for r in rows]
    assert sorted(white) == [0, 5, 5, 5]


@pytest.mark.parametrize("seed", [5085, 17351])
def test_rendered_jumbo_board_reads_right_only_with_the_lines(seed):
    """Seeds where the cell-by-cell reading sees a white chip on an empty card and the line
    reading has every visible cell right. (Which seeds do moves with each refit of the networks:
    5097, 5031, 5094, 5005 and 5026 have served; since the patch network's refit on other chip
    sets no normal Jumbo seed of 5000-5099 or 17100-17399 has a white chip only the lines find.)"""
    scene = render(random_spec(seed, edition="jumbo", difficulty="normal"))
    truth, visible = np.array(scene.labels), ~scene.occluded
    cellwise = detect(scene.frame, corners=scene.corners, edition="jumbo", config=DetectConfig(flipped=None))
    lines = detect(scene.frame, corners=scene.corners, edition="jumbo")
    assert not np.array_equal(np.array(cellwise.labels)[visible], truth[visible])
    assert np.array_equal(np.array(lines.labels)[visible], truth[visible])


@pytest.mark.parametrize("rule", ["lift", "strays"])
def test_a_glare_lifted_patch_of_faint_white_readings_is_no_line(rule):
    """Overexposure lifts a whole patch of white cards, which then read as faint white chips in
    every direction (on rendered hard Jumbo frames, e.g. seeds 8074 and 5645, before the reader
    learnt from more hard frames). Scored on the logits alone, any row of the patch is a line; one
    that must stand out from its neighbourhood, or from the frame's other white readings, is not."""
    patch = {(r, c): "flipped" for r in range(3, 6) for c in range(2, 7)}
    labels = board_labels(patch)
    logit = _logits(labels, faint={cell: 0.5 for cell in patch}).reshape(-1)
    white = np.array(labels).reshape(-1) == "flipped"
    team = np.zeros(100, bool)
    unchecked = FlippedPrior(lift_gain=0.0, stray_gain=0.0)
    assert flipped_lines(logit, team, unchecked, lift=np.zeros(100), white_read=white).sum() >= 5
    if rule == "lift":  # its cells are darker than the cards around them (a chip is not)
        lift, read = np.where(white, -6.0, 0.0), None
    else:
        lift, read = None, white
    assert not flipped_lines(logit, team, FlippedPrior(stray_gain=0.0 if rule == "lift" else 1.0,
                                                       lift_gain=1.0 if rule == "lift" else 0.0),
                             lift=lift, white_read=read).any()


def _white_reading(white: list[tuple[int, int]], lit: list[tuple[int, int]]) -> tuple[list[list[str]], dict]:
    """A reading with faint white chips (logit 0.5, the patch network at even odds) on ``white``,
    cards elsewhere, and the cells ``lit`` lighter (L 97) than the rest (L 88)."""
    labels = board_labels({cell: "flipped" for cell in white})
    lab = np.zeros((10, 10, 3), np.float32)
    lab[..., 0] = 88.0
    probs = np.zeros((10, 10, len(PATCH_CLASSES)), np.float32)
    for cell in white:
        probs[cell][PATCH_CLASSES.index("flipped")] = probs[cell][PATCH_CLASSES.index("empty")] = 0.5
    for cell in lit:
        lab[cell][0] = 97.0
    return labels, {"core_lab": lab, "patch_probs": probs}


def _line_logit(labels: list[list[str]], features: dict, window: int) -> float:
    logit = _logits(labels, faint={(r, c): 0.5 for r in range(10) for c in range(10) if labels[r][c] == "flipped"})
    found = line_inputs(labels, logit, _dist(labels), NAMES, features)
    assert found is not None
    cues, open_windows = found
    assert open_windows[window]
    return float(load_chip_nets()["white_line"].logit(cues)[window])


def test_the_line_network_trusts_a_row_that_stands_out_more_than_one_in_a_glare_lit_patch():
    """Glare lifts a region of cards; a row of chips is lighter than the cards beside it. The
    same faint white readings score highest as a row that stands out, lower as a row inside a lit
    patch, and lowest as one row of a patch that reads white throughout."""
    row = [(4, c) for c in range(2, 7)]
    patch = [(r, c) for r in range(3, 6) for c in range(1, 8)]
    window = int(np.flatnonzero(white_windows(np.isin(np.arange(100), [r * 10 + c for r, c in row])))[0])
    alone = _line_logit(*_white_reading(row, lit=row), window)
    lit = _line_logit(*_white_reading(row, lit=patch), window)
    whole = _line_logit(*_white_reading(patch, lit=patch), window)
    assert alone > lit > whole
    assert alone > 0 > whole


def test_white_windows_are_the_lines_free_corners_complete():
    white = np.zeros((10, 10), bool)
    white[0, 1:5] = True  # with the free corner (0, 0), one line
    white[5, 2:8] = True  # six in a row: two windows
    assert white_windows(white).sum() == 3
    assert not white_windows(np.zeros(100, bool)).any()


def test_the_line_network_drops_a_glare_lit_row_the_rule_alone_takes_for_a_line():
    """Rendered hard Jumbo seed 20464, under glare: the cells' logits alone make five cards and
    chips of row 7 a line of white chips; the line network, seeing how the line stands against
    its flanks and the frame, does not, and reads the row as it is but for one glare-washed red
    chip, empty either way. (Seeds 7111 and 20100 served until refits of the cell networks left
    their rows no line to the rule.)"""
    scene = render(random_spec(20464, edition="jumbo", difficulty="hard"))
    truth, visible = np.array(scene.labels), ~scene.occluded
    rule = detect(scene.frame, corners=scene.corners, edition="jumbo",
                  config=DetectConfig(flipped=FlippedPrior(line_gain=0.0)))
    both = np.array(detect(scene.frame, corners=scene.corners, edition="jumbo").labels)
    wrong = (np.array(rule.labels) != truth) & visible
    assert wrong.sum() >= 5 and set(np.array(rule.labels)[wrong]) == {"flipped"}
    assert not (both[wrong] == "flipped").any()
    assert [(r, c, truth[r, c], both[r, c]) for r, c in np.argwhere((both != truth) & visible)] == \
        [(7, 6, "red", "empty")]


def test_the_chips_to_be_flipped_are_those_of_a_completed_sequence():
    """Five of one team in a row (a free corner counts, and so do chips of it already white) are
    to be turned white; four in a row, or five of two teams, are not."""
    board = board_labels({
        (0, 1): "red", (0, 2): "red", (0, 3): "flipped", (0, 4): "red",  # with the corner (0, 0)
        (5, 2): "blue", (5, 3): "blue", (5, 4): "blue", (5, 5): "blue",  # four
        (7, 1): "blue", (7, 2): "blue", (7, 3): "yellow", (7, 4): "blue", (7, 5): "blue",  # two teams
    })
    expected = np.zeros((10, 10), bool)
    expected[0, [1, 2, 4]] = True
    assert (to_be_flipped(np.array(board, dtype=object)) == expected).all()


def test_a_completed_sequence_is_being_flipped_once_one_of_its_five_is_white():
    """The chips of a completed sequence are being turned over once a chip of its five is read
    white (or was committed white); another completed sequence, with no white chip, is not."""
    board = np.array(board_labels({
        **{(2, c): "blue" for c in range(3, 8)},
        **{(6, c): "red" for c in range(1, 6)},
        (8, 1): "flipped", **{(8, c): "yellow" for c in range(2, 6)},
    }), dtype=object)
    white = np.zeros((10, 10), bool)
    white[2, 5] = True
    expected = np.zeros((10, 10), bool)
    expected[2, 3:8] = True
    expected[8, 2:6] = True
    assert (being_flipped(board, white) == expected).all()
    assert not being_flipped(board, np.zeros((10, 10), bool))[2].any()


def test_white_chips_on_plain_cards_are_found_on_the_line_two_clear_ones_start():
    """A Jumbo mat from a renderer written apart from ``vision.sim`` (white chips with a printed
    star), cropped from a 1280x720 frame: of one line of five white chips, the two on a 2 and a
    2 hide few pips. Until the cue network's refit on scenes crossed by shadow bands they were
    read empty cell by cell, and only the patch network, asked because they lie in line with
    clear white chips, found them; now each is read white on its own, and the line read leaves
    them so. Every cell is read as drawn, true corners given or none, and the line read on or off."""
    from dataclasses import replace

    frame, truth = other_hand("white_line_other_hand")
    assert_read_as_drawn(frame, truth)
    config = DetectConfig()
    blind = replace(config, reader=replace(config.reader, patch_white_lines=False))
    alone = detect(frame, corners=np.float32(truth["corners"]), edition="jumbo", config=blind).labels
    assert [alone[8][c] for c in range(3, 8)] == ["flipped"] * 5
