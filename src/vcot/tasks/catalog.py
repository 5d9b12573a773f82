"""MIRA's 20 task types: domain and answer type, known even before a generator exists (importers use it)."""

from __future__ import annotations

from vcot.schema import AnswerType

MIRA_TASKS: dict[str, tuple[str, AnswerType]] = {
    "convex_hull": ("EG", AnswerType.INTEGER),
    "overlap": ("EG", AnswerType.CHOICE),
    "localizer": ("EG", AnswerType.COORDINATES),
    "mirror_pattern": ("EG", AnswerType.CHOICE),
    "cubes_count": ("EG", AnswerType.INTEGER),
    "cubes_missing": ("EG", AnswerType.INTEGER),
    "billiards": ("PBR", AnswerType.CHOICE),
    "electric_charge": ("PBR", AnswerType.DIRECTION),
    "mirror_clock": ("PBR", AnswerType.TIME),
    "unfolded_cube": ("ASLP", AnswerType.CHOICE),
    "defuse_a_bomb": ("ASLP", AnswerType.CHOICE),
    "multi_piece_puzzle": ("ASLP", AnswerType.SET),
    "puzzle": ("ASLP", AnswerType.CHOICE),
    "trailer_cubes_count": ("ASLP", AnswerType.INTEGER),
    "trailer_cubes_missing": ("ASLP", AnswerType.INTEGER),
    "paper_airplane": ("CT", AnswerType.CHOICE),
    "gear_rotation": ("CT", AnswerType.TEXT),
    "rolling_dice_top": ("CT", AnswerType.INTEGER),
    "rolling_dice_sum": ("CT", AnswerType.INTEGER),
    "rolling_dice_two": ("CT", AnswerType.PAIR),
}

# Per-task problem counts of the mira-synth suite (README.md, `vcot generate --preset mira-synth`): the counts MIRA's
# accuracy fractions reveal,
# the other twelve tasks sharing the remainder so the suite totals 546 problems like MIRA. gear_rotation
# has 20 paired problems, each two sub-question rows (uids n.1 / n.2), so the suite has 566 rows.
_FIXED = {
    "billiards": 21,
    "electric_charge": 21,
    "rolling_dice_top": 26,
    "overlap": 30,
    "cubes_count": 30,
    "defuse_a_bomb": 25,
    "unfolded_cube": 23,
    "gear_rotation": 20,
}
ROWS_PER_PROBLEM = {"gear_rotation": 2}
MIRA_PROBLEMS = 546


def mira_synth_counts() -> dict[str, int]:
    """Rows per task in mira-synth (gear_rotation: two rows per paired problem)."""
    rest = [t for t in MIRA_TASKS if t not in _FIXED]
    remaining = MIRA_PROBLEMS - sum(_FIXED.values())
    base, extra = divmod(remaining, len(rest))
    counts = dict(_FIXED)
    for i, t in enumerate(rest):
        counts[t] = base + (1 if i < extra else 0)
    return {t: counts[t] * ROWS_PER_PROBLEM.get(t, 1) for t in MIRA_TASKS}
