"""Step-labelled trajectories with exact labels (issue 46; docs/process.md): what a step judge or a process
reward model is measured on and trained with.

A trajectory is a problem's question and input picture, then its steps (each a picture and a text, as a model
would write them), then a concluding step "So the answer is X." Every step carries a label: `correct`,
`incorrect` (the first wrong step, with its error type) or `after_error`. The labels are exact because vcot
knows the true steps (the solver's) and builds each error itself:

- `none`: the true steps and the gold answer.
- `ignores_evidence`: from step k on, the task's corrupted trajectory: a wrong reading of the input picture
  carried through the task's own rules, so each later step follows from the one before, and the conclusion is
  the answer that trajectory leads to (`Corruption.answer`). k is the first step whose text or picture differs
  from the true one. The tasks' rule checkers (tests/tasks/test_corruption_rules*.py) already show that no
  such step breaks a rule the question states.
- `picture_text_mismatch`: the true steps, except that step k shows the corrupted trajectory's picture under
  the true text; the conclusion is the gold answer. Every text is true, so no text-only check can find it.
- `wrong_conclusion`: the true steps, and a wrong answer concluded from them: the corrupted trajectory's answer
  when it differs from the gold one, else a draw from the task's answer space that the grader marks wrong
  (never an impossible value). Left out for a problem whose last step states the gold answer in words (the
  contradiction would be there to read, no reasoning needed).
- `wrong_state`: from step k on, the task's slipped trajectory (`Task.slip`): the input read right, one rule
  applied wrongly at step k (a die's roll turned as another direction would turn it, a clock's hour hand left
  as the mirror shows it, a robot's action carried out on the mirrored side or beside a block's forgotten
  earlier place), whose picture and text agree and state the wrong state in a right step's words; every later
  step follows from it by the rules, and the conclusion is the answer it leads to (`Corruption.answer`,
  re-derived by the task's oracle in tests/tasks/test_slip_answers.py). Five tasks have slips (the
  rolling-dice family, mirror_clock, robot_program); a slip that coincides with the task's misreading is left
  out.
- `irrelevant_step`: the true steps with one more step inserted at a seeded position k (before a true step):
  a true sentence about the input picture that advances nothing, the first sentence of the task's scene-graph
  caption (`vcot.captions`: what the picture is, its frame and scale), never one that names the gold answer,
  lists the picture's data or restates a step. Its picture is the one before it (the input picture at k = 1):
  a step may repeat its picture. The later true steps are `after_error` (the first step that is not a correct,
  useful one is k), and the conclusion is the gold answer.

The forms: `with_pictures` (picture and text per step) and `text_only` (the texts alone).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.png import pixel_digest
from vcot.seeding import derive_seed

ERROR_TYPES = ("ignores_evidence", "picture_text_mismatch", "wrong_conclusion", "wrong_state", "irrelevant_step")
KINDS = ("none", *ERROR_TYPES)
# Kinds whose error is in a step picture alone (every text is true): the text-only form cannot carry them.
PICTURE_KINDS = ("picture_text_mismatch",)
LABELS = ("correct", "incorrect", "after_error")
CONCLUSION = "So the answer is {answer}."


class LabellingError(ValueError):
    """A labelled set cannot be made as asked (the message names what)."""


@dataclass(frozen=True)
class LabelledStep:
    text: str
    image: Image.Image | None  # None for the concluding step, and in the text-only form
    label: str  # one of LABELS
    error: str | None = None  # the error type, on the first incorrect step only


@dataclass(frozen=True)
class LabelledTrajectory:
    """One trajectory and its labels; `task` … `variant` regenerate it (`labelled`)."""

    uid: str
    task: str
    difficulty: str
    params: dict[str, Any]
    seed: int
    index: int
    variant: int
    kind: str  # "none" or an error type
    question: str
    image: Image.Image
    steps: tuple[LabelledStep, ...]
    gold: str
    answer_type: str
    options: tuple[str, ...] | None
    concluded: str  # the answer the concluding step states
    scene_key: str

    @property
    def first_error(self) -> int | None:
        """1-based position of the first incorrect step (None when every step is correct)."""
        return next((k for k, s in enumerate(self.steps, start=1) if s.label == "incorrect"), None)

    @property
    def labels(self) -> list[str]:
        return [s.label for s in self.steps]

    def text_only(self) -> LabelledTrajectory:
        """The same trajectory without step pictures (the input picture stays: the question needs it). Refused
        for a kind whose error is in a step picture alone: without it the labels would be false."""
        if self.kind in PICTURE_KINDS:
            raise LabellingError(
                f"{self.uid}: a {self.kind} error is in a step picture; the text-only form has no such error"
            )
        return dataclasses.replace(self, steps=tuple(dataclasses.replace(s, image=None) for s in self.steps))

    def record(self) -> dict[str, Any]:
        """JSON-able facts: everything but the pictures (their pixel digests instead)."""
        return {
            "uid": self.uid,
            "task": self.task,
            "difficulty": self.difficulty,
            "params": json.dumps(self.params, sort_keys=True),
            "seed": self.seed,
            "index": self.index,
            "variant": self.variant,
            "kind": self.kind,
            "question": self.question,
            "gold": self.gold,
            "answer_type": self.answer_type,
            "options": list(self.options or []),
            "concluded": self.concluded,
            "first_error": self.first_error,
            "labels": self.labels,
            "errors": [s.error for s in self.steps],
            "texts": [s.text for s in self.steps],
            "image": pixel_digest(self.image),
            "step_images": [pixel_digest(s.image) if s.image is not None else None for s in self.steps],
        }


def _can_slip(task: Any) -> bool:
    from vcot.tasks.base import Task

    return type(task).slip is not Task.slip


def _names_answer(sentence: str, gold: str, options: Sequence[str] | None) -> bool:
    """Whether an inserted sentence names the gold answer or the right option's text. An option letter (or any
    one-letter answer) counts only as that capital standing alone ("panel A"), not as the article "a"; any other
    value in any case."""
    import re

    letters: list[str] = []
    values = [gold]
    if options:
        from vcot.schema import option_letters

        letters = list(option_letters(len(options)))
        if gold in letters:
            values.append(str(options[letters.index(gold)]))
    for v in (v.strip() for v in values if v.strip()):
        exact = v in letters or (len(v) == 1 and v.isalpha())
        if re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", sentence, 0 if exact else re.I):
            return True
    return False


# Caption openings that are a place, not a subject: the inserted sentence keeps them in front.
_PLACES = ("Left: ", "At the top, ")


def irrelevant_sentence(
    task: str, scene: Mapping[str, Any], texts: Sequence[str], gold: str, options: Sequence[str] | None
) -> str | None:
    """A true sentence about the input picture that advances no solution: the first sentence of the task's
    scene-graph caption (what the picture is, its frame and scale), as a step would say it. None when that
    sentence lists the picture's data (a colon: a reading step, which is useful), names the gold answer (or the
    right option's text), or is already in a step or the caption is unavailable."""
    import re

    from vcot.captions import CaptionError, scene_caption

    try:
        caption = scene_caption(task, dict(scene))
    except (CaptionError, KeyError, TypeError, ValueError, IndexError):
        return None
    first = re.split(r"(?<=[a-z0-9)'])\.\s+(?=[A-Z])", caption, maxsplit=1)[0].strip().rstrip(".")
    place = next((p for p in _PLACES if first.startswith(p)), "")
    body = first[len(place) :]
    if not body or ":" in body or len(body) > 240:
        return None
    low = " ".join(body.lower().split())
    if any(low in " ".join(t.lower().split()) for t in texts):
        return None
    # A caption sentence with its own verb stays as it is; a bare description becomes "the picture shows ...".
    head = re.split(r"[,;]", re.sub(r"\([^)]*\)", "", body))[0]
    if body.startswith("The ") or re.search(r"\b(is|are|stands|stand)\b", head):
        sentence = body
    else:
        sentence = f"the picture shows {body[0].lower()}{body[1:]}"
    sentence = f"{place.rstrip(':, ')}, {sentence}" if place else sentence[0].upper() + sentence[1:]
    if place == "Left: ":
        sentence = "On the left" + sentence[len("Left") :]
    return None if _names_answer(sentence, gold, options) else sentence + "."


def _can_corrupt(task: Any) -> bool:
    from vcot.tasks.base import Task

    return type(task).corrupt is not Task.corrupt


def _differs(a: tuple[Image.Image, str], b: tuple[Image.Image, str]) -> bool:
    return a[1] != b[1] or pixel_digest(a[0]) != pixel_digest(b[0])


def _states_answer(text: str, gold: str, options: Sequence[str] | None) -> bool:
    """Whether a step text states the gold answer in words (then a wrong conclusion after it is text-visible)."""
    import re

    values = [gold]
    if options:
        from vcot.schema import option_letters

        letters = option_letters(len(options))
        if gold in letters:
            values.append(str(options[letters.index(gold)]))
    return any(re.search(rf"(?<![\w.]){re.escape(v.strip())}(?![\w.])", text, re.I) for v in values if v.strip())


def _wrong_answer(inst: Any, implied: str | None, uid: str) -> str | None:
    """A wrong answer that is still a possible one: the corrupted trajectory's when it differs from the gold
    one, else a draw from the task's answer space (an impossible value would give the error away)."""
    from vcot.engine.chance import NoAnswerSpace, answer_space
    from vcot.engine.mock.scripted import wrong_value
    from vcot.rl.rewards import reward

    gold = str(inst.answer)
    row = {"answer": gold, "answer_type": str(inst.answer_type), "options": list(inst.options or []) or None}

    def wrong(value: str) -> bool:
        return value != gold and reward(f"<answer>{value}</answer>", row) == 0.0

    try:
        space = answer_space(inst)
    except (NoAnswerSpace, ValueError, NotImplementedError):
        space = None
    if implied is not None and wrong(implied) and (space is None or space.contains(implied)):
        return implied
    rng = random.Random(derive_seed("vcot.process.conclusion", uid))
    for _ in range(32):
        value = (
            space.sample(rng)
            if space is not None
            else wrong_value(gold, str(inst.answer_type), list(inst.options) if inst.options else None, rng)
        )
        if wrong(value):
            return value
    return None


def labelled(
    task: str,
    seed: int,
    index: int,
    kind: str,
    *,
    difficulty: str = "medium",
    params: Mapping[str, Any] | None = None,
    variant: int = 0,
) -> LabelledTrajectory | None:
    """Trajectory `index` of `seed` with error `kind` ("none" or one of ERROR_TYPES); None when this problem
    cannot carry that error (no corrupted trajectory, no answer it leads to, no picture that differs, a last
    step that states the answer, no slip of the task's rules, no irrelevant sentence)."""
    from vcot.prompts.templates import format_question
    from vcot.rl.problems import configured_task, params_label, problem_uid

    if kind not in KINDS:
        raise LabellingError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    t = configured_task(task, difficulty, params)
    # As `vcot generate` accepts scenes: whatever the kind, the same scene (a task that can corrupt accepts only
    # scenes that admit a corrupted trajectory), so an item's kind never changes its problem.
    scene, solution, corruption, attempts = t._accept(index, seed, check_corruption=_can_corrupt(t), variant=variant)
    if corruption is None and kind not in ("none", "irrelevant_step", "wrong_state"):
        return None
    slip = None
    if kind == "wrong_state":
        if not _can_slip(t):
            return None
        # Its own seed: a slip never touches the scene's acceptance or the corruption's draws.
        slip = t.slip(
            scene, solution, random.Random(derive_seed("vcot.process.slip", t.instance_seed(seed, index, variant)))
        )
        if slip is None or slip.answer is None:
            return None
    label = params_label(t.name, t.difficulty, t.params())
    uid = problem_uid(t.name, label, t.params(), seed, index, variant) + f"/{kind}"
    sample = t.assemble(
        index, seed, scene, solution, variant=variant, attempts=attempts, corruption=corruption, uid=uid
    )
    inst = sample.instance
    true = [(sample.images[s.image], s.text) for s in inst.steps]
    wrong = [(sample.images[s.image], s.text) for s in inst.corrupted_steps]
    gold = str(inst.answer)
    options = tuple(inst.options) if inst.options else None

    def step(pair: tuple[Image.Image, str], lab: str, error: str | None = None) -> LabelledStep:
        return LabelledStep(pair[1], pair[0], lab, error)

    if kind == "none":
        steps = [step(p, "correct") for p in true]
        concluded = gold
    elif kind == "ignores_evidence":
        k = next(
            (i for i, (a, b) in enumerate(zip(true, wrong, strict=False)) if _differs(a, b)), min(len(true), len(wrong))
        )
        if corruption is None or corruption.answer is None or k >= len(wrong):
            return None
        steps = [step(p, "correct") for p in wrong[:k]] + [step(wrong[k], "incorrect", kind)]
        steps += [step(p, "after_error") for p in wrong[k + 1 :]]
        concluded = corruption.answer
    elif kind == "picture_text_mismatch":
        k = next(
            (i for i, (a, b) in enumerate(zip(true, wrong, strict=False)) if pixel_digest(a[0]) != pixel_digest(b[0])),
            None,
        )
        if k is None:
            return None
        steps = [step(p, "correct") for p in true[:k]] + [LabelledStep(true[k][1], wrong[k][0], "incorrect", kind)]
        steps += [step(p, "after_error") for p in true[k + 1 :]]
        concluded = gold
    elif kind == "wrong_state":
        if slip is None or slip.answer is None:  # checked above; narrows the types
            return None
        slipped = list(slip.steps)
        k = next((i for i, (a, b) in enumerate(zip(true, slipped, strict=False)) if _differs(a, b)), None)
        if k is None or len(slipped) != len(true) or str(slip.answer) == gold:
            return None
        # A slip that writes the very trajectory of the task's misreading is that error, not this one.
        if (
            corruption is not None
            and len(wrong) == len(slipped)
            and not any(_differs(a, b) for a, b in zip(wrong, slipped, strict=True))
        ):
            return None
        steps = [step(p, "correct") for p in true[:k]] + [step(slipped[k], "incorrect", kind)]
        steps += [step(p, "after_error") for p in slipped[k + 1 :]]
        concluded = slip.answer
    elif kind == "irrelevant_step":
        texts = [text for _, text in true]
        sentence = irrelevant_sentence(t.name, scene, texts, gold, options)
        if sentence is None or not true:
            return None
        k = random.Random(derive_seed("vcot.process.irrelevant", uid)).randint(1, len(true))
        # The step repeats the picture before it (the input picture at k = 1): it changes no state.
        picture = sample.images[inst.image] if k == 1 else true[k - 2][0]
        steps = [step(p, "correct") for p in true[: k - 1]] + [LabelledStep(sentence, picture, "incorrect", kind)]
        steps += [step(p, "after_error") for p in true[k - 1 :]]
        concluded = gold
    else:  # wrong_conclusion
        if not true or _states_answer(true[-1][1], gold, options):
            return None
        concluded = _wrong_answer(inst, corruption.answer if corruption is not None else None, uid)
        if concluded is None:
            return None
        steps = [step(p, "correct") for p in true]
    last = (
        "after_error"
        if any(s.label != "correct" for s in steps)
        else ("incorrect" if kind == "wrong_conclusion" else "correct")
    )
    steps.append(LabelledStep(CONCLUSION.format(answer=concluded), None, last, kind if last == "incorrect" else None))
    return LabelledTrajectory(
        uid=uid,
        task=t.name,
        difficulty=label,
        params=t.params(),
        seed=int(seed),
        index=int(index),
        variant=int(variant),
        kind=kind,
        question=format_question(inst),
        image=sample.images[inst.image],
        steps=tuple(steps),
        gold=gold,
        answer_type=str(inst.answer_type),
        options=options,
        concluded=str(concluded),
        scene_key=t.scene_key(scene),
    )


def labelled_stream(
    tasks: str | Sequence[str],
    *,
    seed: int = 0,
    difficulty: str = "medium",
    params: Mapping[str, Any] | None = None,
    kinds: Sequence[str] = KINDS,
    exclude: Any = None,
    text_only: bool = False,
) -> Iterator[LabelledTrajectory]:
    """An endless, seeded sequence of labelled trajectories over `tasks` in turn, each item's kind drawn from
    `kinds` by its position (a kind a problem cannot carry is replaced by the next in `kinds`, then "none").
    `params`: parameter overrides of a one-task stream.
    Scenes of the `exclude` suites never appear (`vcot.rl.excluded_keys`, the keys `vcot overlap` compares)."""
    from vcot.rl.problems import configured_task, stream_seed
    from vcot.rl.streams import excluded_keys

    names = [tasks] if isinstance(tasks, str) else list(tasks)
    if not names:
        raise LabellingError("no task given")
    if params and len(names) != 1:
        raise LabellingError("params go with exactly one task")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise LabellingError(f"unknown kinds {unknown or '(none)'}; choose from {', '.join(KINDS)}")
    if text_only:
        dropped = [k for k in kinds if k in PICTURE_KINDS]
        kinds = [k for k in kinds if k not in PICTURE_KINDS]
        if not kinds:
            raise LabellingError(
                f"the text-only form cannot carry {', '.join(dropped)}: the error is in a step "
                "picture; choose other kinds"
            )
    held = excluded_keys(exclude, names)
    gen_seed = stream_seed(seed)
    position = 0
    while True:
        task = names[position % len(names)]
        index = position // len(names)
        t = configured_task(task, difficulty, params)
        first = random.Random(derive_seed("vcot.process.kind", seed, position)).randrange(len(kinds))
        order = [*kinds[first:], *kinds[:first], "none"]
        for variant in range(64):
            scene, _, _, _ = t._accept(index, gen_seed, check_corruption=_can_corrupt(t), variant=variant)
            if t.scene_key(scene) not in held.get(task, ()):
                break
        else:
            raise LabellingError(f"task {task}: 64 draws for item {index} all repeat an excluded scene")
        for kind in order:
            item = labelled(task, gen_seed, index, kind, difficulty=difficulty, params=params, variant=variant)
            if item is not None:
                yield item.text_only() if text_only else item
                break
        position += 1
