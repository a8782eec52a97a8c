"""Board notation: round trip, strict parsing, copies and equality."""

import pytest

from engine.board import (
    Board,
    BoardTextError,
    Chip,
    ChipOnCornerError,
    CornerNotFreeError,
    FreeOffCornerError,
    LineCountError,
    LineLengthError,
    UnknownCharacterError,
)

EMPTY = "\n".join(["*........*"] + [".........."] * 8 + ["*........*"])

SAMPLE = """
*B......G*
.bbbbb....
..R.......
...Y......
....g.....
..........
..........
..........
..........
*........*
"""


def test_empty_board_text():
    assert Board.empty().to_text() == EMPTY
    assert Board.from_text(EMPTY) == Board.empty()


def test_round_trip_and_chips():
    board = Board.from_text(SAMPLE)
    assert board.to_text() == SAMPLE.strip()
    assert board.chip((0, 1)) == Chip("blue", False)
    assert board.chip((1, 3)) == Chip("blue", True)
    assert board.chip((4, 4)) == Chip("green", True)
    assert board.chip((3, 3)) == Chip("yellow")
    assert board.chip((0, 0)) is None
    assert board.chip((5, 5)) is None


def test_repr_shows_the_text_and_evaluates_back():
    board = Board.from_text(SAMPLE)
    assert SAMPLE.strip() in repr(board)
    assert eval(repr(board), {"Board": Board}) == board


def test_copy_is_independent():
    board = Board.from_text(SAMPLE)
    other = board.copy()
    other.place((5, 5), "red")
    assert board.chip((5, 5)) is None
    assert board != other


def test_corner_refuses_a_chip():
    with pytest.raises(ValueError, match="corner"):
        Board.empty().place((9, 9), "blue")


def test_to_labels():
    labels = Board.from_text(SAMPLE).to_labels(flipped=True)
    assert labels[0][:2] == ["free", "blue"]
    assert labels[1][1] == "flipped"
    assert labels[5][5] == "empty"
    assert Board.from_text(SAMPLE).to_labels()[1][1] == "blue"


@pytest.mark.parametrize(
    ("text", "error", "quoted"),
    [
        ("\n".join(EMPTY.splitlines()[:9]), LineCountError, "9 lines"),
        (EMPTY.replace("*........*", "*.......*", 1), LineLengthError, "'*.......*'"),
        (EMPTY.replace("..........", "....X.....", 1), UnknownCharacterError, "'X'"),
        (EMPTY.replace("*........*", "B........*", 1), ChipOnCornerError, "'B'"),
        (EMPTY.replace("*........*", ".........*", 1), CornerNotFreeError, "'.'"),
        (EMPTY.replace("..........", "...*......", 1), FreeOffCornerError, "'...*......'"),
    ],
)
def test_strict_parsing_quotes_the_bad_input(text, error, quoted):
    with pytest.raises(error) as info:
        Board.from_text(text)
    assert isinstance(info.value, BoardTextError)
    assert isinstance(info.value, ValueError)
    assert quoted in str(info.value)


@pytest.mark.parametrize("cell", [(10, 0), (-1, 3), (1,), "a1", (1.0, 2)])
def test_bad_cells_are_value_errors(cell):
    with pytest.raises(ValueError, match="cell"):
        Board.empty().chip(cell)
