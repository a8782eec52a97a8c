"""Game: moves, sequences and locks, wins, every alert kind, unknown cells, corrections, undo, replay."""

import json
import random

import pytest

from engine import Board, Event, Game
from engine import events as ev
from engine.labels import Label
from engine.layout import CELLS, CORNERS


class Table:
    """What the camera sees: a mutable 10x10 label grid starting from the game's expectation."""

    def __init__(self, game):
        self.game = game
        self.labels = game.expected_labels()

    def set(self, cell, label):
        self.labels[cell[0]][cell[1]] = label
        return self

    def look(self):
        return self.game.observe([row.copy() for row in self.labels])

    def play(self, cell, label=None):
        """Put a chip of the team to play (or ``label``) on ``cell`` and observe."""
        return self.set(cell, label or self.game.turn).look()


def types(events):
    return [e.type for e in events]


def alerts(events):
    return [e.alert for e in events if e.type == ev.ALERT]


def play_untracked(cells, team="blue", teams=("blue", "green")):
    game = Game(teams, track_turns=False)
    table = Table(game)
    out = []
    for cell in cells:
        out += table.play(cell, team)
    return game, table, out


def test_one_placement_and_turns():
    game = Game()
    table = Table(game)
    out = table.play((4, 4))
    assert types(out) == ["placed"]
    assert out[0].cell == (4, 4) and out[0].team == "blue"
    assert out[0].message == "Blue placed a chip on 5H (row 4, col 4)."
    assert game.turn == "green"
    assert table.look() == []  # the same view again: nothing new
    assert game.board.chip((4, 4)).colour == "blue"


def test_labels_may_be_label_enums():
    game = Game()
    grid = [[Label(x) for x in row] for row in game.expected_labels()]
    grid[2][3] = Label.BLUE
    assert types(game.observe(grid)) == ["placed"]


def test_sequence_locks_cells_and_two_teams_need_two():
    game, _, out = play_untracked([(0, c) for c in range(1, 5)])
    seq = [e for e in out if e.type == ev.SEQUENCE]
    assert len(seq) == 1 and seq[0].cells == ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))
    assert seq[0].message == "Blue completed a sequence! (1 of 2)"
    assert game.locked == frozenset((0, c) for c in range(1, 5))
    assert game.winner is None
    assert game.board.to_text().splitlines()[0] == "*bbbb....*"


def test_three_teams_win_with_one_sequence():
    game = Game(("yellow", "red", "blue"), edition="jumbo", track_turns=False)
    table = Table(game)
    out = []
    for r in range(2, 7):
        out += table.play((r, 5), "red")
    assert types(out)[-2:] == ["sequence", "win"]
    assert out[-1].message == "Red wins the game!"
    assert game.winner == "red" and game.needed == 1


def test_two_teams_win_with_second_sequence():
    cells = [(2, c) for c in range(0, 5)] + [(r, 2) for r in range(3, 7)]
    game, _, out = play_untracked(cells)
    assert types(out).count("sequence") == 2  # the column crosses the row at (2, 2)
    assert game.winner == "blue" and types(out)[-1] == "win"


def test_nine_in_a_row_completed_in_the_middle_gives_two_at_once():
    cells = [(4, c) for c in (0, 1, 2, 3, 5, 6, 7, 8, 4)]
    game, _, out = play_untracked(cells)
    last = [e for e in out if e.type == ev.SEQUENCE]
    assert len(last) == 2
    assert len(set(last[0].cells) & set(last[1].cells)) == 1
    assert game.winner == "blue"


def test_ten_in_a_row_left_to_right_is_two():
    game, _, out = play_untracked([(4, c) for c in range(10)])
    assert len(game.sequences["blue"]) == 2
    assert types(out).count("win") == 1


def test_middle_first_then_ends_is_one_only():
    # Rule sheet 003: 5+4 is two sequences, 2+5+3 is not.
    game, _, _ = play_untracked([(4, c) for c in (2, 3, 4, 5, 6, 0, 1, 7, 8, 9)])
    assert game.sequences["blue"] == [tuple((4, c) for c in range(2, 7))]
    assert game.winner is None


def test_eight_in_a_row_is_one():
    game, _, _ = play_untracked([(4, c) for c in range(8)])
    assert len(game.sequences["blue"]) == 1


def test_corner_shared_by_two_teams():
    game = Game(track_turns=False)
    table = Table(game)
    for i in range(1, 5):
        table.play((0, i), "blue")
        table.play((i, 0), "green")
    assert game.sequences["blue"] == [((0, 0), (0, 1), (0, 2), (0, 3), (0, 4))]
    assert game.sequences["green"] == [((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))]
    assert (0, 0) not in game.locked


def test_lock_survives_a_one_eyed_jack():
    game, table, _ = play_untracked([(0, c) for c in range(1, 5)])
    before = game.board
    out = table.set((0, 2), "empty").look()
    assert alerts(out) == [ev.LOCKED_REMOVED]
    assert out[0].message == "A locked blue chip was removed from 3S (row 0, col 2): put it back."
    assert game.board == before and (0, 2) in game.locked
    assert table.look() == []  # alert fires once
    assert table.set((0, 2), "blue").look() == []  # put back
    assert alerts(table.set((0, 2), "empty").look()) == [ev.LOCKED_REMOVED]  # removed again


def test_unlocked_chip_removal_is_accepted_and_passes_the_turn():
    game = Game()
    table = Table(game)
    table.play((3, 3))  # blue
    assert game.turn == "green"
    out = table.set((3, 3), "empty").look()  # green plays a one-eyed jack
    assert types(out) == ["removed"] and out[0].team == "blue"
    assert game.turn == "blue" and game.board.chip((3, 3)) is None


def test_colour_change_alerts_and_keeps_position():
    game = Game()
    table = Table(game)
    table.play((3, 3))
    out = table.set((3, 3), "green").look()
    assert alerts(out) == [ev.COLOUR_CHANGED]
    assert "now looks green" in out[0].message
    assert game.board.chip((3, 3)).colour == "blue"
    assert table.look() == []


def test_several_new_chips_at_once_are_not_applied():
    game = Game()
    table = Table(game)
    out = table.set((3, 3), "blue").set((6, 6), "blue").look()
    assert alerts(out) == [ev.MULTIPLE_PLACED]
    assert out[0].cells == ((3, 3), (6, 6))
    # Chips the camera sees at once may be a box or a cup on the board: say what to do for both.
    assert "Take back the extra chips" in out[0].message and "move whatever lies on those cells" in out[0].message
    assert game.board == Board.empty() and game.turn == "blue"
    assert table.look() == []
    # The extra chip is taken back: the remaining one is the move.
    out = table.set((6, 6), "empty").look()
    assert types(out) == ["placed"] and out[0].cell == (3, 3)


def test_new_chips_that_fit_the_next_turns_are_those_turns():
    """The camera missed two turns (a lamp went on): blue then green, seen at once."""
    game = Game()
    table = Table(game)
    out = table.set((3, 3), "green").set((6, 6), "blue").look()
    assert types(out) == ["placed", "placed"]
    assert [(e.cell, e.team) for e in out] == [((6, 6), "blue"), ((3, 3), "green")]
    assert game.turn == "blue" and not alerts(out)
    # each is its own turn: undo takes back the last one only
    game.undo()
    assert game.board.chip((3, 3)) is None and game.board.chip((6, 6)) is not None


def test_a_chip_put_down_and_one_taken_off_at_once_are_two_turns_in_order():
    """The camera missed a turn (an arm lay over the board, then it was bumped): green put a
    chip down, then blue took one of green's off, both seen at once (game 188002 of
    ``live_accuracy``, where the removal was taken first and green's move raised an alert)."""
    game = Game()
    table = Table(game)
    table.play((3, 3))  # blue
    table.play((5, 5))  # green
    table.play((6, 6))  # blue
    assert game.turn == "green"
    out = table.set((7, 7), "green").set((5, 5), "empty").look()
    assert [(e.type, e.cell, e.team) for e in out] == [("placed", (7, 7), "green"), ("removed", (5, 5), "green")]
    assert not alerts(out) and game.turn == "green"
    game.undo()  # each is its own turn
    assert game.board.chip((5, 5)) is not None and game.board.chip((7, 7)) is not None
    assert game.turn == "blue"


def test_a_removal_and_a_chip_of_the_team_not_to_play_keep_the_removal_first():
    game = Game()
    table = Table(game)
    table.play((3, 3))  # blue
    table.play((5, 5))  # green: blue to play, and blue takes green's chip off
    out = table.set((5, 5), "empty").set((7, 7), "green").look()
    assert [(e.type, e.cell) for e in out] == [("removed", (5, 5)), ("placed", (7, 7))]
    assert not alerts(out) and game.turn == "blue"


def test_missed_turns_with_a_chip_taken_off_among_them_are_those_turns_in_order():
    """The camera could not read part of the board for a while (game 198300 of
    ``live_accuracy``): yellow put a chip down, red one, blue took a yellow chip off with a
    one-eyed jack, and yellow put one down again; all four reach the engine at once. Only one
    order of turns explains them (red cannot have taken the chip off: blue then had no move)."""
    game = Game(["yellow", "red", "blue"], edition="jumbo")
    table = Table(game)
    table.play((3, 7))  # yellow
    table.play((4, 4))  # red
    table.play((6, 2))  # blue
    assert game.turn == "yellow"
    out = table.set((8, 6), "yellow").set((0, 1), "red").set((3, 7), "empty").set((3, 5), "yellow").look()
    assert not alerts(out)
    assert [(e.type, e.team) for e in out] == [
        ("placed", "yellow"), ("placed", "red"), ("removed", "yellow"), ("placed", "yellow")]
    assert {e.cell for e in out if e.type == "placed"} == {(8, 6), (0, 1), (3, 5)}
    assert game.turn == "red" and game.board.chip((3, 7)) is None
    game.undo()  # each is its own turn
    assert game.turn == "yellow" and game.board.chip((3, 7)) is None
    assert sum(game.board.chip(c) is not None for c in ((8, 6), (3, 5))) == 1


def test_missed_turns_that_fit_two_orders_stay_an_alert():
    """Blue to play; a blue chip and a green one appear and a green chip is gone: blue may have
    put its chip down, green its, and blue taken the green chip off, or blue taken it off first.
    The camera cannot tell which, so nothing is guessed."""
    game = Game()
    table = Table(game)
    table.play((2, 2))  # blue
    table.play((5, 5))  # green
    assert game.turn == "blue"
    out = table.set((3, 3), "blue").set((6, 6), "green").set((5, 5), "empty").look()
    assert alerts(out) == [ev.MULTIPLE_PLACED]
    assert game.board.chip((3, 3)) is None and game.board.chip((6, 6)) is None


def test_missed_turns_that_would_take_off_a_chip_just_locked_stay_an_alert():
    """Blue's new chip completes a line through the chip red took off: in the one order the
    turns allow, that chip was locked when red took it, which the rules forbid. Nothing is
    guessed."""
    game = Game(["blue", "green", "red"])
    table = Table(game)
    for cell in ((1, 1), (5, 5), (7, 7), (1, 2), (6, 5), (8, 8), (1, 3), (7, 5), (2, 8), (1, 5), (4, 0), (3, 8)):
        table.play(cell)
    assert game.turn == "blue"
    out = table.set((1, 4), "blue").set((3, 0), "green").set((1, 3), "empty").look()
    assert alerts(out) == [ev.MULTIPLE_PLACED]
    assert game.board.chip((1, 4)) is None and game.board.chip((3, 0)) is None


def test_new_chips_of_one_team_at_once_stay_an_alert():
    game = Game(["blue", "green", "red"])
    table = Table(game)
    out = table.set((3, 3), "blue").set((6, 6), "red").look()  # green's turn is missing
    assert alerts(out) == [ev.MULTIPLE_PLACED]
    assert game.board == Board.empty()


def test_several_chips_removed_at_once_are_not_applied():
    game, table, _ = play_untracked([(3, 3), (6, 6)])
    out = table.set((3, 3), "empty").set((6, 6), "empty").look()
    assert alerts(out) == [ev.MULTIPLE_REMOVED]
    assert game.board.chip((3, 3)) is not None and game.board.chip((6, 6)) is not None


def test_wrong_team_is_applied_with_an_alert():
    game = Game()
    table = Table(game)
    out = table.play((3, 3), "green")
    assert types(out) == ["placed", "alert"] and alerts(out) == [ev.WRONG_TEAM]
    assert out[1].message == "Green placed a chip on 5C (row 3, col 3), but it was Blue's turn."
    assert game.board.chip((3, 3)).colour == "green"
    assert game.turn == "blue"  # the turn follows what was played


def test_untracked_turns_never_alert_wrong_team():
    game, _, out = play_untracked([(3, 3), (3, 4)], team="green")
    assert game.turn is None and alerts(out) == []


def test_chip_on_corner():
    game = Game()
    out = Table(game).set((9, 0), "blue").look()
    assert alerts(out) == [ev.CHIP_ON_CORNER]
    assert "bottom-left free corner" in out[0].message
    assert game.board == Board.empty()


def test_flipped_where_nothing_is_locked():
    game = Game()
    table = Table(game)
    assert alerts(table.set((5, 5), "flipped").look()) == [ev.FLIPPED_UNLOCKED]
    table.set((5, 5), "empty").look()
    table.play((5, 6))
    assert alerts(table.set((5, 6), "flipped").look()) == [ev.FLIPPED_UNLOCKED]
    assert game.board.chip((5, 6)).colour == "blue"


def test_jumbo_flip_of_a_locked_chip_is_expected():
    game = Game(("yellow", "red", "blue"), edition="jumbo", track_turns=False)
    table = Table(game)
    for c in range(1, 6):
        table.play((1, c), "yellow")
    assert game.winner == "yellow"
    assert game.expected_labels()[1][1:6] == ["flipped"] * 5
    for c in range(1, 6):
        table.set((1, c), "flipped")
    assert table.look() == []
    assert table.set((1, 3), "yellow").look() == []  # a classic (unflipped) lock is fine too


def test_unknown_colour():
    game = Game()
    out = Table(game).set((2, 2), "red").look()
    assert alerts(out) == [ev.UNKNOWN_COLOUR]
    assert out[0].message == "A red chip is on 2D (row 2, col 2), but red is not playing in this game."


def test_unknown_cells_keep_their_last_view():
    game = Game()
    table = Table(game)
    table.play((3, 3))
    # A hand covers the chip and a neighbour: no removal, nothing at all.
    assert table.set((3, 3), "unknown").set((3, 4), "unknown").look() == []
    assert game.board.chip((3, 3)).colour == "blue"
    # A new chip under the hand is not seen until the hand leaves.
    assert table.look() == []
    out = table.set((3, 3), "blue").set((3, 4), "green").look()
    assert types(out) == ["placed"] and out[0].cell == (3, 4)


def test_alerts_pending_under_a_hand_do_not_refire_or_apply():
    game = Game()
    table = Table(game)
    table.set((3, 3), "blue").set((6, 6), "blue").look()
    # A hand hides one of the two: still two chips, no placement, no repeated alert.
    assert table.set((6, 6), "unknown").look() == []
    assert game.board == Board.empty()


def test_correction_sticks_until_the_camera_view_changes():
    game = Game()
    table = Table(game)
    out = game.correct((4, 4), "blue")  # the camera misses this chip
    assert types(out) == ["corrected"] and out[0].label == "blue"
    assert table.look() == []  # still reads empty: the correction holds
    assert game.board.chip((4, 4)).colour == "blue"
    # The camera's view changes (it now sees the chip): no event, it agrees.
    assert table.set((4, 4), "blue").look() == []
    # Later the chip really goes.
    assert types(table.set((4, 4), "empty").look()) == ["removed"]


def test_correction_after_camera_misread_overrides_it():
    game = Game()
    table = Table(game)
    table.play((4, 4), "blue")  # really a green chip misread as blue
    game.correct((4, 4), "green")
    assert table.look() == []  # camera still says blue: ignored
    assert game.board.chip((4, 4)).colour == "green"


def test_correcting_a_locked_chip_away_unlocks_its_sequence():
    game, _, _ = play_untracked([(0, c) for c in range(1, 5)])
    out = game.correct((0, 2), "empty")
    assert types(out) == ["corrected"]
    assert game.sequences["blue"] == [] and game.locked == frozenset()


def test_correction_completing_a_sequence():
    game, _, _ = play_untracked([(0, c) for c in range(1, 4)])
    out = game.correct((0, 4), "blue")
    assert types(out) == ["corrected", "sequence"]


@pytest.mark.parametrize(
    ("cell", "label", "match"),
    [
        ((0, 0), "blue", "corner"),
        ((3, 3), "unknown", "cannot correct"),
        ((3, 3), "red", "cannot correct"),
        ((3, 3), "flipped", "no locked chip"),
        ((3, 3), "purple", "unknown cell label"),
        ((10, 3), "blue", "cell"),
    ],
)
def test_bad_corrections_are_value_errors(cell, label, match):
    with pytest.raises(ValueError, match=match):
        Game().correct(cell, label)


def test_undo_reverts_a_move_and_its_sequence():
    game, table, _ = play_untracked([(0, c) for c in range(1, 4)])
    before = game.board
    table.play((0, 4), "blue")
    assert game.locked
    out = game.undo()
    assert types(out) == ["undone"]
    assert out[0].message == "Undone: Blue placed a chip on 5S (row 0, col 4)."
    assert game.board == before and game.locked == frozenset() and game.sequences["blue"] == []
    # The chip is still on the table: the camera's unchanged view does not replay it.
    assert table.look() == []
    assert game.undo() and game.board.chip((0, 3)) is None


def test_undo_restores_the_turn_and_the_winner():
    game = Game(("blue", "green", "red"))
    table = Table(game)
    for c in range(1, 5):
        table.play((0, c), "blue")
        table.play((5, c), "green")
        table.play((8, c), "red")
    assert game.winner == "blue"
    game.undo()
    game.undo()
    game.undo()
    assert game.winner is None and game.turn == "blue"
    assert Game().undo() == []


def test_bad_observations_are_value_errors():
    game = Game()
    with pytest.raises(ValueError, match="10 rows of 10"):
        game.observe([["empty"] * 10] * 9)
    grid = game.expected_labels()
    grid[1][1] = "purple"
    with pytest.raises(ValueError, match="'purple'"):
        game.observe(grid)


def test_dead_cards_and_state():
    game = Game()
    table = Table(game)
    table.play((0, 1))  # 2S
    table.play((8, 6))  # 2S again
    assert game.dead_cards() == ["2S"]
    state = json.loads(json.dumps(game.state()))
    assert state["board"] == game.board.to_text()
    assert state["teams"] == [{"team": "blue", "done": 0, "needed": 2}, {"team": "green", "done": 0, "needed": 2}]
    assert state["turn"] == "blue" and state["winner"] is None
    assert state["events"][-1]["cell"] == [8, 6]
    assert state["dead_cards"] == ["2S"]


def test_event_dict_round_trip_and_errors():
    event = Event(ev.SEQUENCE, cells=((0, 0), (0, 1)), team="blue", message="m", group=3)
    assert Event.from_dict(json.loads(json.dumps(event.to_dict()))) == event
    with pytest.raises(ValueError, match="'jump'"):
        Event.from_dict({"type": "jump"})
    with pytest.raises(ValueError, match="'colour'"):
        Event.from_dict({"type": "placed", "colour": "blue"})


def random_session(seed, teams=("blue", "green"), steps=150):
    """A seeded game with placements, removals, misreads, corrections, undos and hands."""
    rng = random.Random(seed)
    game = Game(teams, edition=rng.choice(["classic", "jumbo"]), track_turns=rng.random() < 0.7)
    table = Table(game)
    free = [c for c in CELLS if c not in CORNERS]
    for _ in range(steps):
        roll = rng.random()
        cell = rng.choice(free)
        if roll < 0.6:
            if game.board.chip(cell) is None:
                table.play(cell, game.turn or rng.choice(teams))
        elif roll < 0.7:
            table.set(cell, "empty").look()
        elif roll < 0.8:
            game.correct(cell, rng.choice(["empty", *teams]))
        elif roll < 0.85:
            game.undo()
        else:
            table.set(cell, "unknown").look()
            table.set(cell, game.expected_labels()[cell[0]][cell[1]])
    return game


@pytest.mark.parametrize("seed", range(8))
def test_replaying_the_history_rebuilds_the_same_game(seed):
    teams = ("blue", "green") if seed % 2 else ("yellow", "red", "blue")
    game = random_session(seed, teams)
    dicts = json.loads(json.dumps([e.to_dict() for e in game.history]))
    again = Game.from_events(game.config(), dicts)
    assert again.board == game.board
    assert again.state() == game.state()
    assert again.history == game.history
    # Undo keeps working after a replay, to the same position.
    game.undo()
    again.undo()
    assert again.board == game.board and again.turn == game.turn


def test_sequences_are_always_legal_in_random_games():
    for seed in range(20):
        game = random_session(seed, steps=250)
        for team, seqs in game.sequences.items():
            for i, a in enumerate(seqs):
                assert all(c in CORNERS or game.board.chip(c).colour == team for c in a)
                assert all(game.board.chip(c).locked for c in a if c not in CORNERS)
                assert all(len(set(a) & set(b)) <= 1 for b in seqs[i + 1 :])


def test_from_config_refuses_unknown_keys():
    with pytest.raises(ValueError, match="'players'"):
        Game.from_config({"teams": ["blue", "green"], "players": 4})
