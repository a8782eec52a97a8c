"""10x10 label grids for reader-level tests: an empty board with some chips on it."""

from __future__ import annotations

from engine.layout import CORNERS, SIZE


def board_labels(cells: dict[tuple[int, int], str]) -> list[list[str]]:
    """Labels of an empty board (corners ``free``) with ``cells`` set as given."""
    labels = [["empty"] * SIZE for _ in range(SIZE)]
    for r, c in CORNERS:
        labels[r][c] = "free"
    for (r, c), v in cells.items():
        labels[r][c] = v
    return labels
