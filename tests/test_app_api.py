"""The JSON API through Flask's test client: state, PIN rules, validation, JSON errors, headers."""

from __future__ import annotations

import json

import pytest
from webfakes import FakeCamera, FakeGame, FakeStore

from companion_web.app import create_app
from companion_web.hub import Hub
from companion_web.security import GuardConfig

PIN = "1357"


@pytest.fixture
def game() -> FakeGame:
    return FakeGame()


@pytest.fixture
def app(game: FakeGame, tmp_path):
    hub = Hub(game, store=FakeStore())
    return create_app(
        {
            "HUB": hub,
            "PIN": PIN,
            "DATA_DIR": tmp_path,
            "CAMERA": FakeCamera(),
            "GAME_FACTORY": lambda teams, **kw: FakeGame(teams=teams, **kw),
            "GUARD": GuardConfig(free_failures=3, base_delay_s=30),
        }
    )


@pytest.fixture
def client(app):
    return app.test_client()


def post(client, path, body=None, pin: str | None = PIN, **headers):
    if pin is not None:
        headers["X-PIN"] = pin
    return client.post(path, data=json.dumps(body) if body is not None else None,
                       content_type="application/json", headers=headers)


def test_state_has_board_teams_camera_and_security_headers(client) -> None:
    response = client.get("/api/state")
    assert response.status_code == 200
    state = response.get_json()
    assert state["board"].splitlines()[0] == "*........*"
    assert state["teams"][0]["colour"] == "blue"
    assert state["camera"]["state"] == "starting"
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"


def test_page_and_assets_are_served_locally(client) -> None:
    html = client.get("/").get_data(as_text=True)
    assert "/static/app.js" in html and "<script>" not in html and "http" not in html.split("<body")[0]
    with client.get("/static/app.js") as script:
        assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert client.get("/qr.svg").mimetype == "image/svg+xml"
    layout = client.get("/api/layout").get_json()
    assert layout["cards"][0][1] == "2S" and layout["ink"][1][5] == "red"


def test_correction_needs_the_pin(client, game) -> None:
    body = {"cell": [3, 4], "label": "green"}
    missing = post(client, "/api/correct", body, pin=None)
    assert missing.status_code == 403 and "PIN" in missing.get_json()["error"]
    wrong = post(client, "/api/correct", body, pin="0000")
    assert wrong.status_code == 403 and wrong.get_json()["error"] == "wrong PIN"
    assert (3, 4) not in game.cells
    ok = post(client, "/api/correct", body)
    assert ok.status_code == 200
    assert ok.get_json()["events"][0]["type"] == "corrected"
    assert game.cells[(3, 4)] == "green"
    assert client.get("/api/state").get_json()["board"].splitlines()[3][4] == "G"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"cell": [10, 0], "label": "blue"}, "outside the board"),
        ({"cell": [1], "label": "blue"}, "cell must be"),
        ({"cell": [1, 1], "label": "purple"}, "unknown cell label"),
        ({"cell": [1, 1], "label": "unknown"}, "cannot be set by hand"),
        ({"cell": [1, 1]}, "expected"),
        ({"cell": [1, 1], "label": "blue", "extra": 1}, "unknown field"),
        ([1, 2], "JSON object"),
    ],
)
def test_correction_input_is_validated(client, game, body, needle) -> None:
    response = post(client, "/api/correct", body)
    assert response.status_code == 400
    assert needle in response.get_json()["error"]
    assert game.cells == {}


def test_malformed_and_oversized_bodies_are_clear_4xx(client) -> None:
    bad = client.post("/api/correct", data="{not json", content_type="application/json",
                      headers={"X-PIN": PIN})
    assert bad.status_code == 400 and "JSON" in bad.get_json()["error"]
    huge = client.post("/api/correct", data="x" * 200_000, content_type="application/json",
                       headers={"X-PIN": PIN})
    assert huge.status_code == 413 and "error" in huge.get_json()


def test_unknown_routes_and_methods_answer_json(client) -> None:
    missing = client.get("/api/nope")
    assert missing.status_code == 404 and missing.is_json
    wrong_method = client.get("/api/correct")
    assert wrong_method.status_code == 405 and wrong_method.is_json


def test_every_state_changing_route_refuses_a_request_without_the_pin(app, client) -> None:
    posts = [r for r in app.url_map.iter_rules() if "POST" in r.methods or "PUT" in r.methods or
             "DELETE" in r.methods or "PATCH" in r.methods]
    assert len(posts) >= 8
    for rule in posts:
        view = app.view_functions[rule.endpoint]
        assert getattr(view, "pin_required", False), f"{rule.rule} does not check the PIN"
        if rule.endpoint == "api.login":
            continue
        response = post(client, rule.rule, {}, pin=None)
        assert response.status_code == 403, rule.rule
    assert all(m in ("GET", "HEAD", "OPTIONS", "POST") for r in app.url_map.iter_rules() for m in r.methods)


def test_page_session_needs_the_csrf_token(client, game) -> None:
    assert post(client, "/api/login", {"pin": "0"}, pin=None).status_code == 403
    login = post(client, "/api/login", {"pin": PIN}, pin=None)
    assert login.status_code == 200
    token = login.get_json()["csrf"]
    assert client.get("/api/session").get_json() == {"authenticated": True, "csrf": token}
    body = {"cell": [2, 2], "label": "blue"}
    no_token = post(client, "/api/correct", body, pin=None)
    assert no_token.status_code == 403 and "CSRF" in no_token.get_json()["error"]
    assert post(client, "/api/correct", body, pin=None, **{"X-CSRF-Token": "forged"}).status_code == 403
    assert post(client, "/api/correct", body, pin=None, **{"X-CSRF-Token": token}).status_code == 200
    assert game.cells[(2, 2)] == "blue"


def test_repeated_wrong_pins_are_slowed_down(client) -> None:
    for _ in range(3):
        assert post(client, "/api/undo", pin="9999").status_code == 403
    slowed = post(client, "/api/undo", pin=PIN)
    assert slowed.status_code == 429
    assert int(slowed.headers["Retry-After"]) >= 1
    assert "try again" in slowed.get_json()["error"]


def test_undo_pause_resume(app, client, game) -> None:
    assert post(client, "/api/undo").status_code == 400  # nothing to undo: a clear message
    post(client, "/api/correct", {"cell": [5, 5], "label": "blue"})
    assert post(client, "/api/undo").get_json()["events"][0]["type"] == "undone"
    assert post(client, "/api/pause").get_json() == {"paused": True}
    assert client.get("/api/state").get_json()["paused"] is True
    assert post(client, "/api/resume").get_json() == {"paused": False}
    assert app.extensions["companion"].camera.calls == ["pause", "resume"]


def test_history_and_past_games(client) -> None:
    post(client, "/api/correct", {"cell": [5, 5], "label": "blue"})
    history = client.get("/api/history").get_json()
    assert [e["type"] for e in history["events"]] == ["corrected"]
    games = client.get("/api/games").get_json()["games"]
    assert games[0]["id"] == history["game_id"]
    export = client.get(f"/api/games/{history['game_id']}/export")
    assert export.status_code == 200 and "attachment" in export.headers["Content-Disposition"]
    assert export.get_json()["events"][0]["cell"] == [5, 5]
    assert client.get("/api/games/999/export").status_code == 404
    assert client.get("/api/games/..%2Fx/export").status_code in (400, 404)


def test_new_game_validates_and_replaces_the_game(app, client) -> None:
    bad = [
        ({"teams": ["blue"]}, "2 or 3"),
        ({"teams": ["blue", "blue"]}, "own colour"),
        ({"teams": ["blue", "pink"]}, "unknown team colour"),
        ({"teams": ["blue", "green"], "edition": "tiny"}, "edition"),
        ({"teams": ["blue", "green"], "track_turns": "yes"}, "true or false"),
        ({"teams": ["blue", "green"], "players": 13}, "players"),
    ]
    for body, needle in bad:
        response = post(client, "/api/setup/new-game", body)
        assert response.status_code == 400 and needle in response.get_json()["error"], body
    ok = post(client, "/api/setup/new-game", {"teams": ["red", "blue", "green"], "edition": "jumbo"})
    assert ok.status_code == 200
    state = client.get("/api/state").get_json()
    assert [t["colour"] for t in state["teams"]] == ["red", "blue", "green"]
    assert state["edition"] == "jumbo"


def test_camera_snapshot_and_missing_camera(client, tmp_path) -> None:
    snap = client.get("/camera/snapshot.jpg")
    assert snap.status_code == 200 and snap.data[:2] == b"\xff\xd8"
    bare = create_app({"HUB": Hub(FakeGame()), "PIN": PIN, "DATA_DIR": tmp_path}).test_client()
    assert bare.get("/camera/snapshot.jpg").status_code == 404
    assert bare.get("/camera/stream.mjpg").status_code == 404


def test_deal_says_cards_each_and_sequences_needed(client) -> None:
    four = client.get("/api/setup/deal?players=4&teams=2").get_json()
    assert four["cards_each"] == 6 and four["sequences_needed"] == 2
    nine = client.get("/api/setup/deal?players=9&teams=3").get_json()
    assert nine["cards_each"] == 4 and nine["sequences_needed"] == 1
    for query in ("players=5&teams=2", "players=3&teams=2", "players=4&teams=3", "players=x", "teams=2"):
        response = client.get(f"/api/setup/deal?{query}")
        assert response.status_code == 400 and response.get_json()["error"], query


def test_app_on_the_real_store_resumes_the_last_game(tmp_path) -> None:
    first = create_app({"PIN": PIN, "DATA_DIR": tmp_path}).test_client()
    assert post(first, "/api/correct", {"cell": [2, 7], "label": "green"}).status_code == 200
    game_id = first.get("/api/state").get_json()["game_id"]
    assert first.get("/api/games").get_json()["games"][0]["id"] == game_id
    export = first.get(f"/api/games/{game_id}/export").get_json()
    assert export["board"].splitlines()[2][7] == "G"

    again = create_app({"PIN": PIN, "DATA_DIR": tmp_path}).test_client()
    state = again.get("/api/state").get_json()
    assert state["game_id"] == game_id and state["board"].splitlines()[2][7] == "G"
    assert [e["type"] for e in again.get("/api/history").get_json()["events"]] == ["corrected"]
