"""The official MIRA release layout, both ways.

One folder per task::

    <root>/<task>/<task>.jsonl      {"uid", "image_path", "question", "answer"} per line
    <root>/<task>/image/<stem>.png  input images
    <root>/<task>/cot/<stem>_<k>.png visual chain-of-thought images, k = 1, 2, ...

rolling_dice_two carries `answer1` (red/black/same) and `answer2` (the sum); gear_rotation pairs two
sub-questions on one image with uids `n.1` / `n.2`. The official scripts find CoT images by globbing
`<stem>_*` and sorting names, so k is zero-padded when an item has ten or more steps.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image

from vcot.jsonl import iter_jsonl
from vcot.schema import AnswerType, Instance, Step, option_letters
from vcot.suite import (
    INSTANCES,
    Suite,
    SuiteError,
    check_image_file,
    check_name,
    resolve_inside,
    write_suite,
)
from vcot.tasks.base import Sample
from vcot.tasks.catalog import MIRA_TASKS

_IMAGE_EXTS = (".png", ".jpg", ".jpeg")
NO_STEP_TEXT = "(reasoning image from the source benchmark; it has no step text)"


def _mira_uid(inst: Instance, ordinal: int) -> int | str:
    scene = inst.meta.get("scene", {}) if isinstance(inst.meta, dict) else {}
    if inst.task == "gear_rotation" and "pair_id" in scene and "sub_question" in scene:
        return f"{int(scene['pair_id']) + 1}.{int(scene['sub_question'])}"
    return ordinal


def _mira_answer(inst: Instance) -> dict[str, Any]:
    if inst.task == "rolling_dice_two" and inst.answer_type == AnswerType.PAIR:
        first, _, second = inst.answer.partition(",")
        second = second.strip()
        return {
            "answer": inst.answer,
            "answer1": first.strip(),
            "answer2": int(second) if second.lstrip("-").isdigit() else second,
        }
    if inst.answer_type == AnswerType.INTEGER and inst.answer.lstrip("-").isdigit():
        return {"answer": int(inst.answer)}
    return {"answer": inst.answer}


def export_mira(suite: Suite, out: str | Path) -> Path:
    """Write the suite in the official MIRA layout (readable by MIRA's eval and accuracy scripts)."""
    root = Path(out)
    by_task: dict[str, list[Instance]] = {}
    for inst in suite.instances:
        by_task.setdefault(inst.task, []).append(inst)
    # The suite may not come from read_suite: task names are checked again where they become folder names,
    # all of them before anything is written.
    for task, items in by_task.items():
        check_name(task, f"{suite.root / INSTANCES} (field 'task' of instance {items[0].uid})")
    for task, items in by_task.items():
        task_dir = resolve_inside(root, task, where=f"MIRA export of task {task!r}")
        (task_dir / "image").mkdir(parents=True, exist_ok=True)
        (task_dir / "cot").mkdir(parents=True, exist_ok=True)
        lines = []
        for ordinal, inst in enumerate(items, start=1):
            stem = Path(inst.image).stem
            (task_dir / "image" / f"{stem}.png").write_bytes(suite.image_path(inst.image).read_bytes())
            width = 2 if len(inst.steps) >= 10 else 1
            for k, step in enumerate(inst.steps, start=1):
                name = f"{stem}_{k:0{width}d}.png"
                (task_dir / "cot" / name).write_bytes(suite.image_path(step.image).read_bytes())
            record = {
                "uid": _mira_uid(inst, ordinal),
                "image_path": f"image/{stem}.png",
                "question": _question_with_options(inst),
                **_mira_answer(inst),
                "vcot_uid": inst.uid,
            }
            lines.append(json.dumps(record, ensure_ascii=False))
        (task_dir / f"{task}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def _question_with_options(inst: Instance) -> str:
    """MIRA puts textual options inside the question; pictorial options are already in the image."""
    if not inst.options or all(
        o == letter for o, letter in zip(inst.options, option_letters(len(inst.options)), strict=False)
    ):
        return inst.question
    if "\nOptions:" in inst.question:
        return inst.question
    opts = "\n".join(
        f"({letter}) {text}" for letter, text in zip(option_letters(len(inst.options)), inst.options, strict=True)
    )
    return f"{inst.question}\nOptions:\n{opts}"


def _find_image(directory: Path, name: str) -> Path | None:
    stem = Path(name).stem
    for ext in _IMAGE_EXTS:
        candidate = directory / f"{stem}{ext}"
        if candidate.is_file():
            return candidate
    return None


def _cot_images(cot_dir: Path, stem: str) -> list[Path]:
    if not cot_dir.is_dir():
        return []
    found = [p for p in cot_dir.glob(f"{stem}_*") if p.suffix.lower() in _IMAGE_EXTS]
    found = [p for p in found if re.fullmatch(rf"{re.escape(stem)}_\d+", p.stem)]
    return sorted(found, key=lambda p: int(p.stem.rsplit("_", 1)[1]))


def _answer_fields(obj: dict[str, Any], task: str, where: str) -> str:
    if "answer1" in obj and "answer2" in obj:
        return f"{str(obj['answer1']).strip()}, {str(obj['answer2']).strip()}"
    if "answer" not in obj or obj["answer"] is None or str(obj["answer"]).strip() == "":
        raise SuiteError(f"{where}: missing field 'answer'")
    return str(obj["answer"]).strip()


def _task_kind(task: str) -> tuple[str, AnswerType]:
    if task in MIRA_TASKS:
        return MIRA_TASKS[task]
    from vcot.tasks import UnknownTaskError, get_task_class

    try:
        cls = get_task_class(task)
    except UnknownTaskError:
        return "unknown", AnswerType.TEXT
    return cls.domain, cls.answer_type


def _import_task(task_dir: Path, task: str) -> Iterator[Sample]:
    jsonl = task_dir / f"{task}.jsonl"
    domain, answer_type = _task_kind(task)
    for _lineno, where, obj in iter_jsonl(jsonl, SuiteError):
        if not isinstance(obj, dict):
            raise SuiteError(f"{where}: each line must be a JSON object")
        for key in ("uid", "image_path", "question"):
            if key not in obj:
                raise SuiteError(f"{where}: missing field {key!r}")
        answer = _answer_fields(obj, task, where)
        rel = str(obj["image_path"])
        img_path = _find_image(task_dir / "image", Path(rel).name)
        if img_path is None:
            raise SuiteError(f"{where}: input image {rel!r} not found under {task_dir / 'image'}")
        resolve_inside(task_dir, str(img_path.relative_to(task_dir)).replace("\\", "/"), where)
        check_image_file(img_path, where, decode=True)
        uid = f"mira-{task}-{obj['uid']}"
        stem = img_path.stem
        atype, options, notes = answer_type, None, {}
        if atype == AnswerType.CHOICE:
            if re.fullmatch(r"[A-Z]", answer):
                options = option_letters(max(4, ord(answer) - ord("A") + 1))
                notes["options_inferred"] = True
            else:
                atype = AnswerType.TEXT
        images: dict[str, Image.Image] = {}
        base = f"images/{task}/{stem}"
        with Image.open(img_path) as im:
            images[f"{base}.png"] = im.convert("RGB")
        steps = []
        for k, cot in enumerate(_cot_images(task_dir / "cot", stem), start=1):
            check_image_file(cot, f"{where} (cot {cot.name})", decode=True)
            with Image.open(cot) as im:
                images[f"{base}_step{k}.png"] = im.convert("RGB")
            steps.append(Step(image=f"{base}_step{k}.png", text=NO_STEP_TEXT))
        meta: dict[str, Any] = {
            "source": {"format": "mira", "task": task, "uid": obj["uid"], "image_path": rel},
            "step_texts_available": False,
            **notes,
        }
        if isinstance(obj.get("vcot_uid"), str):
            meta["source"]["vcot_uid"] = obj["vcot_uid"]
        inst = Instance(
            uid=uid,
            task=task,
            domain=domain,
            question=str(obj["question"]),
            image=f"{base}.png",
            answer=answer,
            answer_type=atype,
            options=options,
            steps=steps,
            meta=meta,
        )
        yield Sample(instance=inst, images=images)


def import_mira(src: str | Path, out: str | Path, name: str = "mira") -> dict[str, Any]:
    """Convert an official MIRA release folder into a vcot suite; returns the manifest."""
    root = Path(src)
    if not root.is_dir():
        raise SuiteError(f"{root}: MIRA folder not found")
    task_dirs = sorted(d for d in root.iterdir() if d.is_dir() and (d / f"{d.name}.jsonl").is_file())
    if not task_dirs:
        raise SuiteError(f"{root}: no <task>/<task>.jsonl files found (is this the MIRA release layout?)")
    for d in task_dirs:
        check_name(d.name, f"{d} (folder name)")

    def samples() -> Iterator[Sample]:
        for d in task_dirs:
            yield from _import_task(d, d.name)

    tasks = {d.name: {"source": "imported", "format": "mira"} for d in task_dirs}
    return write_suite(out, name, samples(), tasks=tasks)
