"""Save ``docs/screenshot.png``: the live page mid-game, as a tablet in landscape shows it.

A scripted game (real engine, real page in headless chromium, real server): a few moves,
then blue completes a sequence, so the picture shows chips, a locked sequence, the banner,
the team panels and the event log.

    .venv/bin/python benchmarks/screenshot.py [--out docs/screenshot.png]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

# A script's own folder comes first on sys.path; keep sibling scripts (benchmarks/engine.py)
# from shadowing the packages of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

MOVES: tuple[tuple[tuple[int, int], str], ...] = (
    ((4, 4), "blue"), ((3, 3), "green"), ((4, 5), "blue"), ((5, 5), "green"), ((4, 3), "blue"),
    ((6, 6), "green"), ((1, 8), "blue"), ((7, 7), "green"), ((4, 6), "blue"), ((2, 2), "green"),
    ((4, 7), "blue"),
)
"""Alternating turns; blue's fifth chip in row 4 (columns 3-7) completes a sequence."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "screenshot.png"))
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from companion_web.app import create_app
    from companion_web.cmd_serve import WebServer
    from companion_web.hub import Hub
    from engine import Game
    from engine.layout import SIZE, is_corner

    with tempfile.TemporaryDirectory() as data_dir:
        hub = Hub(Game(teams=("blue", "green")))
        hub.set_camera_status({"state": "live", "detail": "webcam 0", "fps": 14.8, "frame_index": 5210})
        app = create_app({"HUB": hub, "PIN": "0000", "DATA_DIR": Path(data_dir)})
        server = WebServer(app, port=0).start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(server.url + "/")
                page.wait_for_selector("body[data-ready='yes'][data-connected='yes']")
                chips: dict[tuple[int, int], str] = {}
                for cell, colour in MOVES:
                    chips[cell] = colour
                    hub.observe([["free" if is_corner((r, c)) else chips.get((r, c), "empty")
                                  for c in range(SIZE)] for r in range(SIZE)])
                page.wait_for_selector("#banner:not(.hidden)", timeout=5000)
                page.wait_for_timeout(1200)  # let the banner's flash settle
                Path(args.out).parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=args.out)
                browser.close()
        finally:
            server.stop()
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
