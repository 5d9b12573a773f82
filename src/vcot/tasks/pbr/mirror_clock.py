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
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from PIL import Image, ImageOps

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task

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
    minute_step: int = 1  # minutes of the real time are multiples of this
    numerals: bool = True  # numerals 1-12 on the face (else hour ticks only, with a marker at 12)
    shift_prob: float = 0.4  # probability of the "time after a shift" question form
    max_shift_hours: int = 5


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
    """"03:05" and " 3:05" are the time 3:05; anything else stays as written (and is not in the space)."""
    h, sep, mm = answer.strip().partition(":")
    return f"{int(h)}:{mm}" if sep and h.isdigit() and mm.isdigit() and len(mm) == 2 else answer.strip()


def _num(x: Fraction) -> int | float:
    """JSON-exact number: hand angles are multiples of 1/2 degree."""
    return int(x) if x.denominator == 1 else float(x)


# -- drawing --------------------------------------------------------------------------------------------

def _polar(angle_deg: float, r: float) -> tuple[float, float]:
    a = math.radians(angle_deg)
    return CENTER[0] + r * math.sin(a), CENTER[1] - r * math.cos(a)


def _hand(cv: Canvas, angle: float, length: float, back: float, w0: float, w1: float, color: str) -> None:
    a = math.radians(angle)
    ux, uy = math.sin(a), -math.cos(a)
    px, py = -uy, ux
    cx, cy = CENTER
    bx, by = cx - back * ux, cy - back * uy
    tx, ty = cx + length * ux, cy + length * uy
    cv.polygon([(bx + px * w0 / 2, by + py * w0 / 2), (tx + px * w1 / 2, ty + py * w1 / 2),
                (tx - px * w1 / 2, ty - py * w1 / 2), (bx - px * w0 / 2, by - py * w0 / 2)],
               fill=color, outline=None)


def draw_face(hour_angle: float, minute_angle: float, numerals: bool, caption: str | None = None,
              hour_color: str = "black", minute_color: str = "black") -> Image.Image:
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
        cv.polygon([_polar(-4, RADIUS - 40), _polar(4, RADIUS - 40), _polar(0, RADIUS - 70)], fill="black",
                   outline=None)
    _hand(cv, hour_angle, RADIUS * 0.50, 34, 22, 12, hour_color)
    _hand(cv, minute_angle, RADIUS * 0.86, 40, 10, 5, minute_color)
    cv.circle(CENTER, 14, fill="black", outline=None)
    cv.circle(CENTER, 5, fill="gray", outline=None)
    if caption:
        cv.text((12, 10), caption, size=22, bold=True)
    return cv.image()


def mirrored_picture(real_hour_angle: float, real_minute_angle: float, numerals: bool) -> Image.Image:
    """The mirror image: the true face flipped left to right, numerals included."""
    return ImageOps.mirror(draw_face(real_hour_angle, real_minute_angle, numerals))


# -- task -----------------------------------------------------------------------------------------------

@register
class MirrorClock(Task):
    name = "mirror_clock"
    config_cls = MirrorClockConfig
    version = "2"
    # The last face drawn (the un-mirrored face, or the face moved on by the shift) shows the asked time with
    # its hands; the steps never write that time, reading it off is the conclusion.
    final_state_shows = "the hands of the last clock face drawn"
    description = "An analogue clock seen in a mirror; read the real time (optionally after a shift)."
    presets = {
        "easy": MirrorClockConfig(minute_step=5, numerals=True, shift_prob=0.0),
        "medium": MirrorClockConfig(minute_step=1, numerals=True, shift_prob=0.4),
        "hard": MirrorClockConfig(minute_step=1, numerals=False, shift_prob=0.6),
    }

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        # The answer's hour is balanced over the suite; the real time is derived backwards from it.
        ans_hour = ctx.balanced(12) + 1
        ans_minute = cfg.minute_step * ctx.rng.randrange(60 // cfg.minute_step)
        shift = None
        if ctx.rng.random() < cfg.shift_prob:
            dh = ctx.rng.randint(0, cfg.max_shift_hours)
            dm = 5 * ctx.rng.randrange(12)
            if dh == 0 and dm == 0:
                raise Reject("zero shift")
            shift = {"hours": dh, "minutes": dm}
            real = add_time(ans_hour, ans_minute, -dh, -dm)
        else:
            real = (ans_hour, ans_minute)
        h_ang, m_ang = hand_angles(*real)
        check_readable(h_ang, m_ang)
        return {
            "shown_hour_angle": _num(mirror_angle(h_ang)),
            "shown_minute_angle": _num(mirror_angle(m_ang)),
            "numerals": cfg.numerals,
            "form": "read" if shift is None else "shift",
            "shift": shift,
        }

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
        details = {"real_time": fmt_time(*real), "apparent_time": fmt_time(*apparent),
                   "real_hour_angle": _num(real_h), "real_minute_angle": _num(real_m)}
        states = [{"time": fmt_time(*real), "hour_angle": _num(real_h), "minute_angle": _num(real_m)}]
        if scene["form"] == "shift":
            ah, am = hand_angles(*answer)
            states.append({"time": fmt_time(*answer), "hour_angle": _num(ah), "minute_angle": _num(am)})
        return Solution(answer=fmt_time(*answer), states=states, details=details)

    def question(self, scene: dict[str, Any]) -> str:
        face = ("The face has the numerals 1 to 12 (mirrored too)" if scene["numerals"] else
                "The face has no numerals: 60 minute ticks, longer ticks at the hours, and a triangle marks 12")
        base = ("The picture shows an analogue clock as seen in a mirror: the image is reversed left to right. "
                f"{face}; 12 is at the top. The short, wide hand is the hour hand and the long, thin hand is the "
                "minute hand; the time is a whole number of minutes.")
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
        text = (f"Flipping the mirror image left to right gives the real face: the minute hand points "
                f"{first['minute_angle']} degrees clockwise from 12 and the hour hand {first['hour_angle']} "
                "degrees clockwise from 12.")
        steps = [(img, text)]
        if scene["form"] == "shift":
            second = states[1]
            dh, dm = scene["shift"]["hours"], scene["shift"]["minutes"]
            moved = " ".join(p for p in (f"{dh} h" if dh else "", f"{dm} min" if dm else "") if p)
            img2 = draw_face(second["hour_angle"], second["minute_angle"], scene["numerals"],
                             caption=f"Real face {moved} later")
            text2 = (f"The real face {shift_words(dh, dm)} later: the minute hand now points "
                     f"{second['minute_angle']} degrees clockwise from 12 and the hour hand {second['hour_angle']} "
                     "degrees clockwise from 12.")
            steps.append((img2, text2))
        return steps

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        real_h = solution.details["real_hour_angle"]
        real_m = solution.details["real_minute_angle"]
        image = mirrored_picture(real_h, real_m, scene["numerals"])
        return Rendering(image=image, steps=self._steps(scene, solution.states))

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        real_h = Fraction(solution.details["real_hour_angle"])
        real_m = Fraction(solution.details["real_minute_angle"])
        hour, minute = time_from_angles(real_h, real_m)
        if rng.random() < 0.5 and real_m % 180 != 0:
            # Minute hand left as seen in the mirror while the hour hand is un-mirrored.
            bad_m = mirror_angle(real_m)
            bad_minute = int(bad_m // 6)
            bad = (hour, bad_minute)
            bad_h = real_h
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
        return Corruption(steps=self._steps(scene, states), description=desc)
