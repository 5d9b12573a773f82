"""The VAoT drawing loop for RL adapters (docs/rl.md, "Drawing sessions").

A `DrawingSession` holds one problem's drawing state. Each `act(name, arguments)` is validated exactly as in
an evaluation run (`vcot.vaot.actions.validate_action`: schema, bounds, coordinates clamped into the picture,
docs/vaot.md) and rendered by the same renderer (`vcot.vaot.render.apply_action`), or by one of the
corruptions of the `vaot_wrongrender` conditions (`vcot.vaot.corrupt`). Tool-call arguments are model output:
an invalid action, an exhausted budget or anything else that goes wrong comes back as an error text, never
as an exception.
"""

from __future__ import annotations

import operator
import random
from typing import Any

from PIL import Image

from vcot.seeding import derive_seed
from vcot.vaot.actions import ActionError, CropZoom, validate_action
from vcot.vaot.corrupt import CORRUPTIONS, corrupt_render, picture_objects
from vcot.vaot.episode import REJECTED_PREFIX, RENDER_ACK, ZOOM_ACK
from vcot.vaot.render import apply_action, bound_size

BUDGET_SPENT = "Action rejected: the action budget of this problem is used up. Give your final answer now."


def whole_number(what: str, value: Any) -> int:
    """An integer argument (numpy integers too); NaN, 2.5, "8" or True get a ValueError naming it."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be a whole number, got {value!r}") from None


class DrawingSession:
    """The drawing state of one problem. `corruption`: None (faithful), "modify_key" or "modify_non_key".
    `max_calls` bounds the calls to `act` (rejected ones count too: a model repeating a bad call cannot loop
    forever). The corruption RNG is seeded by the problem's uid, `seed` and the call number, so a session
    replays identically."""

    def __init__(self, problem: Any, corruption: str | None = None, max_calls: int = 8, seed: int = 0) -> None:
        if corruption is not None and corruption not in CORRUPTIONS:
            raise ValueError(f"unknown corruption {corruption!r}; choose None or one of {CORRUPTIONS}")
        max_calls, seed = whole_number("max_calls", max_calls), whole_number("seed", seed)
        if max_calls < 0:
            raise ValueError(f"max_calls must be at least 0, got {max_calls}")
        if not problem.images:
            raise ValueError(f"problem {problem.uid} has no input picture to draw on")
        self.problem = problem
        self.corruption = corruption
        self.max_calls = int(max_calls)
        self.seed = int(seed)
        self.image: Image.Image = problem.images[0].convert("RGB")
        self.calls = 0
        self.log: list[dict[str, Any]] = []
        self._objects: list[tuple[float, float]] | None = None
        self._objects_read = False

    @property
    def remaining(self) -> int:
        """Calls left in the budget."""
        return max(0, self.max_calls - self.calls)

    def act(self, name: Any, arguments: Any) -> tuple[Image.Image | None, str]:
        """Execute one action: (picture to show the model, short text). The picture is the new drawing state,
        or the enlarged view for crop_zoom (the state is then unchanged). (None, error text) when the action is
        invalid or the budget is spent."""
        if self.calls >= self.max_calls:
            self.log.append({"call": self.calls, "name": str(name)[:40], "error": "budget"})
            return None, BUDGET_SPENT
        self.calls += 1
        try:
            action = validate_action(name, arguments, self.image.width, self.image.height)
        except ActionError as exc:
            return self._reject(name, str(exc))
        except Exception as exc:  # noqa: BLE001 - untrusted arguments of any shape become an error text
            return self._reject(name, f"{str(name)[:40]}: invalid arguments ({type(exc).__name__})")
        record: dict[str, Any] = {"call": self.calls, "name": action.action, "action": action.model_dump()}
        try:
            if self.corruption is None:
                state, view = apply_action(self.image, action)
            else:
                rng = random.Random(derive_seed(self.problem.uid, self.seed, self.calls, self.corruption))
                out = corrupt_render(self.image, action, self.corruption, rng, self._picture_objects())
                state, view, record["corruption"] = out.state, out.view, out.description
        except Exception as exc:  # noqa: BLE001 - a renderer failure fails this action, not the rollout
            return self._reject(action.action, f"{action.action}: could not be drawn ({type(exc).__name__})")
        self.image = state
        self.log.append(record)
        return bound_size(view), ZOOM_ACK if isinstance(action, CropZoom) else RENDER_ACK

    def _reject(self, name: Any, message: str) -> tuple[None, str]:
        self.log.append({"call": self.calls, "name": str(name)[:40], "error": message})
        return None, REJECTED_PREFIX + message

    def _picture_objects(self) -> list[tuple[float, float]] | None:
        # The objects a modify_key mark may jump to, read once from the problem's scene.
        if not self._objects_read:
            self._objects_read = True
            self._objects = picture_objects(getattr(self.problem.instance, "meta", None))
        return self._objects
