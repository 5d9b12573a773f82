"""Dense process rewards against the final-answer reward on the same replies (issue 46; docs/rl.md, "Dense
rewards").

For N seeded state_probe problems of each task, a family of scripted replies such as a GRPO group samples
(`vcot.engine.mock.scripted.probe_reply`): for j = 0..K the first j `<stepK>` answers right and the rest
wrong (the final answer right only for j = K); a "lucky guess" (a right prefix of random length < K, then
wrong steps, and the right final answer); a "slip at the end" (every step right, a wrong final answer). With
--one-wrong, also one reply (K >= 2) with a single wrong step among right ones and the right final answer:
where the dense return (nothing paid after the first error) and the step reward (every right step paid)
part. Every reply is scored by the final reward (`vcot.rl.reward`), the dense return (`vcot.rl.rewards.dense_reward`:
the
sum of `vcot.process.dense.dense_rewards`) and, for reference, the existing step reward (`vcot.rl.step_reward`,
the share of right steps). Printed per task and overall:

- r(d,f), r(s,f): Pearson correlation of the dense return (and of the step reward) with the final reward;
- lucky: share of replies the final reward pays (1.0) while some step is wrong;
  partial: share the final reward gives 0 while the dense return is positive (partial work paid);
- zero-adv: share of groups of G replies (drawn uniformly with replacement from a problem's family, seeded)
  in which every reply gets the same reward, so GRPO's advantage is zero and the group teaches nothing:
  under the final reward alone, final + step, final + dense;
- then, overall, the zero-advantage share for groups an honest policy of skill p samples: each step right with
  probability p while the steps before it are right, wrong from the first error on, the final answer right
  only when every step is (the family's first K + 1 replies; no lucky guess, no slip);
- ms: CPU milliseconds per call of the final reward and of the dense return on a Problem (the dense call
  rebuilds the probes from the instance each time, as VcotEnv does).

The family is designed, not a policy's samples: the shares depend on its mix (K + 3 replies per problem,
K + 4 with --one-wrong).

    python benchmarks/dense_vs_final.py [--n 25] [--tasks a,b] [--seed 0] [--groups 8] [--group-size 8]
                                        [--wrong -1] [--one-wrong]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from dataclasses import dataclass, field

from vcot.engine.mock.scripted import probe_reply, wrong_value
from vcot.rl import reward, step_reward, stream
from vcot.rl.rewards import dense_reward, problem_probes
from vcot.seeding import derive_seed

SKILLS = (0.3, 0.5, 0.7, 0.9)
TASKS = (
    "rolling_dice_top",
    "rolling_dice_sum",
    "gear_rotation",
    "food_web",
    "block_tower",
    "billiards",
    "convex_hull",
    "electric_charge",
    "cubes_count",
)


@dataclass
class Scores:
    final: list[float] = field(default_factory=list)
    dense: list[float] = field(default_factory=list)
    step: list[float] = field(default_factory=list)
    all_steps_right: list[bool] = field(default_factory=list)
    groups: int = 0
    flat: dict[str, int] = field(default_factory=lambda: {"final": 0, "step": 0, "dense": 0})
    # By skill p: [groups, flat under final, final + step, final + dense].
    skill: dict[float, list[int]] = field(default_factory=lambda: {p: [0, 0, 0, 0] for p in SKILLS})
    ms_final: list[float] = field(default_factory=list)
    ms_dense: list[float] = field(default_factory=list)
    ks: list[int] = field(default_factory=list)

    def add(self, other: Scores) -> None:
        for name in ("final", "dense", "step", "all_steps_right", "ms_final", "ms_dense", "ks"):
            getattr(self, name).extend(getattr(other, name))
        self.groups += other.groups
        for key, value in other.flat.items():
            self.flat[key] += value
        for p, counts in other.skill.items():
            self.skill[p] = [a + b for a, b in zip(self.skill[p], counts, strict=True)]


def _with_answer(reply: str, answer: str) -> str:
    return reply.rsplit("<answer>", 1)[0] + f"<answer>{answer}</answer>"


def family(problem, rng: random.Random, one_wrong: bool = False) -> list[str]:
    """The scripted replies of one problem (see the module docstring)."""
    inst = problem.instance
    k = len(problem_probes(problem))
    replies = [probe_reply(inst, j, rng) for j in range(k + 1)]
    replies.append(_with_answer(probe_reply(inst, rng.randrange(k), rng), inst.answer))  # lucky guess
    slip = wrong_value(inst.answer, inst.answer_type, inst.options, rng)
    replies.append(_with_answer(probe_reply(inst, k, rng), slip))  # slip at the end
    if one_wrong and k >= 2:
        bad = rng.randrange(1, k + 1)
        right = probe_reply(inst, k, rng)
        wrong = probe_reply(inst, bad - 1, rng)  # steps from `bad` on wrong: step `bad` is taken from it
        tag, close = f"<step{bad}>", f"</step{bad}>"
        wrong_tag = wrong[wrong.index(tag) : wrong.index(close) + len(close)]
        replies.append(right[: right.index(tag)] + wrong_tag + right[right.index(close) + len(close) :])
    return replies


def _timed(fn, *args, **kwargs) -> tuple[float, float]:
    t0 = time.process_time()
    value = fn(*args, **kwargs)
    return value, 1000 * (time.process_time() - t0)


def score_task(
    task: str, n: int, seed: int, groups: int, group_size: int, wrong: float, one_wrong: bool = False
) -> Scores:
    s = Scores()
    problems = stream(task, seed=seed, condition="state_probe").take(n)
    for p in problems:
        rng = random.Random(derive_seed("benchmarks.dense_vs_final", task, seed, p.index))
        finals, denses, steps = [], [], []
        for reply in family(p, rng, one_wrong):
            f, ms_f = _timed(reward, reply, p)
            d, ms_d = _timed(dense_reward, reply, p, wrong=wrong)
            st = step_reward(reply, p)
            finals.append(f)
            denses.append(d)
            steps.append(st)
            s.ms_final.append(ms_f)
            s.ms_dense.append(ms_d)
            s.all_steps_right.append(st == 1.0)
        s.final += finals
        s.dense += denses
        s.step += steps
        s.ks.append(len(problem_probes(p)))
        for _ in range(groups):
            idx = [rng.randrange(len(finals)) for _ in range(group_size)]
            s.groups += 1
            for name, flat in _flat(idx, finals, steps, denses).items():
                s.flat[name] += flat
        k = s.ks[-1]
        for p_right in SKILLS:
            for _ in range(groups):
                # The honest reply with j right steps is entry j of the family.
                idx = [next((j for j in range(k) if rng.random() >= p_right), k) for _ in range(group_size)]
                counts = s.skill[p_right]
                counts[0] += 1
                for i, flat in enumerate(_flat(idx, finals, steps, denses).values(), start=1):
                    counts[i] += flat
    return s


def _flat(idx: list[int], finals: list[float], steps: list[float], denses: list[float]) -> dict[str, bool]:
    """Whether the group `idx` gets one reward for all, paying final / final + step / final + dense."""
    out = {}
    for name, extra in (("final", None), ("step", steps), ("dense", denses)):
        out[name] = len({round(finals[i] + (extra[i] if extra else 0.0), 9) for i in idx}) == 1
    return out


def _corr(x: list[float], y: list[float]) -> float:
    try:
        return statistics.correlation(x, y)
    except statistics.StatisticsError:  # a constant column
        return math.nan


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    —"


HEADER = (
    f"{'task':<21}{'K':>4}{'replies':>8}{'r(d,f)':>7}{'r(s,f)':>7}{'lucky':>7}{'partial':>8}"
    f"{'0-adv f':>8}{'f+step':>7}{'f+dense':>8}{'ms f':>6}{'ms d':>6}"
)


def row(name: str, s: Scores) -> str:
    n = len(s.final)
    lucky = sum(1 for f, ok in zip(s.final, s.all_steps_right, strict=True) if f == 1.0 and not ok)
    partial = sum(1 for f, d in zip(s.final, s.dense, strict=True) if f == 0.0 and d > 1e-12)
    k = statistics.mean(s.ks)
    r_d, r_s = _corr(s.dense, s.final), _corr(s.step, s.final)
    return (
        f"{name[:21]:<21}{k:>4.1f}{n:>8}{r_d:>7.2f}{r_s:>7.2f}{_pct(lucky, n):>7}{_pct(partial, n):>8}"
        f"{_pct(s.flat['final'], s.groups):>8}{_pct(s.flat['step'], s.groups):>7}"
        f"{_pct(s.flat['dense'], s.groups):>8}{statistics.mean(s.ms_final):>6.2f}"
        f"{statistics.mean(s.ms_dense):>6.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=25, help="problems per task")
    ap.add_argument("--tasks", default=",".join(TASKS), help="comma-separated state-probe tasks")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--groups", type=int, default=8, help="sampled groups per problem")
    ap.add_argument("--group-size", type=int, default=8)
    ap.add_argument("--wrong", type=float, default=-1.0, help="the first wrong step's reward (times 1/K)")
    ap.add_argument("--one-wrong", action="store_true", help="add a reply with one wrong step among right ones")
    args = ap.parse_args(argv)
    if args.n < 1 or args.groups < 1 or args.group_size < 2:
        ap.error("--n and --groups must be at least 1, --group-size at least 2")
    t0 = time.perf_counter()
    total = Scores()
    lines = []
    for task in [t.strip() for t in args.tasks.split(",") if t.strip()]:
        s = score_task(task, args.n, args.seed, args.groups, args.group_size, args.wrong, args.one_wrong)
        lines.append(row(task, s))
        total.add(s)
    print(
        f"{args.n} problems per task (state_probe, seed {args.seed}), K + {4 if args.one_wrong else 3} scripted "
        f"replies each; "
        f"{args.groups} groups of {args.group_size} per problem; wrong = {args.wrong:g}"
    )
    print(HEADER)
    print("-" * len(HEADER))
    print("\n".join(lines))
    print("-" * len(HEADER))
    print(row("overall", total))
    print(
        f"\nhonest policy of skill p (each step right with probability p until the first error), groups of "
        f"{args.group_size}:\n{'p':>5}{'groups':>8}{'0-adv final':>13}{'final+step':>12}{'final+dense':>13}"
    )
    for p_right, (n_groups, *flat) in total.skill.items():
        print(
            f"{p_right:>5.1f}{n_groups:>8}"
            + "".join(f"{_pct(c, n_groups):>{w}}" for c, w in zip(flat, (13, 12, 13), strict=True))
        )
    print(f"({time.perf_counter() - t0:.1f} s wall)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
