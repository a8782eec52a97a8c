"""Soak: a whole evening of play, and a full room of tablets, with nothing lost.

Two scenarios, both through the code live play uses:

- ``long``: a simulated session of ``--hours`` (default 4), accelerated. Game after game of
  seeded legal play is fed to the real ``Hub`` (``hub.observe``, the pipeline's ``on_board``,
  with camera status updates at the camera's rate on a simulated clock) backed by the real
  engine ``Game`` and SQLite ``GameStore``, with two live pages draining the update stream and
  a page reading ``/api/state`` every simulated second. Hands over the board (unknown cells),
  one-eyed-jack removals, corrections and undos are mixed in. Prints events processed, errors,
  peak memory (RSS) and its growth per simulated hour, and whether every stored game replays to
  the position the hub ended with (the event log is consistent).
- ``load``: the real ``sequence-companion serve`` (a subprocess) with ``--pages`` live pages on
  its event stream for ``--minutes`` while API clients poll at ``--rps`` requests per second and
  a player makes a correction every ``--move-interval`` seconds. Prints errors, SSE delivery
  latency (median, p95, max: from the server's broadcast to the page's receipt), whether any
  page fell behind by more than a second or missed an update, poll latency and the server's
  memory (start, peak, end, growth per hour).

Full size (the issue's figures)::

    .venv/bin/python benchmarks/soak.py                       # both: 4 h of play, 20 pages x 10 min + 50 req/s
    .venv/bin/python benchmarks/soak.py --scenario long --hours 4
    .venv/bin/python benchmarks/soak.py --scenario load --pages 20 --minutes 10 --rps 50

``tests/test_reliability_load.py`` runs both scaled down (and at full size with
``SEQUENCE_RELIABILITY_FULL=1``).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A script's own folder comes first on sys.path; keep sibling scripts (benchmarks/engine.py)
# from shadowing the packages of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import psutil  # noqa: E402

TEAMS = ("blue", "green")
PIN = "8080"
MB = 1024 * 1024


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


# ============================================================================ long play


@dataclass
class LongPlayReport:
    simulated_hours: float
    wall_s: float
    games: int
    observations: int
    events: int
    status_updates: int
    errors: int
    store_errors: int
    peak_rss_mb: float
    growth_mb_per_hour: float
    rss_by_hour_mb: list[float]
    log_consistent: bool
    messages_delivered: int
    pages_dropped: int

    def lines(self) -> list[str]:
        return [
            f"long play: {self.simulated_hours:g} simulated hours in {self.wall_s:.1f} s wall",
            f"  games {self.games}, observed boards {self.observations}, events processed {self.events}, "
            f"camera status updates {self.status_updates}",
            f"  errors {self.errors}, store errors {self.store_errors}, pages dropped {self.pages_dropped}, "
            f"updates delivered to pages {self.messages_delivered}",
            f"  peak RSS {self.peak_rss_mb:.1f} MB, growth {self.growth_mb_per_hour:+.2f} MB per simulated hour "
            f"(RSS at each hour: {', '.join(f'{v:.1f}' for v in self.rss_by_hour_mb)} MB)",
            f"  event log consistent (every stored game replays to the hub's final position): "
            f"{'yes' if self.log_consistent else 'NO'}",
        ]


class SimClock:
    """The hub's clock, advanced by the simulation (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _empty_labels() -> list[list[str]]:
    from engine.layout import SIZE, is_corner

    return [["free" if is_corner((r, c)) else "empty" for c in range(SIZE)] for r in range(SIZE)]


def _play_one_game(hub: Any, clock: SimClock, rng: random.Random, *, fps: float, move_s: float,
                   end_at: float, tick) -> tuple[int, int, int]:
    """Feed one game's committed boards to ``hub.observe`` (and camera status every frame).

    Returns (observations, events, errors). Ends at a win, a full board or ``end_at``.
    """
    from engine.layout import SIZE, is_corner

    labels = _empty_labels()
    observations = events = errors = 0
    cells = [(r, c) for r in range(SIZE) for c in range(SIZE) if not is_corner((r, c))]
    while clock.now < end_at:
        state = hub.state()
        if state.get("winner") or all(labels[r][c] != "empty" for r, c in cells):
            break
        turn = state.get("turn") or TEAMS[0]
        locked = {tuple(c) for c in state.get("locked", [])}
        board = state["board"].splitlines()
        labels = [[_label(board[r][c]) for c in range(SIZE)] for r in range(SIZE)]
        roll = rng.random()
        if roll < 0.06:  # a one-eyed jack: remove an unlocked opponent chip
            other = [cell for cell in cells if labels[cell[0]][cell[1]] not in ("empty", turn, "free")
                     and cell not in locked]
            target = rng.choice(other) if other else None
            if target:
                labels[target[0]][target[1]] = "empty"
        else:
            empty = [cell for cell in cells if labels[cell[0]][cell[1]] == "empty"]
            target = rng.choice(empty)
            labels[target[0]][target[1]] = turn
        # a hand hovers: a few frames with cells unknown, which must not count as moves
        hand = [row[:] for row in labels]
        for cell in rng.sample(cells, 12):
            hand[cell[0]][cell[1]] = "unknown"
        for view in (hand, labels):
            frames = max(1, int(move_s * fps / 2))
            tick(frames)
            try:
                got = hub.observe(view, 0, clock.now)
            except (ValueError, RuntimeError):
                errors += 1
                continue
            observations += 1
            events += len(got)
        extra = rng.random()
        try:
            if extra < 0.02:
                events += len(hub.undo())
            elif extra < 0.04 and target:
                events += len(hub.correct(target, labels[target[0]][target[1]]))
        except ValueError:
            errors += 1
    return observations, events, errors


def _label(char: str) -> str:
    from engine.labels import Label

    names = {"*": "free", ".": "empty", "B": "blue", "G": "green", "R": "red", "Y": "yellow"}
    return names.get(char.upper(), Label.UNKNOWN.value)


def run_long_play(hours: float = 4.0, *, fps: float = 15.0, move_s: float = 20.0, seed: int = 1,
                  data_dir: Path | None = None, pages: int = 2) -> LongPlayReport:
    """Play ``hours`` of simulated games through the hub; see the module docstring."""
    from companion_web.hub import Hub
    from engine import Game
    from engine.store import GameStore

    process = psutil.Process()
    rng = random.Random(seed)
    clock = SimClock()
    owned = tempfile.TemporaryDirectory(prefix="soak-") if data_dir is None else None
    store = GameStore(Path(owned.name) if owned else data_dir)
    hub = Hub(Game(TEAMS), store=store, clock=clock)
    stop = threading.Event()
    delivered = [0]
    dropped = [0]

    def page() -> None:
        subscriber, _ = hub.subscribe()
        while not stop.is_set():
            try:
                if subscriber.get(0.2) is not None:
                    delivered[0] += 1
            except EOFError:
                dropped[0] += 1
                subscriber, _ = hub.subscribe()  # a browser's EventSource reconnects and resyncs
        hub.unsubscribe(subscriber)

    readers = [threading.Thread(target=page, daemon=True) for _ in range(pages)]
    for reader in readers:
        reader.start()

    status_updates = [0]
    frame_index = [0]
    next_read = [1.0]

    def tick(frames: int) -> None:
        """``frames`` camera frames pass: status with fps at the camera's rate; the page polls state."""
        for _ in range(frames):
            clock.now += 1.0 / fps
            frame_index[0] += 1
            hub.set_camera_status({"state": "live", "detail": "", "fps": fps + rng.uniform(-0.5, 0.5),
                                   "frame_index": frame_index[0]})
            status_updates[0] += 1
            if frame_index[0] % 30 == 0:
                time.sleep(0)  # let the pages' threads run: accelerated time must not starve them
            if clock.now >= next_read[0]:
                hub.state()
                next_read[0] = clock.now + 1.0

    start = time.perf_counter()
    rss_by_hour = [process.memory_info().rss / MB]
    peak = rss_by_hour[0]
    games = observations = events = errors = 0
    final_states: dict[Any, dict[str, Any]] = {}
    end_at = hours * 3600.0
    while clock.now < end_at:
        o, e, err = _play_one_game(hub, clock, rng, fps=fps, move_s=move_s, end_at=end_at, tick=tick)
        observations, events, errors = observations + o, events + e, errors + err
        games += 1
        final_states[hub.game_id] = _position(hub.state())
        while clock.now >= len(rss_by_hour) * 3600.0:
            rss_by_hour.append(process.memory_info().rss / MB)
        peak = max(peak, process.memory_info().rss / MB)
        if clock.now < end_at:
            hub.new_game(Game(TEAMS))
    wall = time.perf_counter() - start
    stop.set()
    for reader in readers:
        reader.join(2)
    rss_end = process.memory_info().rss / MB
    peak = max(peak, rss_end)
    if len(rss_by_hour) <= hours:
        rss_by_hour.append(rss_end)
    consistent = all(_position(store.load(gid).state()) == state for gid, state in final_states.items())
    store_errors = 1 if hub.state().get("store_error") else 0
    # growth after the first hour (imports, caches and SQLite's page cache warm up then)
    base_index = 1 if len(rss_by_hour) > 2 else 0
    span_h = max(1e-9, min(hours, len(rss_by_hour) - 1) - base_index)
    growth = (rss_by_hour[-1] - rss_by_hour[base_index]) / span_h
    store.close()
    if owned:
        owned.cleanup()
    return LongPlayReport(hours, wall, games, observations, events, status_updates[0], errors, store_errors,
                          peak, growth, rss_by_hour, consistent, delivered[0], dropped[0])


def _position(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state.get(k) for k in ("board", "locked", "teams", "turn", "winner", "sequences")}


# ============================================================================ load


@dataclass
class LoadReport:
    pages: int
    seconds: float
    rps_target: float
    requests: int
    request_errors: int
    stream_errors: int
    moves: int
    updates_expected: int
    delivery_ms: list[float] = field(default_factory=list)
    error_notes: list[str] = field(default_factory=list)
    poll_ms: list[float] = field(default_factory=list)
    missed_updates: int = 0
    rss_mb: list[float] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return self.request_errors + self.stream_errors + self.missed_updates

    @property
    def max_delivery_ms(self) -> float:
        return max(self.delivery_ms) if self.delivery_ms else float("nan")

    @property
    def growth_mb_per_hour(self) -> float:
        if len(self.rss_mb) < 4:
            return 0.0
        # the second half: each page's send buffer in waitress fills up to its rotation size
        # (cmd_serve.OUTBUF_LIMIT) during the first minutes, then memory should stay level
        settled = self.rss_mb[len(self.rss_mb) // 2:]
        return (settled[-1] - settled[0]) / max(1e-9, self.seconds * 0.5) * 3600

    def lines(self) -> list[str]:
        d = self.delivery_ms
        return [
            f"load: {self.pages} pages for {self.seconds:g} s, API polling at {self.rps_target:g} req/s "
            f"(achieved {self.requests / self.seconds:.1f} req/s), a move every "
            f"{self.seconds / max(1, self.moves):.2f} s",
            f"  errors {self.errors} (requests {self.request_errors}, streams {self.stream_errors}, "
            f"updates missed by a page {self.missed_updates})"
            + (f": {self.error_notes[:3]}" if self.error_notes else ""),
            f"  SSE delivery over {len(d)} updates x pages: median {percentile(d, 0.5):.1f} ms, "
            f"p95 {percentile(d, 0.95):.1f} ms, max {self.max_delivery_ms:.1f} ms; "
            f"a page more than 1 s behind: {'YES' if self.max_delivery_ms > 1000 else 'no'}",
            f"  API poll latency: median {percentile(self.poll_ms, 0.5):.1f} ms, "
            f"p95 {percentile(self.poll_ms, 0.95):.1f} ms",
            f"  server RSS: start {self.rss_mb[0]:.1f} MB, peak {max(self.rss_mb):.1f} MB, "
            f"end {self.rss_mb[-1]:.1f} MB, growth over the second half "
            + (f"{self.growth_mb_per_hour:+.1f} MB/h" if self.seconds >= 120 else "n/a (run under 2 min)"),
            "  server RSS over the run (MB, tenths): "
            + ", ".join(f"{self.rss_mb[min(len(self.rss_mb) - 1, k * len(self.rss_mb) // 10)]:.0f}"
                        for k in range(11)),
        ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _empty_board_clip(folder: Path) -> Path:
    """A one-frame recorded clip of the empty board (the camera side stays idle: it has ended)."""
    import cv2

    from vision.sim import random_spec, render

    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "frame-000.png"), render(random_spec(2, size=(640, 480)), empty=True).frame)
    return folder


def start_server(data_dir: Path, port: int) -> subprocess.Popen:
    clip = _empty_board_clip(data_dir.parent / "clip")
    cmd = [sys.executable, "-m", "companion_web.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
           "--pin", PIN, "--data-dir", str(data_dir), "--source", str(clip)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("Press Ctrl-C"):
            threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep the pipe drained
            return proc
    proc.kill()
    proc.communicate()
    raise RuntimeError("serve did not start")


class Page:
    """One tablet's event stream: records (seq, latency ms) of every update it receives."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.seqs: list[int] = []
        self.latency_ms: list[float] = []
        self.errors = 0
        self.error_notes: list[str] = []
        self.connected = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._sock: socket.socket | None = None
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Page:
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self._conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
            self._sock = self._conn.sock  # http.client lets go of it once the response says "close"
            response = self._conn.getresponse()
            if response.status != 200:
                self._fail(f"stream answered {response.status}")
                return
            data: list[str] = []
            event = "update"
            while not self._stop.is_set():
                raw = response.readline()  # de-chunked
                if not raw:
                    if not self._stop.is_set():
                        self._fail("the stream ended under the page")
                    return
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif not line and event != "update":  # a heartbeat ("ping") or a comment
                    data, event = [], "update"
                elif not line and data:
                    received = time.time()
                    text = "\n".join(data)
                    try:
                        payload = json.loads(text)
                    except ValueError:
                        self._fail(f"bad update {text[:80]!r}")
                        continue
                    data = []
                    if payload.get("reason") == "sync":
                        self.connected.set()
                    elif payload.get("reason") == "events":
                        self.seqs.append(int(payload["seq"]))
                        self.latency_ms.append((received - float(payload["sent"])) * 1000)
        except (OSError, ValueError, http.client.HTTPException) as exc:
            if not self._stop.is_set():
                self._fail(f"{type(exc).__name__}: {exc}")

    def _fail(self, note: str) -> None:
        self.errors += 1
        self.error_notes.append(note)

    def stop(self) -> None:
        self._stop.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
        if self._conn is not None:
            self._conn.close()
        self.thread.join(5)


def _poller(port: int, rate: float, stop: threading.Event, out: dict[str, Any]) -> None:
    """Poll the API at ``rate`` requests per second on one keep-alive connection."""
    paths = ("/api/state", "/api/state", "/api/history", "/api/games")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    period = 1.0 / rate
    due = time.monotonic()
    i = 0
    while not stop.is_set():
        due += period
        began = time.perf_counter()
        try:
            conn.request("GET", paths[i % len(paths)])
            response = conn.getresponse()
            body = response.read()
            if response.status != 200 or not body.startswith(b"{"):
                out["errors"] += 1
        except (OSError, http.client.HTTPException):
            out["errors"] += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        out["ms"].append((time.perf_counter() - began) * 1000)
        out["count"] += 1
        i += 1
        delay = due - time.monotonic()
        if delay > 0:
            stop.wait(delay)
    conn.close()


def _post(port: int, path: str, body: dict[str, Any]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=json.dumps(body),
                     headers={"X-PIN": PIN, "Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def run_load(pages: int = 20, seconds: float = 600.0, rps: float = 50.0, *, move_interval: float = 0.5,
             pollers: int = 5, seed: int = 2, moves_per_game: int = 100) -> LoadReport:
    """Run the load scenario against a real ``serve`` subprocess; see the module docstring.

    Every ``moves_per_game`` moves a new game starts (as at a real table), so the history that
    ``/api/history`` returns stays game-sized rather than growing for the whole run.
    """
    from engine.layout import SIZE, is_corner

    rng = random.Random(seed)
    cells = [(r, c) for r in range(SIZE) for c in range(SIZE) if not is_corner((r, c))]
    with tempfile.TemporaryDirectory(prefix="soak-load-") as tmp:
        port = free_port()
        server = start_server(Path(tmp) / "data", port)
        process = psutil.Process(server.pid)
        report = LoadReport(pages, seconds, rps, 0, 0, 0, 0, 0)
        open_pages = [Page(port).start() for _ in range(pages)]
        try:
            for page in open_pages:
                if not page.connected.wait(20):
                    page._fail("no first update within 20 s")
            stop = threading.Event()
            polls = [{"errors": 0, "ms": [], "count": 0} for _ in range(pollers)]
            threads = [threading.Thread(target=_poller, args=(port, rps / pollers, stop, p), daemon=True)
                       for p in polls]
            for thread in threads:
                thread.start()
            began = time.monotonic()
            next_move = began
            next_sample = began
            while time.monotonic() - began < seconds:
                now = time.monotonic()
                if now >= next_sample:
                    report.rss_mb.append(process.memory_info().rss / MB)
                    next_sample = now + max(0.5, seconds / 120)
                if now >= next_move:
                    cell = rng.choice(cells)
                    status = _post(port, "/api/correct",
                                   {"cell": list(cell), "label": rng.choice(["blue", "green", "empty"])})
                    if status != 200:
                        report.request_errors += 1
                    report.moves += 1
                    new_game = moves_per_game and report.moves % moves_per_game == 0
                    if new_game and _post(port, "/api/setup/new-game", {"teams": list(TEAMS)}) != 200:
                        report.request_errors += 1
                    next_move += move_interval
                time.sleep(0.01)
            stop.set()
            for thread in threads:
                thread.join(10)
            time.sleep(0.5)  # the last update reaches the pages
            report.rss_mb.append(process.memory_info().rss / MB)
            state = json.loads(_get(port, "/api/state"))
            report.updates_expected = int(state["seq"])
        finally:
            for page in open_pages:
                page.stop()
            server.send_signal(signal.SIGINT)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            if server.stdout is not None:
                server.stdout.close()
        report.requests = sum(p["count"] for p in polls)
        report.request_errors += sum(p["errors"] for p in polls)
        report.poll_ms = [ms for p in polls for ms in p["ms"]]
        report.stream_errors = sum(page.errors for page in open_pages)
        report.error_notes = [note for page in open_pages for note in page.error_notes]
        sent = {seq for page in open_pages for seq in page.seqs}  # every event update any page saw
        for page in open_pages:
            report.delivery_ms.extend(page.latency_ms)
            report.missed_updates += len(sent - set(page.seqs)) + len(page.seqs) - len(set(page.seqs))
        return report


def _get(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().read()
    finally:
        conn.close()


# ============================================================================ command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("long", "load", "both"), default="both")
    parser.add_argument("--hours", type=float, default=4.0, help="simulated hours of play (long)")
    parser.add_argument("--move-seconds", type=float, default=20.0,
                        help="simulated seconds per turn (long; smaller plays more games)")
    parser.add_argument("--pages", type=int, default=20, help="live pages connected (load)")
    parser.add_argument("--minutes", type=float, default=10.0, help="duration of the load run")
    parser.add_argument("--rps", type=float, default=50.0, help="API polling requests per second (load)")
    parser.add_argument("--move-interval", type=float, default=0.5, help="seconds between moves (load)")
    parser.add_argument("--moves-per-game", type=int, default=100,
                        help="moves before a new game starts (load; 0: one endless game)")
    args = parser.parse_args(argv)
    if args.scenario in ("long", "both"):
        report = run_long_play(args.hours, move_s=args.move_seconds)
        print("\n".join(report.lines()), flush=True)
    if args.scenario in ("load", "both"):
        load = run_load(args.pages, args.minutes * 60, args.rps, move_interval=args.move_interval,
                        moves_per_game=args.moves_per_game)
        print("\n".join(load.lines()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
