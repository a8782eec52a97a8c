"""A colour no clear chip shows is not a team of the game: its doubtful chips take a team in play."""

import numpy as np
from labelgrids import board_labels
from other_hand import assert_read_as_drawn, other_hand

from vision.colour import ColourModel
from vision.detect import DetectConfig, detect
from vision.sim import random_spec, render
from vision.teams import TeamsPrior, colours_in_play, recoloured_to_teams_in_play

NAMES = ("blue", "green", "red")


def _game(green: int, red: int, doubtful_blue: list[tuple[int, int]]) -> tuple[list[list[str]], np.ndarray]:
    """``green`` and ``red`` clear chips (confidence 1) row by row from (1, 0), and blue chips
    read at confidence 0.05 on ``doubtful_blue``."""
    free = [(r, c) for r in range(1, 9) for c in range(10) if (r, c) not in doubtful_blue]
    cells = {cell: "green" for cell in free[:green]}
    cells.update({cell: "red" for cell in free[green:green + red]})
    cells.update({cell: "blue" for cell in doubtful_blue})
    conf = np.ones((10, 10), np.float32)
    for r, c in doubtful_blue:
        conf[r, c] = 0.05
    return board_labels(cells), conf


def _dist(labels: list[list[str]], nearest: dict[tuple[int, int], str]) -> np.ndarray:
    """Prototype distances: 1 to the cell's own colour, 2 to the colour ``nearest`` names for it,
    9 to the rest."""
    dist = np.full((10, 10, len(NAMES)), 9.0, np.float32)
    for r in range(10):
        for c in range(10):
            if labels[r][c] in NAMES:
                dist[r, c, NAMES.index(labels[r][c])] = 1.0
    for (r, c), name in nearest.items():
        dist[r, c, NAMES.index(name)] = 2.0
    return dist


LOGIT = np.full((10, 10), 8.0, np.float32)


def test_doubtful_chips_of_a_colour_no_clear_chip_shows_take_the_nearest_team_in_play():
    blue = [(9, 3), (9, 5)]
    labels, conf = _game(20, 18, blue)
    out, new_conf = recoloured_to_teams_in_play(labels, conf, LOGIT, _dist(labels, {(9, 3): "green", (9, 5): "red"}),
                                                NAMES)
    assert (out[9][3], out[9][5]) == ("green", "red")
    assert new_conf[9, 3] > 0.9  # green is far nearer than red: no doubt left about the colour
    unchanged = [(r, c) for r in range(10) for c in range(10) if (r, c) not in blue]
    assert all(out[r][c] == labels[r][c] and new_conf[r, c] == conf[r, c] for r, c in unchanged)


def test_a_clear_chip_of_the_colour_puts_its_team_in_play():
    labels, conf = _game(20, 18, [(9, 3), (9, 5)])
    labels[8][8] = "blue"  # one clear blue chip: blue is a team of this game
    out, _ = recoloured_to_teams_in_play(labels, conf, LOGIT, _dist(labels, {(9, 3): "green", (9, 5): "red"}), NAMES)
    assert (out[9][3], out[9][5]) == ("blue", "blue")


def test_early_in_a_game_too_few_clear_chips_to_tell_the_teams():
    labels, conf = _game(5, 5, [(9, 3)])
    assert colours_in_play(np.asarray(labels, dtype=object).ravel(), conf.ravel(), TeamsPrior()) is None
    out, _ = recoloured_to_teams_in_play(labels, conf, LOGIT, _dist(labels, {(9, 3): "green"}), NAMES)
    assert out[9][3] == "blue"


def test_a_team_whose_chips_all_read_doubtful_is_still_a_team():
    """Blue chips as many as a team's are a team, read unsure (say in a dim corner), not a tint."""
    blue = [(9, c) for c in range(1, 9)]
    labels, conf = _game(20, 18, blue)
    out, _ = recoloured_to_teams_in_play(labels, conf, LOGIT, _dist(labels, {cell: "green" for cell in blue}), NAMES)
    assert all(out[r][c] == "blue" for r, c in blue)


def test_a_sure_reading_keeps_its_colour():
    labels, conf = _game(20, 18, [(9, 3)])
    conf[9, 3] = 0.8  # unsure enough not to show blue in play, too sure to be recoloured
    out, _ = recoloured_to_teams_in_play(labels, conf, LOGIT, _dist(labels, {(9, 3): "green"}), NAMES)
    assert out[9][3] == "blue"


def test_green_chips_glare_tints_cyan_read_green_in_a_green_and_red_game():
    """Seed 9660 (hard, classic): a lamp over green felt; the reader's hue rule calls three green
    chips blue, unsure, beside dozens of clear green and red chips (five until the patch
    network's refit on other chip sets)."""
    scene = render(random_spec(9660, edition="classic", difficulty="hard"))
    teams = {v for row in scene.labels for v in row} - {"free", "empty"}
    assert teams == {"green", "red"}
    cells = [(0, 1), (2, 0), (2, 2)]
    assert all(scene.labels[r][c] == "green" for r, c in cells)
    alone = detect(scene.frame, corners=scene.corners, edition="classic", config=DetectConfig(teams=None))
    assert [alone.labels[r][c] for r, c in cells] == ["blue"] * 3
    det = detect(scene.frame, corners=scene.corners, edition="classic")
    assert [det.labels[r][c] for r, c in cells] == ["green"] * 3
    assert not any(v == "blue" for row in det.labels for v in row)
    assert ColourModel.default("classic").labels == NAMES  # the order the unit tests above assume


def _court_board(art: tuple[float, float, float], *, clear_reds: int = 6, clipped: float = 0.0):
    """Labels, confidence, core colours ``(100, 3)`` and clipped shares ``(100,)``: ``clear_reds``
    red chips (L 58, a 75, b 22, confidence 1) on plain cards and a "red chip" of colour ``art``
    on the Queen of Hearts at (1, 7), ``clipped`` of it clipped; the other cells card colour."""
    from engine.layout import card_at, is_court

    assert card_at((1, 7)) == "QH" and is_court((1, 7))
    cells = {(r, 1): "red" for r in range(1, 1 + clear_reds)}
    cells[(1, 7)] = "red"
    labels = np.asarray(board_labels(cells), dtype=object).reshape(-1)
    conf = np.where(labels == "red", 1.0, 0.99).astype(np.float32)
    conf[17] = 0.8
    lab = np.tile(np.float32([90.0, 2.0, 8.0]), (100, 1))
    lab[labels == "red"] = (58.0, 75.0, 22.0)
    lab[17] = art
    clip = np.zeros(100, np.float32)
    clip[17] = clipped
    return labels, conf, lab, clip


def test_court_art_far_greyer_and_darker_than_its_teams_chips_is_not_a_chip():
    """A Queen's dull brown-red robe (drawn by another hand) read as a red chip beside the
    frame's bright red chips is the card's art; a red chip on a court card that is only a little
    greyer (shadowed), or greyed by glare (lighter, or clipped), or a frame with too few clear
    red chips to compare, is left as read."""
    from vision.teams import court_art_read_as_chips

    robe = (48.0, 18.0, 18.0)  # chroma 0.32 of the team's, darker
    assert np.flatnonzero(court_art_read_as_chips(*_court_board(robe))).tolist() == [17]
    for colour in ((52.0, 55.0, 18.0), (85.0, 15.0, 8.0)):  # shadowed chip (0.74); washed out (lighter)
        assert not court_art_read_as_chips(*_court_board(colour)).any(), colour
    assert not court_art_read_as_chips(*_court_board(robe, clipped=0.5)).any()
    assert not court_art_read_as_chips(*_court_board(robe, clear_reds=2)).any()
    assert not court_art_read_as_chips(*_court_board(robe), TeamsPrior(court_chroma=0.0)).any()


def test_a_board_whose_court_art_another_hand_drew_reads_its_queens_empty():
    """A Jumbo mat from a renderer written apart from ``vision.sim`` (its Queens framed figures in
    dull brown-red), cropped from a 1280x720 frame: both networks read seven empty Queens as red
    chips (confidence 0.61 to 0.95); every cell is read as drawn, true corners given or none."""
    assert_read_as_drawn(*other_hand("court_art_other_hand"))


def _lab_of_hue(hue: float) -> np.ndarray:
    """White-balanced Lab of a chip colour of this display hue (degrees), saturation 0.7."""
    import cv2

    from vision.colour import balanced_lab

    bgr = cv2.cvtColor(np.float32([[[hue, 0.7, 0.75]]]), cv2.COLOR_HSV2BGR)
    return balanced_lab(bgr).reshape(3)


def _hue_board(team_hues: dict[str, float], cell_colour: str, cell_hue: float, *, clear: int = 5,
               confidence: float = 0.0):
    """Labels, confidence and core colours ``(100, 3)``: ``clear`` chips of each team (confidence
    1) of its hue, and at (9, 5) a chip read ``cell_colour`` at ``confidence`` of hue ``cell_hue``."""
    cells = {}
    for k, team in enumerate(team_hues):
        cells.update({(1 + k, c): team for c in range(clear)})
    cells[(9, 5)] = cell_colour
    labels = np.asarray(board_labels(cells), dtype=object).reshape(-1)
    conf = np.ones(100, np.float32)
    conf[95] = confidence
    lab = np.tile(np.float32([95.0, 0.0, 2.0]), (100, 1))
    for team, hue in team_hues.items():
        lab[labels == team] = _lab_of_hue(hue)
    lab[95] = _lab_of_hue(cell_hue)
    return labels, conf, lab


def test_a_doubtful_chip_of_one_teams_hue_takes_that_teams_colour():
    """Teal green chips of another set: one on a court card read blue at confidence 0 has the hue
    of the frame's clear green chips, and no clear blue chip is near it, so it is green. A chip the
    reader was sure of, one of no team's hue, one between two teams' hues, or a frame with too few
    clear chips of the team is left as read."""
    from vision.teams import recoloured_like_sure_chips

    def read(*args, prior=None, **kwargs):
        return recoloured_like_sure_chips(*_hue_board(*args, **kwargs), prior or TeamsPrior())[95]

    greens = {"green": 161.0, "red": 0.0}
    assert read(greens, "blue", 163.0) == "green"
    assert read(greens, "blue", 163.0, confidence=0.95) == "blue"  # the reader was sure
    assert read(greens, "blue", 225.0) == "blue"  # a blue hue: no clear chip says otherwise
    assert read(greens, "blue", 163.0, clear=2) == "blue"  # two clear greens are no measure
    assert read(greens, "blue", 163.0, prior=TeamsPrior(like_hue=0.0)) == "blue"
    reds = {"red": 0.0, "yellow": 50.0}
    assert read(reds, "yellow", 8.0) == "red"  # an orange-red of the red team
    assert read(reds, "yellow", 15.0) == "yellow"  # too far from the red team to say
    near = {"red": 0.0, "yellow": 20.0}  # two teams' hues closer than like_apart: no call
    assert read(near, "yellow", 5.0) == "yellow"


def test_a_board_whose_green_chips_another_hand_painted_teal_reads_them_green():
    """A classic board from a third renderer written apart from ``vision.sim`` (its green chips
    teal, hue 161), cropped from a 1920x1080 frame: the patch network was sure six of them, on
    court cards, were blue (the reader's confidence 0.0), until its refit on other chip sets;
    beside the frame's 22 clear green chips of the same hue they are green either way. Every
    cell is read as drawn, true corners given or none."""
    frame, truth = other_hand("teal_greens_other_hand")
    assert_read_as_drawn(frame, truth)
