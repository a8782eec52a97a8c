"""The printed Sequence board: one source of truth for cards, cells and ink.

Cells are ``(row, col)`` tuples. Row 0 is the printed row ``FREE 2S 3S .. 9S FREE``;
columns run left to right as printed. The classic board and the Jumbo mat print the
same layout (the Jumbo mat's cells are wider than tall; see ``EDITIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Cell = tuple[int, int]
Ink = Literal["red", "black"]

SIZE = 10
FREE = "FREE"

_ROWS = """
FREE 2S  3S  4S  5S  6S  7S  8S  9S  FREE
6C   5C  4C  3C  2C  AH  KH  QH  10H 10S
7C   AS  2D  3D  4D  5D  6D  7D  9H  QS
8C   KS  6C  5C  4C  3C  2C  8D  8H  KS
9C   QS  7C  6H  5H  4H  AH  9D  7H  AS
10C  10S 8C  7H  2H  3H  KH  10D 6H  2D
QC   9S  9C  8H  9H  10H QH  QD  5H  3D
KC   8S  10C QC  KC  AC  AD  KD  4H  4D
AC   7S  6S  5S  4S  3S  2S  2H  3H  5D
FREE AD  KD  QD  10D 9D  8D  7D  6D  FREE
"""

LAYOUT: tuple[tuple[str, ...], ...] = tuple(
    tuple(line.split()) for line in _ROWS.strip().splitlines()
)
"""``LAYOUT[row][col]`` is the card printed in that cell (``"10H"``) or ``"FREE"``."""

CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(SIZE) for c in range(SIZE))
CORNERS: tuple[Cell, ...] = ((0, 0), (0, SIZE - 1), (SIZE - 1, SIZE - 1), (SIZE - 1, 0))
"""The four printed free corners, in the order TL, TR, BR, BL."""

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Q", "K", "A")
"""Ranks printed on the board, low to high (Jacks are never printed)."""
SUITS: tuple[str, ...] = ("S", "D", "C", "H")
SUIT_INK: dict[str, Ink] = {"S": "black", "C": "black", "D": "red", "H": "red"}


@dataclass(frozen=True)
class Edition:
    """A printed edition: its name and the width/height ratio of its playing grid."""

    name: str
    grid_aspect: float
    description: str


EDITIONS: dict[str, Edition] = {
    "classic": Edition("classic", 1.0, "folding board, square cells"),
    "jumbo": Edition("jumbo", 32.0 / 27.0, "vinyl mat, 32 x 27 inches, cells wider than tall"),
}


def is_corner(cell: Cell) -> bool:
    """True for the four printed free corners."""
    return cell in CORNERS


def in_bounds(cell: Cell) -> bool:
    """True when ``cell`` is a (row, col) pair inside the 10x10 grid."""
    r, c = cell
    return 0 <= r < SIZE and 0 <= c < SIZE


def card_at(cell: Cell) -> str:
    """The card printed at ``cell`` (``"FREE"`` for a corner)."""
    if not in_bounds(cell):
        raise ValueError(f"cell {cell!r} is outside the 10x10 board")
    r, c = cell
    return LAYOUT[r][c]


def split_card(card: str) -> tuple[str, str]:
    """``"10H"`` -> ``("10", "H")``; raises ``ValueError`` for anything not printed."""
    rank, suit = card[:-1].upper(), card[-1:].upper()
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"{card!r} is not a card printed on the board (Jacks never are)")
    return rank, suit


def _index_cards() -> dict[str, tuple[Cell, Cell]]:
    where: dict[str, list[Cell]] = {}
    for cell in CELLS:
        where.setdefault(card_at(cell), []).append(cell)
    where.pop(FREE)
    return {card: (cells[0], cells[1]) for card, cells in where.items()}


CARD_CELLS: dict[str, tuple[Cell, Cell]] = _index_cards()
"""Each printed card -> its two cells, in reading order."""


def cells_of(card: str) -> tuple[Cell, Cell]:
    """The two cells where ``card`` is printed (``"10h"`` and ``"10H"`` both work)."""
    rank, suit = split_card(card)
    return CARD_CELLS[rank + suit]


def twin_of(cell: Cell) -> Cell:
    """The other cell printed with the same card as ``cell`` (a corner is its own twin).

    Every card but the Jacks is printed twice, so a cell's twin shows the same picture: vision
    uses this as a free reference of each cell's look, and the pairing as a layout pattern."""
    card = card_at(cell)
    if card == FREE:
        return cell
    a, b = CARD_CELLS[card]
    return b if cell == a else a


def ink_of(cell: Cell) -> Ink | None:
    """The suit ink of the card at ``cell``: ``"red"``, ``"black"``, or None for a corner."""
    card = card_at(cell)
    if card == FREE:
        return None
    return SUIT_INK[split_card(card)[1]]


INK_MAP: tuple[tuple[Ink | None, ...], ...] = tuple(
    tuple(ink_of((r, c)) for c in range(SIZE)) for r in range(SIZE)
)
"""``INK_MAP[row][col]``: red/black ink per cell; vision matches it to find orientation."""

COURT_RANKS: tuple[str, ...] = ("Q", "K")
"""Ranks printed as a picture (colourful art) rather than pips; Jacks are not on the board."""


def is_court(cell: Cell) -> bool:
    """Is ``cell`` printed with a Queen or King (a picture card)? False for the corners."""
    card = card_at(cell)
    return card != FREE and split_card(card)[0] in COURT_RANKS


COURT_MAP: tuple[tuple[bool, ...], ...] = tuple(tuple(is_court((r, c)) for c in range(SIZE)) for r in range(SIZE))
"""``COURT_MAP[row][col]``: the 16 picture cells; vision matches their art to the layout as well."""
