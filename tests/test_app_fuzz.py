"""Random bodies and paths to every route: always a JSON 2xx/4xx, never a 500 or a traceback."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from webfakes import FakeCamera, FakeGame, FakeStore

from companion_web.app import create_app
from companion_web.hub import Hub

PIN = "8642"
BODY_ROUTES = (
    "/api/correct", "/api/login", "/api/setup/new-game", "/api/setup/calibration/test",
    "/api/setup/calibration/save",
)

STREAMS = ("text/event-stream", "multipart/x-mixed-replace")
"""The page's event stream and the camera view: answers whose body never ends."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=12,
)
fields = st.sampled_from(["cell", "label", "pin", "teams", "edition", "track_turns", "players", "corners", "name"])
bodies = st.one_of(json_values, st.dictionaries(fields, json_values, max_size=4))


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app({
        "HUB": Hub(FakeGame(), store=FakeStore()), "PIN": PIN, "DATA_DIR": tmp_path_factory.mktemp("data"),
        "CAMERA": FakeCamera(), "GAME_FACTORY": lambda teams, **kw: FakeGame(teams=teams, **kw),
    })
    client = app.test_client()
    assert client.post("/api/setup/calibration/snapshot", headers={"X-PIN": PIN}).status_code == 200
    return client


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(BODY_ROUTES), body=bodies)
def test_random_json_bodies_get_a_clear_answer(client, route, body) -> None:
    response = client.post(route, data=json.dumps(body), content_type="application/json", headers={"X-PIN": PIN})
    assert response.status_code < 500, response.get_data(as_text=True)
    assert response.is_json and ("error" in response.get_json()) == (response.status_code >= 400)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=300))
def test_random_bytes_get_a_clear_answer(client, raw) -> None:
    response = client.post("/api/correct", data=raw, content_type="application/json", headers={"X-PIN": PIN})
    assert response.status_code == 400 and response.is_json


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(segment=st.text(min_size=1, max_size=40))
def test_random_paths_never_escape_or_fail(client, segment) -> None:
    from urllib.parse import quote

    name = quote(segment, safe="")
    for path in (f"/api/games/{name}/export", f"/static/{name}", f"/{name}", f"/api/{name}"):
        response = client.get(path)
        assert response.status_code in (200, 301, 308, 400, 404, 405), (path, response.status_code)
        if response.mimetype not in STREAMS:  # (a path that lands on a stream: its body never ends)
            assert b"Traceback" not in response.data
        response.close()


def test_static_files_cannot_be_read_outside_the_folder(client) -> None:
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static//etc/passwd"):
        response = client.get(path, follow_redirects=True)
        assert response.status_code == 404, path
        response.close()
