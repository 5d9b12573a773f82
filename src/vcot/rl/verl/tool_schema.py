"""The tool config verl reads (`rollout.multi_turn.tool_config_path`): each vcot action's schema in the
subset of JSON schema verl keeps, one `DrawingTool` entry per action, the checks on the tool's options, and
the YAML writer."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vcot.rl.verl.errors import VerlExportError

# The package's `__getattr__` builds the class on first access (vcot.rl.verl.tool), so the dotted path verl
# loads names the package, not the module that defines it.
TOOL_CLASS = f"{__package__}.DrawingTool"
MAX_TOOL_CALLS = 64
DEFAULT_TOOL_CALLS = 6  # vcot.vaot.actions.MAX_TURNS: the budget the prompt states


def _describe(prop: Mapping[str, Any]) -> str | None:
    # verl's OpenAIFunctionPropertySchema keeps only type, description and enum: bounds, defaults and the
    # shape of a point list would be dropped silently, so they are said in words instead.
    bits = []
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, Mapping) and items.get("type") == "array":
        bits.append("list of [x, y] points")
    if "maxItems" in prop:
        bits.append(f"at most {prop['maxItems']} items")
    lo, hi = prop.get("minimum"), prop.get("maximum")
    if lo is not None and hi is not None:
        bits.append(f"from {lo} to {hi}")
    elif prop.get("exclusiveMinimum") is not None:
        bits.append(f"greater than {prop['exclusiveMinimum']}")
    if hi is not None and lo is None:
        bits.append(f"at most {hi}")
    if prop.get("minLength"):
        bits.append("not empty")
    if "maxLength" in prop:
        bits.append(f"at most {prop['maxLength']} characters")
    if "default" in prop:
        bits.append(f"default {json.dumps(prop['default'])}")
    return "; ".join(bits) or None


def verl_tool_schema(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A `vcot.vaot.actions.tool_definitions()` entry in the subset of JSON schema verl's tool schema holds."""
    fn = definition["function"]
    params = fn["parameters"]
    props = {}
    for name, prop in params.get("properties", {}).items():
        p: dict[str, Any] = {"type": prop.get("type", "string")}
        desc = _describe(prop)
        if desc:
            p["description"] = desc
        if "enum" in prop:
            p["enum"] = list(prop["enum"])
        props[name] = p
    return {
        "type": "function",
        "function": {
            "name": fn["name"],
            "description": fn["description"],
            "parameters": {"type": "object", "properties": props, "required": list(params.get("required", []))},
        },
    }


def tool_config(
    max_calls: int = DEFAULT_TOOL_CALLS, corruption: str | None = None, invalid_penalty: float = 0.0
) -> dict[str, Any]:
    """verl's tool config (`rollout.multi_turn.tool_config_path`): one `DrawingTool` entry per action. One
    tool per action keeps each action's own parameter schema (a single tool with an `action` enum could not
    say which parameters go with which action in verl's flat schema); the entries share one drawing per
    trajectory."""
    from vcot.vaot.actions import tool_definitions

    _check_tool_options(max_calls, corruption, invalid_penalty)
    config: dict[str, Any] = {"type": "native", "max_calls": int(max_calls), "corruption": corruption}
    if invalid_penalty:
        config["invalid_penalty"] = float(invalid_penalty)
    return {
        "tools": [
            {"class_name": TOOL_CLASS, "config": dict(config), "tool_schema": verl_tool_schema(d)}
            for d in tool_definitions()
        ]
    }


def write_tool_config(
    path: str | Path, max_calls: int = DEFAULT_TOOL_CALLS, corruption: str | None = None, invalid_penalty: float = 0.0
) -> Path:
    import yaml

    path = Path(path)
    text = (
        '# verl tool config for the vcot drawing tool (docs/rl.md, "verl"): '
        "actor_rollout_ref.rollout.multi_turn.tool_config_path\n"
    )
    path.write_text(
        text + yaml.safe_dump(tool_config(max_calls, corruption, invalid_penalty), sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    return path


def _check_tool_options(max_calls: Any, corruption: Any, invalid_penalty: Any = 0.0) -> None:
    from vcot.vaot.corrupt import CORRUPTIONS

    if isinstance(max_calls, bool) or not isinstance(max_calls, int) or not 1 <= max_calls <= MAX_TOOL_CALLS:
        raise VerlExportError(f"max_calls must be an integer from 1 to {MAX_TOOL_CALLS}, got {max_calls!r}")
    if corruption is not None and corruption not in CORRUPTIONS:
        raise VerlExportError(f"corruption must be null or one of {', '.join(CORRUPTIONS)}, got {corruption!r}")
    if (
        isinstance(invalid_penalty, bool)
        or not isinstance(invalid_penalty, int | float)
        or not 0 <= invalid_penalty <= 10
    ):
        raise VerlExportError(f"invalid_penalty must be a number from 0 to 10, got {invalid_penalty!r}")
