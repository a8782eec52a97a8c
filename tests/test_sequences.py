"""The sharing rule: runs of 5..11, crossings, shared corners, and an exhaustive reference."""

import random

import pytest

from engine.board import Board
from engine.layout import CORNERS, SIZE
from engine.sequences import (
    WINDOWS,
    WINDOWS_THROUGH,
    find_sequences,
    max_windows_in_run,
    select_windows,
)


def board_with(cells, colour="blue"):
    board = Board.empty()
    for cell in cells:
        if cell not in CORNERS:
            board.place(cell, colour)
    return board


def row_run(length, row=4, start=0):
    return [(row, c) for c in range(start, start + length)]


def test_window_table():
    assert len(WINDOWS) == 192
    assert len(set(WINDOWS)) == 192
    assert all(len(w) == 5 for w in WINDOWS)
    # A centre cell lies on 5 windows per direction; a corner on one per row/col/diagonal.
    assert len(WINDOWS_THROUGH[4 * SIZE + 4]) == 20
    assert len(WINDOWS_THROUGH[0]) == 3


@pytest.mark.parametrize(("length", "expected"), [(4, 0), (5, 1), (6, 1), (7, 1), (8, 1), (9, 2), (10, 2)])
def test_straight_runs_on_the_board(length, expected):
    assert len(find_sequences(board_with(row_run(length)), "blue")) == expected


def test_nine_in_a_row_is_five_plus_four_sharing_one_cell():
    first, second = find_sequences(board_with(row_run(9)), "blue")
    assert len(set(first) & set(second)) == 1


@pytest.mark.parametrize(("length", "expected"), [(8, 1), (9, 2), (11, 2), (12, 2), (13, 3)])
def test_runs_longer_than_the_board(length, expected):
    # Eleven in a row cannot be laid on a 10x10 board; the 1-D rule still answers it.
    assert max_windows_in_run(length) == expected


def test_crossing_at_one_cell_counts_twice():
    cells = row_run(5, row=4, start=2) + [(r, 4) for r in range(2, 7)]
    found = find_sequences(board_with(cells), "blue")
    assert len(found) == 2
    assert set(found[0]) & set(found[1]) == {(4, 4)}


def test_sharing_two_cells_counts_once():
    # Two overlapping windows of one line (start 0 and start 3) share two cells: 8 in a row.
    assert len(find_sequences(board_with(row_run(8)), "blue")) == 1


def test_corner_counts_for_every_team_at_once():
    board = board_with([(0, c) for c in range(1, 5)], "blue")
    for r in range(1, 5):
        board.place((r, 0), "green")
    assert find_sequences(board, "blue") == [((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))]
    assert find_sequences(board, "green") == [((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))]


def test_locked_chips_count_and_other_teams_block():
    board = Board.from_text(
        """
*bbbb....*
..........
..........
..........
GGGGBGGGG.
..........
..........
..........
..........
*........*
"""
    )
    assert len(find_sequences(board, "blue")) == 1
    assert find_sequences(board, "green") == []


def test_existing_sequences_constrain_new_ones():
    ten = [w for w in range(len(WINDOWS)) if all(r == 4 for r, _ in WINDOWS[w])]
    middle = next(w for w in ten if WINDOWS[w][0] == (4, 2))
    # 2 + 5 + 3: with the middle window recorded first, the ends cannot form another.
    assert select_windows(ten, existing=[middle]) == []
    first = next(w for w in ten if WINDOWS[w][0] == (4, 0))
    assert [WINDOWS[w][0] for w in select_windows(ten, existing=[first])] == [(4, 4)]


def brute_force_count(board, team):
    """Exact maximum independent set over complete windows (conflict = sharing two or more cells).

    Knows nothing about lines: splits the conflict graph into connected components and
    branches exhaustively inside each.
    """
    complete = [
        frozenset(w)
        for w in WINDOWS
        if all(c in CORNERS or (board.chip(c) and board.chip(c).colour == team) for c in w)
    ]
    conflicts = {
        i: {j for j, other in enumerate(complete) if j != i and len(w & other) > 1} for i, w in enumerate(complete)
    }

    def best(nodes):
        if not nodes:
            return 0
        first, rest = nodes[0], nodes[1:]
        with_first = 1 + best([n for n in rest if n not in conflicts[first]])
        return max(with_first, best(rest)) if conflicts[first] & set(rest) else with_first

    seen, total = set(), 0
    for start in range(len(complete)):
        if start in seen:
            continue
        component, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            component.append(node)
            for n in conflicts[node] - seen:
                seen.add(n)
                stack.append(n)
        total += best(sorted(component))
    return total


@pytest.mark.parametrize("seed", range(40))
def test_matches_exhaustive_search_on_random_boards(seed):
    rng = random.Random(seed)
    density = rng.uniform(0.4, 0.75)
    board = Board.empty()
    for r in range(SIZE):
        for c in range(SIZE):
            if (r, c) not in CORNERS and rng.random() < density:
                board.place((r, c), "blue")
    found = find_sequences(board, "blue")
    assert all(len(set(a) & set(b)) <= 1 for i, a in enumerate(found) for b in found[i + 1 :])
    assert len(found) == brute_force_count(board, "blue")
