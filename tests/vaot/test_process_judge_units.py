"""Process-judge parsing and calibration against known render faithfulness."""

import pytest

from vcot.engine.trajectories import Trajectory, TrajectoryStep
from vcot.scoring.process_judge import ProcessScore, parse_verdict, rf_calibration, true_render_faithfulness


def _traj(cond, corruption_note=None, tid="t"):
    act = {
        "call_id": "c0",
        "action": {"action": "draw_line"},
        "returned_image": "ab" if cond != "vaot_norender" else None,
    }
    if corruption_note:
        act["corruption"] = corruption_note
    steps = [
        TrajectoryStep(turn=1, model_text="draw", actions=[act]),
        TrajectoryStep(turn=2, model_text="<answer>3</answer>"),
    ]
    return Trajectory(
        tid,
        "r",
        "m",
        cond,
        "u",
        0,
        "convex_hull",
        "EG",
        "Q?",
        "3",
        "<answer>3</answer>",
        "img.png",
        steps,
        "modify_key" if cond == "vaot_wrongrender" else None,
    )


def test_parse_verdict_snaps_and_validates():
    v = parse_verdict(
        'Sure.\n{"key_step": 1, "action_relevance": 1, "render_faithfulness": 0.4, '
        '"feedback_uptake": "0.5", "rationale": "ok"}'
    )
    assert (v["action_relevance"], v["render_faithfulness"], v["feedback_uptake"]) == (1.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="no JSON verdict"):
        parse_verdict("Correct")
    with pytest.raises(ValueError, match="lacks valid scores"):
        parse_verdict('{"action_relevance": 7, "render_faithfulness": 1, "feedback_uptake": 1}')


def test_true_rf_known_only_where_renderer_makes_it_known():
    assert true_render_faithfulness(_traj("vaot"), 1, 0) == 1.0
    assert true_render_faithfulness(_traj("vaot_wrongrender", "modify_key: rotated"), 1, 0) == 0.0
    assert true_render_faithfulness(_traj("vaot_wrongrender", "modify_non_key: stray"), 1, 0) is None
    assert true_render_faithfulness(_traj("vaot_norender"), 1, 0) is None
    assert true_render_faithfulness(_traj("vaot"), 2, 0) is None  # the answer turn has no action


def test_rf_calibration_counts():
    trajs = [
        _traj("vaot", tid="a"),
        _traj("vaot", tid="b"),
        _traj("vaot_wrongrender", "modify_key: x", tid="c"),
        _traj("vaot_wrongrender", "modify_key: y", tid="d"),
    ]
    scores = [
        ProcessScore("a", "j", 1, 0, 1, 1.0, 1, ""),
        ProcessScore("b", "j", 1, 0, 1, 0.5, 1, ""),
        ProcessScore("c", "j", 1, 0, 1, 0.0, 1, ""),
        ProcessScore("d", "j", 1, 0, 1, 1.0, 1, ""),
    ]
    cal = rf_calibration(trajs, scores)
    # truths 1, 1, 0, 0 vs judged 1, .5, 0, 1 → strict 2/4; within .5: a, b, c → 3/4
    assert cal["n"] == 4 and cal["strict"] == 0.5 and cal["partial"] == 0.75
    assert cal["by_condition"]["vaot"] == {"n": 2, "strict": 0.5}
