"""The engine runs on the standard library alone: import and use it with cv2, numpy, flask blocked."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import sys

    BLOCKED = {"cv2", "numpy", "flask", "werkzeug", "waitress", "segno"}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, Blocker())
    for name in list(sys.modules):
        if name.split(".")[0] in BLOCKED:
            del sys.modules[name]

    import tempfile

    from engine import Board, Event, Game, GameStore, find_sequences
    from engine.rules import dead_cards

    game = Game(("blue", "green"), track_turns=False)
    labels = game.expected_labels()
    for c in range(1, 5):
        labels[0][c] = "blue"
        game.observe([row.copy() for row in labels])
    assert len(game.sequences["blue"]) == 1
    assert len(find_sequences(Board.from_text(game.board.to_text()), "blue")) == 1
    assert dead_cards(game.board) == []
    assert Event.from_dict(game.history[0].to_dict()) == game.history[0]
    with tempfile.TemporaryDirectory() as tmp:
        store = GameStore(tmp)
        game_id = store.new_game(game)
        store.close()
        assert GameStore(tmp).load(game_id).board == game.board
    assert not [m for m in sys.modules if m.split(".")[0] in BLOCKED]
    print("engine ok")
    """
)


def test_engine_needs_only_the_standard_library():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "engine ok"


def test_the_blocker_really_blocks():
    probe = SCRIPT.split("import tempfile")[0] + "\nimport numpy\n"
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "numpy is blocked" in result.stderr
