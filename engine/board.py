"""``Board``: a mutable 10x10 Sequence position and its text notation.

The notation is 10 lines of 10 characters, row 0 first (see ``engine.layout``):
``*`` a printed free corner, ``.`` an empty cell, ``B G R Y`` a chip of that colour
(letters from ``engine.labels.LETTER``), lower case a locked (flipped) chip.
Corners never hold chips; a corner counts for every team (see ``engine.sequences``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.labels import COLOUR_OF_LETTER, EMPTY_CHAR, FREE_CHAR, LETTER, TEAM_COLOURS, Label
from engine.layout import CELLS, SIZE, Cell, in_bounds, is_corner


@dataclass(frozen=True)
class Chip:
    """A marker chip: its team colour and whether it is locked in a completed sequence."""

    colour: str
    locked: bool = False

    @property
    def letter(self) -> str:
        """Text-notation character: upper case, lower case when locked."""
        letter = LETTER[self.colour]
        return letter.lower() if self.locked else letter


# One shared instance per (colour, locked): boards hold references, never fresh chips.
CHIPS: dict[tuple[str, bool], Chip] = {(c, lk): Chip(c, lk) for c in TEAM_COLOURS for lk in (False, True)}

CORNER_INDICES: frozenset[int] = frozenset(r * SIZE + c for r, c in CELLS if is_corner((r, c)))


class BoardTextError(ValueError):
    """The text is not a valid board notation; the message quotes the bad part."""


class LineCountError(BoardTextError):
    """The text does not have exactly 10 lines."""


class LineLengthError(BoardTextError):
    """A line does not have exactly 10 characters."""


class UnknownCharacterError(BoardTextError):
    """A character is not ``* . B G R Y`` (or lower case)."""


class ChipOnCornerError(BoardTextError):
    """A chip is written on one of the four printed free corners."""


class CornerNotFreeError(BoardTextError):
    """A corner cell is written as something other than ``*``."""


class FreeOffCornerError(BoardTextError):
    """A ``*`` is written on a cell that is not one of the four corners."""


def cell_index(cell: Cell) -> int:
    """Flat index ``row * 10 + col`` of ``cell``; raises ``ValueError`` when off the board."""
    try:
        r, c = cell
        inside = in_bounds((r, c)) and isinstance(r, int) and isinstance(c, int)
    except (TypeError, ValueError):
        inside = False
    if not inside:
        raise ValueError(f"cell {cell!r} is not a (row, col) pair inside the 10x10 board")
    return r * SIZE + c


class Board:
    """A 10x10 position: ``None`` (empty or corner) or a ``Chip`` per cell.

    Mutable like ``chess.Board``; ``copy()`` is cheap (one list of 100 references).
    """

    __slots__ = ("_cells",)
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(self) -> None:
        self._cells: list[Chip | None] = [None] * (SIZE * SIZE)

    @classmethod
    def empty(cls) -> Board:
        """A board with no chips."""
        return cls()

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Parse the 10-line notation (surrounding blank lines and trailing spaces are ignored)."""
        lines = [line.rstrip() for line in text.strip().splitlines()]
        if len(lines) != SIZE:
            raise LineCountError(f"board text has {len(lines)} lines, expected {SIZE}: {text!r}")
        board = cls()
        for r, line in enumerate(lines):
            if len(line) != SIZE:
                raise LineLengthError(f"board line {r} has {len(line)} characters, expected {SIZE}: {line!r}")
            for c, char in enumerate(line):
                board._cells[r * SIZE + c] = _parse_char(char, (r, c), line)
        return board

    def to_text(self) -> str:
        """The 10-line notation, lines joined by ``\\n`` (no trailing newline)."""
        rows = []
        for r in range(SIZE):
            chars = []
            for c in range(SIZE):
                chip = self._cells[r * SIZE + c]
                if chip is not None:
                    chars.append(chip.letter)
                else:
                    chars.append(FREE_CHAR if is_corner((r, c)) else EMPTY_CHAR)
            rows.append("".join(chars))
        return "\n".join(rows)

    def chip(self, cell: Cell) -> Chip | None:
        """The chip on ``cell``, or None for an empty cell or a corner."""
        return self._cells[cell_index(cell)]

    def set_chip(self, cell: Cell, chip: Chip | None) -> None:
        """Put ``chip`` on ``cell`` (None clears it); corners refuse chips."""
        index = cell_index(cell)
        if chip is not None and index in CORNER_INDICES:
            raise ValueError(f"cell {cell!r} is a free corner and cannot hold a chip")
        self._cells[index] = chip

    def place(self, cell: Cell, colour: str, *, locked: bool = False) -> None:
        """Put a ``colour`` chip on ``cell`` (replacing whatever is there)."""
        if colour not in LETTER:
            raise ValueError(f"unknown chip colour {colour!r}; expected one of: {', '.join(TEAM_COLOURS)}")
        self.set_chip(cell, CHIPS[colour, locked])

    def remove(self, cell: Cell) -> None:
        """Clear ``cell``."""
        self.set_chip(cell, None)

    def chips(self) -> dict[Cell, Chip]:
        """Every chip on the board by cell, in reading order."""
        return {CELLS[i]: chip for i, chip in enumerate(self._cells) if chip is not None}

    def to_labels(self, *, flipped: bool = False) -> list[list[str]]:
        """The 10x10 labels a camera should report; locked chips read ``flipped`` when asked."""
        out = []
        for r in range(SIZE):
            row = []
            for c in range(SIZE):
                chip = self._cells[r * SIZE + c]
                if chip is None:
                    row.append(Label.FREE.value if is_corner((r, c)) else Label.EMPTY.value)
                elif chip.locked and flipped:
                    row.append(Label.FLIPPED.value)
                else:
                    row.append(chip.colour)
            out.append(row)
        return out

    def copy(self) -> Board:
        """An independent copy."""
        other = Board.__new__(Board)
        other._cells = self._cells.copy()
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self._cells == other._cells

    def __repr__(self) -> str:
        return f"Board.from_text('''\n{self.to_text()}\n''')"

    def __str__(self) -> str:
        return self.to_text()


def _parse_char(char: str, cell: Cell, line: str) -> Chip | None:
    corner = is_corner(cell)
    if char == FREE_CHAR:
        if not corner:
            raise FreeOffCornerError(f"'*' at {cell} in {line!r}: only the four corners are free")
        return None
    if corner:
        if char.upper() in COLOUR_OF_LETTER:
            raise ChipOnCornerError(f"chip {char!r} on free corner {cell} in {line!r}")
        raise CornerNotFreeError(f"corner {cell} must be '*', got {char!r} in {line!r}")
    if char == EMPTY_CHAR:
        return None
    colour = COLOUR_OF_LETTER.get(char.upper())
    if colour is None:
        raise UnknownCharacterError(
            f"unknown character {char!r} at {cell} in {line!r}; expected * . B G R Y (lower case = locked)"
        )
    return CHIPS[colour, char.islower()]
