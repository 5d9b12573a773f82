"""What vcot's local servers (the mock model server, the annotation page) share about addresses."""

from __future__ import annotations

import errno
import ipaddress

_LOOPBACK_NAMES = {"localhost", "localhost."}


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or a name, IPv6 with or without brackets) names this machine only.

    An empty host or 0.0.0.0 / :: (every interface) is not loopback: a server bound there is reachable
    from the network.
    """
    host = host.strip().strip("[]").lower()
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen_error(exc: OSError, host: str, port: int) -> str:
    """The one line a serving command prints when it cannot bind `host:port` (instead of `[Errno 98] …`)."""
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use on {host}; pass --port 0 for a free one"
    if exc.errno == errno.EACCES and 0 < port < 1024:
        return f"port {port} on {host} needs administrator rights (below 1024); pass --port 0 for a free one"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}: it is not an address of this machine (--host)"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
