"""The printed layout table checked against the rule it is printed by (an independent generator)."""

from collections import Counter
from itertools import cycle

from engine.layout import CARD_CELLS, CELLS, CORNERS, FREE, LAYOUT, SIZE, card_at, cells_of, ink_of, twin_of


def spiral_cells(size: int) -> list[tuple[int, int]]:
    """Cells of a clockwise spiral from the top-left corner inward, ring by ring."""
    out = []
    for k in range(size // 2):
        lo, hi = k, size - 1 - k
        out += [(lo, c) for c in range(lo, hi + 1)]
        out += [(r, hi) for r in range(lo + 1, hi + 1)]
        out += [(hi, c) for c in range(hi - 1, lo - 1, -1)]
        out += [(r, lo) for r in range(hi - 1, lo, -1)]
    return out


def spiral_layout() -> list[list[str]]:
    """Spades 2->A, diamonds 2->A, clubs A->2, hearts A->2, repeated along the spiral."""
    up = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K", "A"]
    order = [r + "S" for r in up] + [r + "D" for r in up] + [r + "C" for r in up[::-1]]
    order += [r + "H" for r in up[::-1]]
    grid = [[FREE] * SIZE for _ in range(SIZE)]
    cards = cycle(order)
    corners = {(0, 0), (0, SIZE - 1), (SIZE - 1, 0), (SIZE - 1, SIZE - 1)}
    for cell in spiral_cells(SIZE):
        if cell not in corners:
            grid[cell[0]][cell[1]] = next(cards)
    return grid


def test_spiral_covers_every_cell_once():
    assert sorted(spiral_cells(SIZE)) == sorted(CELLS)


def test_layout_matches_the_spiral_rule():
    assert [list(row) for row in LAYOUT] == spiral_layout()


def test_each_card_exactly_twice_and_no_jacks():
    counts = Counter(card for row in LAYOUT for card in row)
    assert counts.pop(FREE) == 4
    assert set(counts.values()) == {2}
    assert len(counts) == 48
    assert not any(card.startswith("J") for card in counts)


def test_card_lookups_round_trip():
    for card, (a, b) in CARD_CELLS.items():
        assert card_at(a) == card_at(b) == card
        assert cells_of(card.lower()) == (a, b)
    assert [card_at(c) for c in CORNERS] == [FREE] * 4


def test_a_cells_twin_is_the_other_cell_of_its_card():
    for cell in CELLS:
        twin = twin_of(cell)
        assert card_at(twin) == card_at(cell)
        assert twin_of(twin) == cell
        assert (twin == cell) == (cell in CORNERS)
    assert twin_of((0, 1)) == cells_of("2S")[1]


def test_ink_follows_suit():
    assert ink_of((0, 1)) == "black"  # 2S
    assert ink_of((1, 5)) == "red"  # AH
    assert ink_of((0, 0)) is None


def test_the_picture_cells_are_every_queen_and_king_twice():
    """Vision matches the court cards' art with ``COURT_MAP``: the eight Queens and Kings of the
    four suits, each printed twice, and never a corner."""
    from engine.layout import COURT_MAP

    court = [(r, c) for r in range(10) for c in range(10) if COURT_MAP[r][c]]
    assert len(court) == 16
    assert sorted({card_at(cell) for cell in court}) == sorted(r + s for r in "QK" for s in "SDCH")
    assert not any(COURT_MAP[r][c] for r, c in CORNERS)
    assert COURT_MAP[1][6] and not COURT_MAP[1][5]  # row 1: ... 2C AH KH QH 10H ...: the King, not the Ace
