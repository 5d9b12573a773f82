"""What the scene3d tasks' shortcut heuristics share: the scene graph and the question program of an
instance, and the objects a description matches (read the shallow way, never the trace or the answer)."""

from __future__ import annotations

from typing import Any

from vcot.analysis.shortcuts import scene
from vcot.schema import Instance


def objects_and_program(inst: Instance) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    s = scene(inst)
    objs, prog = s.get("objects"), s.get("program")
    if not isinstance(objs, list) or not isinstance(prog, dict) or "family" not in prog:
        return None
    return objs, prog


def matching(objs: list[dict[str, Any]], flt: dict[str, str]) -> list[dict[str, Any]]:
    return [o for o in objs if all(o.get(a) == v for a, v in flt.items())]
