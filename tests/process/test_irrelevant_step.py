"""Kind `irrelevant_step` of the labelled trajectories (vcot.process.labelled, issue 46): the true steps with one
true but useless step inserted at a seeded position k.

Checked for every task: the labels are exact (correct before k, incorrect at k with the type, after_error from
there on, the gold conclusion), the other steps are the true ones pixel for pixel, the inserted step repeats the
picture before it, its sentence is true by construction (it is the first sentence of the scene-graph caption of
this very scene, the frame of the picture), restates no step, names neither the gold answer nor the right
option, and lists none of the picture's data; the same seed gives the same trajectory.
"""

from __future__ import annotations

import re

import pytest

from vcot.captions import scene_caption
from vcot.draw.png import pixel_digest
from vcot.process.labelled import _names_answer, irrelevant_sentence, labelled
from vcot.rl.problems import configured_task
from vcot.tasks import task_names

TASKS = [t for t in task_names() if t != "toy_dots"]
SEED = 11
TRIES = 3
# The first caption sentence of these tasks lists the picture's data (a grid, the graph's corners): reading it
# is a useful step, so they carry no irrelevant step (docs/process.md, "Coverage").
UNCOVERED = {"mirror_pattern", "multi_piece_puzzle", "motion_graph"}


def _core(sentence: str) -> str:
    """The caption's words in an inserted sentence (without "the picture shows" and a leading place)."""
    s = sentence.rstrip(".")
    s = re.sub(r"^(On the left|At the top), ", "", s)
    s = re.sub(r"^(The picture shows )", "", s, flags=re.I)
    return s


@pytest.mark.parametrize("task", TASKS)
def test_irrelevant_step_is_labelled_exactly(task: str) -> None:
    found = [x for i in range(TRIES) if (x := labelled(task, SEED, i, "irrelevant_step")) is not None]
    if task in UNCOVERED:
        assert not found
        return
    assert found, f"{task}: no irrelevant step in the first {TRIES} problems"
    for x in found:
        t = configured_task(task)
        scene, _, _, _ = t._accept(x.index, SEED, check_corruption=True)
        sample = t.make(x.index, SEED)
        inst = sample.instance
        true = [(pixel_digest(sample.images[s.image]), s.text) for s in inst.steps]
        k = x.first_error
        n = len(x.steps)
        assert x.labels == ["correct"] * (k - 1) + ["incorrect"] + ["after_error"] * (n - k)
        assert [s.error for s in x.steps].count("irrelevant_step") == 1 and x.steps[k - 1].error == "irrelevant_step"
        assert 1 <= k <= len(true)  # inserted before a true step, never after the last one
        body = [(pixel_digest(s.image), s.text) for s in x.steps[:-1]]
        assert body[: k - 1] + body[k:] == true
        before = pixel_digest(sample.images[inst.image]) if k == 1 else true[k - 2][0]
        inserted = x.steps[k - 1]
        assert pixel_digest(inserted.image) == before  # the picture before it, repeated
        assert x.concluded == inst.answer and x.steps[-1].text == f"So the answer is {inst.answer}."
        # True by construction: the caption of this scene says it, in these words.
        caption = scene_caption(task, scene)
        core = _core(inserted.text)
        assert core and core[0].lower() + core[1:] in caption[0].lower() + caption[1:], (inserted.text, caption)
        assert caption.startswith(core[0].upper() + core[1:]) or caption.startswith(("Left: ", "At the top, "))
        # Useless and no give-away: in no true step, no gold answer, no list of the picture's data.
        assert not any(core.lower() in text.lower() for _, text in true)
        assert not _names_answer(inserted.text, str(inst.answer), inst.options)
        assert ":" not in core
        assert labelled(task, SEED, x.index, "irrelevant_step").record() == x.record()


def test_a_sentence_that_names_the_answer_or_lists_data_is_refused() -> None:
    dice = {"rows": 5, "cols": 5, "path": [[0, 0], [0, 1]], "start_die": {"top": 1, "south": 2, "east": 3}}
    # "A board of 5 rows and 5 columns." names 5: refused when the answer is 5, kept otherwise.
    assert irrelevant_sentence("rolling_dice_top", dice, [], "5", None) is None
    assert (
        irrelevant_sentence("rolling_dice_top", dice, [], "4", None)
        == "The picture shows a board of 5 rows and 5 columns."
    )
    # ... and refused when a step already says it.
    assert (
        irrelevant_sentence("rolling_dice_top", dice, ["On a board of 5 rows and 5 columns, the die ..."], "4", None)
        is None
    )
    # A choice task: the right option's text counts as the answer; its letter only as a capital standing alone,
    # so the article "a" does not name option A.
    assert irrelevant_sentence("rolling_dice_top", dice, [], "B", ["4", "5"]) is None
    assert irrelevant_sentence("rolling_dice_top", dice, [], "A", ["4", "6"]) is not None
    assert _names_answer("Panel A shows a square.", "A", ["x", "y"])
    assert not _names_answer("The picture shows a square.", "A", ["x", "y"])
    # A first sentence that lists the picture's data (mirror_pattern's grid) is a reading step: refused.
    t = configured_task("mirror_pattern")
    scene, solution = t.solved_scene(0, SEED)
    assert irrelevant_sentence("mirror_pattern", scene, [], solution.answer, t.options(scene)) is None
