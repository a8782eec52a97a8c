"""Who may change the game, and what a request may carry.

Viewing is open; every state-changing request needs the PIN, either in an ``X-PIN`` header
(scripts) or through the page's session after PIN entry plus its CSRF token in
``X-CSRF-Token``. Wrong PINs are slowed down per client with an exponential back-off.
Validation helpers turn any bad input into a ``BadInput`` (a ``ValueError``) whose message
the API returns as a 400.
"""

from __future__ import annotations

import hmac
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.labels import Label, parse_label
from engine.layout import SIZE


class BadInput(ValueError):
    """A request carried something invalid; the message says what, quoting it."""


@dataclass(frozen=True)
class GuardConfig:
    """PIN back-off: how many free mistakes, how fast the wait grows, and memory bounds."""

    free_failures: int = 3
    """Wrong PINs allowed before any waiting is imposed."""
    base_delay_s: float = 1.0
    """Wait after the first failure past the free ones; doubles with each further failure."""
    max_delay_s: float = 60.0
    forget_after_s: float = 900.0
    """A client with no wrong PIN for this long starts afresh."""
    max_clients: int = 4096
    """Clients remembered at once (oldest forgotten first), so guessing cannot exhaust memory."""


def new_pin(digits: int = 6) -> str:
    """A random numeric PIN (easy to type on a tablet)."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def new_token() -> str:
    """An unguessable CSRF token for one page session."""
    return secrets.token_urlsafe(24)


def same_secret(given: object, expected: str) -> bool:
    """Constant-time comparison of a supplied secret with the expected one."""
    if not isinstance(given, str) or not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class PinGuard:
    """Checks PINs and slows down repeated wrong guesses per client address."""

    def __init__(
        self, pin: str, *, config: GuardConfig | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not pin or not pin.isprintable():
            raise ValueError("the PIN must be a non-empty printable string")
        self.pin = pin
        self.config = config or GuardConfig()
        self._clock = clock
        self._lock = threading.Lock()
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must still wait before its next PIN attempt is even checked."""
        with self._lock:
            return self._wait_locked(client, self._clock())

    def _wait_locked(self, client: str, now: float) -> float:
        entry = self._failures.get(client)
        if entry is None:
            return 0.0
        count, last = entry
        if now - last > self.config.forget_after_s:
            del self._failures[client]
            return 0.0
        extra = count - self.config.free_failures
        if extra < 0:
            return 0.0
        delay = min(self.config.base_delay_s * 2**extra, self.config.max_delay_s)
        return max(0.0, last + delay - now)

    def check(self, client: str, pin: object) -> tuple[bool, float]:
        """``(ok, wait_s)``: ``wait_s > 0`` means refused unchecked because the client must wait."""
        with self._lock:
            now = self._clock()
            wait = self._wait_locked(client, now)
            if wait > 0:
                return False, wait
            if same_secret(pin, self.pin):
                self._failures.pop(client, None)
                return True, 0.0
            count = self._failures.pop(client, (0, now))[0] + 1
            self._failures[client] = (count, now)
            while len(self._failures) > self.config.max_clients:
                self._failures.popitem(last=False)
            return False, 0.0


# ---------------------------------------------------------------- headers
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; media-src 'self' data: blob:; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


# ---------------------------------------------------------------- validation
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


def parse_cell(value: object) -> tuple[int, int]:
    """``[r, c]`` (two integers inside the 10x10 grid) -> ``(r, c)``."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise BadInput(f"cell must be [row, col], got {_quote(value)}")
    r, c = value
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (r, c)):
        raise BadInput(f"cell must be two integers, got {_quote(value)}")
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        raise BadInput(f"cell {_quote(value)} is outside the board (rows and columns run 0..{SIZE - 1})")
    return r, c


CORRECTABLE = tuple(label.value for label in Label if label not in (Label.UNKNOWN, Label.FREE))
"""Labels a person may set on a cell ("flipped" is a locked chip on the Jumbo mat)."""


def parse_correction_label(value: object) -> str:
    """A label a person may set: empty, a team colour or flipped."""
    if not isinstance(value, str):
        raise BadInput(f"label must be a string, got {_quote(value)}")
    try:
        label = parse_label(value).value
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    if label not in CORRECTABLE:
        raise BadInput(f"label {value!r} cannot be set by hand; expected one of: {', '.join(CORRECTABLE)}")
    return label


def parse_corners(value: object, *, width: int, height: int) -> list[list[float]]:
    """Four ``[x, y]`` points inside a ``width`` x ``height`` image, TL TR BR BL, not degenerate."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise BadInput(f"corners must be four [x, y] points (TL, TR, BR, BL), got {_quote(value)}")
    points: list[list[float]] = []
    for point in value:
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise BadInput(f"each corner must be [x, y], got {_quote(point)}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in point):
            raise BadInput(f"corner coordinates must be numbers, got {_quote(point)}")
        x, y = float(point[0]), float(point[1])
        if not (math.isfinite(x) and math.isfinite(y)) or not (0 <= x <= width and 0 <= y <= height):
            raise BadInput(f"corner {_quote(point)} is outside the {width}x{height} image")
        points.append([x, y])
    area = 0.0
    for i in range(4):
        (x1, y1), (x2, y2) = points[i], points[(i + 1) % 4]
        area += x1 * y2 - x2 * y1
    if abs(area) / 2 < 0.01 * width * height:
        raise BadInput("the four corners enclose almost no area; drag them onto the board's outer corners")
    return points


def parse_name(value: object, *, what: str = "name") -> str:
    """A short file-safe name (letters, digits, ``-`` and ``_``): no paths can be smuggled in."""
    if not isinstance(value, str) or not NAME_RE.match(value):
        raise BadInput(
            f"{what} must be 1-40 letters, digits, '-' or '_' (starting with a letter or digit), "
            f"got {_quote(value)}"
        )
    return value


def parse_int(value: object, *, what: str, low: int, high: int) -> int:
    """An integer in ``[low, high]`` (strings of digits accepted, for query parameters)."""
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,6}", value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadInput(f"{what} must be an integer from {low} to {high}, got {_quote(value)}")
    return value


def parse_bool(value: object, *, what: str) -> bool:
    if not isinstance(value, bool):
        raise BadInput(f"{what} must be true or false, got {_quote(value)}")
    return value


def require_object(body: Any) -> dict[str, Any]:
    """A JSON body must be an object."""
    if not isinstance(body, dict):
        raise BadInput("the request body must be a JSON object")
    return body


def _quote(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- Flask glue
def client_address() -> str:
    """The address PIN failures are counted against (no proxy headers are trusted)."""
    from flask import request

    return request.remote_addr or "unknown"


def authorise() -> None:
    """Abort unless this request carries the PIN or a PIN-entered session with its CSRF token.

    403 for a missing or wrong PIN/token, 429 (with ``Retry-After``) while a client must wait.
    """
    from flask import abort, current_app, request, session

    guard: PinGuard = current_app.extensions["companion"].guard
    pin = request.headers.get("X-PIN")
    if pin is not None:
        ok, wait = guard.check(client_address(), pin)
        if ok:
            return
        if wait > 0:
            abort(_too_many(wait))
        abort(403, "wrong PIN")
    if session.get("auth") is True:
        token = session.get("csrf")
        if isinstance(token, str) and same_secret(request.headers.get("X-CSRF-Token"), token):
            return
        abort(403, "missing or wrong CSRF token; reload the page")
    abort(403, "this action needs the PIN: send it in an X-PIN header, or enter it on the page")


def _too_many(wait: float) -> Any:
    from flask import jsonify

    seconds = max(1, math.ceil(wait))
    response = jsonify(error=f"too many wrong PINs; try again in {seconds} s", status=429)
    response.status_code = 429
    response.headers["Retry-After"] = str(seconds)
    return response


def login(pin: object) -> str:
    """Check a PIN typed on the page; on success mark the session and return its CSRF token."""
    from flask import abort, current_app, session

    guard: PinGuard = current_app.extensions["companion"].guard
    ok, wait = guard.check(client_address(), pin)
    if not ok:
        if wait > 0:
            abort(_too_many(wait))
        abort(403, "wrong PIN")
    token = new_token()
    session.clear()
    session["auth"] = True
    session["csrf"] = token
    return token


def pin_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for every state-changing view (tests enumerate routes for this mark)."""
    from functools import wraps

    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        authorise()
        return view(*args, **kwargs)

    wrapped.pin_required = True  # type: ignore[attr-defined]
    return wrapped


def checks_pin_itself(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a POST view that verifies the PIN itself (the login form)."""
    view.pin_required = True  # type: ignore[attr-defined]
    return view
