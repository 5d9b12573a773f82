"""longest_carbon_chain oracle: a depth-first search with backtracking over the stored atoms and bonds.

The generator enumerates RDKit's bond paths of growing length on the carbon skeleton and keeps the atom-simple
ones; this module instead grows every simple path from every carbon by its own recursion over an adjacency list
it builds from the scene, so the two share neither the search nor the library.
"""

from __future__ import annotations

from typing import Any


def carbon_neighbours(scene: dict[str, Any]) -> dict[int, list[int]]:
    """Per carbon atom, the carbon atoms bonded to it (any bond order)."""
    carbon = {k for k, a in enumerate(scene["atoms"]) if a["el"] == "C"}
    adj: dict[int, list[int]] = {k: [] for k in sorted(carbon)}
    for i, j, _ in scene["bonds"]:
        if i in carbon and j in carbon:
            adj[i].append(j)
            adj[j].append(i)
    return adj


def longest_path_atoms(adj: dict[int, list[int]]) -> int:
    """The number of atoms of a longest simple path in the graph (0 for an empty graph)."""
    best = 0
    on_path: set[int] = set()

    def grow(at: int, length: int) -> None:
        nonlocal best
        best = max(best, length)
        for nxt in adj[at]:
            if nxt not in on_path:
                on_path.add(nxt)
                grow(nxt, length + 1)
                on_path.discard(nxt)

    for start in adj:
        on_path.add(start)
        grow(start, 1)
        on_path.discard(start)
    return best


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    return str(longest_path_atoms(carbon_neighbours(scene)))
