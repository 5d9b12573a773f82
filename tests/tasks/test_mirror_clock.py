"""mirror_clock: contract, hand-worked mirror readings, mirror invariants, pixel checks of the hands,
rejections and hour balance."""

from __future__ import annotations

import collections
import math
import random
import re
from fractions import Fraction

import pytest
from PIL import ImageOps

from vcot.analysis.shortcuts.mirror_clock import (
    apparent_time,
    apparent_time_plus_shift,
    real_time_ignoring_shift,
)
from vcot.draw import drawn_labels
from vcot.engine.chance import answer_space, chance_level
from vcot.tasks import get_task
from vcot.tasks.base import ParameterError, Reject
from vcot.tasks.pbr.mirror_clock import (
    CENTER,
    RADIUS,
    add_time,
    angle_gap,
    check_readable,
    draw_face,
    hand_angles,
    mirror_angle,
    mirrored_picture,
    possible_scenes,
    shift_words,
    time_from_angles,
)

NAME = "mirror_clock"


def _scene(hour_angle, minute_angle, form="read", shift=None, numerals=True):
    return {
        "shown_hour_angle": hour_angle,
        "shown_minute_angle": minute_angle,
        "numerals": numerals,
        "form": form,
        "shift": shift,
    }


# -- hand-worked ------------------------------------------------------------------------------------------


def test_hand_worked_three_oclock_in_mirror_is_nine():
    # The mirror shows the hour hand at 90 deg (pointing at 3) and the minute hand at 12.
    # Flipping left-right sends 90 -> 270 (pointing at 9), 0 stays 0: the real clock shows 9:00.
    assert get_task(NAME).solve(_scene(90, 0)).answer == "9:00"


def test_hand_worked_apparent_835_is_325():
    # Mirror: minute hand at 210 deg (looks like minute 35), hour hand at 257.5 deg (between 8 and 9).
    # Real minute angle 360 - 210 = 150 -> minute 25; real hour angle 360 - 257.5 = 102.5 = 3*30 + 12.5,
    # and 12.5 = 25/2 fits minute 25 -> 3:25 (= 12:00 - 8:35).
    sol = get_task(NAME).solve(_scene(257.5, 210))
    assert sol.answer == "3:25" and sol.details["apparent_time"] == "8:35"


def test_hand_worked_half_past_twelve():
    # Real 12:30: hour hand 15 deg, minute 180. The mirror shows 345 and 180 (looks like 11:30).
    assert get_task(NAME).solve(_scene(345, 180)).answer == "12:30"


def test_hand_worked_shift():
    # Mirror: hour 162, minute 144. Real minute 360 - 144 = 216 -> 36; real hour 360 - 162 = 198 = 6*30 + 18,
    # 18 = 36/2 -> 6:36. Plus 4 h 45 min: 6:36 + 4:00 = 10:36, + 0:45 = 11:21.
    sol = get_task(NAME).solve(_scene(162, 144, form="shift", shift={"hours": 4, "minutes": 45}))
    assert sol.answer == "11:21"
    assert sol.details["real_time"] == "6:36"


def test_hand_worked_shift_wraps_past_twelve():
    # Mirror: hour 52.5, minute 270. Real minute 360 - 270 = 90 -> 15; real hour 360 - 52.5 = 307.5
    # = 10*30 + 7.5 and 7.5 = 15/2 -> 10:15. Plus 3 h 50 min = 14:05, i.e. 2:05 on a 12-hour clock.
    sol = get_task(NAME).solve(_scene(52.5, 270, form="shift", shift={"hours": 3, "minutes": 50}))
    assert sol.answer == "2:05"


# -- invariants -------------------------------------------------------------------------------------------


def test_mirror_twice_is_identity_and_mirror_time_formula():
    for total in range(720):
        hour, minute = (total // 60) or 12, total % 60
        h, m = hand_angles(hour, minute)
        assert mirror_angle(mirror_angle(h)) == h and mirror_angle(mirror_angle(m)) == m
        # The mirror shows (12:00 - T) mod 12 h for whole-minute T.
        expect = add_time(12, 0, 0, -total)
        assert time_from_angles(mirror_angle(h), mirror_angle(m)) == expect


def test_sampled_scenes_consistent_with_answer():
    for difficulty in ("easy", "medium", "hard"):
        task = get_task(NAME, difficulty=difficulty)
        for s in range(150):
            scene = task.solved_scene(s, 0)[0]
            sol = task.solve(scene)
            hour, minute = (int(x) for x in sol.answer.split(":"))
            assert 1 <= hour <= 12 and 0 <= minute < 60 and sol.answer == f"{hour}:{minute:02d}"
            if scene["form"] == "shift":
                hour, minute = add_time(hour, minute, -scene["shift"]["hours"], -scene["shift"]["minutes"])
            assert minute % task.config.minute_step == 0
            h, m = hand_angles(hour, minute)
            assert Fraction(scene["shown_hour_angle"]) == mirror_angle(h)
            assert Fraction(scene["shown_minute_angle"]) == mirror_angle(m)
            assert angle_gap(h, m) >= 6


def _dark(img, angle: float, r: float) -> bool:
    a = math.radians(angle)
    x, y = CENTER[0] + r * math.sin(a), CENTER[1] - r * math.cos(a)
    return sum(img.getpixel((round(x), round(y)))) < 200


def test_pictures_show_the_hands_where_the_scene_says():
    task = get_task(NAME)
    for index in range(6):
        sample = task.make(index, 0, with_corruption=False)
        scene = sample.instance.meta["scene"]
        shown = sample.images[sample.instance.image]
        sm, sh = scene["shown_minute_angle"], scene["shown_hour_angle"]
        # Only the minute hand reaches 0.65 R; only the hour hand is 0.4 R out along its own angle.
        assert _dark(shown, sm, 0.65 * RADIUS)
        assert _dark(shown, sh, 0.4 * RADIUS)
        real_m = float(mirror_angle(Fraction(sm)))
        if angle_gap(real_m, sm) > 12:
            assert not _dark(shown, real_m, 0.65 * RADIUS)
        # Flipping the input picture back gives exactly the true face.
        real_h = float(mirror_angle(Fraction(sh)))
        assert ImageOps.mirror(shown).tobytes() == draw_face(real_h, real_m, scene["numerals"]).tobytes()
        assert (
            ImageOps.mirror(mirrored_picture(real_h, real_m, True)).tobytes()
            == draw_face(real_h, real_m, True).tobytes()
        )


def _hands(text: str) -> tuple[str, str]:
    m = re.search(r"minute hand (?:now )?points (\S+) degrees clockwise from 12 and the hour hand (\S+) degrees", text)
    assert m, text
    return m.group(1), m.group(2)


def test_corruption_shows_different_hands():
    task = get_task(NAME)
    for index in range(8):
        sample = task.make(index, 0)
        details = sample.instance.meta["solution"]["details"]
        good, bad = sample.instance.steps[0].text, sample.instance.corrupted_steps[0].text
        real = (str(details["real_minute_angle"]), str(details["real_hour_angle"]))
        assert _hands(good) == real and _hands(bad) != real


def test_steps_show_faces_not_times():
    # Step 1 is the un-mirrored face, step 2 (shift form) the face moved on; the texts give the hand angles the
    # pictures draw and never a time, in the correct or the corrupted trajectory.
    task = get_task(NAME, difficulty="hard")
    forms = collections.Counter()
    for index in range(12):
        sample = task.make(index, 0)
        inst = sample.instance
        scene, states = inst.meta["scene"], inst.meta["solution"]["states"]
        forms[scene["form"]] += 1
        assert len(inst.steps) == (2 if scene["form"] == "shift" else 1)
        for step, state in zip(inst.steps, states, strict=True):
            assert _hands(step.text) == (str(state["minute_angle"]), str(state["hour_angle"]))
        times = {inst.answer, inst.meta["solution"]["details"]["real_time"]}
        for step in [*inst.steps, *inst.corrupted_steps]:
            assert not re.search(r"\d:\d\d", step.text) and "shows" not in step.text
            labels = drawn_labels(sample.images[step.image])
            assert not any(t in label for t in times for label in labels)
            assert not any(re.search(r"\d:\d\d", label) for label in labels)
        if scene["form"] == "shift":
            dh, dm = scene["shift"]["hours"], scene["shift"]["minutes"]
            assert f"{shift_words(dh, dm)} later" in inst.steps[1].text
    assert forms["shift"] and forms["read"]


def test_answer_space_follows_the_minute_step():
    # easy: minutes are multiples of 5 -> 12 hours x 12 minutes = 144 times (chance 1/144);
    # medium and hard: any whole minute -> 12 x 60 = 720.
    easy = get_task(NAME, difficulty="easy").make(0, 0, with_corruption=False).instance
    space = answer_space(easy)
    assert space.size == 144 and chance_level(easy) == pytest.approx(1 / 144)
    assert space.contains("12:55") and space.contains("1:00") and space.contains("03:05")
    assert not space.contains("3:07") and not space.contains("13:00") and not space.contains("0:05")
    for difficulty in ("medium", "hard"):
        inst = get_task(NAME, difficulty=difficulty).make(0, 0, with_corruption=False).instance
        space = answer_space(inst)
        assert space.size == 720 and space.contains("3:07") and space.contains("12:59")
        assert not space.contains("12:60")
    rng = random.Random(0)
    assert all(re.fullmatch(r"([1-9]|1[0-2]):[0-5]\d", space.sample(rng)) for _ in range(200))


# -- rejections -------------------------------------------------------------------------------------------


def test_overlapping_hands_rejected():
    # Real 3:16: hour hand 98 deg, minute hand 96 deg, 2 deg apart -> one hides the other.
    h, m = hand_angles(3, 16)
    with pytest.raises(Reject):
        check_readable(h, m)
    with pytest.raises(Reject):
        get_task(NAME).solve(_scene(float(mirror_angle(h)), int(mirror_angle(m))))
    with pytest.raises(Reject):  # 12:00: both hands straight up
        get_task(NAME).solve(_scene(0, 0))
    check_readable(*hand_angles(3, 20))  # 10 deg apart is fine


def test_inconsistent_or_fractional_hands_rejected():
    task = get_task(NAME)
    with pytest.raises(Reject):  # un-mirrored: hour hand exactly on 3 (90) but minute hand at minute 5 (30)
        task.solve(_scene(270, 330))
    with pytest.raises(Reject):  # minute hand between minute ticks
        task.solve(_scene(270, 3))


# -- balance ----------------------------------------------------------------------------------------------


def test_answer_hours_balanced():
    task = get_task(NAME, difficulty="hard")
    hours = []
    for index in range(120):
        hours.append(task.solved_scene(index, 0)[1].answer.split(":")[0])
    assert collections.Counter(hours) == {str(h): 10 for h in range(1, 13)}


# -- scene space, hands, limits, shortcuts ----------------------------------------------------------------


def test_easy_preset_admits_enough_distinct_scenes():
    # 12 x 12 asked times on the 5-minute grid, 5 of whose real faces have overlapping hands (12:00, 1:05, 2:10,
    # 9:50, 10:55), read as they are (139) or 1 to 5 whole hours later (5 x 139): 834 problems, room for a
    # 200-instance suite without repeats.
    task = get_task(NAME, difficulty="easy")
    scenes = list(possible_scenes(task.config))
    keys = {task.scene_key(s) for s in scenes}
    assert len(keys) == len(scenes) == 834
    assert sum(s["form"] == "read" for s in scenes) == 139
    assert {s["shift"]["minutes"] for s in scenes if s["shift"]} == {0}
    # The sampler draws only scenes of that space, both forms.
    drawn = [task.solved_scene(i, 0)[0] for i in range(60)]
    assert {task.scene_key(s) for s in drawn} <= keys
    assert {s["form"] for s in drawn} == {"read", "shift"}


def test_whole_hour_shift_moves_only_the_hour_hand():
    # Real 3:30 (hour hand 105 deg, minute 180; the mirror shows 255 and 180), 2 hours later: 5:30.
    sol = get_task(NAME, difficulty="easy").solve(_scene(255, 180, form="shift", shift={"hours": 2, "minutes": 0}))
    assert sol.answer == "5:30" and sol.states[1]["minute_angle"] == sol.states[0]["minute_angle"]
    assert shift_words(2, 0) == "2 hours" and shift_words(1, 0) == "1 hour"


def test_minute_hand_reaches_the_tick_ring_and_the_hour_hand_does_not():
    # At minute 7 (42 deg) no major tick is drawn, so a dark pixel 20 px inside the rim, where minor ticks do not
    # reach (they start 14 px inside), is the minute hand's tip; the hour hand ends at half the radius.
    minute, other = 42.0, 222.0
    face = draw_face(hour_angle=300.0, minute_angle=minute, numerals=False)
    assert _dark(face, minute, RADIUS - 20) and _dark(face, minute, RADIUS - 40)
    assert not _dark(draw_face(300.0, other, False), minute, RADIUS - 20)
    hour_face = draw_face(hour_angle=minute, minute_angle=other, numerals=False)
    assert _dark(hour_face, minute, 0.45 * RADIUS) and not _dark(hour_face, minute, 0.6 * RADIUS)


def test_limits_and_parameter_relations():
    for difficulty in ("easy", "medium", "hard"):
        get_task(NAME, difficulty=difficulty)  # every preset lies inside its limits
    for bad in (
        {"minute_step": 7},
        {"minute_step": 60},
        {"shift_minute_step": 7},
        {"shift_prob": 1.5},
        {"max_shift_hours": 12},
        {"minute_step": 5, "shift_minute_step": 1},
        {"shift_prob": 0.5, "max_shift_hours": 0, "shift_minute_step": 60},
    ):
        with pytest.raises(ParameterError):
            get_task(NAME, difficulty="medium", **bad)
    get_task(NAME, difficulty="medium", minute_step=15, shift_minute_step=30, max_shift_hours=0)


def test_shortcut_heuristics_read_the_mirror_naively():
    # Real 3:25 shown as 8:35 (hour 257.5 deg, minute 210), asked 2 h 10 min later (5:35).
    inst = (
        get_task(NAME)
        .make(0, 0, with_corruption=False)
        .instance.model_copy(update={"meta": {"scene": _scene(257.5, 210, "shift", {"hours": 2, "minutes": 10})}})
    )
    assert apparent_time(inst) == "8:35"
    assert apparent_time_plus_shift(inst) == "10:45"
    assert real_time_ignoring_shift(inst) == "3:25"
    read = inst.model_copy(update={"meta": {"scene": _scene(257.5, 210)}})
    assert apparent_time(read) == "8:35"
    assert apparent_time_plus_shift(read) is None and real_time_ignoring_shift(read) is None
