"""The one drawing session (vcot.vaot.session): a valid draw changes the pixels where it draws, invalid actions
and a spent budget come back as text, corruptions alter the returned picture, sessions replay identically, and
evaluation's episode and the training environment draw the same pixels for the same actions."""

from __future__ import annotations

import numpy as np
import pytest

from vcot.draw.png import pixel_digest
from vcot.rl import stream
from vcot.vaot.actions import MAX_TURNS, validate_action
from vcot.vaot.episode import drawing_condition
from vcot.vaot.render import apply_action, footprint
from vcot.vaot.session import DrawingSession


def _session(problem, corruption=None, max_turns=MAX_TURNS, epoch=0):
    return DrawingSession.for_problem(
        problem, condition=drawing_condition(corruption), max_turns=max_turns, epoch=epoch
    )


LINE = {"x1": 40, "y1": 60, "x2": 300, "y2": 60, "color": "red", "width": 4}


@pytest.fixture(scope="module")
def problem():
    return stream("convex_hull", seed=2, condition="vaot")[0]


def _changed(a, b) -> np.ndarray:
    return np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16)).sum(axis=2) > 0


def test_a_valid_draw_changes_pixels_where_it_draws(problem):
    s = _session(problem)
    before = s.image.copy()
    image, text = s.act("draw_line", LINE)
    assert image is not None and text == "Action executed. The updated image is attached."
    changed = _changed(before, image)
    assert changed[58:63, 60:280].mean() > 0.5  # along the line
    x0, y0, x1, y1 = footprint(validate_action("draw_line", LINE, *before.size), *before.size)
    outside = changed.copy()
    outside[y0 : y1 + 1, x0 : x1 + 1] = False
    assert not outside.any()  # nowhere else
    assert s.calls == 1 and pixel_digest(s.image) == pixel_digest(image)
    # The same pixels as the evaluation's renderer.
    expected, _ = apply_action(before, validate_action("draw_line", LINE, *before.size))
    assert pixel_digest(expected) == pixel_digest(image)
    assert pixel_digest(problem.images[0]) == pixel_digest(before)  # the problem's picture is left alone


def test_crop_zoom_returns_a_view_and_keeps_the_state(problem):
    s = _session(problem)
    before = pixel_digest(s.image)
    view, text = s.act("crop_zoom", {"x1": 0, "y1": 0, "x2": 100, "y2": 100})
    assert view is not None and "Zoomed" in text and pixel_digest(view) != before
    assert pixel_digest(s.image) == before


@pytest.mark.parametrize(
    "name, arguments",
    [
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
    ],
)
def test_invalid_actions_come_back_as_text(problem, name, arguments):
    s = _session(problem)
    before = pixel_digest(s.image)
    image, text = s.act(name, arguments)
    assert image is None and text.startswith("Action rejected: ") and len(text) < 2000
    assert pixel_digest(s.image) == before and s.calls == 1 and "error" in s.log[-1]


def test_the_budget_is_bounded(problem):
    s = _session(problem, max_turns=2)
    assert s.act("draw_line", LINE)[0] is not None
    assert s.act("explode", {})[0] is None  # a rejected call uses the budget too
    image, text = s.act("draw_line", LINE)
    assert image is None and "budget" in text and s.calls == 2 and s.remaining == 0
    assert _session(problem, max_turns=0).act("draw_line", LINE)[0] is None


@pytest.mark.parametrize("corruption", ["modify_key", "modify_non_key"])
def test_corruptions_alter_the_returned_picture(problem, corruption):
    faithful, _ = _session(problem).act("draw_line", LINE)
    s = _session(problem, corruption)
    image, text = s.act("draw_line", LINE)
    assert image is not None and text.startswith("Action executed")  # the model is not told
    assert pixel_digest(image) != pixel_digest(faithful)
    assert s.log[-1]["corruption"].startswith(corruption)
    if corruption == "modify_non_key":  # the line itself is drawn faithfully; a stray mark lands elsewhere
        x0, y0, x1, y1 = footprint(validate_action("draw_line", LINE, *image.size), *image.size)
        assert not _changed(faithful, image)[y0 : y1 + 1, x0 : x1 + 1].any()


def test_sessions_replay_identically_and_depend_on_the_epoch(problem):
    actions = [
        ("draw_line", LINE),
        ("mark_point", {"x": 120, "y": 200, "label": "P"}),
        ("draw_polygon", {"points": [[10, 10], [200, 30], [90, 220]], "fill": True}),
    ]

    def run(seed):
        s = _session(problem, "modify_key", epoch=seed)
        return [pixel_digest(s.act(n, a)[0]) for n, a in actions]

    assert run(1) == run(1)
    assert any(run(seed) != run(1) for seed in (2, 3, 4))


def test_bad_session_settings_are_refused(problem):
    picture = problem.images[0]
    with pytest.raises(ValueError, match="corruption"):
        DrawingSession(picture, "u", corruption="scramble")
    with pytest.raises(ValueError, match="budget"):
        DrawingSession(picture, "u", max_turns=-1)
    with pytest.raises(ValueError, match="max_turns"):
        DrawingSession(picture, "u", max_turns=float("nan"))
    with pytest.raises(ValueError, match="drawing condition"):
        DrawingSession.for_problem(problem, condition="direct")


def test_grouped_actions_share_a_turn_and_the_turn_budget_holds(problem):
    s = _session(problem, max_turns=1)
    s.begin_turn()
    assert s.act("draw_line", LINE)[0] is not None and s.act("mark_point", {"x": 5, "y": 5})[0] is not None
    assert s.turn == 1
    s.begin_turn()
    image, text = s.act("draw_line", LINE)
    assert image is None and "budget" in text


@pytest.mark.parametrize("condition", ["vaot", "vaot_wrongrender", "vaot_wrongrender_nonkey", "vaot_norender"])
def test_evaluation_and_training_draw_the_same_pixels(condition):
    """One reply of two tool calls, then one of one: evaluation's episode (over encoded pictures, as `vcot eval`
    sends them) and the training environment return pictures with the same pixel digests."""
    from vcot.conditions import REGISTRY
    from vcot.draw.png import encode_png
    from vcot.images import ImagePolicy, encode_image_bytes
    from vcot.messages import ModelResponse, ToolCall
    from vcot.rl.env import VcotEnv

    replies = [
        [("draw_line", LINE), ("mark_point", {"x": 120, "y": 200, "label": "P"})],
        [("draw_polygon", {"points": [[10, 10], [200, 30], [90, 220]], "fill": True})],
    ]
    env = VcotEnv(["convex_hull"], condition=condition, seed=2)
    env.reset()
    inst = env.problem.instance
    policy = ImagePolicy()
    episode = REGISTRY.make_episode(
        inst, condition, 0, lambda rel: encode_image_bytes(encode_png(env.problem.pictures[rel]), policy, rel)
    )
    episode.first_messages()
    for turn, calls in enumerate(replies):
        tool_calls = [ToolCall(f"c{turn}{k}", n, __import__("json").dumps(a)) for k, (n, a) in enumerate(calls)]
        episode.on_response(ModelResponse(text="", tool_calls=tool_calls))
        env.step(
            {"content": "", "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in tool_calls]}
        )
    evaluated = [r.digest for r in episode.returned]
    trained = [r.digest for r in env.episode.returned]
    assert len(evaluated) == (0 if condition == "vaot_norender" else 3)
    assert evaluated == trained


def test_evaluation_refuses_actions_past_the_stated_budget():
    """`vcot eval`'s episode: after the 6 rounds the prompt states, the budget note asks for the answer, and an
    action made anyway is refused with the budget text (it used to be drawn)."""
    import json

    from vcot.conditions import REGISTRY
    from vcot.images import InMemoryPictures
    from vcot.messages import ModelResponse, ToolCall
    from vcot.vaot.session import BUDGET_SPENT

    p = stream("convex_hull", seed=5, condition="vaot")[0]
    episode = REGISTRY.make_episode(p.instance, "vaot", 0, InMemoryPictures(p.pictures))
    episode.first_messages()
    call = ToolCall("c", "mark_point", json.dumps({"x": 10, "y": 10}))
    texts = []
    for _ in range(MAX_TURNS + 1):
        replies = episode.on_response(ModelResponse(text="", tool_calls=[call]))
        texts.append(" ".join(m.text for m in replies))
    assert all("Action executed" in t for t in texts[:MAX_TURNS])
    assert "budget is used up" in texts[MAX_TURNS - 1]  # the note after the last round
    assert BUDGET_SPENT in texts[MAX_TURNS] and "Action executed" not in texts[MAX_TURNS]
    assert len(episode.returned) == MAX_TURNS
