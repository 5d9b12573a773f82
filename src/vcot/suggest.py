"""Did-you-mean for names typed on a command line (tasks, presets, conditions): a typo is answered with the
name meant, before the full list a reader would otherwise have to scan."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence


def close_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The names of `known` closest to `name` (difflib's ratio of at least 0.6), best first."""
    return difflib.get_close_matches(name, list(known), n=n, cutoff=0.6)


def did_you_mean(names: str | Sequence[str], known: Iterable[str]) -> str:
    """' — did you mean X?' (or 'X or Y?') for the unknown name(s) close to a known one, else ''. With several
    unknown names each suggestion says which name it is for."""
    unknown = [names] if isinstance(names, str) else list(names)
    pool = list(known)
    found = [(name, close) for name in unknown if (close := close_names(name, pool))]
    if not found:
        return ""
    if len(unknown) == 1:
        return f" — did you mean {' or '.join(found[0][1])}?"
    return " — did you mean " + ", ".join(f"{' or '.join(close)} for {name}" for name, close in found) + "?"


def unknown_name(what: str, name: str, known: Sequence[str], listing: str) -> str:
    """`unknown task 'x' — did you mean y? registered tasks: …`, or `unknown task 'x'; registered tasks: …`
    when no known name is close; `listing` names the list ("registered tasks")."""
    hint = did_you_mean(name, known)
    return f"unknown {what} {name!r}{hint or ';'} {listing}: {', '.join(known)}"
