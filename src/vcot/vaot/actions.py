"""Visual actions a model may issue in the VAoT loop: schema, tool definitions, parsing and validation.

Coordinate system (stated in the prompt and the tool descriptions): pixels of the *current* image,
origin at the top-left corner, x to the right, y downwards. Coordinates outside the image are clamped to
its border; non-finite numbers are rejected. Every bound below exists because model output is untrusted:
an action can never allocate unbounded memory or time, and a bad action yields an error message for the
model instead of ending the sample.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vcot.draw.colors import PALETTE

MAX_ACTIONS_PER_TURN = 8
MAX_TURNS = 6
MAX_POINTS = 64
MAX_TEXT = 64
MAX_LABEL = 16
MAX_WIDTH = 12
MIN_CROP_SIDE = 16
MAX_RETURNED_SIDE = 1024
MAX_RAW_ARGUMENTS = 20_000  # characters of one tool call's JSON arguments
# Levels of JSON arrays and objects in one action's arguments: a point list needs three, so eight leave room
# for any action, and 9,000 levels fit in MAX_RAW_ARGUMENTS characters (JSON's parser overflows the stack).
MAX_NESTING = 8
# Items (array elements and object entries, at every level) in one action's already-parsed arguments: a
# 64-point polyline has about 200, so 1,000 leave room for any action. Arguments that arrive parsed (the RL
# adapters' dicts) skip the MAX_RAW_ARGUMENTS check on the JSON text, and a list of a million points took
# seconds and a gigabyte to validate; counting containers' lengths refuses it before anything is walked.
MAX_ARGUMENT_ITEMS = 1_000
# Bits of one integer argument: coordinates and widths are small, and a million-digit int is costly to convert.
MAX_ARGUMENT_INT_BITS = 256
# Rejections reported for one turn's JSON blocks: each is a message to the model, and a block of 80,000
# bare numbers would otherwise send 80,000 of them back.
MAX_BLOCK_ERRORS = 2 * MAX_ACTIONS_PER_TURN

ColorName = Literal["red", "blue", "green", "orange", "purple", "black", "yellow", "cyan", "pink", "brown", "gray"]
Num = Annotated[float, Field(allow_inf_nan=False)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Stroke(_Action):
    color: ColorName = "red"
    width: Annotated[float, Field(ge=1, le=MAX_WIDTH)] = 3


class DrawLine(_Stroke):
    """A straight segment from (x1, y1) to (x2, y2)."""

    action: Literal["draw_line"] = "draw_line"
    x1: Num
    y1: Num
    x2: Num
    y2: Num
    dashed: bool = False


class DrawRay(_Stroke):
    """A ray from (x, y) through (x_through, y_through), extended to the image border."""

    action: Literal["draw_ray"] = "draw_ray"
    x: Num
    y: Num
    x_through: Num
    y_through: Num


class DrawArrow(_Stroke):
    """An arrow from (x1, y1) with its head at (x2, y2)."""

    action: Literal["draw_arrow"] = "draw_arrow"
    x1: Num
    y1: Num
    x2: Num
    y2: Num


class _PointList(_Stroke):
    points: list[tuple[Num, Num]] = Field(max_length=MAX_POINTS)
    min_points: ClassVar[int] = 2
    shape: ClassVar[str] = "polyline"

    @field_validator("points")
    @classmethod
    def _enough_points(cls, v: list) -> list:
        if len(v) < cls.min_points:
            raise ValueError(f"a {cls.shape} needs at least {cls.min_points} points")
        return v


class DrawPolyline(_PointList):
    """An open path through `points` ([[x, y], ...], at most 64)."""

    action: Literal["draw_polyline"] = "draw_polyline"


class DrawPolygon(_PointList):
    """A closed polygon through `points` (3–64 points), optionally filled translucently."""

    action: Literal["draw_polygon"] = "draw_polygon"
    fill: bool = False
    min_points: ClassVar[int] = 3
    shape: ClassVar[str] = "polygon"


class DrawCircle(_Stroke):
    """A circle centred at (x, y) with the given radius in pixels."""

    action: Literal["draw_circle"] = "draw_circle"
    x: Num
    y: Num
    radius: Annotated[float, Field(gt=0, le=4096, allow_inf_nan=False)]


class MarkPoint(_Action):
    """A dot at (x, y) with a short text label next to it."""

    action: Literal["mark_point"] = "mark_point"
    x: Num
    y: Num
    label: Annotated[str, Field(max_length=MAX_LABEL)] = ""
    color: ColorName = "red"


class HighlightBox(_Stroke):
    """A rectangle outline (translucent fill) around the box (x1, y1)–(x2, y2)."""

    action: Literal["highlight_box"] = "highlight_box"
    x1: Num
    y1: Num
    x2: Num
    y2: Num


class AnnotateText(_Action):
    """A short text written at (x, y) (its top-left corner)."""

    action: Literal["annotate_text"] = "annotate_text"
    x: Num
    y: Num
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    color: ColorName = "black"
    size: Annotated[int, Field(ge=10, le=40)] = 16


class CropZoom(_Action):
    """Return an enlarged view of the box (x1, y1)–(x2, y2); the drawing state is not changed."""

    action: Literal["crop_zoom"] = "crop_zoom"
    x1: Num
    y1: Num
    x2: Num
    y2: Num


class MaskRegion(_Action):
    """`mask`: grey out the box; `isolate`: grey out everything except the box."""

    action: Literal["mask_region"] = "mask_region"
    x1: Num
    y1: Num
    x2: Num
    y2: Num
    mode: Literal["mask", "isolate"] = "mask"


ACTION_TYPES: dict[str, type[_Action]] = {
    cls.model_fields["action"].default: cls
    for cls in (
        DrawLine,
        DrawRay,
        DrawArrow,
        DrawPolyline,
        DrawPolygon,
        DrawCircle,
        MarkPoint,
        HighlightBox,
        AnnotateText,
        CropZoom,
        MaskRegion,
    )
}
Action = (
    DrawLine
    | DrawRay
    | DrawArrow
    | DrawPolyline
    | DrawPolygon
    | DrawCircle
    | MarkPoint
    | HighlightBox
    | AnnotateText
    | CropZoom
    | MaskRegion
)

COORDINATE_NOTE = (
    "Coordinates are pixels of the current image: origin at the top-left corner, x to the right, "
    "y downwards. Values outside the image are clamped to its border."
)


class ActionError(ValueError):
    """A model action that cannot be executed; the message is returned to the model."""


@dataclass
class ParsedTurn:
    """The actions of one model turn that passed validation, and an error message per rejected one."""

    actions: list[Action] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Which incoming call each entry answers (tool_call_id for function calling, index for JSON blocks).
    call_ids: list[str] = field(default_factory=list)
    error_ids: list[str] = field(default_factory=list)


def tool_definitions() -> list[dict[str, Any]]:
    """OpenAI-style function tool definitions, one per action (a fresh copy: callers may edit theirs)."""
    return copy.deepcopy(_tool_definitions())


@functools.cache
def _tool_definitions() -> list[dict[str, Any]]:
    # Built once: pydantic's JSON schemas take about 10 ms, and every VAoT episode asks for them.
    tools = []
    for name, cls in ACTION_TYPES.items():
        schema = cls.model_json_schema()
        schema["properties"].pop("action", None)
        if "required" in schema:
            schema["required"] = [r for r in schema["required"] if r != "action"]
        schema.pop("title", None)
        for prop in schema["properties"].values():
            prop.pop("title", None)
        tools.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": f"{(cls.__doc__ or '').strip()} {COORDINATE_NOTE}",
                    "parameters": schema,
                },
            }
        )
    return tools


def _clamp(v: float, hi: float) -> float:
    return min(max(v, 0.0), hi)


def clamp_action(action: Action, width: int, height: int) -> Action:
    """Clamp every coordinate into the image; sizes stay as given (already bounded by the schema)."""
    xmax, ymax = width - 1, height - 1
    data = action.model_dump()
    for key in ("x", "x1", "x2", "x_through"):
        if key in data:
            data[key] = _clamp(data[key], xmax)
    for key in ("y", "y1", "y2", "y_through"):
        if key in data:
            data[key] = _clamp(data[key], ymax)
    if "points" in data:
        data["points"] = [(_clamp(x, xmax), _clamp(y, ymax)) for x, y in data["points"]]
    return type(action).model_validate(data)


def _too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether `value` nests arrays and objects more than `limit` levels deep: iterative, so that a nesting
    deep enough to overflow a recursive walk is found as well, and it stops at the first level too many."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        children = v.values() if isinstance(v, dict) else v
        if depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list | tuple))
    return False


def oversized(arguments: Any) -> str | None:
    """Why parsed arguments are too large to validate, or None: more than MAX_ARGUMENT_ITEMS items, more than
    MAX_RAW_ARGUMENTS characters of strings (keys included), or an integer over MAX_ARGUMENT_INT_BITS bits.
    A container's length is counted before its elements are looked at, so the cost is bounded by the limits,
    not by the size of what was sent."""
    items = chars = 0
    stack = [arguments]
    while stack:
        v = stack.pop()
        if isinstance(v, dict | list | tuple):
            items += len(v)
            if items > MAX_ARGUMENT_ITEMS:
                return f"arguments hold more than {MAX_ARGUMENT_ITEMS} items"
            stack.extend(v.keys() if isinstance(v, dict) else ())
            stack.extend(v.values() if isinstance(v, dict) else v)
        elif isinstance(v, str):
            chars += len(v)
            if chars > MAX_RAW_ARGUMENTS:
                return f"arguments hold more than {MAX_RAW_ARGUMENTS} characters of text"
        elif isinstance(v, int) and v.bit_length() > MAX_ARGUMENT_INT_BITS:
            return f"arguments hold an integer of more than {MAX_ARGUMENT_INT_BITS} bits"
    return None


def validate_action(name: str, arguments: Any, width: int, height: int) -> Action:
    """Build and clamp one action from a tool name and its (JSON string or dict) arguments."""
    if not isinstance(name, str) or name not in ACTION_TYPES:
        known = ", ".join(ACTION_TYPES)
        raise ActionError(f"unknown action {str(name)[:40]!r}; available actions: {known}")
    if isinstance(arguments, str):
        if len(arguments) > MAX_RAW_ARGUMENTS:
            raise ActionError(f"{name}: arguments are {len(arguments)} characters long (limit {MAX_RAW_ARGUMENTS})")
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ActionError(f"{name}: arguments are not valid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise ActionError(f"{name}: arguments are nested too deeply (limit {MAX_NESTING} levels)") from None
    if not isinstance(arguments, dict):
        raise ActionError(f"{name}: arguments must be a JSON object")
    too_big = oversized(arguments)
    if too_big is not None:
        raise ActionError(f"{name}: {too_big}")
    if _too_deep(arguments):
        raise ActionError(f"{name}: arguments are nested too deeply (limit {MAX_NESTING} levels)")
    arguments = {k: v for k, v in arguments.items() if k != "action"}
    try:
        action = ACTION_TYPES[name].model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or name}: {e['msg']}" for e in exc.errors()[:5])
        raise ActionError(f"{name}: invalid arguments: {problems}") from None
    action = clamp_action(action, width, height)
    if isinstance(action, CropZoom | MaskRegion | HighlightBox):
        x0, x1 = sorted((action.x1, action.x2))
        y0, y1 = sorted((action.y1, action.y2))
        if isinstance(action, CropZoom) and (x1 - x0 < MIN_CROP_SIDE or y1 - y0 < MIN_CROP_SIDE):
            raise ActionError(
                f"crop_zoom: the box must be at least {MIN_CROP_SIDE}×{MIN_CROP_SIDE} pixels "
                f"inside the image, got {x1 - x0:.0f}×{y1 - y0:.0f}"
            )
    if isinstance(action, DrawRay) and math.hypot(action.x_through - action.x, action.y_through - action.y) < 1:
        raise ActionError("draw_ray: the through-point must differ from the start point")
    return action


def parse_tool_calls(tool_calls: list[dict[str, Any]], width: int, height: int) -> ParsedTurn:
    """Validate the tool calls of one model turn (`[{"id", "name", "arguments"}]`)."""
    turn = ParsedTurn()
    for k, call in enumerate(tool_calls):
        call_id = str(call.get("id") or f"call_{k}")
        if k >= MAX_ACTIONS_PER_TURN:
            turn.errors.append(f"too many actions in one turn: only the first {MAX_ACTIONS_PER_TURN} are executed")
            turn.error_ids.append(call_id)
            continue
        try:
            turn.actions.append(validate_action(call.get("name", ""), call.get("arguments", {}), width, height))
            turn.call_ids.append(call_id)
        except ActionError as exc:
            turn.errors.append(str(exc))
            turn.error_ids.append(call_id)
        except RecursionError:  # the bounds above should make this unreachable; the sample goes on regardless
            turn.errors.append(f"the arguments are nested too deeply (limit {MAX_NESTING} levels)")
            turn.error_ids.append(call_id)
    return turn


_JSON_BLOCK = re.compile(r"```(?:json)?[ \t]*\n?(.*?)```", re.DOTALL)


def parse_json_blocks(text: str, width: int, height: int) -> ParsedTurn:
    """Fallback for models without tool calling: fenced JSON blocks with an "action" key (or a list)."""
    calls: list[dict[str, Any]] = []
    errors: list[str] = []
    dropped = 0
    for m in _JSON_BLOCK.finditer(text[: MAX_RAW_ARGUMENTS * MAX_ACTIONS_PER_TURN]):
        body = m.group(1).strip()
        if not body.startswith(("{", "[")):
            continue  # an ordinary code block, not an action
        try:
            obj = json.loads(body)
        except json.JSONDecodeError as exc:
            errors.append(f"a JSON action block is malformed ({exc.msg})")
            continue
        except RecursionError:
            errors.append(f"a JSON action block is nested too deeply (limit {MAX_NESTING} levels)")
            continue
        items = obj if isinstance(obj, list) else [obj]
        for item in items:
            if not isinstance(item, dict) or "action" not in item:
                if len(errors) < MAX_BLOCK_ERRORS:
                    errors.append('each JSON action needs an "action" field naming the action')
                else:
                    dropped += 1
                continue
            if len(calls) > MAX_ACTIONS_PER_TURN:  # one past the limit is enough to say so
                dropped += 1
                continue
            calls.append({"id": f"block_{len(calls)}", "name": item["action"], "arguments": item})
    if dropped:
        errors.append(
            f"{dropped} more JSON action(s) ignored: at most {MAX_ACTIONS_PER_TURN} actions run in one "
            f"turn, and at most {MAX_BLOCK_ERRORS} problems are listed"
        )
    turn = parse_tool_calls(calls, width, height)
    turn.errors = errors + turn.errors
    turn.error_ids = [f"block_error_{i}" for i in range(len(errors))] + turn.error_ids
    return turn


def action_names() -> list[str]:
    return list(ACTION_TYPES)


assert set(ColorName.__args__) <= set(PALETTE)  # type: ignore[attr-defined]
