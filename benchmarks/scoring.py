"""Throughput of rule-based scoring (tiers 1-2 + type-aware grading) on one core.

    python benchmarks/scoring.py [--n 20000] [--seed 0] [--formats]
    python benchmarks/scoring.py --hostile [--size 1000000] [--bar 1.0]

Responses are synthetic but shaped like real ones: a few hundred to a few thousand characters of reasoning,
sometimes inside <think> blocks with abandoned answers, echoed templates, markdown; about 80% end in answer
tags, the rest state the answer in prose or on the last line. Gold answers cover every answer type.
`--formats` adds answers in the shapes of docs/scoring.md ("Commitment", "Formats"): negations, rejections,
working, revisions, JSON, times in words, LaTeX, named coordinates; and marks 5% of responses truncated.
The default workload is unchanged, so its figures compare across versions. The bar is >= 5,000 responses per
second on one core (docs/scoring.md, "Performance").
`--hostile` instead times single adversarial replies of `--size` characters (unclosed or paired tags, nested
tags, a flood of `<step1>` probe tags, escaped tags, phrase floods) through score_fields and the probe
extractor, and exits non-zero when one takes longer than `--bar` seconds of CPU time.
"""

from __future__ import annotations

import argparse
import collections
import random
import statistics
import time

from vcot.scoring import score_fields
from vcot.scoring.probes import step_answers

FILLER = (
    "Let me look at the picture carefully. The first object sits near the left edge, and the second one is "
    "slightly above it. Counting the elements row by row gives a consistent total. "
)

GOLDS = [
    ("integer", "7", None, ["7", "seven", "7 cubes", "8", "6+1 = 7"]),
    ("choice", "B", ["Pair 1", "Pair 2", "Pair 3", "Pair 4"], ["B", "(B)", "Option B", "Pair 2", "C", "A or B"]),
    ("time", "3:05", None, ["3:05", "15:05", "03:05 PM", "8:55"]),
    ("direction", "northwest", None, ["northwest", "up-left", "NW", "north"]),
    ("coordinates", "(1, 2), (3, 4)", None, ["(1, 2), (3, 4)", "(1,2),(3,4)", "(3, 4), (1, 2)"]),
    ("set", "A, C, D", None, ["A, C, D", "C, A, D", "ACD", "A, C"]),
    ("pair", "red, 17", None, ["red, 17", "Red 17", "black, 17", "red, 6+5+6 = 17"]),
    ("text", "counterclockwise", None, ["counterclockwise", "anticlockwise", "clockwise", "CCW"]),
]


# Answers in the shapes docs/scoring.md describes, per answer type (same golds as GOLDS).
FORMATS = {
    "integer": [
        "not 7",
        "7 (3 in front, 4 behind)",
        "not 9 — on a recount it is 7",
        "seven, not eight",
        "3 in front and 4 behind, so 7",
        "7 or 8",
        "≈ 7",
        "at least 7",
    ],
    "choice": [
        "D (A and C are ruled out)",
        "not B",
        "B, not A",
        "B is wrong",
        '{"answer": "B"}',
        "B because pair C overlaps less",
        "A? No, B.",
    ],
    "time": ["quarter past three", "five past three", "not 3:05", "3:05 (the mirror shows 8:55)", "three oh five"],
    "direction": ["not north", "northwest (the left charge pulls it up)", "north, not northwest"],
    "coordinates": ["x = 1, y = 2; x = 3, y = 4", "not (1, 2), (3, 4)", '{"answer": [[1, 2], [3, 4]]}'],
    "set": ["A, C, D (B is too large)", "not A, C, D", "A, C, not D"],
    "pair": ["red, 17 (8 + 9)", "not red, 17", "red, 17 — black only 15"],
    "text": [
        "not counterclockwise",
        "counterclockwise (not clockwise)",
        "It is not jammed; it turns CCW",
        "It cannot rotate",
    ],
}


def make_response(rng: random.Random, answer: str) -> str:
    body = FILLER * rng.randint(2, 20)
    style = rng.random()
    if style < 0.25:
        body = f"<think>{body} Maybe the answer is 3? <answer>A</answer></think>\n{FILLER}"
    if style < 0.8:
        echo = "The final answer is placed in <answer></answer>. " if rng.random() < 0.2 else ""
        return f"{body}\n{echo}<answer>{'**' + answer + '**' if rng.random() < 0.1 else answer}</answer>"
    if style < 0.9:
        return f"{body}\nTherefore, the final answer is {answer}."
    return f"{body}\n\n{answer}"


def build(n: int, seed: int, formats: bool = False) -> list[tuple]:
    rng = random.Random(seed)
    items = []
    for _ in range(n):
        at, gold, options, answers = rng.choice(GOLDS)
        pool = answers + FORMATS[at] if formats else answers
        truncated = formats and rng.random() < 0.05
        items.append((make_response(rng, rng.choice(pool)), gold, at, options, truncated))
    return items


def run(items: list[tuple]) -> tuple[float, collections.Counter]:
    verdicts: collections.Counter = collections.Counter()
    t0 = time.perf_counter()
    for response, gold, at, options, truncated in items:
        verdicts[score_fields(response, gold, at, options, truncated=truncated).verdict] += 1
    return time.perf_counter() - t0, verdicts


def hostile(size: int) -> dict[str, str]:
    """Adversarial replies of about `size` characters: the shapes that once made extraction quadratic."""

    def fill(unit: str) -> str:
        return unit * max(1, size // len(unit))

    nest = size // 17
    return {
        "unclosed <answer> tags": fill("<answer>"),
        "<answer></answer> pairs": fill("<answer></answer>"),
        "<answer>7</answer> pairs": fill("<answer>7</answer>"),
        "nested <answer> tags": "<answer>" * nest + "7" + "</answer>" * nest,
        "nested <think> tags": "<think>" * nest + "x" + "</think>" * nest + "<answer>7</answer>",
        "unclosed <think> tags": fill("<think>"),
        "unclosed <step1> tags": fill("<step1>"),
        "unclosed &lt;answer&gt; tags": fill("&lt;answer&gt;"),
        "'the answer is' flood": fill("the answer is 7. "),
        "'the correct choice is' flood": fill("so the correct choice is C. "),
        "stars": fill("**"),
    }


def run_hostile(size: int, bar: float) -> None:
    worst = 0.0
    for name, reply in hostile(size).items():
        t0 = time.process_time()
        s = score_fields(reply, "7", "integer")
        t1 = time.process_time()
        step_answers(reply)
        t2 = time.process_time()
        worst = max(worst, t1 - t0, t2 - t1)
        print(
            f"{name:32} {len(reply):>9,} chars  score_fields {t1 - t0:7.3f} s  step_answers {t2 - t1:7.3f} s  "
            f"-> {s.verdict}"
        )
    print(f"worst: {worst:.3f} s CPU; bar: {bar} s")
    raise SystemExit(0 if worst <= bar else 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--formats", action="store_true", help="add negations, working, JSON, time words, ...")
    ap.add_argument("--hostile", action="store_true", help="time adversarial replies instead")
    ap.add_argument("--size", type=int, default=1_000_000, help="characters per adversarial reply")
    ap.add_argument("--bar", type=float, default=1.0, help="seconds of CPU allowed per adversarial reply")
    args = ap.parse_args()
    if args.hostile:
        run_hostile(args.size, args.bar)
    items = build(args.n, args.seed, args.formats)
    mean_len = statistics.mean(len(r) for r, *_ in items)
    run(items[:500])  # warm caches and compiled patterns
    times = []
    for _ in range(args.repeat):
        dt, verdicts = run(items)
        times.append(dt)
    best = min(times)
    print(f"responses: {args.n}  mean length: {mean_len:.0f} chars  verdicts: {dict(verdicts)}")
    rate = args.n / best
    print(
        f"best of {args.repeat}: {best:.3f} s -> {rate:,.0f} responses/s on one core "
        f"({1e6 * best / args.n:.1f} µs each); bar: 5,000/s"
    )
    raise SystemExit(0 if rate >= 5000 else 1)


if __name__ == "__main__":
    main()
