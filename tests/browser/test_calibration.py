"""The calibration wizard in headless chromium: snapshot, drag a corner with the pointer, save."""

from __future__ import annotations

import json

import pytest
from test_page import PIN, WAIT_MS, make_game
from webfakes import FakeCamera

from companion_web.app import create_app
from companion_web.cmd_serve import WebServer
from companion_web.hub import Hub

pytestmark = pytest.mark.browser


@pytest.fixture
def table(tmp_path):
    from vision.sim import random_spec, render

    empty = render(random_spec(5, size=(800, 600)), empty=True)
    saved: list = []
    app = create_app({
        "HUB": Hub(make_game()), "PIN": PIN, "DATA_DIR": tmp_path, "CAMERA": FakeCamera(empty.frame),
        "ON_PROFILE_SAVED": lambda path: saved.append(path) or "reloaded",
    })
    server = WebServer(app, port=0, threads=8).start()
    yield server, tmp_path, saved
    server.stop()


def _snapshot_with_handle(context, server):
    """The wizard's page, unlocked, with a snapshot taken: the page, corner 0's handle, where it
    lies (image pixels) and image pixels per screen pixel."""
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready='yes']", timeout=WAIT_MS)
    page.click("#lock")
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector("#lock.unlocked", timeout=WAIT_MS)
    page.click("button[data-tab='calibrate']")
    page.click("#cal-snap")
    handle = page.locator("circle.handle[data-corner='0']")
    handle.wait_for(timeout=3 * WAIT_MS)
    at = _centre(handle)
    scale = page.locator("#cal-img").evaluate("img => img.naturalWidth / img.getBoundingClientRect().width")
    return page, handle, at, scale


def _centre(handle) -> list[float]:
    return [float(handle.get_attribute("cx")), float(handle.get_attribute("cy"))]


def _drag(page, handle, dx: float, dy: float) -> None:
    """Drag ``handle`` by (dx, dy) screen pixels with the pointer."""
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y + dy, steps=5)
    page.mouse.up()


def test_dragging_a_corner_changes_the_saved_profile(context, table) -> None:
    server, data_dir, saved = table
    page, handle, before, scale = _snapshot_with_handle(context, server)
    _drag(page, handle, 20, 12)
    expected = [before[0] + 20 * scale, before[1] + 12 * scale]

    page.fill("#cal-name", "kitchen")
    page.click("#cal-save")
    page.wait_for_selector("body[data-saved-profile='kitchen']", timeout=WAIT_MS)
    profile = json.loads((data_dir / "profiles" / "kitchen.json").read_text())
    assert profile["corners"][0] == pytest.approx(expected, abs=2.0)
    assert profile["corners"][0] != pytest.approx(before, abs=2.0)
    assert (data_dir / "profiles" / profile["reference_image"]).exists()
    assert saved == [data_dir / "profiles" / "kitchen.json"]
    assert "reloaded" in page.locator("#cal-msg").inner_text()


def test_a_handle_dropped_a_little_off_goes_back_onto_the_cards_on_the_test_read(context, table) -> None:
    """The grid was found at the snapshot; a handle nudged a few pixels off is brought back by
    the test read, and the page says so."""
    server, _, _ = table
    page, handle, found, scale = _snapshot_with_handle(context, server)
    _drag(page, handle, 5 / scale, -4 / scale)  # about 6 image pixels: a fifth of a cell here
    nudged = _centre(handle)
    assert nudged != pytest.approx(found, abs=3.0)
    page.click("#cal-test")
    page.locator("#cal-msg", has_text="moved onto the cards").wait_for(timeout=3 * WAIT_MS)
    assert _centre(handle) == pytest.approx(found, abs=1.5)
