"""Camera faults during a game, end to end: fake devices -> real source -> real Pipeline -> Hub -> real Game.

A camera unplugged mid-game and plugged back, a stream that freezes, black frames, a network
camera whose reads time out: the page's state (``/api/state`` and the live stream) shows what
happened, no phantom move reaches the engine, tracking resumes by itself and no move is lost.

The tracker is a stand-in that reads a "board number" painted into each frame (the real
tracker across an unplug is covered in ``test_pipeline.py``); everything after it is real.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import pytest
from fakecams import factory_of
from waiting import wait_for as poll_until

from companion_web.app import create_app
from companion_web.hub import Hub
from companion_web.pipeline import Pipeline, PipelineConfig
from engine.layout import SIZE, is_corner
from vision.sources import SourceConfig, open_source

Game = pytest.importorskip("engine.game").Game

FAST_SOURCE = SourceConfig(backoff_initial_s=0.05, backoff_max_s=0.1, failed_reads_to_drop=3,
                           failed_read_pause_s=0.005, frozen_after_s=0.2)
FAST = PipelineConfig(read_timeout_s=0.02, stall_after_s=0.4)
MOVES = [((1, 1), "blue"), ((8, 8), "green"), ((1, 2), "blue"), ((8, 7), "green"), ((1, 3), "blue"),
         ((8, 6), "green"), ((1, 4), "blue"), ((8, 5), "green"), ((1, 5), "blue")]
"""A legal game: turns alternate and blue's fifth chip in row 1 completes a sequence."""


def labels_after(moves: int) -> list[list[str]]:
    grid = [["free" if is_corner((r, c)) else "empty" for c in range(SIZE)] for r in range(SIZE)]
    for (r, c), team in MOVES[:moves]:
        grid[r][c] = team
    return grid


def picture(board: int) -> np.ndarray:
    """A frame showing 'board number' ``board`` in its blue channel, over a gradient (never frozen)."""
    image = np.full((48, 64, 3), 110, np.uint8)
    image[:, :, 0] = 60 + board
    image[:, :, 1] = np.arange(64, dtype=np.uint8)[None, :] + 40
    return image


@dataclass
class BoardNumberTracker:
    """Commits board ``n`` once it has been seen in ``stable`` consecutive frames."""

    stable: int = 3
    seen: int = 0
    run: int = 0
    last: int | None = None
    committed: int | None = None

    def update(self, frame: np.ndarray, *, t: float, index: int):
        board = int(frame[0, 0, 0]) - 60
        self.seen += 1
        self.run = self.run + 1 if board == self.last else 1
        self.last = board
        commit = None
        if self.run >= self.stable and board != self.committed:
            self.committed, commit = board, labels_after(board)
        return Update(state="live", committed=commit, labels=labels_after(board))


@dataclass
class Update:
    state: str
    committed: list | None
    labels: list
    corners: None = None
    message: str = ""


class Capture:
    """A cv2.VideoCapture look-alike: plays ``frames`` (None = a failed read), then fails reads.

    ``read_delay_s`` makes every read slow, like a network camera whose reads time out.
    """

    def __init__(self, frames: list[np.ndarray | None], *, opened: bool = True, period_s: float = 0.008,
                 read_delay_s: float = 0.0) -> None:
        self.frames = list(frames)
        self.opened, self.period_s, self.read_delay_s = opened, period_s, read_delay_s
        self.released = False
        self.gate = threading.Event()

    def isOpened(self) -> bool:
        return self.opened

    def read(self):
        time.sleep(self.period_s + self.read_delay_s)
        if not self.frames:
            self.gate.wait(0.05)
            return False, None
        frame = self.frames.pop(0)
        return (frame is not None), frame

    def release(self) -> None:
        self.released = True


HOLD = 6
"""Each board stays in view HOLD times as many frames as given (the live slot may skip some)."""


def boards(*spec: tuple[int, int]) -> list[np.ndarray]:
    """``(board, frames)`` pairs -> frames."""
    return [picture(b) for b, n in spec for _ in range(n * HOLD)]


@dataclass
class Table:
    """A running game: the hub and page of ``serve`` fed by a pipeline over a fake camera."""

    source: object
    hub: Hub
    pipeline: Pipeline
    client: object
    messages: list[dict] = field(default_factory=list)
    states: list[str] = field(default_factory=list)

    def camera_states(self) -> list[str]:
        """Camera states in the order the page was told (from the live stream)."""
        self.drain()
        out: list[str] = []
        for message in self.messages:
            state = message["state"]["camera"]["state"]
            if not out or out[-1] != state:
                out.append(state)
        return out

    def drain(self) -> None:
        while True:
            try:
                text = self._subscriber.get(0.0)
            except EOFError:
                return
            if text is None:
                return
            data = "".join(line[6:] for line in text.splitlines() if line.startswith("data: "))
            self.messages.append(json.loads(data))

    def page_camera(self) -> str:
        return self.client.get("/api/state").get_json()["camera"]["state"]

    def moves(self) -> list[tuple[tuple[int, int], str]]:
        return [(tuple(e["cell"]), e["team"]) for e in self.hub.history() if e["type"] == "placed"]

    def event_types(self) -> list[str]:
        return [e["type"] for e in self.hub.history()]


def start_table(tmp_path, spec, factory, *, config: SourceConfig = FAST_SOURCE) -> Table:
    hub = Hub(Game(("blue", "green")))
    source = open_source(spec, capture_factory=factory, config=config)
    pipeline = Pipeline(source, BoardNumberTracker(), on_board=hub.observe, on_status=hub.set_camera_status,
                        config=FAST)
    app = create_app({"HUB": hub, "PIN": "1234", "DATA_DIR": tmp_path})
    table = Table(source, hub, pipeline, app.test_client())
    table._subscriber, _first = hub.subscribe()
    pipeline.start()
    return table


def stop_table(table: Table) -> None:
    table.pipeline.stop()
    table.source.close()


def wait_for(predicate, timeout: float = 10.0) -> bool:
    """The shared poller with this module's longer default: whole games run behind it."""
    return poll_until(predicate, timeout)


def assert_whole_game(table: Table, moves: int) -> None:
    """Exactly the moves played, in order, each once; nothing but moves and their sequences."""
    assert table.moves() == MOVES[:moves]
    assert set(table.event_types()) <= {"placed", "sequence"}, table.hub.history()
    if moves >= 9:
        assert table.hub.state()["locked"], "blue's five in a row should be locked"


def test_camera_unplugged_mid_game_and_plugged_back(tmp_path) -> None:
    before = Capture(boards((0, 5), (1, 5), (2, 5), (3, 5)))
    unplugged = Capture([], opened=False)
    # while it was away, one move was played: the camera comes back on board 4
    after = Capture(boards((4, 8), (5, 6), (6, 6), (7, 6), (8, 6), (9, 40)))
    table = start_table(tmp_path, 0, factory_of(before, unplugged, unplugged, unplugged, after))
    try:
        assert wait_for(lambda: len(table.moves()) >= 9)
        assert wait_for(lambda: table.page_camera() in ("camera_lost", "live"))
    finally:
        stop_table(table)
    states = table.camera_states()
    assert "camera_lost" in states and "reconnecting" in states, states
    assert "live" in states[states.index("reconnecting"):], states
    assert_whole_game(table, 9)  # the move made while unplugged is caught up, nothing invented
    assert before.released and after.released


def test_a_frozen_stream_is_shown_and_makes_no_move_then_tracking_resumes(tmp_path) -> None:
    live = boards((0, 4), (1, 5), (2, 5))
    stuck = [picture(3)] * 100  # the same picture for longer than frozen_after_s (a hung driver)
    moving = boards((4, 6), (5, 6), (6, 30))
    for i, frame in enumerate(moving):  # a changing gradient: a live picture again
        frame[0, 1:, 2] = i % 200
    camera = Capture(live + stuck + moving)
    table = start_table(tmp_path, 0, factory_of(camera))
    try:
        assert wait_for(lambda: "frozen" in table.camera_states())
        frozen_moves = len(table.moves())
        assert frozen_moves <= 3  # board 3 may have been committed before the freeze was noticed
        assert wait_for(lambda: len(table.moves()) >= 6)
    finally:
        stop_table(table)
    states = table.camera_states()
    assert "live" in states[states.index("frozen"):], states
    assert_whole_game(table, 6)


def test_black_frames_are_shown_as_dark_and_never_read_as_an_empty_board(tmp_path) -> None:
    black = [np.zeros((48, 64, 3), np.uint8)] * 60  # lens covered / light off: looks like "no chips"
    camera = Capture(boards((0, 4), (1, 5), (2, 5)) + black + boards((2, 4), (3, 5), (4, 30)))
    table = start_table(tmp_path, 0, factory_of(camera))
    try:
        assert wait_for(lambda: len(table.moves()) >= 4)
    finally:
        stop_table(table)
    states = table.camera_states()
    assert "dark" in states and "live" in states[states.index("dark"):], states
    assert_whole_game(table, 4)  # no "removed" for every chip when the picture went black


def test_network_camera_whose_reads_time_out_reconnects_without_moves(tmp_path) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)  # the URL probe only needs the port to answer
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/video.mjpg"
    first = Capture(boards((0, 4), (1, 5), (2, 5)))
    timing_out = Capture([None] * 10, read_delay_s=0.08)  # every read waits, then fails (FFmpeg timeout)
    back = Capture(boards((2, 4), (3, 6), (4, 6), (5, 30)))
    try:
        table = start_table(tmp_path, url, factory_of(first, timing_out, back))
        try:
            assert wait_for(lambda: len(table.moves()) >= 5)
        finally:
            stop_table(table)
    finally:
        listener.close()
    states = table.camera_states()
    assert "camera_lost" in states and "live" in states[states.index("camera_lost"):], states
    assert_whole_game(table, 5)
    assert timing_out.released


def test_page_state_follows_the_camera_while_it_is_away(tmp_path) -> None:
    """While unplugged the page says so (and keeps the board); after the limit it says it gave up."""
    config = SourceConfig(backoff_initial_s=0.05, backoff_max_s=0.05, failed_reads_to_drop=2,
                          failed_read_pause_s=0.005, max_reconnect_attempts=4)
    camera = Capture(boards((0, 4), (1, 5), (2, 8)))
    table = start_table(tmp_path, 0, factory_of(camera, Capture([], opened=False)), config=config)
    try:
        assert wait_for(lambda: len(table.moves()) == 2)
        assert wait_for(lambda: table.page_camera() == "reconnecting")
        assert table.client.get("/api/state").get_json()["board"].splitlines()[1][1] == "B"
        assert wait_for(lambda: table.page_camera() == "camera_lost")  # gave up: says so, no crash
        detail = table.client.get("/api/state").get_json()["camera"]["detail"]
        assert "gave up" in detail or "gone" in detail, detail
    finally:
        stop_table(table)
    assert_whole_game(table, 2)
