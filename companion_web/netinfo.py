"""Where a tablet can reach this server: LAN addresses and QR codes of the join URL."""

from __future__ import annotations

import io
import ipaddress
import socket

import segno


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other tablets can use (loopback last, as a fallback)."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        found.extend(str(info[4][0]) for info in infos)
    except OSError:
        pass
    found.extend(_route_address(probe) for probe in ("10.255.255.255", "192.168.255.255"))
    addresses = []
    for text in found:
        if not text:
            continue
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if not ip.is_loopback and not ip.is_link_local and text not in addresses:
            addresses.append(text)
    return [*addresses, "127.0.0.1"]


def _route_address(probe: str) -> str:
    """The local address the OS would use to reach ``probe`` (UDP connect sends nothing)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.connect((probe, 9))
        return str(sock.getsockname()[0])
    except OSError:
        return ""
    finally:
        sock.close()


def join_urls(host: str, port: int) -> list[str]:
    """URLs to print: every LAN address when listening on all interfaces, else the host itself."""
    if host in ("0.0.0.0", "", "::"):
        return [f"http://{address}:{port}/" for address in lan_addresses()]
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


def qr_svg(url: str) -> str:
    """An SVG QR code of ``url`` (dark modules on white, scalable)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False, svgns=True)
    return out.getvalue().decode("utf-8")


def qr_terminal(url: str) -> str:
    """The QR code of ``url`` as text for a terminal (compact, two rows per character)."""
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
