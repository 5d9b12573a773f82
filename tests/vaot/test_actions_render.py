"""Visual actions: validation with clear errors, clamping, rendering footprints, corruption, fuzzing."""

import json
import random
import resource

import numpy as np
import pytest

from vcot.draw import Canvas, pixel_digest
from vcot.vaot.actions import (
    ACTION_TYPES,
    MAX_ACTIONS_PER_TURN,
    ActionError,
    parse_json_blocks,
    parse_tool_calls,
    tool_definitions,
    validate_action,
)
from vcot.vaot.corrupt import corrupt_render, perturb_key
from vcot.vaot.render import apply_action, bound_size, footprint

W, H = 400, 300


def _base() -> "Image":  # noqa: F821
    c = Canvas(W, H)
    for x, y in [(60, 60), (200, 80), (320, 220), (120, 230)]:
        c.circle((x, y), 10, fill="blue")
    c.text((10, 10), "scene", size=16)
    return c.image()


VALID = {
    "draw_line": {"x1": 10, "y1": 20, "x2": 300, "y2": 250},
    "draw_ray": {"x": 50, "y": 50, "x_through": 100, "y_through": 80},
    "draw_arrow": {"x1": 30, "y1": 250, "x2": 200, "y2": 150, "color": "green"},
    "draw_polyline": {"points": [[10, 10], [100, 200], [250, 40]]},
    "draw_polygon": {"points": [[60, 60], [200, 80], [320, 220]], "fill": True},
    "draw_circle": {"x": 200, "y": 150, "radius": 40},
    "mark_point": {"x": 200, "y": 80, "label": "P1"},
    "highlight_box": {"x1": 180, "y1": 60, "x2": 230, "y2": 110},
    "annotate_text": {"x": 250, "y": 20, "text": "d = 12"},
    "crop_zoom": {"x1": 150, "y1": 40, "x2": 260, "y2": 130},
    "mask_region": {"x1": 280, "y1": 180, "x2": 360, "y2": 260},
}


def test_every_action_has_a_tool_definition():
    tools = tool_definitions()
    assert {t["function"]["name"] for t in tools} == set(ACTION_TYPES) == set(VALID)
    for t in tools:
        params = t["function"]["parameters"]
        assert "action" not in params["properties"]
        assert "top-left" in t["function"]["description"]


@pytest.mark.parametrize("name", sorted(VALID))
def test_render_is_deterministic_and_stays_in_footprint(name):
    base = _base()
    action = validate_action(name, json.dumps(VALID[name]), W, H)
    s1, v1 = apply_action(base, action)
    s2, v2 = apply_action(base, action)
    assert pixel_digest(s1) == pixel_digest(s2) and pixel_digest(v1) == pixel_digest(v2)
    before, after = np.asarray(base), np.asarray(s1)
    changed = np.argwhere((before != after).any(axis=2))
    if name == "crop_zoom":
        assert len(changed) == 0, "crop_zoom must not change the state"
        assert v1.size != base.size
        return
    assert len(changed) > 0, f"{name} drew nothing"
    box = footprint(action, W, H)
    assert box is not None
    x0, y0, x1, y1 = box
    ys, xs = changed[:, 0], changed[:, 1]
    assert xs.min() >= x0 and xs.max() <= x1 and ys.min() >= y0 and ys.max() <= y1, (name, box)


def test_isolate_greys_everything_else():
    base = _base()
    action = validate_action("mask_region", {"x1": 180, "y1": 60, "x2": 230, "y2": 110, "mode": "isolate"}, W, H)
    out, _ = apply_action(base, action)
    assert out.getpixel((5, 290)) == (200, 200, 200)
    assert out.getpixel((200, 80)) == base.getpixel((200, 80))


def test_coordinates_are_clamped():
    a = validate_action("draw_line", {"x1": -50, "y1": 10, "x2": 1e6, "y2": 5000}, W, H)
    assert (a.x1, a.x2, a.y2) == (0, W - 1, H - 1)


@pytest.mark.parametrize(
    "name,args,message",
    [
        ("teleport", {}, "unknown action 'teleport'"),
        ("draw_line", "{not json", "not valid JSON"),
        ("draw_line", {"x1": 1, "y1": 2, "x2": 3}, "y2: Field required"),
        ("draw_line", '{"x1": NaN, "y1": 1, "x2": 2, "y2": 3}', "x1"),
        ("draw_line", {"x1": "Infinity", "y1": 1, "x2": 2, "y2": 3}, "x1"),
        ("draw_circle", {"x": 1, "y": 1, "radius": -3}, "radius"),
        ("draw_polygon", {"points": [[1, 1], [2, 2]]}, "at least 3 points"),
        ("draw_polygon", {"points": [[i, i] for i in range(65)]}, "points"),
        ("annotate_text", {"x": 1, "y": 1, "text": "x" * 500}, "text"),
        ("crop_zoom", {"x1": 10, "y1": 10, "x2": 12, "y2": 300}, "at least 16"),
        ("draw_line", {"x1": 1, "y1": 1, "x2": 2, "y2": 3, "color": "ultraviolet"}, "color"),
        ("draw_line", {"x1": 1, "y1": 1, "x2": 2, "y2": 3, "width": 500}, "width"),
        ("draw_line", [1, 2, 3], "must be a JSON object"),
        ("mark_point", {"x": 1, "y": 1, "label": "x", "__class__": "evil"}, "Extra inputs"),
    ],
)
def test_invalid_actions_get_clear_errors(name, args, message):
    with pytest.raises(ActionError, match=message):
        validate_action(
            name, args if isinstance(args, str) else json.dumps(args) if isinstance(args, dict) else args, W, H
        )


def test_turn_parsing_keeps_good_actions_and_reports_bad_ones():
    calls = [
        {"id": "a", "name": "draw_line", "arguments": json.dumps(VALID["draw_line"])},
        {"id": "b", "name": "nope", "arguments": "{}"},
        {"id": "c", "name": "mark_point", "arguments": json.dumps(VALID["mark_point"])},
    ]
    turn = parse_tool_calls(calls, W, H)
    assert [a.action for a in turn.actions] == ["draw_line", "mark_point"] and turn.call_ids == ["a", "c"]
    assert len(turn.errors) == 1 and turn.error_ids == ["b"]


def test_json_block_fallback():
    text = (
        "I will draw the hull.\n```json\n"
        + json.dumps({"action": "draw_polygon", **VALID["draw_polygon"]})
        + '\n```\nand\n```json\n{broken\n```\n```json\n[{"action": "mark_point", "x": 5, "y": 5}]\n```'
    )
    turn = parse_json_blocks(text, W, H)
    assert [a.action for a in turn.actions] == ["draw_polygon", "mark_point"]
    assert any("malformed" in e for e in turn.errors)


@pytest.mark.parametrize("name", sorted(set(VALID) - {"crop_zoom"}))
def test_modify_key_changes_evidence_and_non_key_does_not(name):
    base = _base()
    action = validate_action(name, json.dumps(VALID[name]), W, H)
    faithful, _ = apply_action(base, action)
    key = corrupt_render(base, action, "modify_key", random.Random(1))
    assert key.description.startswith("modify_key")
    assert pixel_digest(key.state) != pixel_digest(faithful)
    non_key = corrupt_render(base, action, "modify_non_key", random.Random(1))
    assert non_key.description.startswith("modify_non_key")
    diff = np.argwhere((np.asarray(non_key.state) != np.asarray(faithful)).any(axis=2))
    if name == "mask_region" and "unchanged" in non_key.description:
        return
    assert len(diff) > 0, "non-key corruption should change something"
    box = footprint(action, W, H)
    if box is not None:  # the stray mark is outside the action's footprint
        x0, y0, x1, y1 = box
        inside = (diff[:, 1] >= x0) & (diff[:, 1] <= x1) & (diff[:, 0] >= y0) & (diff[:, 0] <= y1)
        assert not inside.any()


def test_mark_moves_to_neighbouring_object():
    base = _base()
    action = validate_action("mark_point", {"x": 200, "y": 80}, W, H)
    wrong, desc = perturb_key(action, base, random.Random(0))
    assert "neighbouring object" in desc
    assert (round(wrong.x), round(wrong.y)) in {(60, 60), (320, 220), (120, 230)} or abs(wrong.x - 60) < 3


def test_bound_size():
    c = Canvas(3000, 1000).image()
    assert max(bound_size(c).size) == 1024


def test_fuzz_no_crash_bounded_memory():
    rng = random.Random(7)
    base = _base()
    garbage = [
        '{"x1": 1e308, "y1": -1e308, "x2": 5, "y2": 5}',
        "null",
        "[]",
        '{"points": "abc"}',
        "{" * 5000,
        '{"x": NaN, "y": 1, "radius": 3}',
        '"string"',
        '{"text": "' + "A" * 100000 + '"}',
    ]
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # 10,000 actions in one turn: only the first few are executed, the rest get an error each.
    calls = [
        {
            "id": str(i),
            "name": rng.choice(list(VALID) + ["bogus"]),
            "arguments": rng.choice(garbage + [json.dumps(v) for v in VALID.values()]),
        }
        for i in range(10_000)
    ]
    turn = parse_tool_calls(calls, W, H)
    assert len(turn.actions) <= MAX_ACTIONS_PER_TURN
    assert len(turn.actions) + len(turn.errors) == len(calls)
    # A polygon with a million points is refused before it is even parsed.
    huge = json.dumps({"points": [[1, 2]] * 1_000_000})
    with pytest.raises(ActionError, match="characters long"):
        validate_action("draw_polygon", huge, W, H)
    state = base
    for a in turn.actions:
        state, _ = apply_action(state, a)
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert rss_after - rss_before < 300 * 1024  # KiB: bounded, no runaway allocation
