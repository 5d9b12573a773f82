"""Parameter limits are safe: one instance per task at the top of its declared limits (docs/tasks/README.md,
"Parameter limits"), timed and measured.

Each task starts from its hard preset; the parameters that make its scenes largest (board, grid and block sides,
counts of wires, panels, charges, bounces, moves, folds, wheels) are set to the upper end of their `Limit`, the
rest keep the preset (probabilities, margins and answer ranges have no "largest" end; a few answer ranges are
widened to what the larger scenes need, as noted in `LARGEST`). Instance 0 of seed 0 is generated and encoded
to PNG as `vcot generate` does, in a forked child process per task, so its peak memory is its own.

    python benchmarks/param_limits.py [--task NAME ...] [--timeout 300]

Columns: wall and CPU seconds for make + PNG encoding (CPU time is the fairer figure on a busy machine), CPU
seconds for the task's answer space (the sum questions of the rolling-dice tasks search every path shape), peak
Python heap (tracemalloc), growth of the peak resident set (pixel buffers live outside the Python heap), the
number of pictures and the largest picture's size.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing as mp
import resource
import time
import tracemalloc
from typing import Any

from vcot.suite import EncodedSample
from vcot.tasks import get_task_class
from vcot.tasks.base import Limit, ParameterError
from vcot.tasks.catalog import MIRA_TASKS

TOP = "top"  # the upper end of the field's Limit
# Per task: the parameters set for the largest scenes (TOP or a value); the others keep the hard preset.
LARGEST: dict[str, dict[str, Any]] = {
    "convex_hull": {"grid": TOP, "max_hull_points": TOP, "n_colours": TOP},
    "overlap": {"max_size": TOP, "min_overlapping": TOP},
    "localizer": {"max_cells": TOP, "max_w": TOP, "max_h": TOP, "max_pieces": TOP, "max_circles": TOP},
    "mirror_pattern": {"size": TOP, "n_colors": TOP},
    "cubes_count": {"min_width": TOP, "max_width": TOP, "min_depth": TOP, "max_depth": TOP, "max_height": TOP},
    "cubes_missing": {"min_width": TOP, "max_width": TOP, "min_depth": TOP, "max_depth": TOP, "max_height": TOP},
    "billiards": {
        "min_width": TOP,
        "max_width": TOP,
        "max_height": TOP,
        "min_bounces": TOP,
        "max_bounces": TOP,
        "max_component": TOP,
    },
    "electric_charge": {
        "grid": TOP,
        "min_sources": TOP,
        "max_sources": TOP,
        "max_magnitude": TOP,
        "target_magnitude": TOP,
    },
    "mirror_clock": {},
    "unfolded_cube": {"n_views": TOP, "n_glyph_types": TOP},
    "defuse_a_bomb": {
        "n_wires": TOP,
        "width": TOP,
        "height": TOP,
        "n_panels": TOP,
        "panel_max_w": 2,
        "panel_max_h": TOP,
    },  # 6 panels fit 30 columns only up to 2 columns wide each
    "multi_piece_puzzle": {"max_cells": TOP, "max_w": TOP, "max_h": TOP, "k": TOP, "n_candidates": TOP},
    "puzzle": {"rows": TOP, "cols": TOP, "hole": TOP, "max_period": TOP},
    # An 8 x 8 x 8 block: answers spread over what its structures hold, one bin per quarter.
    "trailer_cubes_count": {
        "min_width": TOP,
        "max_width": TOP,
        "min_depth": TOP,
        "max_depth": TOP,
        "max_height": TOP,
        "answer_min": 60,
        "answer_max": 400,
    },
    "trailer_cubes_missing": {
        "min_width": TOP,
        "max_width": TOP,
        "min_depth": TOP,
        "max_depth": TOP,
        "max_height": TOP,
        "answer_min": 40,
        "answer_max": 300,
    },
    "paper_airplane": {"n_folds": TOP, "size": TOP},
    "gear_rotation": {"n_min": TOP, "n_max": TOP, "extra_links": TOP},
    "rolling_dice_top": {"rows": TOP, "cols": TOP, "min_moves": TOP, "max_moves": TOP},
    "rolling_dice_sum": {"rows": TOP, "cols": TOP, "min_moves": TOP, "max_moves": TOP},
    "rolling_dice_two": {"rows": TOP, "cols": TOP, "min_moves": TOP, "max_moves": TOP},
}


def overrides(name: str) -> tuple[dict[str, Any], list[str]]:
    """The parameters for the largest scenes of `name`, and the fields left at the preset for lack of a Limit."""
    cls = get_task_class(name)
    fields = {f.name for f in dataclasses.fields(cls.config_cls)}
    out, unlimited = {}, []
    for field, value in LARGEST[name].items():
        if field not in fields:
            unlimited.append(f"{field}?")  # the config has no such field (any more)
            continue
        limit = cls.limits.get(field)
        if value == TOP:
            if not isinstance(limit, Limit):
                unlimited.append(field)
                continue
            value = limit.hi
        default = getattr(cls.presets["hard"], field)
        out[field] = int(value) if isinstance(default, int) and not isinstance(default, bool) else value
    return out, unlimited


def measure(name: str, params: dict[str, Any], conn: Any) -> None:
    """In the child: build the task, make instance 0 of seed 0, encode it, time its answer space."""
    try:
        task = get_task_class(name)(difficulty="hard", **params)
    except ParameterError as exc:
        conn.send({"status": f"refused: {exc}"})
        return
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        sample = task.make(0, 0)
        EncodedSample.from_sample(sample)
    except Exception as exc:  # noqa: BLE001 - the benchmark reports any failure as a row
        conn.send({"status": f"failed: {type(exc).__name__}: {str(exc)[:160]}"})
        return
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    heap = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024
    c1 = time.process_time()
    try:
        task.answer_space(sample.instance)
        space = f"{time.process_time() - c1:.2f}"
    except NotImplementedError:
        space = "-"
    sizes = [img.size for img in sample.images.values()]
    largest = max(sizes, key=lambda s: s[0] * s[1])
    conn.send(
        {
            "status": "ok",
            "seconds": seconds,
            "cpu": cpu,
            "space": space,
            "heap": heap,
            "rss": rss,
            "images": len(sizes),
            "largest": f"{largest[0]}x{largest[1]}",
        }
    )


def run(name: str, timeout: float) -> dict[str, Any]:
    params, unlimited = overrides(name)
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=measure, args=(name, params, child))
    proc.start()
    result = parent.recv() if parent.poll(timeout) else {"status": f"timeout after {timeout:g} s"}
    if proc.is_alive():
        proc.kill()
    proc.join()
    return {"params": params, "unlimited": unlimited, **result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", action="append", help="only these tasks (repeatable)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per task")
    args = parser.parse_args()
    names = args.task or list(MIRA_TASKS)
    print(
        f"| {'task':22s} | {'wall s':>6s} | {'CPU s':>5s} | {'answers CPU s':>13s} | {'heap MiB':>8s} | "
        f"{'RSS+ MiB':>8s} | "
        f"{'pictures':>8s} | {'largest':>9s} | parameters at the top of their limits |"
    )
    print(f"|{'-' * 24}|{'-' * 8}|{'-' * 7}|{'-' * 15}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 11}|{'-' * 39}|")
    for name in names:
        r = run(name, args.timeout)
        shown = ", ".join(f"{k}={v}" for k, v in r["params"].items()) or "(hard preset)"
        if r["unlimited"]:
            shown += f"; preset (no Limit): {', '.join(r['unlimited'])}"
        if r["status"] != "ok":
            print(f"| {name:22s} | {r['status']} | {shown} |")
            continue
        print(
            f"| {name:22s} | {r['seconds']:6.2f} | {r['cpu']:5.2f} | {r['space']:>13s} | {r['heap']:8.1f} | "
            f"{r['rss']:8.1f} | "
            f"{r['images']:8d} | {r['largest']:>9s} | {shown} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
