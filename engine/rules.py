"""Table rules from the rule sheets: players, teams, cards dealt, sequences needed, dead cards.

Small pure functions, like ``chess.Board.is_checkmate()``: each answers one question.
See docs/RULES.md for where the four rule sheets differ and what this code follows.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.board import Board
from engine.labels import TEAM_COLOURS
from engine.layout import CARD_CELLS

CARDS_DEALT: dict[int, int] = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}
"""Cards dealt to each player, by number of players (every rule sheet agrees)."""
PLAYER_COUNTS: tuple[int, ...] = tuple(sorted(CARDS_DEALT))
"""2 to 12 players, a number divisible by 2 or 3."""
MAX_INDIVIDUALS = 3
"""Up to this many players may play alone; more must form teams."""
TEAM_COUNTS: tuple[int, ...] = (2, 3)
SEQUENCES_NEEDED: dict[int, int] = {2: 2, 3: 1}
"""Sequences a team needs to win, by number of teams (or individual players)."""


def most_sequences_on_a_board() -> int:
    """The most completed sequences one board can hold, in any game: the winners' plus one
    short of that for each other team (two teams: 2 + 1; three teams: the first sequence wins).
    A reading with more is a misreading (``vision.flipped`` caps its white lines with it)."""
    return max(needed + (teams - 1) * (needed - 1) for teams, needed in SEQUENCES_NEEDED.items())


class RulesError(ValueError):
    """A table setup the rules do not allow; the message quotes the bad value."""


def is_valid_player_count(players: int) -> bool:
    """True for 2, 3, 4, 6, 8, 9, 10 or 12 players."""
    return players in CARDS_DEALT


def check_player_count(players: int) -> int:
    """Return ``players`` or raise ``RulesError`` explaining the allowed counts."""
    if not isinstance(players, int) or not is_valid_player_count(players):
        allowed = ", ".join(map(str, PLAYER_COUNTS))
        raise RulesError(f"{players!r} players cannot play Sequence; allowed: {allowed}")
    return players


def team_counts(players: int) -> tuple[int, ...]:
    """How many sides ``players`` may form: alone when up to 3, else 2 or 3 equal teams."""
    check_player_count(players)
    if players <= MAX_INDIVIDUALS:
        return (players,)
    return tuple(n for n in TEAM_COUNTS if players % n == 0)


def cards_dealt(players: int) -> int:
    """Cards dealt to each player."""
    return CARDS_DEALT[check_player_count(players)]


def sequences_needed(teams: int) -> int:
    """Sequences needed to win: two with two teams (or players), one with three."""
    if teams not in SEQUENCES_NEEDED:
        raise RulesError(f"{teams!r} teams cannot play; Sequence is played by 2 or 3 teams")
    return SEQUENCES_NEEDED[teams]


def validate_teams(teams: Iterable[str]) -> tuple[str, ...]:
    """Normalise team colour names (turn order kept): 2 or 3 distinct names from ``TEAM_COLOURS``.

    Accepts a sequence of names or one comma-separated string (``"blue,green"``).
    """
    raw_names = teams.split(",") if isinstance(teams, str) else list(teams)
    names = tuple(str(t).strip().lower() for t in raw_names)
    for raw, name in zip(raw_names, names, strict=True):
        if name not in TEAM_COLOURS:
            raise RulesError(f"unknown team colour {raw!r}; expected one of: {', '.join(TEAM_COLOURS)}")
    if len(set(names)) != len(names):
        raise RulesError(f"team colours must be distinct, got {list(names)!r}")
    if len(names) not in SEQUENCES_NEEDED:
        raise RulesError(f"{len(names)} team colours given ({list(names)!r}); Sequence needs 2 or 3 teams")
    return names


def next_team(teams: tuple[str, ...], team: str) -> str:
    """The team that plays after ``team``."""
    return teams[(teams.index(team) + 1) % len(teams)]


def dead_cards(board: Board) -> list[str]:
    """Cards whose two cells are both covered (a player holding one may exchange it), in layout order."""
    return [card for card, (a, b) in CARD_CELLS.items() if board.chip(a) is not None and board.chip(b) is not None]
