"""The live page in headless chromium: board, live updates on two pages, alerts, PIN, resync."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from webfakes import FakeCamera, FakeGame, labels_with

from companion_web.app import create_app
from companion_web.cmd_serve import WebServer
from companion_web.hub import Hub

pytestmark = pytest.mark.browser

PIN = "4321"
WAIT_MS = 10_000


def make_game(teams=("blue", "green"), **options: Any) -> Any:
    try:
        from engine import Game
    except ImportError:
        return FakeGame(teams=tuple(teams), **options)
    return Game(teams=tuple(teams), **options)


@dataclass
class Live:
    server: WebServer
    hub: Hub
    camera: FakeCamera
    chips: dict

    @property
    def url(self) -> str:
        return self.server.url + "/"

    def place(self, cell: tuple[int, int], colour: str) -> list:
        """What the camera would report after a chip is put on ``cell``."""
        self.chips[cell] = colour
        return self.hub.observe(labels_with(self.chips))


@pytest.fixture
def live(tmp_path):
    hub = Hub(make_game(track_turns=False))
    camera = FakeCamera()
    app = create_app({
        "HUB": hub, "PIN": PIN, "DATA_DIR": tmp_path, "CAMERA": camera,
        "GAME_FACTORY": lambda teams, **kw: make_game(teams, **kw),
    })
    server = WebServer(app, port=0, threads=16).start()
    yield Live(server, hub, camera, {})
    server.stop()


def open_page(context, live: Live):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(live.url)
    page.wait_for_selector("body[data-ready='yes'][data-connected='yes']", timeout=WAIT_MS)
    page.errors = errors
    return page


def cell(page, r: int, c: int):
    return page.locator(f"[data-cell='{r},{c}']")


def test_board_renders_the_printed_layout(context, live) -> None:
    page = open_page(context, live)
    assert page.locator(".cell").count() == 100
    assert cell(page, 0, 1).inner_text() == "2♠"
    assert "black" in cell(page, 0, 1).locator(".card").get_attribute("class")
    assert cell(page, 1, 5).inner_text() == "A♥"
    assert "red" in cell(page, 1, 5).locator(".card").get_attribute("class")
    assert "free" in cell(page, 0, 0).get_attribute("class")
    assert page.locator(".team").count() == 2
    assert "camera" in page.locator("#camera-status").inner_text()
    assert page.errors == []


def test_an_engine_event_appears_on_two_open_pages(context, live) -> None:
    pages = [open_page(context, live), open_page(context, live)]
    live.place((2, 3), "green")
    for page in pages:
        page.wait_for_selector("[data-cell='2,3'][data-chip='green']", timeout=WAIT_MS)
        assert "last" in cell(page, 2, 3).get_attribute("class")
        assert page.locator("#log li").count() >= 1


def test_a_completed_sequence_shows_the_banner_and_locked_cells(context, live) -> None:
    page = open_page(context, live)
    row = [(5, c) for c in range(1, 6)]
    for r, c in row:
        live.place((r, c), "blue")
    page.wait_for_selector("#banner:not(.hidden)", timeout=WAIT_MS)
    assert page.locator("#banner").get_attribute("data-kind") == "sequence"
    for r, c in row:
        assert cell(page, r, c).get_attribute("data-chip") == "blue-locked"
        assert "seq" in cell(page, r, c).get_attribute("class")
    assert page.locator(".team.blue .score").inner_text().startswith("1")
    # The banner never covers the board, and it can be dismissed.
    board = page.locator("#board").bounding_box()
    banner = page.locator("#banner").bounding_box()
    assert banner["x"] >= board["x"] + board["width"] or banner["y"] >= board["y"] + board["height"]
    page.locator("#banner-close").click()
    assert page.locator("#banner").is_hidden()
    # Taking a locked chip away is a rule alert: a red banner saying to put it back.
    events = live.place((5, 3), "empty")
    assert any(e.type == "alert" for e in events)
    page.wait_for_selector("#banner[data-kind='alert']:not(.hidden)", timeout=WAIT_MS)
    assert "put it back" in page.locator("#banner-text").inner_text().lower()


def test_a_correction_needs_the_pin(context, live) -> None:
    page = open_page(context, live)
    refused = page.evaluate(
        """async () => { const r = await fetch('/api/correct', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({cell: [4, 4], label: 'blue'})});
             return [r.status, (await r.json()).error]; }"""
    )
    assert refused[0] == 403 and "PIN" in refused[1]
    cell(page, 4, 4).click()
    page.locator("#cell-choices button[data-label='blue']").click()
    page.wait_for_selector("#pin-dialog[open]", timeout=WAIT_MS)
    page.fill("#pin-input", "0000")
    page.click("#pin-ok")
    page.wait_for_selector("#pin-error:has-text('wrong PIN')", timeout=WAIT_MS)
    assert cell(page, 4, 4).get_attribute("data-chip") is None
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector("[data-cell='4,4'][data-chip='blue']", timeout=WAIT_MS)
    assert page.locator("#lock").inner_text() == "Unlocked"
    # Once unlocked, a second correction goes straight through (session + CSRF token).
    cell(page, 4, 5).click()
    page.locator("#cell-choices button[data-label='green']").click()
    page.wait_for_selector("[data-cell='4,5'][data-chip='green']", timeout=WAIT_MS)


def test_reconnecting_resyncs_what_was_missed(context, live) -> None:
    page = open_page(context, live)
    live.place((7, 7), "green")
    page.wait_for_selector("[data-cell='7,7'][data-chip='green']", timeout=WAIT_MS)
    # A Wi-Fi hiccup: the stream breaks and cannot come back for a while.
    page.route("**/api/events", lambda route: route.abort())
    live.hub.disconnect_all()
    page.wait_for_selector("body[data-connected='no']", timeout=WAIT_MS)
    live.place((8, 2), "blue")
    live.place((7, 7), "empty")
    assert page.locator("[data-cell='8,2'][data-chip]").count() == 0
    page.unroute("**/api/events")
    page.wait_for_selector("body[data-connected='yes']", timeout=3 * WAIT_MS)
    page.wait_for_selector("[data-cell='8,2'][data-chip='blue']", timeout=WAIT_MS)
    assert cell(page, 7, 7).get_attribute("data-chip") is None
    state = json.loads(page.evaluate("JSON.stringify(window.__lastUpdate)"))
    assert state["seq"] == live.hub.state()["seq"]


def test_new_game_wizard_shows_the_deal_and_starts_the_game(context, live) -> None:
    page = open_page(context, live)
    live.place((3, 3), "blue")
    page.click("button[data-tab='newgame']")
    page.select_option("#ng-players", "6")
    page.select_option("#ng-teams", "3")
    page.wait_for_selector("#ng-deal:has-text('Deal 5 cards to each player; 1 sequence')", timeout=WAIT_MS)
    page.select_option("#ng-players", "4")
    page.wait_for_selector("#ng-error:has-text('cannot play as 3 teams')", timeout=WAIT_MS)
    page.select_option("#ng-players", "9")
    page.select_option("#ng-edition", "jumbo")
    assert [s.input_value() for s in page.locator("#ng-colours select").all()] == ["yellow", "red", "blue"]
    page.click("#newgame-form button[type='submit']")
    page.fill("#pin-input", PIN)
    page.click("#pin-ok")
    page.wait_for_selector("#view-board.active", timeout=WAIT_MS)
    page.wait_for_selector(".team.yellow", timeout=WAIT_MS)
    assert page.locator(".team").count() == 3
    assert page.locator("[data-cell='3,3'][data-chip]").count() == 0
    assert live.hub.state()["edition"] == "jumbo"


def test_glare_over_the_board_is_shown_while_it_is_read(context, live) -> None:
    from playwright.sync_api import expect

    page = open_page(context, live)
    live.hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 1})
    help_box = page.locator("#camera-help")
    expect(help_box).to_be_hidden(timeout=WAIT_MS)
    advice = "glare: the camera sees 4 cells as plain white ((4, 4), (4, 5), (5, 4), (5, 5))"
    live.hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 2, "advice": advice})
    expect(help_box).to_be_visible(timeout=WAIT_MS)
    expect(help_box).to_contain_text("Glare: the camera sees 4 cells")
    live.hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 3, "advice": ""})
    expect(help_box).to_be_hidden(timeout=WAIT_MS)
    assert page.errors == []
