"""Mirror clock (MIRA PBR): an analogue clock seen in a mirror; what time does the real clock show
(optionally after a stated shift)?

The scene stores what the picture shows — the hand angles of the mirrored face — and the solver un-mirrors
them: a left-right reflection maps a hand at angle a (degrees clockwise from 12) to 360 - a, so a real time T
appears as 12:00 - T. The true face is drawn with the vector canvas and flipped with PIL's ImageOps.mirror, so the
numerals are mirrored too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from PIL import Image, ImageOps

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task

SIZE = 720
CENTER = (SIZE / 2, SIZE / 2)
RADIUS = 300.0
# Hands closer than this (degrees) partly hide each other; such times are rejected.
MIN_HAND_GAP = 6.0


@lru_cache(maxsize=16)
def _clock_space(step: int) -> AnswerSpace:
    # Built once per step: reports compute a chance level for every results row.
    minutes = [step * k for k in range(60 // step)]
    times = [fmt_time(h, m) for h in range(1, 13) for m in minutes]
    what = "minute" if step == 1 else f"{step} minutes"
    return finite(times, f"the {len(times)} times H:MM of a 12-hour face, every {what}", _canon_time)


@dataclass(frozen=True)
class MirrorClockConfig:
    minute_step: int = 1  # minutes of the asked (and of the real) time are multiples of this
    numerals: bool = True  # numerals 1-12 on the face (else hour ticks only, with a marker at 12)
    shift_prob: float = 0.4  # probability of the "time after a shift" question form
    max_shift_hours: int = 5
    # The shift's minutes are multiples of this; 60 makes every shift a whole number of hours (the easy form).
    shift_minute_step: int = 5


# -- time arithmetic ------------------------------------------------------------------------------------


def hand_angles(hour: int, minute: int) -> tuple[Fraction, Fraction]:
    """(hour angle, minute angle) in degrees clockwise from 12 for a 12-hour time; exact."""
    return Fraction(30 * (hour % 12)) + Fraction(minute, 2), Fraction(6 * minute)


def mirror_angle(a: Fraction) -> Fraction:
    """A left-right reflection of the face sends angle a (clockwise from 12) to -a."""
    return (-a) % 360


def time_from_angles(hour_angle: Fraction, minute_angle: Fraction) -> tuple[int, int]:
    """The 12-hour time whose hands sit at these angles; ValueError if they are not a consistent whole-minute time."""
    if minute_angle % 6 != 0:
        raise ValueError(f"minute hand at {minute_angle} deg is not on a whole minute")
    minute = int(minute_angle // 6) % 60
    hour0 = int(hour_angle // 30) % 12
    if Fraction(hour_angle) - 30 * hour0 != Fraction(minute, 2):
        raise ValueError(f"hour hand at {hour_angle} deg does not match minute {minute}")
    return (hour0 or 12), minute


def add_time(hour: int, minute: int, dh: int, dm: int) -> tuple[int, int]:
    total = ((hour % 12) * 60 + minute + dh * 60 + dm) % 720
    return (total // 60) or 12, total % 60


def shift_words(dh: int, dm: int) -> str:
    parts = []
    if dh:
        parts.append(f"{dh} hour{'s' if dh != 1 else ''}")
    if dm:
        parts.append(f"{dm} minute{'s' if dm != 1 else ''}")
    return " and ".join(parts)


def fmt_time(hour: int, minute: int) -> str:
    return f"{hour}:{minute:02d}"


def angle_gap(a: Fraction | float, b: Fraction | float) -> float:
    d = abs(float(a) - float(b)) % 360
    return min(d, 360 - d)


def check_readable(hour_angle: Fraction | float, minute_angle: Fraction | float) -> None:
    """Reject faces whose hands (nearly) overlap: one hides the other, and which is which becomes a guess."""
    if angle_gap(hour_angle, minute_angle) < MIN_HAND_GAP:
        raise Reject(f"hands within {MIN_HAND_GAP} deg of each other")


def _canon_time(answer: str) -> str:
    """ "03:05" and " 3:05" are the time 3:05; anything else stays as written (and is not in the space)."""
    h, sep, mm = answer.strip().partition(":")
    return f"{int(h)}:{mm}" if sep and h.isdigit() and mm.isdigit() and len(mm) == 2 else answer.strip()


def _num(x: Fraction) -> int | float:
    """JSON-exact number: hand angles are multiples of 1/2 degree."""
    return int(x) if x.denominator == 1 else float(x)


# -- drawing --------------------------------------------------------------------------------------------


def _polar(angle_deg: float, r: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return CENTER[0] + r * math.sin(a), CENTER[1] - r * math.cos(a)


def _hand(cv: Canvas, angle: float, profile: list[tuple[float, float]], color: str) -> None:
    """A hand along `angle` whose outline follows `profile`: (distance from the centre, width) pairs from the
    back end to the tip (a negative distance lies behind the centre)."""
    a = math.radians(angle)
    ux, uy = math.sin(a), -math.cos(a)
    px, py = -uy, ux
    cx, cy = CENTER
    left = [(cx + r * ux + px * w / 2, cy + r * uy + py * w / 2) for r, w in profile]
    right = [(cx + r * ux - px * w / 2, cy + r * uy - py * w / 2) for r, w in profile]
    cv.polygon(left + right[::-1], fill=color, outline=None)


# The hour hand is short and wide with a blunt end, well inside the numerals; the minute hand is long and thin
# and tapers to a narrow tip that ends inside the ring of minute ticks (which runs from RADIUS - 14 to
# RADIUS - 2), so the minute it points at can be read off the ticks exactly.
HOUR_HAND = [(-34, 22), (0.50 * RADIUS - 14, 14), (0.50 * RADIUS, 8)]
MINUTE_HAND = [(-40, 10), (RADIUS - 70, 7), (RADIUS - 6, 1.5)]


def draw_face(
    hour_angle: float,
    minute_angle: float,
    numerals: bool,
    caption: str | None = None,
    hour_color: str = "black",
    minute_color: str = "black",
) -> Image.Image:
    """A true (un-mirrored) clock face; the caption, if any, goes in the top-left corner."""
    cv = Canvas(SIZE, SIZE)
    cv.circle(CENTER, RADIUS + 12, fill=(245, 245, 240), outline="darkgray", width=10)
    for k in range(60):
        major = k % 5 == 0
        r0 = RADIUS - (30 if major else 14)
        cv.line([_polar(6 * k, r0), _polar(6 * k, RADIUS - 2)], color="black", width=6 if major else 2)
    if numerals:
        for h in range(1, 13):
            cv.text(_polar(30 * h, RADIUS - 68), str(h), size=46, anchor="mm", bold=True)
    else:
        # A marker that survives the reflection (it is symmetric) so 12 stays identifiable.
        cv.polygon(
            [_polar(-4, RADIUS - 40), _polar(4, RADIUS - 40), _polar(0, RADIUS - 70)], fill="black", outline=None
        )
    _hand(cv, hour_angle, HOUR_HAND, hour_color)
    _hand(cv, minute_angle, MINUTE_HAND, minute_color)
    cv.circle(CENTER, 14, fill="black", outline=None)
    cv.circle(CENTER, 5, fill="gray", outline=None)
    if caption:
        cv.text((12, 10), caption, size=22, bold=True)
    return cv.image()


def mirrored_picture(real_hour_angle: float, real_minute_angle: float, numerals: bool) -> Image.Image:
    """The mirror image: the true face flipped left to right, numerals included."""
    return ImageOps.mirror(draw_face(real_hour_angle, real_minute_angle, numerals))


# -- scenes ---------------------------------------------------------------------------------------------


def scene_for(asked: tuple[int, int], shift: dict[str, int] | None, numerals: bool) -> dict[str, Any]:
    """The scene whose question's answer is the time `asked` (the real time, or the real time moved on by
    `shift`); Reject when the real face's hands would hide each other."""
    real = asked if shift is None else add_time(*asked, -shift["hours"], -shift["minutes"])
    h_ang, m_ang = hand_angles(*real)
    check_readable(h_ang, m_ang)
    return {
        "shown_hour_angle": _num(mirror_angle(h_ang)),
        "shown_minute_angle": _num(mirror_angle(m_ang)),
        "numerals": numerals,
        "form": "read" if shift is None else "shift",
        "shift": shift,
    }


def possible_scenes(cfg: MirrorClockConfig) -> Iterator[dict[str, Any]]:
    """Every scene the sampler can draw under `cfg` (each once): the asked times on the minute grid, each
    without a shift (if shift_prob < 1) and with every non-zero shift (if shift_prob > 0), readable faces
    only. Their number bounds how many instances a suite can hold without repeating a problem."""
    shifts: list[dict[str, int] | None] = [None] if cfg.shift_prob < 1 else []
    if cfg.shift_prob > 0:
        shifts += [
            {"hours": dh, "minutes": dm}
            for dh in range(cfg.max_shift_hours + 1)
            for dm in range(0, 60, cfg.shift_minute_step)
            if dh or dm
        ]
    for hour in range(1, 13):
        for minute in range(0, 60, cfg.minute_step):
            for shift in shifts:
                try:
                    yield scene_for((hour, minute), shift, cfg.numerals)
                except Reject:
                    continue


# -- task -----------------------------------------------------------------------------------------------


@register
class MirrorClock(Task):
    name = "mirror_clock"
    config_cls = MirrorClockConfig
    version = "4"
    # The last face drawn (the un-mirrored face, or the face moved on by the shift) shows the asked time with
    # its hands; the steps never write that time, reading it off is the conclusion.
    final_state_shows = "the hands of the last clock face drawn"
    description = "An analogue clock seen in a mirror; read the real time (optionally after a shift)."
    # Easy asks for the real time or for it a whole number of hours later: 139 readable faces alone would not
    # fill a 200-instance suite without repeats, and a whole-hour shift moves only the hour hand (see
    # docs/tasks/mirror_clock.md, "Difficulty").
    presets = {
        "easy": MirrorClockConfig(
            minute_step=5, numerals=True, shift_prob=0.5, max_shift_hours=5, shift_minute_step=60
        ),
        "medium": MirrorClockConfig(minute_step=1, numerals=True, shift_prob=0.4),
        "hard": MirrorClockConfig(minute_step=1, numerals=False, shift_prob=0.6),
    }
    limits = {
        "minute_step": Limit(
            1,
            30,
            "minutes of the asked time are its multiples, a divisor of 60; at 60 the only "
            "time at 12 o'clock, 12:00, has overlapping hands",
        ),
        "shift_prob": Limit(0, 1, "a probability"),
        "max_shift_hours": Limit(0, 11, "a longer shift goes round the 12-hour face"),
        "shift_minute_step": Limit(1, 60, "a divisor of 60 and a multiple of minute_step; 60: whole hours"),
    }

    def check_config(self, config: MirrorClockConfig) -> None:
        super().check_config(config)
        for name in ("minute_step", "shift_minute_step"):
            if 60 % getattr(config, name):
                raise ParameterError(
                    f"parameter {name} of task {self.name} must divide 60 (an hour's minutes), "
                    f"got {getattr(config, name)}"
                )
        if config.shift_minute_step % config.minute_step:
            # The real time is the asked time minus the shift: it stays on the minute grid only this way.
            raise ParameterError(
                f"parameters of task {self.name}: shift_minute_step ({config.shift_minute_step}) "
                f"must be a multiple of minute_step ({config.minute_step})"
            )
        if config.shift_prob > 0 and config.max_shift_hours == 0 and config.shift_minute_step == 60:
            raise ParameterError(
                f"parameters of task {self.name}: with shift_prob > 0, max_shift_hours = 0 and "
                "shift_minute_step = 60 every shift would be zero"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        # The answer's hour is balanced over the suite; the real time is derived backwards from it.
        ans_hour = ctx.balanced(12) + 1
        ans_minute = cfg.minute_step * ctx.rng.randrange(60 // cfg.minute_step)
        shift = None
        if ctx.rng.random() < cfg.shift_prob:
            dh = ctx.rng.randint(0, cfg.max_shift_hours)
            dm = cfg.shift_minute_step * ctx.rng.randrange(60 // cfg.shift_minute_step)
            if dh == 0 and dm == 0:
                raise Reject("zero shift")
            shift = {"hours": dh, "minutes": dm}
        return scene_for((ans_hour, ans_minute), shift, cfg.numerals)

    def solve(self, scene: dict[str, Any]) -> Solution:
        shown_h = Fraction(scene["shown_hour_angle"])
        shown_m = Fraction(scene["shown_minute_angle"])
        check_readable(shown_h, shown_m)
        real_h, real_m = mirror_angle(shown_h), mirror_angle(shown_m)
        try:
            real = time_from_angles(real_h, real_m)
            apparent = time_from_angles(shown_h, shown_m)
        except ValueError as exc:
            raise Reject(str(exc)) from None
        answer = real
        if scene["form"] == "shift":
            answer = add_time(*real, scene["shift"]["hours"], scene["shift"]["minutes"])
        details = {
            "real_time": fmt_time(*real),
            "apparent_time": fmt_time(*apparent),
            "real_hour_angle": _num(real_h),
            "real_minute_angle": _num(real_m),
        }
        states = [{"time": fmt_time(*real), "hour_angle": _num(real_h), "minute_angle": _num(real_m)}]
        if scene["form"] == "shift":
            ah, am = hand_angles(*answer)
            states.append({"time": fmt_time(*answer), "hour_angle": _num(ah), "minute_angle": _num(am)})
        return Solution(answer=fmt_time(*answer), states=states, details=details)

    def question(self, scene: dict[str, Any]) -> str:
        face = (
            "The face has the numerals 1 to 12 (mirrored too)"
            if scene["numerals"]
            else "The face has no numerals: 60 minute ticks, longer ticks at the hours, and a triangle marks 12"
        )
        base = (
            "The picture shows an analogue clock as seen in a mirror: the image is reversed left to right. "
            f"{face}; 12 is at the top. The short, wide hand is the hour hand and the long, thin hand that reaches "
            "the ring of minute ticks is the minute hand; the time is a whole number of minutes."
        )
        if scene["form"] == "shift":
            dh, dm = scene["shift"]["hours"], scene["shift"]["minutes"]
            ask = f"What time will the real clock show {shift_words(dh, dm)} later?"
        else:
            ask = "What time does the real clock show?"
        return f"{base} {ask} Answer in 12-hour format H:MM without a leading zero (e.g. 3:05 or 12:40)."

    def answer_space(self, instance: Instance) -> AnswerSpace:
        """The 12-hour times whose minute is a multiple of `minute_step` (the sampler draws the asked time's
        minute that way, shift or not): 12 x (60 // minute_step) answers."""
        return _clock_space(self.config.minute_step)

    def _steps(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
        """The un-mirrored face (and the face moved on by the shift): hand positions, never the time read off
        them, which is the conclusion."""
        first = states[0]
        img = draw_face(first["hour_angle"], first["minute_angle"], scene["numerals"], caption="Un-mirrored face")
        text = (
            f"Flipping the mirror image left to right gives the real face: the minute hand points "
            f"{first['minute_angle']} degrees clockwise from 12 and the hour hand {first['hour_angle']} "
            "degrees clockwise from 12."
        )
        steps = [(img, text)]
        if scene["form"] == "shift":
            second = states[1]
            dh, dm = scene["shift"]["hours"], scene["shift"]["minutes"]
            moved = " ".join(p for p in (f"{dh} h" if dh else "", f"{dm} min" if dm else "") if p)
            img2 = draw_face(
                second["hour_angle"], second["minute_angle"], scene["numerals"], caption=f"Real face {moved} later"
            )
            text2 = (
                f"The real face {shift_words(dh, dm)} later: the minute hand now points "
                f"{second['minute_angle']} degrees clockwise from 12 and the hour hand {second['hour_angle']} "
                "degrees clockwise from 12."
            )
            steps.append((img2, text2))
        return steps

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, solution.states))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return mirrored_picture(
            solution.details["real_hour_angle"], solution.details["real_minute_angle"], scene["numerals"]
        )

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        real_h = Fraction(solution.details["real_hour_angle"])
        real_m = Fraction(solution.details["real_minute_angle"])
        hour, minute = time_from_angles(real_h, real_m)
        if rng.random() < 0.5 and real_m % 180 != 0:
            # Minute hand left as seen in the mirror while the hour is read off the un-mirrored hour hand; the
            # hour hand is then drawn where that minute puts it (half a degree a minute past the hour), so the
            # wrong face is a clock face, as a right step's is (docs/tasks/mirror_clock.md).
            bad = ((int(real_h // 30) % 12) or 12, int(mirror_angle(real_m) // 6))
            bad_h, bad_m = hand_angles(*bad)
            desc = "minute hand not un-mirrored"
        else:
            delta = rng.choice([-1, 1])
            bad = add_time(hour, minute, delta, 0)
            bad_h = (real_h + 30 * delta) % 360
            bad_m = real_m
            desc = f"hour hand off by {delta:+d} hour"
        states = [{"time": fmt_time(*bad), "hour_angle": _num(bad_h), "minute_angle": _num(bad_m)}]
        if scene["form"] == "shift":
            shifted = add_time(*bad, scene["shift"]["hours"], scene["shift"]["minutes"])
            ah, am = hand_angles(*shifted)
            states.append({"time": fmt_time(*shifted), "hour_angle": _num(ah), "minute_angle": _num(am)})
        # The last face the corrupted steps draw shows the time they conclude (the misread real time, moved on
        # by the shift). As a scene, the misreading is a mirror showing the misread real face: its hands are
        # those of `bad` reflected, so the oracle reads `bad` back and applies the same shift.
        bad_hour, bad_minute = hand_angles(*bad)
        wrong = {
            **scene,
            "shown_hour_angle": _num(mirror_angle(bad_hour)),
            "shown_minute_angle": _num(mirror_angle(bad_minute)),
        }
        return Corruption(
            steps=lambda: self._steps(scene, states), description=desc, answer=states[-1]["time"], scene=wrong
        )

    def slip(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """A slip in applying a rule, the mirror read right: either the hour taken from the hour hand as the
        mirror shows it while the minute hand is un-mirrored (the face then drawn as that time, hour hand half a
        degree a minute past the hour, as a right step draws it), or, in the shift form, the shift turned back
        instead of forward. Slips that land on the gold time, or on the corrupted trajectory's "hour off by one"
        (`corrupt`), are left out; so are faces whose hands would hide each other."""
        real_h = Fraction(solution.details["real_hour_angle"])
        real_m = Fraction(solution.details["real_minute_angle"])
        hour, minute = time_from_angles(real_h, real_m)
        kinds = ["hour"] + (["shift"] if scene["form"] == "shift" else [])
        rng.shuffle(kinds)
        for kind in kinds:
            if kind == "hour":
                seen = Fraction(scene["shown_hour_angle"])
                bad = ((int(seen // 30) % 12) or 12, minute)
                if (bad[0] - hour) % 12 in (0, 1, 11):
                    continue
                bad_h, bad_m = hand_angles(*bad)
                try:
                    check_readable(bad_h, bad_m)
                except Reject:
                    continue
                states = [{"time": fmt_time(*bad), "hour_angle": _num(bad_h), "minute_angle": _num(bad_m)}]
                if scene["form"] == "shift":
                    shifted = add_time(*bad, scene["shift"]["hours"], scene["shift"]["minutes"])
                    ah, am = hand_angles(*shifted)
                    states.append({"time": fmt_time(*shifted), "hour_angle": _num(ah), "minute_angle": _num(am)})
                # As a scene for the oracle: a mirror showing the slipped real face.
                wrong = {
                    **scene,
                    "shown_hour_angle": _num(mirror_angle(bad_h)),
                    "shown_minute_angle": _num(mirror_angle(bad_m)),
                }
                desc = "hour hand left as the mirror shows it, the minute hand un-mirrored"
            else:
                dh, dm = scene["shift"]["hours"], scene["shift"]["minutes"]
                back = add_time(hour, minute, -dh, -dm)
                if fmt_time(*back) == solution.answer:
                    continue
                ah, am = hand_angles(*back)
                try:
                    check_readable(ah, am)
                except Reject:
                    continue
                states = [
                    solution.states[0],
                    {"time": fmt_time(*back), "hour_angle": _num(ah), "minute_angle": _num(am)},
                ]
                # As a scene for the oracle: the same mirror, and a forward shift that lands where turning back
                # does (a 12-hour face: back by s minutes is forward by 720 - s).
                total = (720 - (60 * dh + dm)) % 720
                wrong = {**scene, "shift": {"hours": total // 60, "minutes": total % 60}}
                desc = "the shift turned back instead of forward"
            if states[-1]["time"] == solution.answer:
                continue
            return Corruption(
                steps=lambda states=states: self._steps(scene, states),
                description=desc,
                answer=states[-1]["time"],
                scene=wrong,
            )
        return None
