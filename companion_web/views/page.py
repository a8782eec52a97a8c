"""The live page itself and the QR code of its address."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template, request

from companion_web.app import services
from companion_web.netinfo import qr_svg

bp = Blueprint("page", __name__)


@bp.get("/")
def index() -> Any:
    return render_template("index.html", join_url=_join_url())


@bp.get("/qr.svg")
def qr() -> Any:
    """The join address as an SVG QR code, so a second tablet can scan it off the first."""
    response = Response(qr_svg(_join_url()), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "max-age=300"
    return response


def _join_url() -> str:
    return services().join_url or request.host_url
