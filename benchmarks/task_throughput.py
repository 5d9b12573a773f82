"""Throughput of one task on one core (CPU time), shared by the task families' benchmark scripts
(`chem_throughput.py`, `sciqa_throughput.py`, `physsim_throughput.py`, `robot_throughput.py`): the training
stream's rate with the input picture only, split into scene and picture time, and `make`'s rate with the steps,
the corrupted steps and PNG encoding."""

from __future__ import annotations

import time

from vcot.rl import stream
from vcot.rl.problems import configured_task
from vcot.suite import EncodedSample
from vcot.tasks import get_task


def stream_rate(name: str, difficulty: str, n: int) -> tuple[float, dict[str, float]]:
    """Problems/s of the stream, and the CPU seconds per problem spent on the scene and on the picture."""
    s = stream(name, difficulty=difficulty, seed=1)
    s[0]  # warm fonts and caches
    task = configured_task(name, difficulty)
    spent = {"scene": 0.0, "picture": 0.0}

    def timed(fn, part):
        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - t0

        return wrapper

    methods = {"_accept": "scene", "render_input": "picture"}
    for method, part in methods.items():
        setattr(task, method, timed(getattr(task, method), part))
    t0 = time.process_time()
    for i in range(1, n + 1):
        s[i]
    rate = n / (time.process_time() - t0)
    for method in methods:
        delattr(task, method)
    return rate, {k: v / n for k, v in spent.items()}


def generate_rate(name: str, difficulty: str, n: int) -> float:
    gen = get_task(name, difficulty)
    gen.make(0, 999)
    t0 = time.process_time()
    for i in range(n):
        EncodedSample.from_sample(gen.make(i, 1))
    return n / (time.process_time() - t0)
