"""What vcot's local servers (the mock model server, the annotation page) share about addresses."""

from __future__ import annotations

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
