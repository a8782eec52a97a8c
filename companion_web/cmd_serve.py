"""``sequence-companion serve``: the live companion on this machine's network.

Opens the camera (or the simulated table), resumes the last game from the store, starts one
pipeline thread and serves the page with waitress (multi-threaded; never Flask's development
server). Prints every LAN address, a QR code of the first and the PIN; Ctrl-C stops cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion_web.errors import CliError
from companion_web.options import add_camera_size, source_config

log = logging.getLogger(__name__)

HELP = "watch the real board through a camera and show the game live on any tablet"
SERVER_THREADS = 64
"""Waitress worker threads: each open page holds one for its event stream."""
OUTBUF_LIMIT = 256 << 10
"""Bytes buffered for one slow client before its stream waits (then its queue fills and it is dropped).
An update is a few kilobytes; 256 KiB holds dozens and keeps 20 open pages from costing 20 MiB."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("serve", help=HELP, description=HELP + ".")
    parser.add_argument(
        "--source", "--camera", default="auto", metavar="auto|sim|INDEX|URL|FILE|DIR",
        help="camera index, network camera URL, video file, folder of images, 'sim' for the simulated "
        "table, or 'auto' (the first webcam, else the simulated table; default)",
    )
    add_camera_size(parser)
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, for tablets)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--profile", metavar="PROFILE",
                        help="calibration profile (default: the newest one saved in the data directory)")
    parser.add_argument("--pin", help="PIN needed to change anything (default: a random 6-digit PIN)")
    parser.add_argument("--data-dir", metavar="DIR", help="where games and profiles are kept")
    parser.set_defaults(func=run)
    return parser


class WebServer:
    """Waitress serving ``app`` in a background thread; ``stop()`` ends streams and the loop."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, threads: int = SERVER_THREADS):
        from waitress.server import create_server

        self.app = app
        try:
            self.server = create_server(
                app, host=host, port=port, threads=threads, channel_timeout=60, ident="sequence-companion",
                clear_untrusted_proxy_headers=True, outbuf_high_watermark=OUTBUF_LIMIT,
                channel_request_lookahead=1,  # notice a page that went away while its stream runs
            )
        except OSError as exc:
            reason = exc.strerror or exc
            raise CliError(f"cannot listen on {host}:{port} ({reason}); try another --port") from None
        self.port = int(self.server.effective_port)
        self.host = host
        self._thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)
        self._stopped = False

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> WebServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """End every event stream, let running requests finish, close all sockets."""
        from waitress import wasyncore

        if self._stopped:
            return
        self._stopped = True
        self.app.extensions["companion"].hub.close()
        self.server.task_dispatcher.shutdown(timeout=3)
        server_map = self.server._map

        def close_everything() -> None:
            wasyncore.close_all(server_map)

        if self._thread.is_alive():
            # Runs in the loop's own thread; OSError: the loop already closed its trigger.
            with contextlib.suppress(OSError):
                self.server.trigger.pull_trigger(close_everything)
            self._thread.join(5)
        else:
            close_everything()

    def wait_until(self, stop: threading.Event) -> None:
        """Block until ``stop`` is set (see ``stop_signals``) or the server loop ends."""
        while not stop.wait(0.5) and self._thread.is_alive():
            pass


@contextlib.contextmanager
def stop_signals() -> Iterator[threading.Event]:
    """An event that Ctrl-C or SIGTERM sets, from before anything starts until the block ends:
    a Ctrl-C during start-up is a clean stop too, not a KeyboardInterrupt half way through.
    Explicit handlers, since a shell may start us with SIGINT ignored (``serve &``)."""
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class LiveCamera:
    """The running pipeline of one camera, as the views see it.

    It owns what a fresh tracker is made from (profile, reference image, edition), so a new
    game, a looping simulated table or a newly saved profile can start tracking afresh.
    """

    def __init__(self, *, profile: Any, reference: Any, edition: str) -> None:
        self.pipeline: Any = None
        self.profile = profile
        self.reference = reference
        self.edition = edition

    def new_tracker(self) -> Any:
        return make_tracker(self.profile, self.reference, self.edition)

    def reset(self, edition: str | None = None) -> None:
        """Track from scratch (a new game): what the camera sees is committed afresh."""
        if edition is not None:
            self.edition = edition
        self.pipeline.set_tracker(self.new_tracker())

    def latest_frame(self) -> Any:
        frame = self.pipeline.latest_frame()
        return None if frame is None else frame.image

    def latest_overlay_jpeg(self) -> bytes | None:
        return self.pipeline.latest_overlay_jpeg()

    def pause(self) -> None:
        self.pipeline.pause()

    def resume(self) -> None:
        self.pipeline.resume()

    def use_profile(self, path: Path) -> str:
        """Load a just-saved profile and track with it from the next frame."""
        self.profile, self.reference = load_profile_and_reference(path)
        self.reset()
        return "The camera now uses this profile."


def load_profile_and_reference(path: Path) -> tuple[Any, Any]:
    """A profile for the running companion: a broken reference image is logged, not fatal."""
    from calibration.profile import load_profile_and_reference as load

    return load(path, strict=False)


def make_tracker(profile: Any, reference: Any, edition: str) -> Any:
    from vision.track import BoardTracker

    if profile is None:
        return BoardTracker(edition=edition)
    return BoardTracker(edition=profile.edition, profile=profile, reference=reference)


def newest_profile(data_dir: Path) -> Path | None:
    folder = data_dir / "profiles"
    found = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    return found[-1] if found else None


def current_teams(hub: Any) -> tuple[str, ...]:
    """Team colours of the hub's current game, in turn order."""
    teams = hub.state().get("teams") or []
    names = [t.get("colour") or t.get("team") or t.get("name") if isinstance(t, dict) else t for t in teams]
    return tuple(str(n) for n in names if n) or ("blue", "green")


def check_pin(pin: str) -> str:
    if not (4 <= len(pin) <= 32) or not pin.isprintable() or pin != pin.strip():
        raise CliError("--pin must be 4 to 32 printable characters without surrounding spaces")
    return pin


def run(args: argparse.Namespace) -> int:
    from companion_web.app import create_app
    from companion_web.hub import Hub
    from companion_web.netinfo import join_urls
    from companion_web.pipeline import Pipeline
    from companion_web.security import new_pin
    from engine import Game, GameStore
    from engine.paths import default_data_dir
    from vision.sources import open_source

    if not 0 < args.port < 65536:
        raise CliError(f"--port must be 1..65535, got {args.port}")
    pin = check_pin(args.pin) if args.pin is not None else new_pin()
    data_dir = Path(args.data_dir) if args.data_dir else Path(default_data_dir())
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"cannot use data directory {data_dir}: {exc.strerror or exc}") from None

    profile_path = Path(args.profile) if args.profile else newest_profile(data_dir)
    profile, reference = load_profile_and_reference(profile_path) if profile_path else (None, None)

    source = open_source(args.source, config=source_config(args))
    simulated = "simulated" in source.description
    store = GameStore(data_dir)
    # The simulated table always deals a fresh game, so a stored one cannot continue on it.
    resumed = None if simulated else store.resume_last()
    if resumed:
        game_id, game = resumed
        hub = Hub(game, store=store, game_id=game_id)
        note = f"resumed game {game_id}"
    else:
        edition = profile.edition if profile is not None else "classic"
        hub = Hub(Game(teams=("blue", "green"), edition=edition), store=store)
        note = f"new game {hub.game_id}"
    edition = str(hub.state().get("edition") or "classic")

    camera = LiveCamera(profile=profile, reference=reference, edition=edition)

    def on_new_game(frame: Any) -> None:
        """The simulated table looped to its next game: a new engine game and a fresh tracker."""
        hub.new_game(Game(teams=current_teams(hub), edition=camera.edition))
        camera.reset()

    camera.pipeline = Pipeline(source, camera.new_tracker(), on_board=hub.observe,
                               on_status=hub.set_camera_status, on_new_game=on_new_game)
    pipeline = camera.pipeline
    urls = join_urls(args.host, args.port)
    app = create_app({
        "HUB": hub, "CAMERA": camera, "PIN": pin, "DATA_DIR": data_dir, "JOIN_URL": urls[0],
        "ON_PROFILE_SAVED": camera.use_profile,
    })
    server = WebServer(app, host=args.host, port=args.port)
    with stop_signals() as stop:
        try:
            pipeline.start()
            server.start()
            _announce(source, profile_path, note, data_dir, urls, pin)
            server.wait_until(stop)
        finally:
            server.stop()
            pipeline.stop()
            close = getattr(source, "close", None)
            if close is not None:
                close()
    sys.stdout.write("sequence-companion: stopped; the game is saved.\n")
    return 0


def _announce(source: Any, profile_path: Path | None, note: str, data_dir: Path, urls: list[str], pin: str) -> None:
    """What the person at the table needs: camera, addresses, QR code, PIN."""
    from companion_web.netinfo import qr_terminal

    out = sys.stdout
    out.write(f"sequence-companion: camera: {source.description}\n")
    if "auto" in source.description and "sim" in source.description:
        out.write("sequence-companion: no webcam found, so this is the simulated table "
                  "(plug a webcam in, or use --source INDEX|URL|FILE)\n")
    if profile_path:
        out.write(f"sequence-companion: calibration profile: {profile_path}\n")
    out.write(f"sequence-companion: {note}; data in {data_dir}\n")
    out.write("Open on a tablet on the same network:\n")
    for url in urls:
        out.write(f"    {url}\n")
    out.write(qr_terminal(urls[0]))
    out.write(f"PIN for changes: {pin}\nPress Ctrl-C to stop.\n")
    out.flush()
