"""Frame sources: ordered files and folders, live cameras that drop, freeze or go dark, bad specs."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
from waiting import wait_for

from vision.sources import Frame, SimOptions, SourceConfig, SourceError, natural_key, open_source

FAST = SourceConfig(backoff_initial_s=0.05, backoff_max_s=0.2, failed_reads_to_drop=3,
                    failed_read_pause_s=0.01, frozen_after_s=0.2)


def picture(value: int, size: tuple[int, int] = (48, 64)) -> np.ndarray:
    """A BGR test picture whose identity is encoded in its pixels (plus a gradient)."""
    image = np.full((*size, 3), value, np.uint8)
    image[:, :, 1] = np.arange(size[1], dtype=np.uint8)[None, :]
    return image


class FakeCamera:
    """A ``cv2.VideoCapture`` look-alike: yields ``pictures`` then fails every read (a drop)."""

    def __init__(self, pictures: list[np.ndarray], *, opened: bool = True, period_s: float = 0.002) -> None:
        self.pictures = list(pictures)
        self.opened = opened
        self.period_s = period_s
        self.released = False
        self.reads = 0

    def isOpened(self) -> bool:
        return self.opened and not self.released

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(self.period_s)
        self.reads += 1
        if self.released or not self.pictures:
            return False, None
        return True, self.pictures.pop(0)

    def release(self) -> None:
        self.released = True


class CameraBench:
    """A factory handing out prepared fake cameras in turn (the last one is repeated)."""

    def __init__(self, *cameras: FakeCamera) -> None:
        self.cameras = list(cameras)
        self.handed: list[FakeCamera] = []
        self.lock = threading.Lock()

    def __call__(self, target: object) -> FakeCamera:
        with self.lock:
            camera = self.cameras.pop(0) if len(self.cameras) > 1 else self.cameras[0]
            self.handed.append(camera)
            return camera



# ------------------------------------------------------------------ ordered: folders, files


def test_folder_frames_come_in_natural_order_with_timestamps(tmp_path: Path) -> None:
    for i in range(12):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), picture(20 + 10 * i))
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source(str(tmp_path), fps=4) as source:
        frames = list(source.frames())
        assert source.state == "ended"
    assert [f.index for f in frames] == list(range(12))
    assert [f.t for f in frames] == pytest.approx([i / 4 for i in range(12)])
    assert [int(f.image[0, 0, 0]) for f in frames] == [20 + 10 * i for i in range(12)]
    assert all(f.image.dtype == np.uint8 and f.image.shape == (48, 64, 3) for f in frames)


def test_natural_key_orders_numbers_by_value() -> None:
    names = ["f10.png", "f2.png", "f1.png", "F3.png"]
    assert sorted(names, key=natural_key) == ["f1.png", "f2.png", "F3.png", "f10.png"]


def test_video_file_gives_every_frame_in_order(tmp_path: Path) -> None:
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 10, (64, 48))
    for i in range(25):
        writer.write(picture(30 + 8 * i))
    writer.release()
    with open_source(str(path)) as source:
        assert source.fps == pytest.approx(10)
        frames = list(source.frames())
    assert len(frames) == 25
    assert [f.t for f in frames] == pytest.approx([i / 10 for i in range(25)])
    brightness = [float(f.image[:, :, 0].mean()) for f in frames]
    assert brightness == sorted(brightness)  # the order survived (lossy codec, so no equality)


def test_black_frames_in_a_file_are_marked_dark(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "0.png"), picture(120))
    cv2.imwrite(str(tmp_path / "1.png"), np.zeros((48, 64, 3), np.uint8))
    with open_source(str(tmp_path)) as source:
        qualities = [f.quality for f in source.frames()]
    assert qualities == ["ok", "dark"]


def test_unreadable_image_in_a_folder_is_skipped_keeping_indices(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "0.png"), picture(100))
    (tmp_path / "1.png").write_bytes(b"truncated")
    cv2.imwrite(str(tmp_path / "2.png"), picture(140))
    with open_source(str(tmp_path)) as source:
        assert [f.index for f in source.frames()] == [0, 2]


# ------------------------------------------------------------------ live: cameras


def test_camera_that_drops_and_comes_back_reconnects_and_releases() -> None:
    first = FakeCamera([picture(50)] * 0 + [picture(40 + i) for i in range(10)])
    unplugged = FakeCamera([], opened=False)
    second = FakeCamera([picture(150 + i) for i in range(10)])
    bench = CameraBench(first, unplugged, second, FakeCamera([], opened=False))
    seen_states: list[str] = []
    values: list[int] = []
    with open_source(0, capture_factory=bench, config=FAST) as source:
        assert source.live
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not (
            values and values[-1] >= 150 and seen_states[-1:] == ["connected"]
        ):
            frame = source.read(timeout=0.01)
            if frame is not None:
                values.append(int(frame.image[0, 0, 0]))
            if not seen_states or seen_states[-1] != source.state:
                seen_states.append(source.state)
    assert "reconnecting" in seen_states
    assert source.drops == 1
    assert seen_states.index("reconnecting") < len(seen_states) - 1 - seen_states[::-1].index("connected")
    assert any(v < 150 for v in values) and any(v >= 150 for v in values)
    assert values == sorted(values)  # newest-only slot: never an older frame after a newer one
    assert first.released and unplugged.released and second.released


def test_live_slot_keeps_only_the_newest_frame() -> None:
    camera = FakeCamera([picture(i) for i in range(200)], period_s=0.0005)
    bench = CameraBench(camera, FakeCamera([], opened=False))
    with open_source(0, capture_factory=bench, config=FAST) as source:
        assert wait_for(lambda: not camera.pictures)
        frame = source.read(timeout=1)
        assert frame is not None and frame.index >= 190  # the old ones were dropped, not queued
        assert source.read(timeout=0.05) is None  # and nothing newer is pending
        assert source.latest() is frame


def test_black_frames_from_a_camera_report_dark_then_recover() -> None:
    black = [np.zeros((48, 64, 3), np.uint8)] * 30
    camera = FakeCamera(black + [picture(120 + (i % 50)) for i in range(2000)], period_s=0.003)
    with open_source(0, capture_factory=CameraBench(camera), config=FAST) as source:
        assert wait_for(lambda: source.state == "dark")
        frame = source.latest()
        assert frame is not None and frame.quality == "dark"
        assert "black" in source.detail
        assert wait_for(lambda: source.state == "connected")
        assert source.read(timeout=1).quality == "ok"


def test_frozen_stream_is_reported_after_the_configured_time() -> None:
    still = picture(90)
    camera = FakeCamera([still.copy() for _ in range(400)] + [picture(200)] * 0, period_s=0.002)
    with open_source(0, capture_factory=CameraBench(camera), config=FAST) as source:
        time.sleep(0.05)
        assert source.state == "connected"  # identical for less than frozen_after_s: fine
        assert wait_for(lambda: source.state == "frozen", timeout=3)
        assert source.latest().quality == "frozen"


def test_close_stops_the_thread_and_releases_the_device() -> None:
    camera = FakeCamera([picture(100 + i % 50) for i in range(300)], period_s=0.001)
    source = open_source(0, capture_factory=CameraBench(camera), config=FAST)
    assert source.read(timeout=2) is not None
    source.close()
    assert camera.released
    assert source.state == "ended"
    assert source.read(timeout=0.01) is None


class ModeCamera(FakeCamera):
    """A webcam with a few modes that starts in 640x480, as most do, and takes the nearest mode
    to the frame size asked (as V4L2 drivers do); it records what it was asked, in order."""

    MODES = ((640, 480), (1280, 720), (1920, 1080))

    def __init__(self, frames: int = 200) -> None:
        super().__init__([], period_s=0.002)
        self.frames = frames
        self.mode = self.MODES[0]
        self.asked: list[tuple[int, float]] = []

    def set(self, prop: int, value: float) -> bool:
        self.asked.append((prop, value))
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            self.mode = min(self.MODES, key=lambda m: abs(m[0] - value))
        return True

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FRAME_WIDTH: self.mode[0], cv2.CAP_PROP_FRAME_HEIGHT: self.mode[1],
                cv2.CAP_PROP_FPS: 30.0}.get(prop, 0.0)

    def read(self) -> tuple[bool, np.ndarray | None]:
        time.sleep(self.period_s)
        if self.released or self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, picture(100 + self.frames % 50, size=(self.mode[1], self.mode[0]))


def test_a_webcam_is_asked_for_hd_frames_again_on_every_reconnect() -> None:
    first, second = ModeCamera(frames=5), ModeCamera()
    bench = CameraBench(first, second)
    with open_source(0, fps=10, capture_factory=bench, config=FAST) as source:
        assert wait_for(lambda: len(bench.handed) >= 2 and source.state == "connected", timeout=5)
        frame = source.read(timeout=2)
    assert frame is not None and frame.image.shape == (720, 1280, 3)
    for camera in (first, second):
        # the size first, then the rate: drivers reset the rate when the size changes
        assert camera.asked == [(cv2.CAP_PROP_FRAME_WIDTH, 1280), (cv2.CAP_PROP_FRAME_HEIGHT, 720),
                                (cv2.CAP_PROP_FPS, 10)]


def test_a_webcam_keeps_its_own_frame_size_when_none_is_configured() -> None:
    camera = ModeCamera()
    config = SourceConfig(camera_size=None)
    with open_source(0, capture_factory=CameraBench(camera), config=config) as source:
        frame = source.read(timeout=2)
    assert frame is not None and frame.image.shape == (480, 640, 3)
    assert camera.asked == []


def test_camera_that_never_comes_back_fails_after_the_limit() -> None:
    config = SourceConfig(backoff_initial_s=0.01, backoff_max_s=0.02, failed_reads_to_drop=2,
                          failed_read_pause_s=0.001, max_reconnect_attempts=3)
    bench = CameraBench(FakeCamera([picture(80)] * 3), FakeCamera([], opened=False))
    with open_source(0, capture_factory=bench, config=config) as source:
        frames = list(source.frames())  # ends instead of hanging
        assert source.state == "failed"
        assert "gave up" in source.detail
    assert frames and all(isinstance(f, Frame) for f in frames)


def test_file_played_in_real_time_is_paced_and_ends(tmp_path: Path) -> None:
    for i in range(6):
        cv2.imwrite(str(tmp_path / f"{i}.png"), picture(60 + 20 * i))
    started = time.monotonic()
    with open_source(str(tmp_path), fps=20, realtime=True) as source:
        frames = list(source.frames())
        assert source.state == "ended"
    assert time.monotonic() - started >= 5 / 20 * 0.9
    assert [int(f.image[0, 0, 0]) for f in frames] == sorted(int(f.image[0, 0, 0]) for f in frames)


# ------------------------------------------------------------------ bad sources


def test_bad_sources_have_clear_messages(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "broken.mp4").write_bytes(b"\x00" * 100)
    (tmp_path / "broken.png").write_bytes(b"\x89PNG nope")
    (tmp_path / "empty").mkdir()
    cases = {
        str(tmp_path / "missing.mp4"): "no such file",
        str(tmp_path / "notes.txt"): "not a video",
        str(tmp_path / "broken.mp4"): "not a video",
        str(tmp_path / "broken.png"): "cannot read",
        str(tmp_path / "empty"): "holds no images",
        "-3": "bad camera index",
        "ftp://example.org/cam": "unsupported URL scheme",
        "sim:abc": "sim:SEED",
        "": "no source given",
    }
    for spec, words in cases.items():
        with pytest.raises(SourceError, match=words) as info:
            open_source(spec)
        assert "\n" not in str(info.value)
    assert isinstance(SourceError("x"), ValueError)


def test_missing_camera_index_is_a_clear_error() -> None:
    with pytest.raises(SourceError, match="no camera at index 2"):
        open_source("2", capture_factory=CameraBench(FakeCamera([], opened=False)))


def test_unreachable_url_fails_fast() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free once closed: nothing listens there
    started = time.monotonic()
    with pytest.raises(SourceError, match=f"cannot reach camera at 127.0.0.1:{port}"):
        open_source(f"rtsp://user:secret@127.0.0.1:{port}/stream")
    assert time.monotonic() - started < 3.0


def test_reachable_url_is_read_live_through_the_factory() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        camera = FakeCamera([picture(100 + i) for i in range(50)])
        targets: list[object] = []

        def factory(target: object) -> FakeCamera:
            targets.append(target)
            return camera

        with open_source(f"http://user:pw@127.0.0.1:{port}/video.mjpg", capture_factory=factory) as source:
            assert source.read(timeout=2) is not None
            assert "pw" not in source.description
    assert targets[0] == f"http://user:pw@127.0.0.1:{port}/video.mjpg"
    assert camera.released


def test_auto_without_a_webcam_falls_back_to_the_simulated_table() -> None:
    bench = CameraBench(FakeCamera([], opened=False))
    with open_source("auto", capture_factory=bench, sim=SimOptions(size=(320, 180), max_moves=4)) as source:
        assert "no webcam" in source.description
        frame = source.read(timeout=10)
    assert frame is not None and frame.image.ndim == 3


def test_sim_read_frame_by_frame_gives_consecutive_frames() -> None:
    options = SimOptions(seed=3, size=(320, 180), max_moves=2)
    with open_source("sim:5", realtime=False, sim=options, fps=10) as source:
        assert "seed 5" in source.description
        frames = [source.read() for _ in range(3)]
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    assert frames[0].image.shape == (180, 320, 3)


def test_camera_that_opens_but_never_sends_backs_off_and_gives_up() -> None:
    config = SourceConfig(backoff_initial_s=0.02, backoff_max_s=0.08, failed_reads_to_drop=2,
                          failed_read_pause_s=0.001, max_reconnect_attempts=4)
    handed: list[FakeCamera] = [FakeCamera([picture(80)])]  # one frame, then silence

    def factory(target: object) -> FakeCamera:
        if len(handed) == 1 and not handed[0].released:
            return handed[0]
        handed.append(FakeCamera([]))  # opens fine, never sends a frame
        return handed[-1]

    started = time.monotonic()
    with open_source(0, capture_factory=factory, config=config) as source:
        assert len(list(source.frames())) == 1
        assert source.state == "failed"
    assert len(handed) == 1 + 4  # the good camera, then 4 silent ones: no busy loop
    assert all(camera.released for camera in handed)
    assert time.monotonic() - started >= 0.02 + 0.02 + 0.04 + 0.08 - 0.01  # the waits doubled
