"""Live-update latency and page weight: N real pages (headless chromium) on one server.

Prints the median and 95th-percentile time from an engine event (the moment the camera's
board is handed to the game) to its arrival in each page's script, and the page's total
transfer size on first load. Targets: p95 <= 200 ms with 10 pages; page <= 300 KB.

    .venv/bin/python benchmarks/web_latency.py [--pages 10] [--events 60] [--interval 0.25]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# A script's own folder comes first on sys.path; keep sibling scripts (benchmarks/engine.py)
# from shadowing the packages of the same name.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
RECORD_ARRIVALS = """() => { window.__arrivals = [];
  window.addEventListener('companion-update', (e) =>
    window.__arrivals.push([e.detail.seq, e.detail.receivedAt])); }"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def moves(count: int) -> list[tuple[tuple[int, int], str]]:
    """``count`` placements on distinct non-corner cells, alternating blue and green."""
    from engine.layout import CELLS, is_corner

    cells = [c for c in CELLS if not is_corner(c)]
    return [(cells[(i * 37) % len(cells)], ("blue", "green")[i % 2]) for i in range(count)]


def page_weight(browser, url: str) -> int:
    """Bytes transferred to load the page (everything but the endless event stream)."""
    context = browser.new_context()
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    sizes: dict[str, float] = {}
    cdp.on("Network.loadingFinished", lambda p: sizes.__setitem__(p["requestId"], p["encodedDataLength"]))
    page.goto(url)
    page.wait_for_selector("body[data-ready='yes'][data-connected='yes']")
    page.wait_for_timeout(1000)  # images (the QR code) finish after the stream opens
    context.close()
    return int(sum(sizes.values()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--events", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.25,
                        help="seconds between engine events (a real table: several seconds)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from companion_web.app import create_app
    from companion_web.cmd_serve import WebServer
    from companion_web.hub import Hub
    from engine import Game
    from engine.layout import SIZE, is_corner

    with tempfile.TemporaryDirectory() as data_dir:
        hub = Hub(Game(teams=("blue", "green"), track_turns=False))
        app = create_app({"HUB": hub, "PIN": "0000", "DATA_DIR": Path(data_dir)})
        server = WebServer(app, port=0).start()
        url = server.url + "/"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                weight = page_weight(browser, url)
                pages = []
                for _ in range(args.pages):
                    # One context per page, as one tablet each: a browser allows only six
                    # connections per host, and every page holds one for its event stream.
                    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
                    page.goto(url)
                    page.wait_for_selector("body[data-ready='yes'][data-connected='yes']")
                    page.evaluate(RECORD_ARRIVALS)
                    pages.append(page)

                chips: dict[tuple[int, int], str] = {}
                started: dict[int, float] = {}
                for cell, colour in moves(args.events):
                    chips[cell] = colour
                    labels = [["free" if is_corner((r, c)) else chips.get((r, c), "empty")
                               for c in range(SIZE)] for r in range(SIZE)]
                    t0 = time.time()
                    events = hub.observe(labels)
                    if events:
                        started[hub.state()["seq"]] = t0
                    time.sleep(args.interval)
                time.sleep(1.0)

                latencies: list[float] = []
                missing = 0
                for page in pages:
                    arrivals = dict(page.evaluate("window.__arrivals"))
                    for seq, t0 in started.items():
                        if seq in arrivals:
                            latencies.append(arrivals[seq] / 1000.0 - t0)
                        else:
                            missing += 1
                browser.close()
        finally:
            server.stop()

    ms = [1000 * v for v in latencies]
    print(f"pages connected: {args.pages}; engine events: {len(started)}; deliveries: {len(ms)}; "
          f"missing: {missing}")
    print(f"event -> page latency: median {statistics.median(ms):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
          f"max {max(ms):.1f} ms (target p95 <= 200 ms)")
    print(f"page transfer on first load: {weight / 1024:.1f} KB (target <= 300 KB)")
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
