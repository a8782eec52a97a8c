"""Sequences: five-in-a-row windows and the sharing rule.

A *window* is five consecutive cells of one line (a row, a column or a diagonal); the
board has 192 of them, precomputed at import. A window is *complete* for a team when each
of its cells holds a chip of that team or is a printed corner (corners count for every
team). Two sequences of one team may share at most ONE cell.

Two windows on different lines share at most one cell (two lines cross once), so the
sharing rule only bites between windows of the SAME line, where windows starting ``d``
cells apart share ``5 - d`` cells: they are compatible exactly when ``d >= 4``. The
largest compatible set is therefore the sum over lines of a 1-D problem (points at least
4 apart), which the earliest-first greedy choice solves exactly. That is why the search
is a loop, not a combinatorial search.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.board import CORNER_INDICES, Board
from engine.layout import SIZE, Cell

WINDOW_LENGTH = 5
MIN_GAP = WINDOW_LENGTH - 1
"""Windows of one line starting this many cells apart share exactly one cell."""

Sequence = tuple[Cell, ...]
_DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))


def _lines() -> list[list[Cell]]:
    """Every row, column and diagonal with at least five cells."""
    lines = []
    for dr, dc in _DIRECTIONS:
        for r in range(SIZE):
            for c in range(SIZE):
                # Start only where the previous cell along the direction is off the board.
                pr, pc = r - dr, c - dc
                if 0 <= pr < SIZE and 0 <= pc < SIZE:
                    continue
                line = []
                rr, cc = r, c
                while 0 <= rr < SIZE and 0 <= cc < SIZE:
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if len(line) >= WINDOW_LENGTH:
                    lines.append(line)
    return lines


LINES: tuple[tuple[Cell, ...], ...] = tuple(tuple(line) for line in _lines())

_windows: list[Sequence] = []
_line_of: list[int] = []
_start_of: list[int] = []
for _li, _line in enumerate(LINES):
    for _s in range(len(_line) - WINDOW_LENGTH + 1):
        _windows.append(_line[_s : _s + WINDOW_LENGTH])
        _line_of.append(_li)
        _start_of.append(_s)

WINDOWS: tuple[Sequence, ...] = tuple(_windows)
"""All 192 five-cell windows, grouped by line, each line in order of its start."""
WINDOW_LINE: tuple[int, ...] = tuple(_line_of)
"""``WINDOW_LINE[w]``: index into ``LINES`` of window ``w``."""
WINDOW_START: tuple[int, ...] = tuple(_start_of)
"""``WINDOW_START[w]``: position of window ``w``'s first cell along its line."""
WINDOW_ID: dict[Sequence, int] = {cells: w for w, cells in enumerate(WINDOWS)}
WINDOW_MASK: tuple[int, ...] = tuple(sum(1 << (r * SIZE + c) for r, c in cells) for cells in WINDOWS)
"""Bit ``r * 10 + c`` set for each cell of the window."""
WINDOWS_THROUGH: tuple[tuple[int, ...], ...] = tuple(
    tuple(w for w, cells in enumerate(WINDOWS) if (i // SIZE, i % SIZE) in cells) for i in range(SIZE * SIZE)
)
"""``WINDOWS_THROUGH[r * 10 + c]``: ids of the windows containing that cell."""
_WINDOW_AT: dict[tuple[int, int], int] = {(WINDOW_LINE[w], WINDOW_START[w]): w for w in range(len(WINDOWS))}
CORNER_MASK: int = sum(1 << i for i in CORNER_INDICES)
del _windows, _line_of, _start_of, _li, _line, _s


def team_mask(board: Board, team: str) -> int:
    """Bit mask of the cells that count for ``team``: its chips (locked or not) and the corners."""
    mask = CORNER_MASK
    for i, chip in enumerate(board._cells):
        if chip is not None and chip.colour == team:
            mask |= 1 << i
    return mask


def complete_windows(mask: int, candidates: Iterable[int] = range(len(WINDOWS))) -> list[int]:
    """Ids (among ``candidates``) of the windows whose five cells are all set in ``mask``."""
    return [w for w in candidates if mask & WINDOW_MASK[w] == WINDOW_MASK[w]]


def pick_starts(starts: Iterable[int], taken: Iterable[int] = ()) -> list[int]:
    """The 1-D rule on one line: the most window starts, pairwise at least ``MIN_GAP`` apart
    and at least ``MIN_GAP`` from every ``taken`` start, chosen earliest-first (exactly optimal).
    """
    taken = tuple(taken)
    chosen: list[int] = []
    for s in sorted(set(starts)):
        if chosen and s - chosen[-1] < MIN_GAP:
            continue
        if any(abs(s - t) < MIN_GAP for t in taken):
            continue
        chosen.append(s)
    return chosen


def select_windows(candidates: Iterable[int], existing: Iterable[int] = ()) -> list[int]:
    """The largest subset of ``candidates`` compatible with each other and with ``existing``.

    Compatible = sharing at most one cell, checked pairwise (a new sequence may share one
    cell with EACH existing sequence). Only windows of the same line can conflict, so the
    choice is ``pick_starts`` per line. Returns window ids in ascending order.
    """
    starts_by_line: dict[int, list[int]] = {}
    for w in candidates:
        starts_by_line.setdefault(WINDOW_LINE[w], []).append(WINDOW_START[w])
    if not starts_by_line:
        return []
    taken_by_line: dict[int, list[int]] = {}
    for w in existing:
        taken_by_line.setdefault(WINDOW_LINE[w], []).append(WINDOW_START[w])
    chosen = [
        _WINDOW_AT[line, s]
        for line, starts in starts_by_line.items()
        for s in pick_starts(starts, taken_by_line.get(line, ()))
    ]
    return sorted(chosen)


def max_windows_in_run(run_length: int) -> int:
    """How many sequences a straight run of ``run_length`` team cells holds (any length)."""
    return len(pick_starts(range(run_length - WINDOW_LENGTH + 1)))


def find_sequences(board: Board, team: str) -> list[Sequence]:
    """The largest set of ``team`` sequences the static position supports under the sharing rule.

    Each sequence is a tuple of five cells in line order; corners count for every team.
    """
    mask = team_mask(board, team)
    return [WINDOWS[w] for w in select_windows(complete_windows(mask))]
