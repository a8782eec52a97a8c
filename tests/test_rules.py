"""Table rules: player counts, teams, cards dealt, sequences needed, team colours, dead cards."""

import pytest

from engine.board import Board
from engine.layout import cells_of
from engine.rules import (
    RulesError,
    cards_dealt,
    check_player_count,
    dead_cards,
    most_sequences_on_a_board,
    next_team,
    sequences_needed,
    team_counts,
    validate_teams,
)


@pytest.mark.parametrize("players", [2, 3, 4, 6, 8, 9, 10, 12])
def test_valid_player_counts(players):
    assert check_player_count(players) == players
    assert players % 2 == 0 or players % 3 == 0


@pytest.mark.parametrize("players", [0, 1, 5, 7, 11, 13, 14, "4"])
def test_invalid_player_counts_are_refused_quoting_the_count(players):
    with pytest.raises(RulesError, match=repr(players).replace("'", ".")):
        check_player_count(players)


@pytest.mark.parametrize(("players", "cards"), [(2, 7), (3, 6), (4, 6), (6, 5), (8, 4), (9, 4), (10, 3), (12, 3)])
def test_cards_dealt(players, cards):
    assert cards_dealt(players) == cards


@pytest.mark.parametrize(
    ("players", "sides"), [(2, (2,)), (3, (3,)), (4, (2,)), (6, (2, 3)), (8, (2,)), (9, (3,)), (10, (2,)), (12, (2, 3))]
)
def test_teams_for_a_player_count(players, sides):
    assert team_counts(players) == sides


def test_a_finished_game_leaves_at_most_three_sequences():
    # two teams: the winners' two and the losers' one; three teams: the first sequence wins
    assert most_sequences_on_a_board() == sequences_needed(2) + sequences_needed(2) - 1 == 3


def test_sequences_needed():
    assert sequences_needed(2) == 2
    assert sequences_needed(3) == 1
    with pytest.raises(RulesError):
        sequences_needed(4)


def test_validate_teams():
    assert validate_teams(["Blue", " green "]) == ("blue", "green")
    assert validate_teams("yellow,red,blue") == ("yellow", "red", "blue")
    with pytest.raises(RulesError, match="'purple'"):
        validate_teams(["blue", "purple"])
    with pytest.raises(RulesError, match="distinct"):
        validate_teams(["blue", "blue"])
    with pytest.raises(RulesError, match="2 or 3"):
        validate_teams(["blue"])
    with pytest.raises(RulesError, match="2 or 3"):
        validate_teams(["blue", "green", "red", "yellow"])


def test_next_team_wraps():
    teams = ("yellow", "red", "blue")
    assert [next_team(teams, t) for t in teams] == ["red", "blue", "yellow"]


def test_dead_cards_need_both_cells_covered():
    board = Board.empty()
    a, b = cells_of("7D")
    board.place(a, "blue")
    assert dead_cards(board) == []
    board.place(b, "green", locked=True)
    assert dead_cards(board) == ["7D"]
    c, d = cells_of("AS")
    board.place(c, "red")
    board.place(d, "red")
    assert sorted(dead_cards(board)) == ["7D", "AS"]
