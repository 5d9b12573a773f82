"""The multi_piece_puzzle oracle (one search over all candidates) agrees with the generator."""

from __future__ import annotations

import copy

import pytest

from vcot.oracles.multi_piece_puzzle import answer, covering_sets
from vcot.tasks import get_task


def test_hand_worked_puzzle() -> None:
    # A 2 x 2 square. Under translation only the two horizontal dominoes A and C tile it; under rotation
    # any two dominoes do, so the oracle refuses the ambiguous scene.
    scene = {
        "rule": "translate",
        "k": 2,
        "width": 2,
        "height": 2,
        "target": [[1, 1], [1, 2], [2, 1], [2, 2]],
        "pieces": [
            {"label": "A", "cells": [[0, 0], [1, 0]]},
            {"label": "B", "cells": [[0, 0], [0, 1]]},
            {"label": "C", "cells": [[0, 0], [1, 0]]},
            {"label": "D", "cells": [[0, 0], [0, 1], [1, 1]]},
        ],
    }
    assert covering_sets(scene) == {(0, 2)}
    assert answer(scene, {}) == "A, C"
    scene["rule"] = "rotate"
    assert covering_sets(scene) == {(0, 1), (0, 2), (1, 2)}
    with pytest.raises(ValueError):
        answer(scene, {})


def test_wrong_scene_changes_answer() -> None:
    task = get_task("multi_piece_puzzle", "medium")
    for i in range(5):
        scene, solution = task.solved_scene(i, 5)
        chosen = solution.answer.split(", ")
        bad = copy.deepcopy(scene)
        by_label = {p["label"]: p for p in bad["pieces"]}
        decoy = next(lab for lab in by_label if lab not in chosen)
        # Swap the shapes of an answer piece and a decoy: the answer must follow the shape to its new label.
        by_label[chosen[0]]["cells"], by_label[decoy]["cells"] = by_label[decoy]["cells"], by_label[chosen[0]]["cells"]
        expected = ", ".join(sorted([decoy, *chosen[1:]]))
        assert answer(bad, task.params()) == expected != solution.answer
