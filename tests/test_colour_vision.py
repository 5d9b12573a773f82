"""Colour-vision check of the palette colours every task relies on (docs/tasks/README.md, "Colour").

Every pair of a task's information colours (`vcot.tasks.colour_roles.INFORMATION`) must stay at least
MIN_DELTA_E CIEDE2000 units apart under normal vision and under simulated protanopia, deuteranopia and
tritanopia (Machado et al. 2009 at severity 1, applied in linear sRGB, through colour-science); a task
declared CROWDED may go down to MIN_DELTA_E_CROWDED only with a declared second cue. The declarations are
checked against rendered pictures and against the colour pools the task modules draw from.
"""

from __future__ import annotations

import itertools
import warnings
from functools import cache

import colour
import numpy as np
import pytest

from task_pieces import builtin_task_names
from vcot.draw.colors import PALETTE, Color
from vcot.tasks import get_task, get_task_class
from vcot.tasks.colour_roles import (
    CROWDED,
    DECORATION,
    INFORMATION,
    MIN_DELTA_E,
    MIN_DELTA_E_CROWDED,
    REASONS,
    SECOND_CUE,
)

# colour-science's names for the three deficiencies; severity 1 is the full dichromacy.
DEFICIENCIES = {"protanopia": "Protanomaly", "deuteranopia": "Deuteranomaly", "tritanopia": "Tritanomaly"}
VISIONS = ("normal", *DEFICIENCIES)
# A palette colour counts as used by a picture from this many exact pixels on: anti-aliased edges of black
# on white hit the palette greys exactly in up to ~75 pixels; the smallest real use (digits of a step's
# numbers) covers about 150.
MIN_PIXELS = 100
INSTANCES_PER_PRESET = 3
# Every task vcot registers: the 20 MIRA tasks and the 3D tasks, whose objects' albedo colours are palette
# colours.
TASKS = tuple(builtin_task_names())


@cache
def _cvd_matrix(vision: str) -> np.ndarray:
    if vision == "normal":
        return np.eye(3)
    with warnings.catch_warnings():
        # colour-science warns that its tritan matrices approximate tritanopia by a cone shift; they are
        # still the maintained simulation, and the approximation is stated in the docs.
        warnings.simplefilter("ignore", colour.utilities.ColourUsageWarning)
        return np.asarray(colour.matrix_cvd_Machado2009(DEFICIENCIES[vision], 1.0))


def lab(rgb: Color, vision: str) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour as seen with `vision`: the deficiency matrix acts on linear light."""
    space = colour.RGB_COLOURSPACES["sRGB"]
    linear = colour.cctf_decoding(np.asarray(rgb, dtype=float) / 255.0, function="sRGB")
    seen = np.clip(_cvd_matrix(vision) @ linear, 0.0, 1.0)
    xyz = colour.RGB_to_XYZ(seen, space, apply_cctf_decoding=False)
    return colour.XYZ_to_Lab(xyz, space.whitepoint)


def delta_e(a: Color, b: Color, vision: str) -> float:
    return float(colour.delta_E(lab(a, vision), lab(b, vision), method="CIE 2000"))


def required_delta_e(task: str) -> float:
    return MIN_DELTA_E_CROWDED if task in CROWDED else MIN_DELTA_E


def too_close(task: str, palette: dict[str, Color] = PALETTE) -> list[str]:
    """Every (vision, pair) of the task's information colours closer than its required difference."""
    need = required_delta_e(task)
    out = []
    for a, b in itertools.combinations(INFORMATION[task], 2):
        for vision in VISIONS:
            d = delta_e(palette[a], palette[b], vision)
            if d < need:
                out.append(f"{a}/{b} under {vision}: ΔE {d:.1f} < {need}")
    return out


# -- the declarations -------------------------------------------------------------------------------------


def test_every_task_declares_its_colours() -> None:
    for table in (INFORMATION, DECORATION, REASONS):
        assert set(table) == set(TASKS)
    assert all(REASONS[t].strip() for t in TASKS)
    for task in TASKS:
        named = INFORMATION[task] + DECORATION[task]
        assert set(named) <= set(PALETTE), (task, sorted(set(named) - set(PALETTE)))
        assert not set(INFORMATION[task]) & set(DECORATION[task]), task
        assert len(set(INFORMATION[task])) == len(INFORMATION[task]), task
    # A task that tells colours apart says what else tells them apart, or "" when nothing does yet; a crowded
    # task, whose colours cannot all keep the full difference, must have a second cue.
    assert set(SECOND_CUE) == {t for t in TASKS if len(INFORMATION[t]) >= 2}
    assert CROWDED <= {t for t, cue in SECOND_CUE.items() if cue.strip()}
    assert MIN_DELTA_E_CROWDED < MIN_DELTA_E


@pytest.mark.parametrize("task", [t for t in TASKS if get_task_class(t).colour_pools])
def test_colour_pools_are_declared(task: str) -> None:
    """Every palette colour a task can draw information with (its `colour_pools`) is declared, also the ones
    the presets' first instances happen not to show."""
    for k, pool in enumerate(get_task_class(task).colour_pools):
        items = [*pool.keys(), *pool.values()] if isinstance(pool, dict) else list(pool)
        names = {x for x in items if isinstance(x, str) and x in PALETTE}
        assert names, f"{task}: colour pool {k} names no palette colour"
        assert names <= set(INFORMATION[task]), f"{task}: pool {k}: {sorted(names - set(INFORMATION[task]))}"


# -- the threshold ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [t for t in TASKS if len(INFORMATION[t]) >= 2])
def test_information_colours_stay_apart(task: str) -> None:
    assert too_close(task) == []


def test_check_rejects_the_former_palette() -> None:
    """The palette this check replaced fails it: red with brown for protanopes, blue with purple for
    deuteranopes, among defuse_a_bomb's wire colours."""
    former = {
        "red": (213, 40, 40),
        "blue": (31, 90, 200),
        "green": (30, 150, 60),
        "purple": (130, 60, 170),
        "brown": (140, 90, 40),
    }
    failures = too_close("defuse_a_bomb", {**PALETTE, **former})
    assert any(f.startswith("red/brown under protanopia") for f in failures)
    assert any(f.startswith("blue/purple under deuteranopia") for f in failures)


# -- the simulation can fail ------------------------------------------------------------------------------


def test_simulation_merges_known_confusion_pairs() -> None:
    # The palette's former red and green: far apart in normal vision, one olive for a deuteranope.
    old_red, old_green, old_brown = (213, 40, 40), (30, 150, 60), (140, 90, 40)
    assert delta_e(old_red, old_green, "normal") > 50
    assert delta_e(old_red, old_green, "deuteranopia") < MIN_DELTA_E
    # Red and brown lose their difference for a protanope, light blue and light green for a tritanope.
    assert delta_e(old_red, old_brown, "normal") > 20 > 5 > delta_e(old_red, old_brown, "protanopia")
    assert delta_e((170, 200, 240), (180, 230, 180), "normal") > 30
    assert delta_e((170, 200, 240), (180, 230, 180), "tritanopia") < MIN_DELTA_E


def test_simulation_keeps_lightness_contrast() -> None:
    for vision in VISIONS:
        assert delta_e((0, 0, 0), (255, 255, 255), vision) > 99
        grey = lab((128, 128, 128), vision)
        assert abs(grey[1]) < 0.5 and abs(grey[2]) < 0.5  # a neutral stays neutral
    assert delta_e((229, 15, 65), (229, 15, 65), "deuteranopia") == 0.0


# -- the declarations are true to the pictures ------------------------------------------------------------


def palette_colours_used(image) -> set[str]:
    """Palette colours covering at least MIN_PIXELS exact pixels of `image`."""
    a = np.asarray(image.convert("RGB"), dtype=np.uint32)
    codes, counts = np.unique((a[..., 0] << 16) | (a[..., 1] << 8) | a[..., 2], return_counts=True)
    found = dict(zip(codes.tolist(), counts.tolist(), strict=True))
    return {name for name, (r, g, b) in PALETTE.items() if found.get((r << 16) | (g << 8) | b, 0) >= MIN_PIXELS}


@pytest.mark.parametrize("task", list(TASKS))
def test_declared_colours_cover_the_pictures(task: str) -> None:
    declared = set(INFORMATION[task]) | set(DECORATION[task])
    used: dict[str, str] = {}
    for difficulty in get_task_class(task).presets:
        generator = get_task(task, difficulty)
        for index in range(INSTANCES_PER_PRESET):
            sample = generator.make(index, 0, with_corruption=False)
            for path, image in sample.images.items():
                for name in palette_colours_used(image):
                    used.setdefault(name, path)
    assert {n: p for n, p in used.items() if n not in declared} == {}
    # The check sees colours at all (white or another background is in every picture).
    assert used
