"""Which palette colours carry information in each task's pictures, and what else tells them apart.

`INFORMATION[task]` lists the palette colours (`vcot.draw.colors.PALETTE` names) that a reader must tell
apart from each other to solve the task or to follow its steps; `DECORATION[task]` lists every other
palette colour its pictures (question and steps) use: background, outlines, text, highlights, fills whose
meaning another mark already carries. `SECOND_CUE[task]` says, for a task with information colours, what
besides colour distinguishes them ("" when nothing does yet). `REASONS[task]` is the one-line why.

`tests/test_colour_vision.py` checks that the information colours of every task stay apart under simulated
protanopia, deuteranopia and tritanopia (docs/tasks/README.md, "Colour") and that these declarations cover
every palette colour the rendered pictures use. Colours a task draws as raw RGB outside the palette (the
polyomino piece fills, the cube-stack shades, the gear-rotation arrows) are not covered here. The 3D tasks
(`object_attributes`, `compositional_3d`) are covered through their objects' albedo colours, which are palette
colours; their rendered pixels are shaded.
"""

from __future__ import annotations

# CIEDE2000 difference every pair of a task's information colours keeps under normal vision and under each
# simulated dichromacy (docs/tasks/README.md, "Colour").
MIN_DELTA_E = 10.0
# The lower bound for a task listed in CROWDED: it uses too many colours at once for all of them to keep
# MIN_DELTA_E under every simulation, so a declared second cue must tell them apart as well.
MIN_DELTA_E_CROWDED = 5.0
CROWDED: frozenset[str] = frozenset()

_GREYS = ("white", "black", "gray", "lightgray", "darkgray")

INFORMATION: dict[str, tuple[str, ...]] = {
    "block_tower": (),
    "ball_bins": (),
    "convex_hull": ("red", "blue", "green", "orange"),
    "overlap": ("blue", "orange"),
    "localizer": (),
    "mirror_pattern": ("white", "red", "blue", "yellow", "black"),
    "cubes_count": (),
    "cubes_missing": (),
    "billiards": (),
    "electric_charge": ("red", "blue", "lightred", "lightblue"),
    "mirror_clock": (),
    "unfolded_cube": (
        "red",
        "blue",
        "green",
        "orange",
        "purple",
        "brown",
        "cyan",
        "lightred",
        "lightblue",
        "lightgreen",
    ),
    "defuse_a_bomb": ("red", "blue", "green", "orange", "purple", "brown"),
    "multi_piece_puzzle": (),
    "puzzle": ("red", "blue", "yellow", "black"),
    "trailer_cubes_count": ("red", "blue"),
    "trailer_cubes_missing": (),
    "paper_airplane": ("red", "blue", "green", "purple"),
    "gear_rotation": (),
    "rolling_dice_top": ("blue", "lightblue"),
    "rolling_dice_sum": ("blue", "lightblue"),
    "rolling_dice_two": ("red", "black", "lightred"),
    "object_attributes": ("red", "blue", "green", "orange", "purple", "cyan"),
    "compositional_3d": ("red", "blue", "green", "orange", "purple", "cyan"),
    "robot_program": ("red", "blue", "green", "orange", "purple", "cyan"),
    "robot_state_change": ("red", "blue", "green", "orange", "purple", "cyan"),
    "motion_graph": ("lightblue", "lightyellow"),
    "food_web": ("red", "blue"),
    "longest_carbon_chain": (),
    "hbond_donors": (),
}

REASONS: dict[str, str] = {
    "block_tower": "grey-scale blocks on a pale yellow fill, told apart by their letters; paths are dashed blue",
    "ball_bins": "ramps and bins are lettered and numbered; the orange ball and its blue path are one object each",
    "convex_hull": "the question names point sets by colour (red, blue, green, orange); steps outline each hull "
    "in its set's colour",
    "overlap": "the two shapes of a pair are blue and orange; in the step picture they overlap and the outline "
    "colour tells which is which",
    "localizer": "pieces are filled with the polyomino piece colours, which are outside the palette",
    "mirror_pattern": "cells are white, red, blue, yellow or black, and wrong candidates differ from the right "
    "one in a few cells' colours",
    "cubes_count": "one cube-shade set per scene (outside the palette); faces differ by lightness",
    "cubes_missing": "one cube-shade set per scene (outside the palette); faces differ by lightness",
    "billiards": "pockets are labelled with letters; rail, path, bounce marks and ball differ in shape and role",
    "electric_charge": "a charge's sign is drawn as a red (positive) or blue (negative) ring and fill",
    "mirror_clock": "a grey-scale clock face",
    "unfolded_cube": "glyphs in six colours (named in the step texts); the step tints the three visible faces "
    "light red, blue, green and colours the shared edges orange, purple, cyan",
    "defuse_a_bomb": "the easy preset draws each wire in its own colour (red, blue, green, orange, purple, "
    "brown); the other presets draw all wires black",
    "multi_piece_puzzle": "candidate pieces are filled with the polyomino piece colours (outside the palette) "
    "and labelled with letters",
    "puzzle": "a cell's colour (red, blue, yellow, black) is one of the pattern's three channels, and a wrong "
    "piece may differ only in colour",
    "trailer_cubes_count": "the step writes front-view heights in blue and right-view heights in red",
    "trailer_cubes_missing": "grey-scale views; the step's cubes use the cube shades outside the palette",
    "paper_airplane": "each fold line and its arrow has its own colour (red, blue, green, purple)",
    "gear_rotation": "the driver's arrow is the one red mark; the step arrows use colours outside the palette",
    "rolling_dice_top": "the step draws the path still to roll in light blue, the path rolled in blue",
    "rolling_dice_sum": "the step draws the path still to roll in light blue, the path rolled in blue",
    "rolling_dice_two": "the question names the red path and the black path; steps draw the remaining path "
    "pale (light red for the red one)",
    "object_attributes": "colour is one of the four attributes the questions name and ask for (CLEVR's six, as "
    "palette colours); the ray caster shades them, so the check covers their albedo",
    "compositional_3d": "each vehicle part has one of six colours, which the questions name and ask for; the "
    "ray caster shades them, so the check covers their albedo",
    "robot_program": "the program names blocks by colour; each block is drawn in its colour",
    "robot_state_change": "the options name blocks by colour; each block is drawn in its colour",
    "motion_graph": "the step shades pieces above the time axis light blue and pieces below it light yellow",
    "food_web": "the steps cross out species that died out in red and ring animals that kept some food in blue",
    "longest_carbon_chain": "atoms are black-and-white element symbols; each step picture highlights one atom set "
    "in one light colour, read against the white background, and its text names the set",
    "hbond_donors": "atoms are black-and-white element symbols; each step picture highlights one atom set in one "
    "light colour, read against the white background, and its text names the set",
}

SECOND_CUE: dict[str, str] = {
    "convex_hull": "marker shape: red circles, blue squares, green triangles, orange diamonds (named in the question)",
    "overlap": "position: the shapes are drawn apart in the question picture, each with its own black dot",
    "mirror_pattern": "mark: every cell colour has its own mark (none, cross, ring, plus, dot)",
    "electric_charge": "sign: every charge is labelled with its signed magnitude (+2q, −1q)",
    "unfolded_cube": "glyph shape (the coloured presets use six glyph kinds, one per face); face letters T, L, R "
    "on the tints; each coloured edge lies between two lettered faces",
    "defuse_a_bomb": "continuity: each wire is one unbroken line from its lettered end, and under a panel the "
    "stated straight-line rule fixes where it leaves",
    "puzzle": "mark: every colour has its own mark at the centre of its shapes (cross, ring, plus, dot)",
    "trailer_cubes_count": "position: front-view heights under the grid, right-view heights beside it, as the "
    "legend says",
    "paper_airplane": "number: each fold line carries its fold number in a circle",
    "rolling_dice_top": "line style: the path still to roll is dashed, the path rolled solid",
    "rolling_dice_sum": "line style: the path still to roll is dashed, the path rolled solid",
    "rolling_dice_two": "",
    "object_attributes": "",
    "compositional_3d": "",
    "robot_program": "letter: every block bears its colour's initial (R, B, G, O, P, C)",
    "robot_state_change": "letter: every block bears its colour's initial (R, B, G, O, P, C)",
    "motion_graph": "hatching and position: pieces below the axis are hatched in orange and lie under the "
    "time axis; the step's table says above or below for every piece",
    "food_web": "mark shape: a cross over the box for a species gone, a ring around the box for one kept; the "
    "step texts name both",
}

DECORATION: dict[str, tuple[str, ...]] = {
    "block_tower": _GREYS + ("lightyellow", "blue"),
    "ball_bins": _GREYS + ("orange", "blue"),
    "convex_hull": _GREYS + ("yellow", "lightred", "lightblue", "lightgreen", "lightyellow"),
    "overlap": _GREYS + ("lightblue", "lightyellow"),
    "localizer": _GREYS,
    "mirror_pattern": ("gray", "lightgray", "darkgray"),
    "cubes_count": _GREYS,
    "cubes_missing": _GREYS,
    "billiards": _GREYS + ("brown", "yellow", "orange"),
    "electric_charge": _GREYS + ("purple",),
    "mirror_clock": _GREYS,
    "unfolded_cube": _GREYS,
    "defuse_a_bomb": _GREYS + ("yellow",),
    "multi_piece_puzzle": _GREYS,
    "puzzle": ("white", "gray", "lightgray", "darkgray"),
    "trailer_cubes_count": _GREYS,
    "trailer_cubes_missing": _GREYS,
    "paper_airplane": _GREYS + ("lightyellow", "lightblue", "orange", "brown"),
    "gear_rotation": _GREYS + ("red",),
    "rolling_dice_top": _GREYS + ("lightyellow", "orange"),
    "rolling_dice_sum": _GREYS + ("lightyellow", "orange"),
    "rolling_dice_two": ("white", "gray", "lightgray", "darkgray", "lightyellow"),
    "object_attributes": _GREYS,
    "compositional_3d": _GREYS,
    "robot_program": _GREYS + ("lightyellow",),
    "robot_state_change": _GREYS + ("lightyellow",),
    "motion_graph": _GREYS + ("orange", "purple"),
    "food_web": _GREYS + ("lightgreen", "lightyellow"),
    "longest_carbon_chain": _GREYS + ("lightblue", "lightred"),
    "hbond_donors": _GREYS + ("lightblue", "lightred"),
}
