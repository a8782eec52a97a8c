"""GameStore: resume after restart, export, concurrency, and refusing files that are not ours."""

import itertools
import json
import sqlite3
import threading

import pytest

from engine import Game, GameStore
from engine.paths import default_data_dir
from engine.store import DB_NAME, GameNotFoundError, StoreError, _now


def play(game, store, game_id, moves):
    """Feed camera views placing ``moves`` (cell, team) and append each event group."""
    labels = game.expected_labels()
    for (r, c), team in moves:
        labels[r][c] = team
        events = game.observe([row.copy() for row in labels])
        store.append(game_id, events, game=game)


SEQUENCE_MOVES = [((0, 1), "blue"), ((5, 5), "green"), ((0, 2), "blue"), ((5, 6), "green"), ((0, 3), "blue")]
SEQUENCE_MOVES += [((6, 6), "green"), ((0, 4), "blue"), ((7, 7), "green")]


def test_resume_after_restart_keeps_chips_locks_and_turn(tmp_path):
    store = GameStore(tmp_path)
    game = Game(("blue", "green"))
    game_id = store.new_game(game)
    play(game, store, game_id, SEQUENCE_MOVES)
    game.correct((9, 5), "green")
    store.append(game_id, game.history[-1:], game=game)
    store.close()

    again = GameStore(tmp_path)  # a new process after a crash
    resumed_id, resumed = again.resume_last()
    assert resumed_id == game_id
    assert resumed.board == game.board
    assert resumed.locked == game.locked == frozenset((0, c) for c in range(1, 5))
    assert resumed.sequences == game.sequences
    assert resumed.turn == game.turn == "blue"
    assert resumed.state() == game.state()
    # The resumed game goes on: the locked chip is still protected.
    labels = resumed.expected_labels()
    labels[0][2] = "empty"
    assert [e.alert for e in resumed.observe(labels)] == ["locked_removed"]


def test_resume_picks_the_latest_game_and_lists_them(tmp_path):
    store = GameStore(tmp_path)
    assert store.resume_last() is None
    first = store.new_game(Game(("blue", "green")))
    game = Game(("yellow", "red", "blue"), edition="jumbo")
    second = store.new_game(game)
    play(game, store, second, [((2, 2), "yellow")])
    assert store.resume_last()[0] == second
    play(Game(("blue", "green")), store, first, [((3, 3), "blue")])
    assert store.resume_last()[0] == first
    listing = store.list_games()
    assert [g["id"] for g in listing] == [first, second]
    assert listing[1]["teams"] == ["yellow", "red", "blue"] and listing[1]["edition"] == "jumbo"


def test_write_stamps_keep_their_order_within_one_millisecond():
    """Games are ordered by their last update's stamp: a burst of writes faster than the clock's
    millisecond still gets strictly later stamps."""
    stamps = [_now() for _ in range(200)]
    assert all(a < b for a, b in itertools.pairwise(stamps))


def test_export_is_json_and_replays(tmp_path):
    store = GameStore(tmp_path)
    game = Game(("blue", "green", "red"), track_turns=False)
    game_id = store.new_game(game)
    play(game, store, game_id, [((r, 3), "red") for r in range(2, 7)])
    exported = json.loads(json.dumps(store.export(game_id)))
    assert exported["winner"] == "red" and exported["board"] == game.board.to_text()
    assert store.list_games()[0]["winner"] == "red"
    assert Game.from_events(exported["config"], exported["events"]).state() == game.state()


def test_unknown_game_id(tmp_path):
    store = GameStore(tmp_path)
    with pytest.raises(GameNotFoundError, match="42"):
        store.load(42)
    with pytest.raises(GameNotFoundError):
        store.append(42, Game().correct((3, 3), "blue"))


def test_concurrent_appends_from_threads(tmp_path):
    store = GameStore(tmp_path)
    ids = [store.new_game(Game()) for _ in range(4)]

    def worker(game_id):
        game = Game(track_turns=False)
        for c in range(1, 9):
            store.append(game_id, game.correct((2, c), "blue"), game=game)

    threads = [threading.Thread(target=worker, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for game_id in ids:
        assert len(store.load(game_id).sequences["blue"]) == 1
        assert store.load(game_id).board.to_text().splitlines()[2] == ".bbbbbBBB."


def test_wal_and_marker(tmp_path):
    GameStore(tmp_path).close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA application_id").fetchone()[0] != 0
        assert conn.execute("SELECT value FROM meta WHERE key = 'application'").fetchone()[0] == "sequence-companion"
    finally:
        conn.close()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def foreign_sqlite(path):
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('my recipes')")
    conn.commit()
    conn.close()


def truncated_ours(path):
    GameStore(path.parent).close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + b"\xff" * 7)


def scrambled_ours(path):
    GameStore(path.parent).close()
    data = bytearray(path.read_bytes())
    data[100:] = bytes((b * 7 + 3) % 256 for b in data[100:])
    path.write_bytes(bytes(data))


def text_file(path):
    path.write_text("these are not the games you are looking for\n" * 10)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (text_file, "not a SQLite database"),
        (foreign_sqlite, "another program"),
        (truncated_ours, "damaged|not a SQLite"),
        (scrambled_ours, "damaged|marker"),
    ],
)
def test_foreign_or_corrupt_file_is_refused_and_untouched(tmp_path, make, match):
    path = tmp_path / DB_NAME
    make(path)
    before = path.read_bytes()
    names = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(StoreError, match=match) as info:
        GameStore(tmp_path)
    assert isinstance(info.value, ValueError)
    assert "left untouched" in str(info.value) and str(path) in str(info.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(DB_NAME + "-")) == names


def test_default_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("SEQUENCE_COMPANION_DATA", str(tmp_path / "mine"))
    assert default_data_dir() == tmp_path / "mine"
    monkeypatch.delenv("SEQUENCE_COMPANION_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "sequence-companion"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_data_dir() == tmp_path / "home" / ".local" / "share" / "sequence-companion"


def test_winner_listing_follows_undo_without_the_game(tmp_path):
    store = GameStore(tmp_path)
    game = Game(("blue", "green", "red"), track_turns=False)
    game_id = store.new_game(game)
    labels = game.expected_labels()
    for r in range(2, 7):
        labels[r][3] = "red"
        store.append(game_id, game.observe([row.copy() for row in labels]))
    assert store.list_games()[0]["winner"] == "red"
    store.append(game_id, game.undo())
    assert store.list_games()[0]["winner"] is None


def test_missing_game_is_a_lookup_error_and_write_failures_are_os_errors(tmp_path):
    store = GameStore(tmp_path)
    with pytest.raises(LookupError):
        store.export(7)
    game_id = store.new_game(Game())
    store.close()
    reopened = GameStore(tmp_path)
    reopened._conn.execute("PRAGMA query_only = ON")
    with pytest.raises(OSError, match="cannot write"):
        reopened.append(game_id, Game().correct((3, 3), "blue"))
