"""The shared vocabulary: an Instance, its visual chain-of-thought Steps, and answer types.

Everything that crosses a module boundary (generators, suites, conditions, scoring) speaks these types.
Image fields hold paths relative to the suite folder (POSIX separators); pixels live in PNG files.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = "1"
# Where a step-judging instance (vcot.process.judge_suite) keeps its labelled trajectory: labels, texts and the
# scene key of the problem it was drawn from (docs/process.md, "Running a judge").
JUDGE_META = "process_judge"


class AnswerType(StrEnum):
    INTEGER = "integer"
    NUMBER = "number"
    CHOICE = "choice"
    TEXT = "text"
    TIME = "time"
    COORDINATES = "coordinates"
    SET = "set"
    PAIR = "pair"
    DIRECTION = "direction"


class Step(BaseModel):
    """One visual chain-of-thought step: a picture and a sentence stating the same information."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    image: str = Field(min_length=1)
    text: str = Field(min_length=1)

    @field_validator("image")
    @classmethod
    def _relative_posix(cls, v: str) -> str:
        return _check_relative_path(v)


def _check_relative_path(v: str) -> str:
    if "\\" in v:
        raise ValueError(f"image path {v!r} must use '/' separators")
    if v.startswith("/") or v[1:2] == ":":
        raise ValueError(f"image path {v!r} must be relative to the suite folder")
    if ".." in v and ".." in v.split("/"):  # the first test spares the split on nearly every path
        raise ValueError(f"image path {v!r} escapes the suite folder")
    return v


class Instance(BaseModel):
    """One benchmark item. `meta` holds the full scene so that the answer can be re-solved from it."""

    model_config = ConfigDict(extra="forbid")

    uid: str = Field(min_length=1)
    task: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    question: str = Field(min_length=1)
    image: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    answer_type: AnswerType
    options: list[str] | None = None
    steps: list[Step] = Field(default_factory=list)
    # A plausible but wrong trajectory for the visual_cot_corrupted ablation; empty when not produced.
    corrupted_steps: list[Step] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)

    @field_validator("image")
    @classmethod
    def _relative_posix(cls, v: str) -> str:
        return _check_relative_path(v)

    @model_validator(mode="after")
    def _choice_needs_options(self) -> Instance:
        if self.answer_type == AnswerType.CHOICE:
            if not self.options or len(self.options) < 2:
                raise ValueError("a choice instance needs at least two options")
            letters = option_letters(len(self.options))
            if self.answer not in letters:
                raise ValueError(f"choice answer {self.answer!r} is not one of the option letters {letters}")
        return self

    def image_paths(self) -> list[str]:
        """Every image the instance references, input first."""
        paths = [self.image]
        paths += [s.image for s in self.steps]
        paths += [s.image for s in self.corrupted_steps]
        return paths

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, no spaces, UTF-8 text; the basis of the suite hash."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Instance:
        return cls.model_validate_json(text)


def option_letters(n: int) -> list[str]:
    if not 0 < n <= 26:
        raise ValueError(f"option count {n} out of range 1..26")
    return [chr(ord("A") + i) for i in range(n)]
