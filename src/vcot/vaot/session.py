"""The one drawing session: a picture, the model's actions on it, and what each action sends back.

Evaluation's VAoT episode (`vcot.vaot.episode`), the training environment (`vcot.rl.env`) and every trainer
adapter draw through this class, so all of them validate actions alike (`vcot.vaot.actions`), render alike
(`vcot.vaot.render`, or a corruption of `vcot.vaot.corrupt`), keep the same budget and seed the corruption
RNG by the same recipe: the instance uid, the epoch, the turn and the action's position in its turn.

Turns: a caller that sees whole replies (evaluation, `VcotEnv.step`) opens each with `begin_turn()` and
executes that reply's actions in it. A caller that sees one tool call at a time (a trainer's per-call tools)
does not: each call is then a turn of its own. The budget is `max_turns` turns of at most
`max_actions_per_turn` actions; past it an action is refused with `BUDGET_SPENT`.

Arguments are model output: an invalid action, a spent budget or a renderer failure comes back as a
rejection text, never as an exception.
"""

from __future__ import annotations

import operator
import random
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.seeding import derive_seed
from vcot.vaot.actions import MAX_ACTIONS_PER_TURN, MAX_TURNS, Action, ActionError, CropZoom, validate_action
from vcot.vaot.corrupt import CORRUPTIONS, corrupt_render, picture_objects
from vcot.vaot.render import apply_action, bound_size

NORENDER_ACK = "Action recorded."
RENDER_ACK = "Action executed. The updated image is attached."
ZOOM_ACK = "Zoomed view attached (the drawing state is unchanged)."
REJECTED_PREFIX = "Action rejected: "
BUDGET_SPENT = REJECTED_PREFIX + "the action budget of this problem is used up. Give your final answer now."


def whole_number(what: str, value: Any) -> int:
    """An integer argument (numpy integers too); NaN, 2.5, "8" or True get a ValueError naming it."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be a whole number, got {value!r}") from None


@dataclass
class Outcome:
    """What one action sends back: `view` (the new drawing state, the enlarged view for crop_zoom, or None
    when nothing is shown: a rejection or a norender acknowledgement) and `text`. `kind` is "state", "zoom",
    "ack" or "rejected"; `corruption` describes what a corrupted render changed (never shown to the model)."""

    text: str
    kind: str
    view: Image.Image | None = None
    action: Action | None = None
    corruption: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.kind != "rejected"


class DrawingSession:
    """The drawing state of one instance.

    `render`: False acknowledges actions without drawing (`vaot_norender`). `corruption`: None (faithful),
    "modify_key" or "modify_non_key" (`vcot.vaot.corrupt`). `meta`: the instance's meta (scene), read for the
    objects a modify_key mark may jump to.
    """

    def __init__(
        self,
        picture: Image.Image,
        uid: str,
        *,
        epoch: int = 0,
        render: bool = True,
        corruption: str | None = None,
        meta: Any = None,
        max_turns: int = MAX_TURNS,
        max_actions_per_turn: int = MAX_ACTIONS_PER_TURN,
    ) -> None:
        if corruption is not None and corruption not in CORRUPTIONS:
            raise ValueError(f"unknown corruption {corruption!r}; choose None or one of {CORRUPTIONS}")
        max_turns = whole_number("max_turns", max_turns)
        max_actions_per_turn = whole_number("max_actions_per_turn", max_actions_per_turn)
        if max_turns < 0 or max_actions_per_turn < 1:
            raise ValueError(
                f"the budget must be at least 0 turns of at least 1 action, got {max_turns} turns "
                f"of {max_actions_per_turn}"
            )
        self.image: Image.Image = picture.convert("RGB")
        self.uid = str(uid)
        self.epoch = whole_number("epoch", epoch)
        self.render = bool(render)
        self.corruption = corruption
        self.max_turns = max_turns
        self.max_actions_per_turn = max_actions_per_turn
        self.turn = 0
        self.calls = 0
        self.log: list[dict[str, Any]] = []
        self._k = 0
        self._grouped = False
        self._meta = meta
        self._objects: list[tuple[float, float]] | None = None
        self._objects_read = False

    @classmethod
    def for_problem(
        cls, problem: Any, *, condition: str = "vaot", epoch: int = 0, max_turns: int = MAX_TURNS
    ) -> DrawingSession:
        """The session of a training problem (`vcot.rl.Problem`) under a VAoT condition."""
        from vcot.vaot.episode import CORRUPTION_OF

        if condition not in CORRUPTION_OF:
            raise ValueError(f"not a drawing condition: {condition!r}; one of {', '.join(CORRUPTION_OF)}")
        if not problem.images:
            raise ValueError(f"problem {problem.uid} has no input picture to draw on")
        inst = problem.instance
        return cls(
            problem.images[0],
            inst.uid,
            epoch=epoch,
            render=condition != "vaot_norender",
            corruption=CORRUPTION_OF[condition],
            meta=getattr(inst, "meta", None),
            max_turns=max_turns,
        )

    @property
    def remaining(self) -> int:
        """Turns left in the budget."""
        return max(0, self.max_turns - self.turn)

    def begin_turn(self) -> int:
        """Open the next turn (one reply of the model); its actions share it. Returns the turn number."""
        self._grouped = True
        self.turn += 1
        self._k = 0
        return self.turn

    def act(self, name: Any, arguments: Any) -> tuple[Image.Image | None, str]:
        """Validate and execute one tool call: (picture to show, text), or (None, rejection or acknowledgement)."""
        out = self.run(name, arguments)
        return out.view, out.text

    def run(self, name: Any, arguments: Any) -> Outcome:
        """Validate and execute one tool call (name and raw arguments, JSON text or a mapping)."""
        if not self._grouped:
            self.turn += 1
            self._k = 0
        spent = self._spent()
        if spent is not None:
            return spent
        try:
            action = validate_action(name, arguments, self.image.width, self.image.height)
        except ActionError as exc:
            return self._reject(name, str(exc))
        except Exception as exc:  # noqa: BLE001 - untrusted arguments of any shape become an error text
            return self._reject(name, f"{str(name)[:40]}: invalid arguments ({type(exc).__name__})")
        return self._execute(action)

    def execute(self, action: Action) -> Outcome:
        """Execute an action already validated (evaluation parses a whole reply first)."""
        if not self._grouped:
            self.turn += 1
            self._k = 0
        spent = self._spent()
        return spent if spent is not None else self._execute(action)

    def _spent(self) -> Outcome | None:
        if self.turn > self.max_turns or self._k >= self.max_actions_per_turn:
            # Not counted in `calls`: those are the calls the budget admitted.
            self.log.append({"turn": self.turn, "call": self.calls, "error": "budget"})
            return Outcome(BUDGET_SPENT, "rejected", error="budget")
        return None

    def _execute(self, action: Action) -> Outcome:
        k = self._k
        self._k += 1
        self.calls += 1
        record: dict[str, Any] = {
            "turn": self.turn,
            "call": self.calls,
            "name": action.action,
            "action": action.model_dump(),
        }
        if not self.render:
            self.log.append(record)
            return Outcome(NORENDER_ACK, "ack", action=action)
        try:
            if self.corruption is None:
                state, view = apply_action(self.image, action)
                description = None
            else:
                rng = random.Random(derive_seed(self.uid, self.epoch, self.turn, k, self.corruption))
                out = corrupt_render(self.image, action, self.corruption, rng, self._picture_objects())
                state, view, description = out.state, out.view, out.description
        except Exception as exc:  # noqa: BLE001 - a renderer failure fails this action, not the episode
            return self._reject(
                action.action, f"{action.action}: could not be drawn ({type(exc).__name__})", counted=False
            )
        self.image = state
        if description is not None:
            record["corruption"] = description
        self.log.append(record)
        zoom = isinstance(action, CropZoom)
        return Outcome(
            ZOOM_ACK if zoom else RENDER_ACK, "zoom" if zoom else "state", bound_size(view), action, description
        )

    def _reject(self, name: Any, message: str, *, counted: bool = True) -> Outcome:
        if counted:
            self._k += 1
            self.calls += 1
        self.log.append({"turn": self.turn, "call": self.calls, "name": str(name)[:40], "error": message})
        return Outcome(REJECTED_PREFIX + message, "rejected", error=message)

    def _picture_objects(self) -> list[tuple[float, float]] | None:
        # The objects a modify_key mark may jump to, read once from the scene.
        if not self._objects_read:
            self._objects_read = True
            self._objects = picture_objects(self._meta)
        return self._objects
