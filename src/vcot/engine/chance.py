"""The chance baseline: a uniformly random answer from each instance's answer space, offline and seeded.

The space comes from the instance's task as its question and configuration define it
(`Task.answer_space`, documented per task in `docs/tasks/`), never from the gold answer, so neither the
baseline nor its chance level can know anything a guesser would not. An instance may carry its own space
in `meta["answer_space"]` (a list of strings, e.g. for curated free-form items).

Instances of tasks vcot does not know (imported suites) get a generic space by answer type: the option
letters (choice), the 8 compass directions (direction), the 720 minutes of a clock face (time), the
integers 0–20 (integer, an approximation). Other answer types have no space: the baseline answers
"unknown" and the chance level is 0.

`chance_level(instance)` is 1/size of the space: the probability that a uniform guess hits a fixed answer.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

from vcot.schema import AnswerType, Instance, option_letters
from vcot.seeding import derive_seed
from vcot.tasks.answer_space import (
    AnswerSpace,
    clock_times,
    compass_directions,
    finite,
    integers,
    option_letters_space,
)

_GENERIC_INTEGERS = (0, 20)


class NoAnswerSpace(ValueError):
    """The instance's answer type has no space vcot can enumerate."""


@lru_cache(maxsize=512)
def _task(name: str, params_json: str):
    from vcot.tasks import get_task_class, task_names

    if name not in task_names():
        return None
    cls = get_task_class(name)
    params = json.loads(params_json)
    return cls(config=cls.config_cls(**params)) if params is not None else cls()


def _generic(instance: Instance) -> AnswerSpace:
    t = instance.answer_type
    if t == AnswerType.CHOICE and instance.options:
        return option_letters_space(option_letters(len(instance.options)))
    if t == AnswerType.DIRECTION:
        return compass_directions()
    if t == AnswerType.TIME:
        return clock_times()
    if t == AnswerType.INTEGER:
        return integers(*_GENERIC_INTEGERS, "the integers 0 to 20 (generic: the task is not one of vcot's)")
    raise NoAnswerSpace(f"{instance.uid}: no answer space for a {t} answer of task {instance.task!r}")


def answer_space(instance: Instance) -> AnswerSpace:
    """The instance's answer space (raises NoAnswerSpace when there is none)."""
    given = instance.meta.get("answer_space")
    if isinstance(given, list) and given and all(isinstance(v, str) for v in given):
        return finite(list(given), "the answers listed in meta['answer_space']")
    gen = instance.meta.get("generator")
    params = gen.get("params") if isinstance(gen, dict) and gen.get("task") == instance.task else None
    try:
        task = _task(instance.task, json.dumps(params, sort_keys=True))
    except (TypeError, ValueError):  # parameters of another generator version
        task = _task(instance.task, "null")
    if task is not None and task.answer_type == instance.answer_type:
        return task.answer_space(instance)
    return _generic(instance)


def chance_level(instance: Instance) -> float:
    """Probability that a uniform guess from the answer space is right (0 when there is no space)."""
    try:
        return 1.0 / answer_space(instance).size
    except NoAnswerSpace:
        return 0.0


def chance_answer(instance: Instance, condition: str, epoch: int) -> str:
    """The baseline's answer, a pure function of (uid, condition, epoch)."""
    rng = random.Random(derive_seed("chance", instance.uid, condition, epoch))
    try:
        return answer_space(instance).sample(rng)
    except NoAnswerSpace:
        return "unknown"


def chance_probe_answers(instance: Instance, epoch: int) -> dict[int, str]:
    """The baseline's state_probe answers, step -> answer, from generic spaces by answer type (the option
    letters, the die faces 1-6 for integers, the compass and rotation words, the clock's minutes); a probe that
    repeats the question gets the baseline's final answer. No probe's gold answer is consulted."""
    from vcot.probes import build_probes, probe_reason

    if probe_reason(instance) is not None:
        return {}
    rng = random.Random(derive_seed("chance-probes", instance.uid, epoch))
    out = {}
    for p in build_probes(instance):
        if p.kind == "final":
            out[p.step] = chance_answer(instance, "state_probe", epoch)
        elif p.options:
            out[p.step] = rng.choice(option_letters(len(p.options)))
        elif p.answer_type == AnswerType.DIRECTION:
            out[p.step] = rng.choice(("top", "bottom", "left", "right"))
        elif p.answer_type == AnswerType.TIME:
            out[p.step] = clock_times().sample(rng)
        elif p.answer_type == AnswerType.TEXT:
            out[p.step] = rng.choice(("clockwise", "counterclockwise", "red", "blue", "green", "yellow"))
        else:
            out[p.step] = str(rng.randint(1, 6))
    return out
