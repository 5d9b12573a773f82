"""vcot.rl DrawingSession: a valid draw changes the pixels where it draws, invalid actions and a spent budget
come back as text, corruptions alter the returned picture, and sessions replay identically."""

from __future__ import annotations

import numpy as np
import pytest

from vcot.draw.png import pixel_digest
from vcot.rl import DrawingSession, stream
from vcot.vaot.actions import validate_action
from vcot.vaot.render import apply_action, footprint

LINE = {"x1": 40, "y1": 60, "x2": 300, "y2": 60, "color": "red", "width": 4}


@pytest.fixture(scope="module")
def problem():
    return stream("convex_hull", seed=2, condition="vaot")[0]


def _changed(a, b) -> np.ndarray:
    return np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16)).sum(axis=2) > 0


def test_a_valid_draw_changes_pixels_where_it_draws(problem):
    s = DrawingSession(problem)
    before = s.image.copy()
    image, text = s.act("draw_line", LINE)
    assert image is not None and text == "Action executed. The updated image is attached."
    changed = _changed(before, image)
    assert changed[58:63, 60:280].mean() > 0.5  # along the line
    x0, y0, x1, y1 = footprint(validate_action("draw_line", LINE, *before.size), *before.size)
    outside = changed.copy()
    outside[y0:y1 + 1, x0:x1 + 1] = False
    assert not outside.any()  # nowhere else
    assert s.calls == 1 and pixel_digest(s.image) == pixel_digest(image)
    # The same pixels as the evaluation's renderer.
    expected, _ = apply_action(before, validate_action("draw_line", LINE, *before.size))
    assert pixel_digest(expected) == pixel_digest(image)
    assert pixel_digest(problem.images[0]) == pixel_digest(before)  # the problem's picture is left alone


def test_crop_zoom_returns_a_view_and_keeps_the_state(problem):
    s = DrawingSession(problem)
    before = pixel_digest(s.image)
    view, text = s.act("crop_zoom", {"x1": 0, "y1": 0, "x2": 100, "y2": 100})
    assert view is not None and "Zoomed" in text and pixel_digest(view) != before
    assert pixel_digest(s.image) == before


@pytest.mark.parametrize("name, arguments", [
    ("draw_line", {"x1": 0}),  # missing fields
    ("draw_line", '{"x1": 1, "y1": '),  # broken JSON
    ("draw_circle", {"x": 5, "y": 5, "radius": float("nan")}),
    ("draw_circle", {"x": 5, "y": 5, "radius": 10**9}),
    ("annotate_text", {"x": 1, "y": 1, "text": "x" * 10_000}),
    ("draw_polyline", {"points": [[1, 2]] * 10_000}),
    ("explode", {}),
    (None, None),
    (["draw_line"], {"x1": 1}),
    ("draw_line", ["not", "a", "dict"]),
    ("draw_line", {1: 2, (3,): 4}),
    ("draw_line", "x" * 1_000_000),
    ("crop_zoom", {"x1": 0, "y1": 0, "x2": 3, "y2": 3}),  # too small a box
])
def test_invalid_actions_come_back_as_text(problem, name, arguments):
    s = DrawingSession(problem)
    before = pixel_digest(s.image)
    image, text = s.act(name, arguments)
    assert image is None and text.startswith("Action rejected: ") and len(text) < 2000
    assert pixel_digest(s.image) == before and s.calls == 1 and "error" in s.log[-1]


def test_the_budget_is_bounded(problem):
    s = DrawingSession(problem, max_calls=2)
    assert s.act("draw_line", LINE)[0] is not None
    assert s.act("explode", {})[0] is None  # a rejected call uses the budget too
    image, text = s.act("draw_line", LINE)
    assert image is None and "budget" in text and s.calls == 2 and s.remaining == 0
    assert DrawingSession(problem, max_calls=0).act("draw_line", LINE)[0] is None


@pytest.mark.parametrize("corruption", ["modify_key", "modify_non_key"])
def test_corruptions_alter_the_returned_picture(problem, corruption):
    faithful, _ = DrawingSession(problem).act("draw_line", LINE)
    s = DrawingSession(problem, corruption=corruption)
    image, text = s.act("draw_line", LINE)
    assert image is not None and text.startswith("Action executed")  # the model is not told
    assert pixel_digest(image) != pixel_digest(faithful)
    assert s.log[-1]["corruption"].startswith(corruption)
    if corruption == "modify_non_key":  # the line itself is drawn faithfully; a stray mark lands elsewhere
        x0, y0, x1, y1 = footprint(validate_action("draw_line", LINE, *image.size), *image.size)
        assert not _changed(faithful, image)[y0:y1 + 1, x0:x1 + 1].any()


def test_sessions_replay_identically_and_depend_on_the_seed(problem):
    actions = [("draw_line", LINE), ("mark_point", {"x": 120, "y": 200, "label": "P"}),
               ("draw_polygon", {"points": [[10, 10], [200, 30], [90, 220]], "fill": True})]

    def run(seed):
        s = DrawingSession(problem, corruption="modify_key", seed=seed)
        return [pixel_digest(s.act(n, a)[0]) for n, a in actions]

    assert run(1) == run(1)
    assert any(run(seed) != run(1) for seed in (2, 3, 4))


def test_bad_session_settings_are_refused(problem):
    with pytest.raises(ValueError, match="corruption"):
        DrawingSession(problem, corruption="scramble")
    with pytest.raises(ValueError, match="max_calls"):
        DrawingSession(problem, max_calls=-1)
