"""See2Think's 12 categories in 3 levels, mapped to the vcot tasks that can stand for them (the data behind the
`see2think-synth` suite preset; docs/tasks/object_attributes.md, "See2Think categories").

See2Think draws 100 problems per category. vcot generates the categories it has generators for: the 2D ones
from the MIRA-style tasks whose skill matches the category (geometry, spatial puzzles, physics, abstract
patterns), the 3D scene level from the scene3d tasks and Intuitive Physics from scenes simulated on a rigid-body
engine (the physsim tasks), Chemistry from skeletal formulas drawn by RDKit (the chem tasks), Science QA from
motion graphs and food webs drawn and solved exactly (the sciqa tasks), Robot Manipulation and Robot State Change
from a robot arm's table replayed in Bullet (the robot tasks); Visual Commonsense stays a curation-only category:
it needs real photographs, which no generator here draws, and gets no instances. Each generable category gets 100
instances
split as evenly as its tasks allow (earlier tasks take the remainder), at the medium preset.
"""

from __future__ import annotations

PER_CATEGORY = 100
DIFFICULTY = "medium"

LEVELS: dict[str, tuple[str, ...]] = {
    "2D structured": ("Geometry", "Spatial Puzzle", "Physics", "Chemistry", "Science QA", "Abstract Pattern"),
    "3D scene": ("Object Attributes", "Compositional 3D"),
    "real-world": ("Robot Manipulation", "Robot State Change", "Visual Commonsense", "Intuitive Physics"),
}

# Category -> the vcot tasks standing for it (empty: vcot cannot generate the category), with why.
CATEGORY_TASKS: dict[str, tuple[str, ...]] = {
    # Measuring and constructing in the plane: hulls, overlaps, coordinates, counting blocks from a drawing.
    "Geometry": ("convex_hull", "overlap", "localizer", "cubes_count", "cubes_missing"),
    # Fitting, folding and assembling pieces in the mind.
    "Spatial Puzzle": (
        "puzzle",
        "multi_piece_puzzle",
        "unfolded_cube",
        "paper_airplane",
        "trailer_cubes_count",
        "trailer_cubes_missing",
    ),
    # Forces, reflections, gears and rolling: mechanics and optics by simulation.
    "Physics": ("billiards", "electric_charge", "mirror_clock", "gear_rotation"),
    # Reading a skeletal formula drawn by RDKit: carbon chains through branches and rings, donor atoms.
    "Chemistry": ("longest_carbon_chain", "hbond_donors"),
    # Reading diagrams of science: motion graphs and food webs, solved exactly.
    "Science QA": ("motion_graph", "food_web"),
    # Rules over symbols and patterns: mirrored grids, wire logic, the die's rolling rule.
    "Abstract Pattern": ("mirror_pattern", "defuse_a_bomb", "rolling_dice_top", "rolling_dice_sum", "rolling_dice_two"),
    "Object Attributes": ("object_attributes",),
    "Compositional 3D": ("compositional_3d",),
    # A Franka Panda moving blocks on a table, replayed in Bullet (pybullet): a program's result, what changed.
    "Robot Manipulation": ("robot_program",),
    "Robot State Change": ("robot_state_change",),
    # Curation only: real photographs (docs/curation.md), which no generator here draws.
    "Visual Commonsense": (),
    # Released towers and balls on ramps, simulated on a rigid-body engine (pymunk).
    "Intuitive Physics": ("block_tower", "ball_bins"),
}


def level_of(category: str) -> str:
    for level, cats in LEVELS.items():
        if category in cats:
            return level
    raise KeyError(f"unknown See2Think category {category!r}")


def plan(
    available: set[str] | None = None, rows_per_problem: dict[str, int] | None = None
) -> list[tuple[str, str, int]]:
    """(category, task, count) rows: PER_CATEGORY instances per category that has a task, split evenly over
    its tasks. `available` (the registered task names) drops tasks not registered; a category left without a
    task is skipped. A task whose problems have several rows (gear_rotation's pairs, `rows_per_problem`) gets a
    multiple of them, the rows it gives up going to the category's first single-row task."""
    rows_per_problem = rows_per_problem or {}
    out = []
    for category, tasks in CATEGORY_TASKS.items():
        usable = [t for t in tasks if available is None or t in available]
        if not usable:
            continue
        base, extra = divmod(PER_CATEGORY, len(usable))
        counts = {t: base + (1 if i < extra else 0) for i, t in enumerate(usable)}
        single = next((t for t in usable if rows_per_problem.get(t, 1) == 1), None)
        for t in usable:
            step = rows_per_problem.get(t, 1)
            if step > 1 and single is not None:
                cut = counts[t] % step
                counts[t] -= cut
                counts[single] += cut
        out += [(category, t, counts[t]) for t in usable]
    return out


def counts_per_category(
    available: set[str] | None = None, rows_per_problem: dict[str, int] | None = None
) -> dict[str, int]:
    out: dict[str, int] = {c: 0 for c in CATEGORY_TASKS}
    for category, _, n in plan(available, rows_per_problem):
        out[category] += n
    return out
