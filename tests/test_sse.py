"""Server-sent events: the pure formatter, bounded subscribers and the hub's fan-out."""

from __future__ import annotations

import json

from webfakes import FakeGame, FakeStore, labels_with

from companion_web.hub import Hub, HubConfig
from companion_web.sse import EventStream, SseConfig, Subscriber, format_sse


def parse(message: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in message.strip("\n").split("\n"):
        key, _, value = line.partition(": ")
        fields[key] = fields[key] + "\n" + value if key in fields else value
    return fields


def test_format_sse_encodes_fields_and_json() -> None:
    text = format_sse({"a": 1}, event="update", id=7, retry=1000)
    assert text == 'event: update\nid: 7\nretry: 1000\ndata: {"a":1}\n\n'


def test_format_sse_splits_lines_so_data_cannot_end_the_event_early() -> None:
    text = format_sse("one\ntwo\r\n\r\nthree", event="x\ny")
    assert text.endswith("\n\n") and text.count("\n\n") == 1
    assert parse(text)["data"] == "one\ntwo\n\nthree"
    assert "event: x y" in text


def test_subscriber_is_dropped_when_its_queue_is_full() -> None:
    sub = Subscriber(queue_size=2)
    assert sub.offer("a") and sub.offer("b")
    assert not sub.offer("c")
    assert sub.closed


def test_stream_yields_first_then_messages_then_heartbeat_and_closes() -> None:
    sub = Subscriber(queue_size=4)
    closed: list[bool] = []
    gen = iter(EventStream("FIRST", sub, heartbeat_s=0.01, on_close=lambda: closed.append(True)))
    assert next(gen) == "FIRST"
    sub.offer("M1")
    assert next(gen) == "M1"
    assert next(gen) == "event: ping\ndata: \n\n"
    sub.close()
    assert list(gen) == []
    assert closed == [True]


def test_stream_runs_on_close_when_the_page_goes_away() -> None:
    sub = Subscriber(queue_size=4)
    closed: list[bool] = []
    body = EventStream("FIRST", sub, heartbeat_s=1, on_close=lambda: closed.append(True))
    next(iter(body))
    body.close()  # what the WSGI server does when the client disconnects
    body.close()
    assert closed == [True]


def test_stream_runs_on_close_even_if_never_iterated() -> None:
    closed: list[bool] = []
    body = EventStream("FIRST", Subscriber(queue_size=4), heartbeat_s=1, on_close=lambda: closed.append(True))
    body.close()  # a HEAD request: the body is never read
    assert closed == [True]


def _updates(sub: Subscriber) -> list[dict]:
    out = []
    while True:
        message = sub.get(0.001)
        if message is None:
            return out
        out.append(json.loads(parse(message)["data"]))


def test_hub_sends_a_full_state_first_and_every_event_to_every_page() -> None:
    store = FakeStore()
    hub = Hub(FakeGame(), store=store)
    a, first_a = hub.subscribe()
    b, _ = hub.subscribe()
    first = json.loads(parse(first_a)["data"])
    assert first["reason"] == "sync" and first["state"]["board"].startswith("*")
    assert "retry: " in first_a

    events = hub.observe(labels_with({(1, 1): "blue"}))
    assert [e.type for e in events] == ["placed"]
    for sub in (a, b):
        (update,) = _updates(sub)
        assert update["events"][0]["type"] == "placed"
        assert update["state"]["board"].splitlines()[1][1] == "B"
        assert update["seq"] == first["seq"] + 1
    assert store.games[hub.game_id] == events  # written before the pages were told


def test_hub_ignores_the_camera_while_paused_but_not_corrections() -> None:
    hub = Hub(FakeGame())
    hub.set_paused(True)
    assert hub.observe(labels_with({(2, 2): "green"})) == []
    assert hub.correct((2, 2), "green")[0].type == "corrected"
    assert hub.state()["paused"] is True


def test_hub_drops_a_stalled_page_without_blocking_others() -> None:
    hub = Hub(FakeGame(), config=HubConfig(sse=SseConfig(queue_size=2)))
    stalled, _ = hub.subscribe()
    for col in range(1, 5):
        hub.correct((1, col), "blue")
    assert stalled.closed
    assert hub.subscriber_count == 0
    _fresh, first = hub.subscribe()
    assert json.loads(parse(first)["data"])["state"]["board"].splitlines()[1][1:5] == "BBBB"


def test_camera_status_changes_are_sent_at_once_and_fps_only_updates_throttled() -> None:
    now = [100.0]
    hub = Hub(FakeGame(), config=HubConfig(status_refresh_s=2.0), clock=lambda: now[0])
    sub, _ = hub.subscribe()
    hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 1})
    hub.set_camera_status({"state": "live", "fps": 11.0, "frame_index": 2})
    now[0] += 3
    hub.set_camera_status({"state": "live", "fps": 12.0, "frame_index": 3})
    hub.set_camera_status({"state": "camera_lost", "detail": "unplugged", "frame_index": 3})
    states = [(u["state"]["camera"]["state"], u["state"]["camera"]["fps"]) for u in _updates(sub)]
    assert states == [("live", 10.0), ("live", 12.0), ("camera_lost", 0.0)]


def test_glare_advice_is_sent_at_once_and_kept_with_the_status() -> None:
    now = [100.0]
    hub = Hub(FakeGame(), config=HubConfig(status_refresh_s=2.0), clock=lambda: now[0])
    sub, _ = hub.subscribe()
    hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 1})
    hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 2, "advice": "glare: move the lamp"})
    hub.set_camera_status({"state": "live", "fps": 10.0, "frame_index": 3, "advice": "glare: move the lamp"})
    sent = [u["state"]["camera"]["advice"] for u in _updates(sub)]
    assert sent == ["", "glare: move the lamp"]
    assert hub.state()["camera"]["advice"] == "glare: move the lamp"


def test_close_ends_every_stream() -> None:
    hub = Hub(FakeGame())
    sub, _ = hub.subscribe()
    hub.close()
    assert sub.closed
    late, _ = hub.subscribe()
    assert late.closed


def test_a_failing_disk_is_reported_to_pages_and_the_game_goes_on() -> None:
    import sqlite3

    class BrokenStore(FakeStore):
        def append(self, game_id, events, *, game=None):
            raise sqlite3.OperationalError("database or disk is full")

    hub = Hub(FakeGame(), store=BrokenStore())
    sub, _ = hub.subscribe()
    assert hub.correct((1, 1), "blue")
    (update,) = _updates(sub)
    assert "disk is full" in update["state"]["store_error"]
    assert update["events"][0]["type"] == "corrected"
