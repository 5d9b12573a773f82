"""Task-specific reasoning guides for the `text_cot_spec` condition, one per MIRA task type.

Each guide describes the procedure a careful person would follow for that kind of problem, in our own
words. A guide never states or narrows down an answer; it only says how to work. Changing any text here
changes the prompt version recorded with every run.
"""

from __future__ import annotations

GUIDES: dict[str, str] = {
    "block_tower": (
        "Work through it like this. Read every block's width, height and horizontal position, from the bottom "
        "up. For each contact face between a block and the one above it, find the common part of the two "
        "blocks' edges, and the centre of mass of all the blocks above that face (each weighted by its area). "
        "Start at the lowest face: if that centre of mass lies outside the face, everything above it tips over "
        "the nearer edge; otherwise go up one face. The blocks below the first face that fails stay in place."
    ),
    "ball_bins": (
        "Work through it like this. Follow the ball from its start straight down to the first ramp below it. "
        "The ramps are smooth and the ball does not bounce: it keeps only its speed along the ramp and slides "
        "down towards the ramp's lower end, gaining speed. It leaves the ramp at that end moving along the "
        "ramp's direction and flies in a parabola until it meets another ramp below or falls past the "
        "dividers. Repeat ramp by ramp, and read which bin the ball drops into."
    ),
    "convex_hull": (
        "Work through it like this. First list the points of each colour with their approximate positions. "
        "For each colour whose hull matters, build the convex hull: start from the leftmost point and walk "
        "around the outside, keeping only points where the boundary turns the same way, and write down the "
        "hull's corners in order. If the question concerns the overlap of two hulls, work out the region "
        "that lies inside both. Then take every point of the colour being counted and decide whether it is "
        "inside the region by checking that it lies on the inner side of every edge. Count those points."
    ),
    "overlap": (
        "Work through it like this. For each candidate pair, read off both shapes' sizes and where each sits "
        "relative to its own origin on the axes. Imagine sliding the two shapes so that their origins "
        "coincide, and sketch the superposition in your head. Estimate the area they share, splitting it "
        "into rectangles and triangles where that helps. Do this for every pair, then compare the shared "
        "areas and pick the pair whose overlap is largest."
    ),
    "localizer": (
        "Work through it like this. Establish how the target region's cells are indexed (where the origin "
        "is and which coordinate comes first). Describe each piece as a set of cells and note where its "
        "circles sit inside it. Find a placement of all pieces that covers the target exactly, with no gaps "
        "and no overlaps; test placements against the region's boundary and backtrack when a piece cannot "
        "fit. Once the tiling is fixed, carry each circle from its piece onto the target grid and list the "
        "cell coordinates in the format the question asks for."
    ),
    "mirror_pattern": (
        "Work through it like this. Describe the original pattern feature by feature, noting asymmetric "
        "details that reveal orientation. Construct its mirror image: each feature moves to the other side "
        "of the mirror line at the same distance from it. If the question also mentions a rotation, apply "
        "it to the reflected pattern afterwards. Compare the result with each candidate using several "
        "asymmetric details, and reject candidates that are merely rotations of the original without a "
        "reflection."
    ),
    "cubes_count": (
        "Work through it like this. Fix the viewpoint and the grid of base positions. Go through the base "
        "positions one by one (or the layers from the bottom up) and decide how tall each stack is from the "
        "visible top and side faces, remembering that a cube seen at height k needs supporting cubes under "
        "it. Write down this height map, check it against what the drawing shows, and add up the heights."
    ),
    "cubes_missing": (
        "Work through it like this. Build the height map of the structure as if counting its cubes. Find the "
        "smallest box that encloses the whole structure: its length, width and height come from the "
        "structure's extreme extents. Compute the box's volume, count the cubes already present, and take "
        "the difference as the number of cubes that must be added."
    ),
    "billiards": (
        "Work through it like this. Note the table's size, every pocket's position and label, the ball's "
        "starting point and its initial direction. Follow the ball in a straight line to the first cushion it "
        "meets; at each bounce the angle of reflection equals the angle of incidence, so only the component "
        "of motion across that cushion changes sign (unfolding the table into mirrored copies can make this "
        "easier). Continue segment by segment, checking along each segment whether the path runs into a "
        "pocket. The first pocket reached is where the ball falls."
    ),
    "electric_charge": (
        "Work through it like this. Read the position, sign and magnitude of every charge and of the target "
        "charge. For each other charge, decide the direction of its force on the target: along the line "
        "joining them, pointing away when the signs are alike and towards it when they differ; its strength "
        "grows with the product of the magnitudes and falls with the square of the distance. Split each force "
        "into horizontal and vertical components, add them up, and turn the resulting vector into the "
        "direction word the question asks for."
    ),
    "mirror_clock": (
        "Work through it like this. Read where the hour and minute hands point in the mirrored picture, "
        "using the tick marks rather than the (mirrored) numerals. Undo the mirror by reflecting each hand "
        "across the clock's vertical axis, so a hand at some angle clockwise from twelve ends up at the same "
        "angle counter-clockwise. Check that the hour hand's position between two hours agrees with the "
        "minutes. Then apply any time shift stated in the question, wrapping around twelve hours, and write "
        "the time in the requested format."
    ),
    "unfolded_cube": (
        "Work through it like this. Label the faces of the net and note each face's marking and how it is "
        "oriented. Pick one face as the base and fold the neighbouring faces up around it, recording which "
        "faces end up opposite each other (in a straight strip of faces, faces two apart become opposite) "
        "and which meet along an edge. For each candidate, check that faces shown together really are "
        "neighbours after folding and that their markings point the right way around the shared corner. "
        "Eliminate every candidate with a contradiction."
    ),
    "defuse_a_bomb": (
        "Work through it like this. Identify where each wire starts and how it can be told apart (colour, "
        "label). Trace each wire along its whole length, carrying it through crossings and hidden or "
        "obscured regions by following its direction and matching where it enters and leaves. Record the "
        "terminal each wire reaches. Then apply the rule stated in the question to decide which wire to cut."
    ),
    "multi_piece_puzzle": (
        "Work through it like this. Measure the target shape in unit cells and note its area. Record each "
        "candidate piece's shape and area. Keep only combinations of pieces whose areas add up to the "
        "target's area. For each remaining combination, try to place the pieces, with the rotations the "
        "question allows, so that they cover the target exactly with no gaps or overlaps. Report the pieces "
        "of the combination that works, in the requested format."
    ),
    "puzzle": (
        "Work through it like this. Describe the missing region: its outline and size, and the lines, "
        "patterns, colours or shading that must continue across each of its edges. For every candidate, "
        "first compare its outline with the hole, then check edge by edge that everything continues "
        "seamlessly into the surroundings. Discard any candidate with a mismatch and choose the one that "
        "fits everywhere."
    ),
    "trailer_cubes_count": (
        "Work through it like this. Align the three views on one grid: the top view tells which base cells "
        "are occupied, the front view gives the tallest stack in each column seen from the front, and the "
        "side view the tallest stack in each row seen from the side. For each occupied cell, the tallest "
        "stack allowed is the smaller of its front-view and side-view limits. Check that stacks at these "
        "heights still reproduce all three views, then add the heights to get the largest possible count."
    ),
    "trailer_cubes_missing": (
        "Work through it like this. Align the three views on one grid and, for every occupied base cell, "
        "find the tallest stack the front and side views allow (the smaller of the two limits). Determine "
        "the full block: the box spanned by the extents of the views. Compute its volume. The fewest cubes "
        "that must be added is the block's volume minus the largest number of cubes the views allow to be "
        "present already."
    ),
    "paper_airplane": (
        "Work through it like this. Start from the sheet's outline and label its corners. Apply the folds in "
        "order: for each one, find the fold line, reflect the part of the sheet on the moving side across "
        "that line, and redraw the outline, noting where layers now lie on top of each other. Record the "
        "outline after every fold. Finally compare the resulting shape with each candidate, allowing for the "
        "orientation in which the candidates are drawn."
    ),
    "gear_rotation": (
        "Work through it like this. Identify the driving gear and its stated direction. Follow every "
        "connection from it: two meshing gears turn in opposite directions, gears fixed on the same shaft "
        "turn together in the same direction, an open belt keeps the direction and a crossed belt reverses "
        "it. Propagate the direction along each path to the gear in question; if two paths demand opposite "
        "directions for the same gear, the mechanism jams. When speed matters, meshing gears and belted "
        "pulleys turn at speeds inversely proportional to their size or tooth count, while gears on one "
        "shaft share a speed."
    ),
    "rolling_dice_top": (
        "Work through it like this. Write down the die's starting orientation: the numbers on top, bottom and "
        "the four sides (north, south, east, west); on a standard die opposite faces add up to seven, but "
        "check this against the picture. For each move along the path, update all six faces: when the die "
        "rolls north, the top goes to the north side, the north side to the bottom, the bottom to the south "
        "side and the south side to the top, with east and west unchanged; rolls in the other directions "
        "work the same way about their own axis. Write the orientation after every roll and read the top "
        "face at the end."
    ),
    "rolling_dice_sum": (
        "Work through it like this. Write down the die's starting orientation: top, bottom and the four sides "
        "(north, south, east, west); on a standard die opposite faces add up to seven, but check this against "
        "the picture. For each move along the path, update all six faces: when the die rolls north, the top "
        "goes to the north side, the north side to the bottom, the bottom to the south side and the south "
        "side to the top; other directions work the same way about their own axis. After each roll note the "
        "face on the bottom, and add these numbers up, paying attention to whether the question counts the "
        "starting position."
    ),
    "rolling_dice_two": (
        "Work through it like this. Start both paths from the same initial orientation of the die: top, "
        "bottom and the four sides. Track each path separately, updating all six faces at every roll (a roll "
        "north sends the top to the north side, the north side to the bottom, the bottom to the south side "
        "and the south side to the top; other directions work the same way about their own axis), and note "
        "the bottom face after each roll. Add up the bottom faces for each path, compare the two totals, and "
        "report which path gives the higher total (or that they are equal) together with the total, in the "
        "requested format."
    ),
    "object_attributes": (
        "Work through it like this. List every object in the scene with its size, colour, material (matte "
        "rubber or shiny metal) and shape, and note where it sits: how far left or right in the picture and "
        "how near the camera (lower in the picture on the floor means nearer). Parse the question from the "
        "innermost description outwards: find the one object matching the first description, then keep only "
        "the objects on the asked side of it (left or right of its centre, in front or behind it), filter "
        "them by the next description, and repeat for every relation in the chain. Finally apply the "
        "question's operation to what is left: read the asked attribute, count the objects, say whether any "
        "exist, compare two counts, or compare one attribute of two objects."
    ),
    "robot_program": (
        "Work through it like this. Read the starting table from the picture: for every block its colour and "
        "its cell (column letter, row number), and which blocks stand on which. Then run the program one "
        "action at a time on that table, writing down the table after each action: 'put X on Y' moves X onto "
        "Y wherever Y is by then, 'put X beside Y' sets X on the table in the cell next to Y's current cell on "
        "the named side, and a push slides the block one cell. Use the places blocks have after the earlier "
        "actions, not their starting places. Finally read the asked block's cell off the last table."
    ),
    "robot_state_change": (
        "Work through it like this. Read both panels: for every block its colour, its cell (column letter, row "
        "number) and what it stands on, before and after. List the blocks whose place differs between the two "
        "panels and where each went. Then try each option in turn from the Before table, carrying out its "
        "actions in order by the rules, and compare the table it gives with the After panel block by block; "
        "keep the one option that gives exactly the After panel."
    ),
    "compositional_3d": (
        "Work through it like this. List every vehicle: its type (car, truck or tractor), size, material, and "
        "the colour of each of its three parts (body, cabin, wheels), and note where it sits: how far left or "
        "right in the picture and how near the camera. Parse the question from the innermost description "
        "outwards: find the one vehicle matching the first description, keep only the vehicles on the asked "
        "side of it, filter them by the next description, and repeat along the chain. Then look closely at the "
        "part the question names on the vehicle you reached, and, when it compares parts, at the named part of "
        "every other vehicle, before reading a colour, a type, a count or whether two parts match."
    ),
    "motion_graph": (
        "Work through it like this. Read the graph's corners off the grid (time across, velocity up) and the "
        "velocity at each end of the asked interval, interpolating along a straight piece where an end falls "
        "between corners. Cut the region between the graph and the time axis into pieces at every corner and "
        "wherever the graph crosses the axis (find the crossing time from the two corners around it). Work out "
        "each piece's area as a rectangle, triangle or trapezoid. For a displacement, areas above the axis count "
        "positive and areas below negative; for a distance, every area counts positive. Add them up."
    ),
    "food_web": (
        "Work through it like this. Note, for every animal, the species it eats: the boxes its incoming arrows "
        "start from. Cross out the species that disappears. Then go round the web again and again: any animal "
        "whose every food is crossed out dies out and is crossed out too; an animal that still has one food "
        "left stays. Repeat until a full pass crosses out nothing new, then count the crossed-out species "
        "without the one that disappeared."
    ),
    "longest_carbon_chain": (
        "Work through it like this. Go through the drawing atom by atom and mark the carbons: every unlabelled "
        "corner and every free end of a bond line; atoms written with a symbol (O, N, S, Cl, ...) are not carbon "
        "and break a chain. Write down which carbons are bonded to which. Start from a carbon with a single carbon "
        "neighbour, follow bonds from carbon to carbon without revisiting an atom, and at every branch point try "
        "each way on, also around rings. Keep the longest chain found, check it against chains starting from the "
        "other chain ends, and count its carbon atoms."
    ),
    "hbond_donors": (
        "Work through it like this. Find every nitrogen and oxygen atom in the drawing (written N, NH, NH2, O, "
        "OH), ignoring other heteroatoms such as S, F, Cl and Br. For each of them look at its label: a hydrogen "
        "is written next to the symbol (OH, HO, NH, HN, NH2, H2N) when the atom carries one; a bare O or N with "
        "only bond lines carries none. Mark each nitrogen or oxygen that carries a hydrogen once, however many "
        "hydrogens it has, and count the marked atoms."
    ),
}
