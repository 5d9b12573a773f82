"""The seeded balanced assignment: every (problem, condition) exactly k times, nobody sees a problem twice,
loads within one of each other, tasks and conditions mixed per participant, same seed ⇒ same lists."""

from __future__ import annotations

from collections import Counter

import pytest

from vcot.human.assign import AssignmentError, assign, sample_problems

TASKS = {"a": [f"a{i}" for i in range(7)], "b": [f"b{i}" for i in range(5)], "c": [f"c{i}" for i in range(3)]}


def _rows(problems: list[str]) -> dict[str, list[str]]:
    # c-problems are paired (two rows each), like gear_rotation.
    return {p: [f"{p}.1", f"{p}.2"] if p.startswith("c") else [p] for p in problems}


@pytest.mark.parametrize(
    ("n_part", "conds", "k"),
    [
        (3, ("direct",), 1),
        (5, ("direct", "visual_cot"), 2),
        (7, ("direct", "visual_cot", "text_state_cot"), 2),
        (2, ("direct", "visual_cot"), 1),
    ],
)
def test_every_problem_and_condition_k_times_and_never_twice_for_one_person(
    n_part: int, conds: tuple[str, ...], k: int
) -> None:
    problems = sample_problems(TASKS, None, seed=3)
    rows = _rows(problems)
    people = [f"P{i}" for i in range(n_part)]
    jobs = assign(problems, rows, conds, k, people, seed=3)
    row_of = {u: p for p, us in rows.items() for u in us}
    per_problem = Counter((row_of[j.uid], j.condition) for j in jobs if j.uid == rows[row_of[j.uid]][0])
    assert set(per_problem) == {(p, c) for p in problems for c in conds}
    assert set(per_problem.values()) == {k}
    loads = Counter()
    for person in people:
        mine = [j for j in jobs if j.participant == person]
        assert [j.position for j in mine] == list(range(1, len(mine) + 1))
        uids = [j.uid for j in mine]
        assert len(uids) == len(set(uids)), person  # no row twice, so no problem under two conditions
        seen = Counter(row_of[u] for u in uids)
        assert all(seen[p] == len(rows[p]) for p in seen)  # both rows of a pair, with one condition
        assert all(len({j.condition for j in mine if row_of[j.uid] == p}) == 1 for p in seen)
        loads[person] = len(seen)
        # Conditions are balanced within a person: within one, or two when the block spans two passes.
        by_cond = Counter(next(j.condition for j in mine if row_of[j.uid] == p) for p in seen)
        if len(seen) >= len(conds):
            assert max(by_cond.values()) - min(by_cond.get(c, 0) for c in conds) <= 2, by_cond
    assert max(loads.values()) - min(loads.values()) <= 1


def test_rows_of_a_pair_stay_next_to_each_other() -> None:
    problems = sample_problems(TASKS, None, seed=1)
    jobs = assign(problems, _rows(problems), ("direct",), 1, ["x", "y"], seed=1)
    for person in ("x", "y"):
        uids = [j.uid for j in jobs if j.participant == person]
        for i, u in enumerate(uids):
            if u.endswith(".1"):
                assert uids[i + 1] == u[:-1] + "2"


def test_same_seed_same_lists_other_seed_other_order() -> None:
    problems = sample_problems(TASKS, None, seed=5)
    a = assign(problems, _rows(problems), ("direct", "visual_cot"), 1, ["p", "q", "r"], seed=5)
    b = assign(problems, _rows(problems), ("direct", "visual_cot"), 1, ["p", "q", "r"], seed=5)
    c = assign(problems, _rows(problems), ("direct", "visual_cot"), 1, ["p", "q", "r"], seed=6)
    assert a == b
    assert [j.uid for j in a if j.participant == "p"] != [j.uid for j in c if j.participant == "p"]
    assert sample_problems(TASKS, None, seed=5) != sample_problems(TASKS, None, seed=6)


def test_the_sample_spreads_over_tasks_and_alternates_them() -> None:
    picked = sample_problems(TASKS, 7, seed=0)
    assert Counter(p[0] for p in picked) == {"a": 3, "b": 2, "c": 2}
    assert [p[0] for p in picked[:3]] == ["a", "b", "c"]
    assert len(sample_problems(TASKS, None, seed=0)) == 15


def test_more_answers_than_people_allow_is_refused_with_the_reason() -> None:
    problems = sample_problems(TASKS, None, seed=0)
    with pytest.raises(AssignmentError, match="nobody may see a problem twice"):
        assign(problems, _rows(problems), ("direct", "visual_cot"), 2, ["p", "q", "r"], seed=0)
    with pytest.raises(AssignmentError, match="at least 1"):
        assign(problems, _rows(problems), ("direct",), 0, ["p"], seed=0)
    with pytest.raises(AssignmentError, match="distinct"):
        assign(problems, _rows(problems), ("direct",), 1, ["p", "p"], seed=0)
