"""Nothing let in: every state-changing route wants the PIN, guessing is slow, no file escapes.

The routes are enumerated from ``app.url_map``, so a route added later cannot forget the PIN
check without failing here. Requests are real requests (Flask's test client) against the real
engine ``Game``; "no change" is judged by ``GET /api/state`` before and after.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from webfakes import FakeCamera, FakeStore

from companion_web.app import create_app
from companion_web.hub import Hub
from companion_web.security import SECURITY_HEADERS, GuardConfig
from engine.game import Game

PIN = "5173"
MUTATING = {"POST", "PUT", "PATCH", "DELETE"}
VOLATILE = ("camera", "sent")
"""State keys that may change without anyone changing the game."""

PLAUSIBLE_BODIES: dict[str, object] = {
    "correct": {"cell": [4, 4], "label": "blue"},
    "new-game": {"teams": ["red", "green"], "edition": "jumbo"},
    "save": {"corners": [[20, 20], [300, 20], [300, 220], [20, 220]], "name": "sneaky"},
    "test": {"corners": [[20, 20], [300, 20], [300, 220], [20, 220]]},
    "colours": {"corners": [[20, 20], [300, 20], [300, 220], [20, 220]]},
}
"""Bodies a route would act on if it (wrongly) skipped the PIN check."""


def make_app(data_dir: Path, guard: GuardConfig | None = None):
    game = Game(("blue", "green"))
    game.correct((2, 2), "green")  # something a forged request could erase
    app = create_app({
        "HUB": Hub(game, store=FakeStore()), "PIN": PIN, "DATA_DIR": data_dir, "CAMERA": FakeCamera(),
        "GAME_FACTORY": lambda teams, **kw: Game(teams, **kw), "GUARD": guard or GuardConfig(),
    })
    return app


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "data")


def fill(rule) -> str:
    """A concrete path for a URL rule (every variable given a harmless value)."""
    path = rule.rule
    for name in rule.arguments:
        path = path.replace(f"<{name}>", "1").replace(f"<path:{name}>", "x").replace(f"<int:{name}>", "1")
    return path


def mutating_rules(app) -> list:
    return [r for r in app.url_map.iter_rules() if r.methods & MUTATING]


def game_state(client) -> dict:
    state = client.get("/api/state").get_json()
    for key in VOLATILE:
        state.pop(key, None)
    return state


def body_for(path: str) -> str:
    return json.dumps(PLAUSIBLE_BODIES.get(path.rstrip("/").rsplit("/", 1)[-1], {}))


def attempts() -> Iterator[tuple[str, dict[str, str], str]]:
    """(label, headers, remote address) of every way in that must fail."""
    yield "no PIN", {}, "10.0.0.1"
    yield "wrong PIN", {"X-PIN": "0000"}, "10.0.0.2"
    yield "empty PIN", {"X-PIN": ""}, "10.0.0.3"
    yield "PIN in the query, not the header", {}, "10.0.0.4"
    yield "CSRF token without a session", {"X-CSRF-Token": "x" * 32}, "10.0.0.5"


def test_every_mutating_route_is_marked_and_refuses_every_way_in_without_the_pin(app, tmp_path) -> None:
    client = app.test_client()
    assert client.post("/api/setup/calibration/snapshot", headers={"X-PIN": PIN}).status_code == 200
    rules = mutating_rules(app)
    assert len(rules) >= 8
    before = game_state(client)
    files_before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for rule in rules:
        view = app.view_functions[rule.endpoint]
        assert getattr(view, "pin_required", False), f"{rule.rule} does not check the PIN"
        if rule.endpoint == "api.login":
            continue  # the login form checks the PIN in its body (guessing is tested below)
        path = fill(rule)
        for method in sorted(rule.methods & MUTATING):
            for label, headers, address in attempts():
                url = f"{path}?pin={PIN}" if "query" in label else path
                response = client.open(url, method=method, data=body_for(path), headers=headers,
                                       content_type="application/json", environ_base={"REMOTE_ADDR": address})
                assert response.status_code in (403, 429), (rule.rule, method, label, response.status_code)
                assert response.is_json and response.get_json()["error"], (rule.rule, label)
    assert game_state(client) == before
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == files_before


def test_a_logged_in_page_still_needs_its_own_csrf_token_on_every_route(app) -> None:
    """A cross-site form riding on the page's cookie has no token; another session's token is no good."""
    client, other = app.test_client(), app.test_client()
    token = client.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    other_token = other.post("/api/login", json={"pin": PIN}).get_json()["csrf"]
    assert token != other_token
    before = game_state(client)
    for rule in mutating_rules(app):
        if rule.endpoint == "api.login":
            continue
        path = fill(rule)
        for headers in ({}, {"X-CSRF-Token": other_token}, {"X-CSRF-Token": token[:-1]}):
            response = client.post(path, data=body_for(path), content_type="application/json", headers=headers)
            assert response.status_code == 403, (rule.rule, headers)
    assert game_state(client) == before
    ok = client.post("/api/correct", json={"cell": [4, 4], "label": "blue"}, headers={"X-CSRF-Token": token})
    assert ok.status_code == 200 and game_state(client)["board"].splitlines()[4][4] == "B"


def test_only_get_head_options_and_post_exist_and_get_routes_change_nothing(app) -> None:
    client = app.test_client()
    before = game_state(client)
    for rule in app.url_map.iter_rules():
        assert rule.methods <= {"GET", "HEAD", "OPTIONS", "POST"}, rule.rule
        if "GET" in rule.methods and rule.endpoint != "static":
            response = client.get(fill(rule), buffered=False)
            assert response.status_code < 500, rule.rule
            response.close()
    assert game_state(client) == before


def test_pin_guessing_is_slowed_so_hundreds_of_guesses_check_only_a_handful(tmp_path) -> None:
    app = make_app(tmp_path, GuardConfig(free_failures=3, base_delay_s=1.0))
    client = app.test_client()
    codes = []
    began = time.monotonic()
    for guess in range(300):
        response = client.post("/api/login", json={"pin": f"{guess:04d}"},
                               headers={"X-Forwarded-For": f"192.0.2.{guess % 250}"})  # a spoofed origin
        codes.append(response.status_code)
        assert response.status_code in (403, 429)
    elapsed = time.monotonic() - began
    checked = codes.count(403)
    allowed = 3 + 1 + math.ceil(math.log2(elapsed / 1.0 + 1))  # free ones, then one per doubling wait
    assert checked <= allowed, f"{checked} guesses were checked in {elapsed:.1f} s"
    assert codes.count(429) >= 300 - allowed
    slowed = client.post("/api/undo", headers={"X-PIN": PIN})  # the header path shares the back-off
    assert slowed.status_code == 429 and int(slowed.headers["Retry-After"]) >= 1
    other = client.post("/api/undo", headers={"X-PIN": PIN}, environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert other.status_code in (200, 400)  # another tablet is not locked out by the guesser


def test_profile_names_cannot_write_outside_the_profiles_folder(app, tmp_path) -> None:
    client = app.test_client()
    assert client.post("/api/setup/calibration/snapshot", headers={"X-PIN": PIN}).status_code == 200
    corners = PLAUSIBLE_BODIES["save"]["corners"]  # type: ignore[index]
    before = sorted(tmp_path.rglob("*"))
    for name in ("../escape", "..", "../../etc/x", "/tmp/x", "a/b", "a\\b", "..%2fx", "%2e%2e", "x\x00y",
                 ".hidden", "ｘ", "a" * 200, "", 7, None, ["a"]):
        response = client.post("/api/setup/calibration/save", json={"corners": corners, "name": name},
                               headers={"X-PIN": PIN})
        assert response.status_code == 400, name
        assert "profile name" in response.get_json()["error"]
    assert sorted(tmp_path.rglob("*")) == before
    good = client.post("/api/setup/calibration/save", json={"corners": corners, "name": "kitchen"},
                       headers={"X-PIN": PIN})
    assert good.status_code == 200
    written = {p for p in tmp_path.rglob("*") if p.is_file()}
    assert written and all((tmp_path / "data" / "profiles") in p.parents for p in written)


TRICKS = (
    "../", "..%2f", "%2e%2e/", "%2e%2e%2f", "%252e%252e%252f", "..%5c", "..\\", "%c0%ae%c0%ae/", "....//",
    "..;/", "%2f", "/", "%00", "..%00/",
)


@pytest.mark.parametrize("trick", TRICKS)
def test_no_path_trick_reads_a_file_outside_the_served_folders(app, tmp_path, trick) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    client = app.test_client()
    target = "secret.txt"
    paths = [
        f"/static/{trick * 6}{target}", f"/static/{trick}{trick}app.py", f"/static/{trick}..%2fsetup.py",
        f"/api/games/{trick}{target}/export", f"/api/games/{trick * 4}export", f"/{trick * 6}{target}",
        f"/camera/{trick}{trick}{target}", f"/api/setup/{trick}{trick}{target}",
    ]
    for path in paths:
        response = client.get(path, follow_redirects=True)
        body = response.get_data()
        assert b"TOP-SECRET" not in body and b"import " not in body, path
        assert response.status_code in (400, 404, 405), (path, response.status_code)
        assert response.is_json, path
        assert b"Traceback" not in body
        response.close()


def assert_security_headers(response, what: str) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, f"{what}: {name} missing"
    assert "Server" not in response.headers or "Werkzeug" not in response.headers["Server"], what


def test_security_headers_on_every_kind_of_response(tmp_path) -> None:
    app = make_app(tmp_path, GuardConfig(free_failures=0, base_delay_s=30))

    @app.get("/boom-for-test")
    def boom():  # an unexpected bug in a view
        raise RuntimeError("a secret detail that must not reach the page")

    client = app.test_client()
    kinds = {
        "page": client.get("/"),
        "json": client.get("/api/state"),
        "layout": client.get("/api/layout"),
        "static js": client.get("/static/app.js"),
        "static css": client.get("/static/app.css"),
        "qr svg": client.get("/qr.svg"),
        "jpeg": client.get("/camera/snapshot.jpg"),
        "400": client.post("/api/correct", data="{", content_type="application/json", headers={"X-PIN": PIN}),
        "403": client.post("/api/undo"),
        "404": client.get("/no/such/page"),
        "405": client.get("/api/correct"),
        "413": client.post("/api/correct", data="x" * 200_000, content_type="application/json",
                           headers={"X-PIN": PIN}),
        "500": client.get("/boom-for-test"),
        "sse": client.get("/api/events", buffered=False),
        "mjpeg": client.get("/camera/stream.mjpg", buffered=False),
    }
    client.post("/api/login", json={"pin": "nope"})
    kinds["429"] = client.post("/api/login", json={"pin": "nope"})
    for what, response in kinds.items():
        assert_security_headers(response, what)
        response.close()
    assert kinds["429"].status_code == 429
    assert kinds["500"].status_code == 500
    text = kinds["500"].get_data(as_text=True)
    assert "secret detail" not in text and "Traceback" not in text
    for what in ("json", "400", "403", "405", "413", "429", "sse"):  # everything under /api/
        assert kinds[what].headers["Cache-Control"] == "no-store", what


def test_session_cookie_is_http_only_and_same_site_strict(app) -> None:
    client = app.test_client()
    response = client.post("/api/login", json={"pin": PIN})
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
