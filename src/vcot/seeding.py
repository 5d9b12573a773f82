"""Seeds derived by hashing: the one way vcot turns names and numbers into independent RNG streams."""

from __future__ import annotations

import hashlib


def derive_seed(*parts: object) -> int:
    """A 64-bit seed from hashing the parts; neighbouring suite seeds give unrelated streams."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")
