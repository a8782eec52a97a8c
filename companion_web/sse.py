"""Server-sent events: a pure formatter and one bounded queue per connected page.

A slow page must never slow the game down: every subscriber has a small bounded queue; when
it is full the subscriber is dropped (its stream ends, the browser's EventSource reconnects
and gets a full-state resync), so a stalled tablet costs nothing to the others.
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SseConfig:
    """Per-connection limits of the event stream."""

    queue_size: int = 64
    """Messages a page may fall behind by before it is dropped (and resyncs on reconnect)."""
    heartbeat_s: float = 10.0
    """Seconds of silence after which a ``ping`` event is sent (keeps Wi-Fi awake; the page
    reconnects when it hears nothing for a few heartbeats)."""
    retry_ms: int = 1000
    """Reconnect delay the browser is told to use after the stream breaks."""


def format_sse(
    data: Any, *, event: str | None = None, id: int | str | None = None, retry: int | None = None
) -> str:
    """One server-sent event as text: ``event:``/``id:``/``retry:`` fields, ``data:`` lines, blank line.

    ``data`` that is not a string is encoded as compact JSON. Multi-line data becomes several
    ``data:`` lines (the browser joins them with newlines), so no payload can end an event early.
    """
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    lines: list[str] = []
    if event is not None:
        lines.append(f"event: {_one_line(event)}")
    if id is not None:
        lines.append(f"id: {_one_line(str(id))}")
    if retry is not None:
        lines.append(f"retry: {int(retry)}")
    lines.extend(f"data: {line}" for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(lines) + "\n\n"


def _one_line(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")


HEARTBEAT = format_sse("", event="ping")
"""Sent after a quiet ``heartbeat_s``: a named event (not a comment) so the page's watchdog sees it."""

_CLOSE = object()


class Subscriber:
    """One open page: a bounded queue of already formatted events, and whether it was dropped."""

    def __init__(self, queue_size: int) -> None:
        self._queue: queue.Queue[object] = queue.Queue(maxsize=queue_size)
        self._closed = threading.Event()

    @property
    def closed(self) -> bool:
        """True once the subscriber was dropped or the server is shutting down."""
        return self._closed.is_set()

    def offer(self, message: str) -> bool:
        """Queue ``message`` without blocking; a full queue drops the subscriber (returns False)."""
        if self._closed.is_set():
            return False
        try:
            self._queue.put_nowait(message)
        except queue.Full:
            self.close()
            return False
        return True

    def close(self) -> None:
        """End this subscriber's stream soon (the reader wakes up and stops)."""
        self._closed.set()
        with contextlib.suppress(queue.Full):  # the reader then sees ``closed`` on its next wake-up
            self._queue.put_nowait(_CLOSE)

    def get(self, timeout: float) -> str | None:
        """The next message, or None after ``timeout`` seconds of silence; raises EOFError when closed."""
        if self._closed.is_set():
            raise EOFError
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _CLOSE or self._closed.is_set():
            raise EOFError
        return str(item)


class EventStream:
    """The response body of one page's stream: ``first`` (the full-state resync), then queued
    events, a heartbeat while idle.

    ``on_close`` runs exactly once when the page goes away, the subscriber is dropped or the
    server closes the body, even if it was never iterated (a ``HEAD`` request, an early abort).
    """

    def __init__(
        self, first: str, subscriber: Subscriber, *, heartbeat_s: float, on_close: Callable[[], None]
    ) -> None:
        self._first = first
        self._subscriber = subscriber
        self._heartbeat_s = heartbeat_s
        self._on_close = on_close
        self._closed = threading.Lock()
        self._iterator = self._messages()

    def __iter__(self) -> Iterator[str]:
        return self._iterator

    def _messages(self) -> Iterator[str]:
        try:
            yield self._first
            while True:
                try:
                    message = self._subscriber.get(self._heartbeat_s)
                except EOFError:
                    return
                yield message if message is not None else HEARTBEAT
        finally:
            self._finish()

    def close(self) -> None:
        """Called by the WSGI server when the response ends; idempotent."""
        self._iterator.close()
        self._finish()

    def _finish(self) -> None:
        if self._closed.acquire(blocking=False):
            self._on_close()
