"""``GameStore``: every game as an event log in one SQLite file (standard library ``sqlite3``).

One database ``games.sqlite3`` in the data directory. It is marked as ours twice: the
SQLite header's ``application_id`` / ``user_version`` and a ``meta`` row. A file that is
not ours (corrupt, another program's database, a newer schema) is refused with
``StoreError`` and never written to: the header is checked from the raw bytes before
SQLite opens it, and the integrity check runs on a read-only connection.

A new database is built in a temporary file and linked into place, so a crash while
creating it never leaves a half-made file that would later be refused. Writes use WAL
with ``synchronous=FULL``; each ``append`` is one transaction (one event group). One
connection is shared under a lock, so the web server may call from several threads.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from engine.events import UNDONE, WIN, Event
from engine.game import Game
from engine.paths import default_data_dir

log = logging.getLogger(__name__)

DB_NAME = "games.sqlite3"
APPLICATION_ID = 0x53714331  # "SqC1": marks the file as a sequence-companion database
SCHEMA_VERSION = 1
APP_NAME = "sequence-companion"
EXPORT_FORMAT = "sequence-companion/game"
BUSY_TIMEOUT_MS = 5000
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
_USER_VERSION_OFFSET = 60
_APPLICATION_ID_OFFSET = 68

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    config TEXT NOT NULL,
    winner TEXT,
    board TEXT,
    event_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    at TEXT NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class StoreError(ValueError):
    """The game database cannot be used; the message says which file and why."""


class GameNotFoundError(StoreError, LookupError):
    """No stored game has that id (also a ``LookupError``, so web code can answer 404)."""


class StoreWriteError(StoreError, OSError):
    """Writing failed (disk full, read-only, locked); also an ``OSError`` like any failing disk."""


_stamp_lock = threading.Lock()
_last_stamp: datetime | None = None


def _now() -> str:
    """UTC now to the millisecond, and always later than the last stamp this process gave:
    games are ordered by when they were last updated, so two writes within one millisecond
    must keep their order (else "resume the latest game" could pick the other one)."""
    global _last_stamp
    now = datetime.now(timezone.utc)
    now = now.replace(microsecond=now.microsecond // 1000 * 1000)
    with _stamp_lock:
        if _last_stamp is not None and now <= _last_stamp:
            now = _last_stamp + timedelta(milliseconds=1)
        _last_stamp = now
    return now.isoformat(timespec="milliseconds")


class GameStore:
    """The event logs of all games in ``data_dir`` (default: ``engine.paths.default_data_dir()``)."""

    def __init__(self, data_dir: str | os.PathLike[str] | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        self.path = self.data_dir / DB_NAME
        self._lock = threading.Lock()
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the data directory {self.data_dir}: {exc.strerror}") from None
        if not self.path.exists() or self.path.stat().st_size == 0:
            self._create()
        _check_header(self.path)
        _check_integrity(self.path)
        try:
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the game database {self.path}: {exc}") from None

    # ----- creation -------------------------------------------------------------------

    def _create(self) -> None:
        """Build an empty database beside the target, then link it into place atomically."""
        tmp = self.data_dir / f".{DB_NAME}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.executescript(f"BEGIN; {_SCHEMA} COMMIT;")
                conn.execute(
                    "INSERT INTO meta VALUES ('application', ?), ('schema', ?)", (APP_NAME, str(SCHEMA_VERSION))
                )
                conn.execute("PRAGMA journal_mode = WAL")
            finally:
                conn.close()
            if self.path.exists():
                # Only an empty (0-byte) file gets here: nothing in it to lose.
                os.replace(tmp, self.path)
            else:
                try:
                    os.link(tmp, self.path)
                except FileExistsError:
                    log.info("another process created %s first; using it", self.path)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot create the game database {self.path}: {exc}") from None
        finally:
            tmp.unlink(missing_ok=True)

    # ----- plumbing ---------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the game database {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the connection (the store is unusable afterwards)."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----- games ------------------------------------------------------------------------

    def new_game(self, game: Game) -> int:
        """Store a new game (its config and any history it already has); return its id."""
        now = _now()
        try:
            with self._transaction() as conn:
                cursor = conn.execute(
                    "INSERT INTO games (created, updated, config, winner, board) VALUES (?, ?, ?, ?, ?)",
                    (now, now, json.dumps(game.config()), game.winner, game.board.to_text()),
                )
                game_id = int(cursor.lastrowid)
                self._insert_events(conn, game_id, game.history, now)
        except sqlite3.Error as exc:
            raise StoreWriteError(f"cannot write to the game database {self.path}: {exc}") from None
        return game_id

    def append(self, game_id: int, events: Iterable[Event], *, game: Game | None = None) -> None:
        """Append one event group in one transaction.

        Pass ``game`` to keep the listed winner and board exact; without it a win event sets
        the winner and an undo re-reads the game from its log.
        """
        events = list(events)
        if not events:
            return
        now = _now()
        try:
            with self._transaction() as conn:
                row = conn.execute("SELECT event_count FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    raise GameNotFoundError(f"no stored game with id {game_id!r} in {self.path}")
                self._insert_events(conn, game_id, events, now, first_seq=row[0])
                if game is not None:
                    self._set_summary(conn, game_id, game)
                else:
                    for event in events:
                        if event.type == WIN:
                            conn.execute("UPDATE games SET winner = ? WHERE id = ?", (event.team, game_id))
        except sqlite3.Error as exc:
            raise StoreWriteError(f"cannot write to the game database {self.path}: {exc}") from None
        if game is None and any(event.type == UNDONE for event in events):
            replayed = self.load(game_id)
            try:
                with self._transaction() as conn:
                    self._set_summary(conn, game_id, replayed)
            except sqlite3.Error as exc:
                raise StoreWriteError(f"cannot write to the game database {self.path}: {exc}") from None

    @staticmethod
    def _set_summary(conn: sqlite3.Connection, game_id: int, game: Game) -> None:
        conn.execute(
            "UPDATE games SET winner = ?, board = ? WHERE id = ?", (game.winner, game.board.to_text(), game_id)
        )

    @staticmethod
    def _insert_events(
        conn: sqlite3.Connection, game_id: int, events: list[Event], now: str, first_seq: int = 0
    ) -> None:
        rows = [(game_id, first_seq + k, now, json.dumps(e.to_dict())) for k, e in enumerate(events)]
        conn.executemany("INSERT INTO events (game_id, seq, at, event) VALUES (?, ?, ?, ?)", rows)
        conn.execute(
            "UPDATE games SET event_count = ?, updated = ? WHERE id = ?", (first_seq + len(rows), now, game_id)
        )

    def _config_and_events(self, game_id: int) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
        rows = self._query("SELECT config, created FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise GameNotFoundError(f"no stored game with id {game_id!r} in {self.path}")
        config_text, created = rows[0]
        event_rows = self._query("SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
        try:
            return json.loads(config_text), [json.loads(r[0]) for r in event_rows], created
        except json.JSONDecodeError as exc:
            raise StoreError(f"game {game_id} in {self.path} has an unreadable record: {exc}") from None

    def load(self, game_id: int) -> Game:
        """Rebuild a stored game by replaying its events (chips, locks, sequences, turn)."""
        config, events, _ = self._config_and_events(game_id)
        try:
            return Game.from_events(config, events)
        except ValueError as exc:
            raise StoreError(f"game {game_id} in {self.path} cannot be replayed: {exc}") from None

    def resume_last(self) -> tuple[int, Game] | None:
        """The most recently updated game, rebuilt; None when no game is stored."""
        rows = self._query("SELECT id FROM games ORDER BY updated DESC, id DESC LIMIT 1")
        if not rows:
            return None
        game_id = int(rows[0][0])
        return game_id, self.load(game_id)

    def list_games(self) -> list[dict[str, Any]]:
        """Stored games, most recently updated first (JSON-ready summaries)."""
        rows = self._query(
            "SELECT id, created, updated, config, winner, event_count FROM games ORDER BY updated DESC, id DESC"
        )
        out = []
        for game_id, created, updated, config_text, winner, count in rows:
            try:
                config = json.loads(config_text)
            except json.JSONDecodeError:
                config = {}
            out.append(
                {
                    "id": game_id,
                    "created": created,
                    "updated": updated,
                    "teams": config.get("teams"),
                    "edition": config.get("edition"),
                    "winner": winner,
                    "events": count,
                }
            )
        return out

    def export(self, game_id: int) -> dict[str, Any]:
        """The whole game as a JSON-ready dict: config, events and the final position."""
        config, events, created = self._config_and_events(game_id)
        game = self.load(game_id)
        return {
            "format": EXPORT_FORMAT,
            "version": SCHEMA_VERSION,
            "id": game_id,
            "created": created,
            "config": config,
            "events": events,
            "board": game.board.to_text(),
            "sequences": game.state()["sequences"],
            "winner": game.winner,
        }


def _check_header(path: Path) -> None:
    """Refuse a file that is not our SQLite database, reading raw bytes only (never writing)."""
    try:
        with path.open("rb") as handle:
            header = handle.read(_HEADER_SIZE)
    except OSError as exc:
        raise StoreError(f"cannot read the game database {path}: {exc.strerror}") from None
    advice = "It was left untouched; move it away or choose another --data-dir."
    if len(header) < _HEADER_SIZE or not header.startswith(_SQLITE_MAGIC):
        raise StoreError(f"{path} is not a SQLite database (corrupt or not ours). {advice}")
    app_id = int.from_bytes(header[_APPLICATION_ID_OFFSET : _APPLICATION_ID_OFFSET + 4], "big")
    if app_id != APPLICATION_ID:
        raise StoreError(f"{path} is another program's SQLite database, not a sequence-companion one. {advice}")
    version = int.from_bytes(header[_USER_VERSION_OFFSET : _USER_VERSION_OFFSET + 4], "big")
    if version > SCHEMA_VERSION:
        raise StoreError(f"{path} was written by a newer sequence-companion (schema {version}). {advice}")


def _check_integrity(path: Path) -> None:
    """Refuse a damaged database, checked on a read-only connection."""
    advice = "It was left untouched; move it away or choose another --data-dir."
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            result = conn.execute("PRAGMA quick_check").fetchone()
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise StoreError(f"{path} is damaged ({exc}). {advice}") from None
    if result is None or result[0] != "ok":
        raise StoreError(f"{path} is damaged ({result[0] if result else 'no check result'}). {advice}")
    if meta.get("application") != APP_NAME:
        raise StoreError(f"{path} has no sequence-companion marker row. {advice}")
