"""The one owner of the live game: current ``Game``, its store, camera status and open pages.

Every change goes through the ``Hub`` under one lock: the engine call, the write to the event
log (before anyone is told), then one formatted update offered to every subscriber's bounded
queue. Readers (``state()``, ``history()``) get JSON-ready copies, never live objects.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from companion_web.sse import SseConfig, Subscriber, format_sse

log = logging.getLogger(__name__)


class EventLike(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class GameLike(Protocol):
    """The part of ``engine.Game`` the hub uses."""

    def observe(self, labels: Sequence[Sequence[str]]) -> list[Any]: ...
    def correct(self, cell: tuple[int, int], label: str) -> list[Any]: ...
    def undo(self) -> list[Any]: ...
    def state(self) -> dict[str, Any]: ...


class StoreLike(Protocol):
    """The part of ``engine.GameStore`` the hub uses."""

    def new_game(self, game: Any) -> Any: ...
    def append(self, game_id: Any, events: Sequence[Any], *, game: Any = None) -> Any: ...


@dataclass(frozen=True)
class HubConfig:
    """Limits of the live hub."""

    log_size: int = 30
    """Recent events kept for the page's event log (the full history is in the game/store)."""
    status_refresh_s: float = 2.0
    """Least interval between updates caused only by a changing camera fps / frame counter."""
    sse: SseConfig = SseConfig()  # noqa: RUF009 - frozen, safe as a shared default


STARTING_STATUS: dict[str, Any] = {"state": "starting", "detail": "", "fps": 0.0, "frame_index": 0, "advice": ""}


def status_dict(status: Any) -> dict[str, Any]:
    """A camera status (``CameraStatus`` dataclass or mapping) as a JSON-ready dict."""
    source = status if isinstance(status, dict) else {k: getattr(status, k, None) for k in STARTING_STATUS}
    state = getattr(source.get("state"), "value", source.get("state"))
    fps = source.get("fps") or 0.0
    return {
        "state": str(state or "starting"),
        "detail": str(source.get("detail") or ""),
        "fps": round(float(fps), 1),
        "frame_index": int(source.get("frame_index") or 0),
        "advice": str(source.get("advice") or ""),
    }


def _history(game: Any) -> Iterable[Any]:
    """The game's event history (a property or a method of the engine's ``Game``)."""
    history = getattr(game, "history", ())
    return history() if callable(history) else history


def event_dict(event: Any) -> dict[str, Any]:
    """An engine event as a dict (events may already be dicts in fakes)."""
    return dict(event) if isinstance(event, dict) else event.to_dict()


class Hub:
    """Thread-safe owner of the current game and of the pages listening to it."""

    def __init__(
        self,
        game: GameLike,
        *,
        store: StoreLike | None = None,
        game_id: Any = None,
        config: HubConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or HubConfig()
        self._clock = clock
        self._lock = threading.RLock()
        self._game = game
        self._store = store
        self._game_id = game_id
        if store is not None and game_id is None:
            self._game_id = store.new_game(game)
        self._subscribers: set[Subscriber] = set()
        self._seq = 0
        self._paused = False
        self._closed = False
        self._camera = dict(STARTING_STATUS)
        self._camera_sent_at = 0.0
        self._store_error: str | None = None
        self._log: deque[dict[str, Any]] = deque(maxlen=self.config.log_size)
        self._log.extend(event_dict(e) for e in list(_history(game))[-self.config.log_size :])

    # ------------------------------------------------------------------ reading
    @property
    def game_id(self) -> Any:
        with self._lock:
            return self._game_id

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def store(self) -> StoreLike | None:
        return self._store

    @property
    def paused(self) -> bool:
        with self._lock:
            return self._paused

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def state(self) -> dict[str, Any]:
        """The full JSON-ready state: the engine's ``state()`` plus camera, pause, log and seq."""
        with self._lock:
            return self._state_locked()

    def _state_locked(self) -> dict[str, Any]:
        state = dict(self._game.state())
        state["game_id"] = self._game_id
        state["camera"] = dict(self._camera)
        state["paused"] = self._paused
        state["log"] = list(self._log)
        state["seq"] = self._seq
        state["store_error"] = self._store_error
        return state

    def history(self) -> list[dict[str, Any]]:
        """Every event of the current game, oldest first."""
        with self._lock:
            return [event_dict(e) for e in _history(self._game)]

    def dead_cards(self) -> list[Any]:
        with self._lock:
            return list(self._game.dead_cards()) if hasattr(self._game, "dead_cards") else []

    # ------------------------------------------------------------------ changing
    def observe(self, labels: Sequence[Sequence[str]], *_ignored: Any) -> list[Any]:
        """Pipeline callback: a committed 10x10 label grid. Ignored while paused."""
        with self._lock:
            if self._paused or self._closed:
                return []
            return self._apply(lambda: self._game.observe(labels))

    def correct(self, cell: tuple[int, int], label: str) -> list[Any]:
        """A person's correction of one cell (already validated by the caller)."""
        with self._lock:
            return self._apply(lambda: self._game.correct(cell, label))

    def undo(self) -> list[Any]:
        """Take back the last event."""
        with self._lock:
            return self._apply(self._game.undo)

    def new_game(self, game: GameLike) -> Any:
        """Replace the current game (recorded in the store) and resync every page."""
        with self._lock:
            game_id = self._store.new_game(game) if self._store is not None else None
            self._game, self._game_id = game, game_id
            self._log.clear()
            self._store_error = None
            self._broadcast_locked([], reason="new_game")
            return game_id

    def set_paused(self, paused: bool) -> None:
        with self._lock:
            if self._paused != paused:
                self._paused = paused
                self._broadcast_locked([], reason="paused" if paused else "resumed")

    def set_camera_status(self, status: Any) -> None:
        """Pipeline callback. Pages hear at once of a new state; fps-only changes are throttled."""
        info = status_dict(status)
        with self._lock:
            changed = any(info[k] != self._camera[k] for k in ("state", "detail", "advice"))
            self._camera = info
            now = self._clock()
            if changed or now - self._camera_sent_at >= self.config.status_refresh_s:
                self._camera_sent_at = now
                self._broadcast_locked([], reason="camera")

    def _apply(self, action: Callable[[], Iterable[Any]]) -> list[Any]:
        events = list(action())
        if events:
            self._save_locked(events)
            self._broadcast_locked(events, reason="events")
        return events

    def _save_locked(self, events: list[Any]) -> None:
        """Append to the event log; a failing disk is reported on every page, never fatal to the camera."""
        if self._store is None:
            return
        try:
            self._store.append(self._game_id, events, game=self._game)
        except (OSError, sqlite3.Error) as exc:
            log.error("could not save %d event(s) of game %s: %s", len(events), self._game_id, exc)
            self._store_error = f"the game log could not be saved ({exc}); check the disk"
        else:
            self._store_error = None

    # ------------------------------------------------------------------ pages
    def subscribe(self) -> tuple[Subscriber, str]:
        """A new page: its subscriber and the first message (a full-state resync)."""
        with self._lock:
            subscriber = Subscriber(self.config.sse.queue_size)
            if self._closed:
                subscriber.close()
            else:
                self._subscribers.add(subscriber)
            return subscriber, self._message_locked([], reason="sync", retry=self.config.sse.retry_ms)

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(subscriber)
        subscriber.close()

    def disconnect_all(self) -> None:
        """End every page's stream (they reconnect and resync); used after a network change and in tests."""
        with self._lock:
            subscribers, self._subscribers = self._subscribers, set()
        for subscriber in subscribers:
            subscriber.close()

    def close(self) -> None:
        """Server shutdown: end every stream and ignore further camera input."""
        with self._lock:
            self._closed = True
            subscribers, self._subscribers = self._subscribers, set()
        for subscriber in subscribers:
            subscriber.close()

    def _message_locked(self, events: list[Any], *, reason: str, retry: int | None = None) -> str:
        payload = {
            "seq": self._seq,
            "reason": reason,
            "sent": time.time(),
            "events": [event_dict(e) for e in events],
            "state": self._state_locked(),
        }
        return format_sse(payload, event="update", id=self._seq, retry=retry)

    def _broadcast_locked(self, events: list[Any], *, reason: str) -> None:
        self._seq += 1
        self._log.extend(event_dict(e) for e in events)
        message = self._message_locked(events, reason=reason)
        dropped = [s for s in self._subscribers if not s.offer(message)]
        for subscriber in dropped:
            self._subscribers.discard(subscriber)
            log.info("dropped a page that fell %d updates behind", self.config.sse.queue_size)
