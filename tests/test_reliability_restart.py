"""Crash and restart: nothing lost, nothing doubled.

1. The real ``sequence-companion serve`` (a subprocess on a free port, temp ``--data-dir``) is
   SIGKILLed while a client keeps changing the game through the API; restarted, it resumes with
   every chip, lock, sequence count, turn and event of the acknowledged requests, plus at most the
   one request that was in flight, applied whole or not at all.
2. A power cut during writes: a child process appends event groups in a tight loop and is SIGKILLed
   at random moments; after each kill the SQLite log opens, passes its integrity check and holds
   exactly a whole-group prefix of what was written, which the next run continues.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engine.game import Game
from engine.layout import SIZE, is_corner
from engine.store import GameStore

PIN = "4826"
TEAMS = ("blue", "green")
COMPARED = ("board", "locked", "teams", "turn", "winner", "sequences")
"""What "the same game" means: every chip, lock, sequence count and whose turn."""


# ============================================================================ helpers


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def empty_board_folder(folder: Path) -> Path:
    """A one-frame 'recorded clip' of the empty board: the camera is a real source that ends."""
    import cv2

    from vision.sim import random_spec, render

    folder.mkdir(exist_ok=True)
    cv2.imwrite(str(folder / "frame-000.png"), render(random_spec(2, size=(640, 480)), empty=True).frame)
    return folder


def start_serve(data_dir: Path, frames: Path, port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--pin", PIN, "--data-dir", str(data_dir), "--source", str(frames)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Press Ctrl-C"):
            return proc
    proc.kill()
    raise AssertionError("serve did not start:\n" + "".join(lines) + proc.stderr.read())


def call(port: int, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    method = "GET" if path in ("/api/state", "/api/history") else "POST"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"X-PIN": PIN, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def script_actions(seed: int, n: int) -> list[tuple[str, Any]]:
    """Seeded corrections and undos; rows 1 and 8 fill up so sequences lock and unlock."""
    rng = random.Random(seed)
    actions: list[tuple[str, Any]] = []
    for _ in range(n):
        if rng.random() < 0.12:
            actions.append(("undo", None))
            continue
        r = rng.choice([1, 1, 8, 8, rng.randrange(SIZE)])
        c = rng.randrange(SIZE)
        if is_corner((r, c)):
            c = 4
        label = rng.choice(["blue", "blue", "green", "green", "empty"]) if r != 1 else "blue"
        label = "green" if r == 8 and label == "blue" else label
        actions.append(("correct", ((r, c), label)))
    return actions


def apply(game: Game, action: tuple[str, Any]) -> None:
    kind, arg = action
    if kind == "undo":
        game.undo()
    else:
        game.correct(*arg)


def expected_games(actions: list[tuple[str, Any]], acknowledged: int) -> list[Game]:
    """The game after the acknowledged actions, and after one more (the one in flight)."""
    out = []
    for count in (acknowledged, acknowledged + 1):
        game = Game(TEAMS)
        for action in actions[:count]:
            apply(game, action)
        out.append(game)
    return out


def picked(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state[key] for key in COMPARED}


def history_key(events: list[dict[str, Any]]) -> list[tuple]:
    return [(e["type"], e["cell"], e["cells"], e["team"], e["alert"], e["label"], e["group"]) for e in events]


# ============================================================================ SIGKILL of serve


@pytest.mark.slow
def test_serve_killed_mid_game_resumes_with_every_chip_lock_and_event(tmp_path) -> None:
    frames = empty_board_folder(tmp_path / "frames")
    data = tmp_path / "data"
    port = free_port()
    actions = script_actions(seed=11, n=400)
    acked = 0
    stop = threading.Event()
    proc = start_serve(data, frames, port)

    def player() -> None:
        nonlocal acked
        for kind, arg in actions:
            if stop.is_set():
                return
            try:
                if kind == "undo":
                    call(port, "/api/undo", {})
                else:
                    call(port, "/api/correct", {"cell": list(arg[0]), "label": arg[1]})
            except (urllib.error.URLError, http.client.HTTPException, OSError):
                # the server died under us (before the reply, or in the middle of its body, which
                # http.client reports as IncompleteRead): this request may or may not have been applied
                return
            acked += 1

    try:
        thread = threading.Thread(target=player, daemon=True)
        thread.start()
        kill_after = random.Random(5).randint(40, 80)
        deadline = time.monotonic() + 60
        while acked < kill_after and time.monotonic() < deadline:
            time.sleep(0.001)
        proc.send_signal(signal.SIGKILL)  # mid-game, with a request very likely in flight
        proc.communicate(timeout=10)
        stop.set()
        thread.join(15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert acked >= 40, "the game did not get going before the kill"
    before, in_flight = expected_games(actions, acked)
    assert before.locked, "the script should have locked a sequence by now"

    proc = start_serve(data, frames, port)
    try:
        state = call(port, "/api/state")
        history = call(port, "/api/history")["events"]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    candidates = [g for g in (before, in_flight) if picked(g.state()) == picked(state)]
    assert candidates, f"resumed state matches neither the acknowledged game nor one more step:\n{state['board']}"
    game = candidates[0]
    assert history_key(history) == history_key([e.to_dict() for e in game.history])
    groups = [e["group"] for e in history]
    assert groups == sorted(groups), "events out of order"
    assert len({(e["group"], e["type"], str(e["cell"]), str(e["cells"])) for e in history}) == len(history)


# ============================================================================ power cut during writes

GROUPS_PER_GAME = 120


def scripted_groups(seed: int = 3, positions: list[dict[str, Any]] | None = None) -> list[list[dict[str, Any]]]:
    """A deterministic game fed by 'camera' observations: one event group per change.

    Teams alternate placing chips, mostly along their own row, so five-in-a-rows lock (groups of
    several events: the placement, the sequence, the win) until someone wins.
    """
    rng = random.Random(seed)
    game = Game(TEAMS)
    labels = [["free" if is_corner((r, c)) else "empty" for c in range(SIZE)] for r in range(SIZE)]
    free = [(r, c) for r in range(SIZE) for c in range(SIZE) if not is_corner((r, c))]
    rng.shuffle(free)
    lanes = [(r, c) for r in (2, 7) for c in range(SIZE) if not is_corner((r, c))]  # fills rows: sequences
    groups: list[list[dict[str, Any]]] = []
    turn = 0
    while len(groups) < GROUPS_PER_GAME and free and game.winner is None:
        team = game.turn or TEAMS[turn % 2]
        mine = [cell for cell in lanes if labels[cell[0]][cell[1]] == "empty" and (cell[0] == 2) == (team == "blue")]
        cell = mine[0] if mine and rng.random() < 0.7 else free[-1]
        free.remove(cell)
        labels[cell[0]][cell[1]] = team
        events = game.observe([row[:] for row in labels])
        if events:
            groups.append([e.to_dict() for e in events])
            if positions is not None:
                positions.append(picked(game.state()))  # the live game's position after this group
        turn += 1
    return groups


def child_main(data_dir: str) -> None:
    """The writer killed by the test: resume (or start) the game and append the next groups forever."""
    groups = scripted_groups()
    store = GameStore(data_dir)
    while True:
        resumed = store.resume_last()
        if resumed is None or resumed[1].winner is not None or len(_groups_of(resumed[1])) >= len(groups):
            game_id, done = store.new_game(Game(TEAMS)), 0
        else:
            game_id, done = resumed[0], len(_groups_of(resumed[1]))
        from engine.events import Event

        for group in groups[done:]:
            store.append(game_id, [Event.from_dict(e) for e in group])
            print(game_id, flush=True)


def _groups_of(game: Game) -> list[int]:
    return sorted({e.group for e in game.history})


def stored_games(path: Path) -> dict[int, list[dict[str, Any]]]:
    """Every game's events straight from the SQLite file (read-only, no help from the store)."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        games: dict[int, list[dict[str, Any]]] = {gid: [] for (gid,) in con.execute("SELECT id FROM games")}
        for gid, event in con.execute("SELECT game_id, event FROM events ORDER BY game_id, seq"):
            games[gid].append(json.loads(event))
    finally:
        con.close()
    return games


@pytest.mark.slow
def test_power_cut_during_writes_leaves_only_whole_event_groups(tmp_path) -> None:
    positions: list[dict[str, Any]] = []
    groups = scripted_groups(positions=positions)
    assert any(len(g) > 1 for g in groups), "the script needs multi-event groups to test atomicity"
    boundaries = {0}
    total = 0
    for group in groups:
        total += len(group)
        boundaries.add(total)
    flat = [e for g in groups for e in g]
    here = Path(__file__).parent
    code = f"import sys; sys.path.insert(0, {str(here)!r}); import test_reliability_restart as t; " \
           f"t.child_main({str(tmp_path)!r})"
    rng = random.Random(8)
    written_before = 0
    for round_ in range(6):
        child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        assert child.stdout.readline(), child.stderr.read()  # it is writing
        time.sleep(rng.uniform(0.05, 0.4))
        child.send_signal(signal.SIGKILL)  # the power cut: no handler, no flush, no close
        child.communicate(timeout=10)
        with GameStore(tmp_path) as store:  # opens (and recovers) without a complaint
            resumed = store.resume_last()
        assert resumed is not None
        games = stored_games(tmp_path / "games.sqlite3")
        written = 0
        for gid in sorted(games):
            events = games[gid]
            assert len(events) in boundaries, f"round {round_}: game {gid} holds a partial group"
            assert events == flat[: len(events)], f"round {round_}: game {gid} is not what was written"
            written += len(events)
        assert written > written_before, f"round {round_}: nothing new was written"
        written_before = written
        last_id, game = resumed
        done = sorted(boundaries).index(len(games[last_id]))
        if done:  # chips, locks, sequences and whose turn, exactly as the live game had them
            assert picked(game.state()) == positions[done - 1], f"round {round_}: resumed position differs"
