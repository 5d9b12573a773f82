"""Training exports (docs/scale.md, "Training exports"): a suite, or a shard set of suite folders or Parquet
shards, as interleaved visual chain-of-thought conversations that fine-tuning code reads, plus a dataset card.

- `trl`: `metadata.jsonl` rows with `messages` (content parts `{"type": "image", "index": k}` and
  `{"type": "text", "text": ...}`, as HF TRL's vision datasets hold them and chat templates such as Qwen-VL's
  read them) and `file_names`, the images in the order their parts appear (part k is `file_names[k]`).
  `datasets.load_dataset("imagefolder",
  data_dir=OUT)` turns `file_names` into an `images` column of decoded pictures — the pair TRL's vision
  SFT expects.
- `sharegpt`: `sharegpt.json`, a list of `{"id", "conversations": [{"from", "value"}], "images"}` in the
  ShareGPT/LLaVA style: each `<image>` in a value stands for the next entry of `images`.
- `vaot`: episodes of a run's visual-action-of-thought conditions as multi-turn tool-use conversations
  (assistant tool calls, tool turns returning the rendered image), from the replayed trajectories that
  `vcot trajectories` writes (`engine/trajectories.py`); given here as plain records so that this module stays
  below the engine layer (docs/design.md, "Layers").

Every image reference is a path relative to OUT, and every referenced file is copied under `OUT/images/`.
The assistant turn is the instance's trajectory: each step's text then its picture, and the final answer in
`<answer></answer>`, the ending vcot's prompts ask for (`prompts/templates.py`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.prompts.templates import COT_ENDING, format_question
from vcot.schema import Instance
from vcot.suite import SuiteError, check_name, read_suite, resolve_inside
from vcot.version import __version__

TRAINING_FORMATS = ("trl", "sharegpt", "vaot")
METADATA = "metadata.jsonl"
SHAREGPT = "sharegpt.json"
CARD = "README.md"
IMAGE_TOKEN = "<image>"
# Written into OUT by an export: what it wrote, so that the next export into OUT removes exactly that (a stale
# image or a README of the user's own is never mixed with or silently overwritten by a new export).
MARKER = ".vcot-training-export.json"


def prepare_out(root: Path) -> None:
    """Make `root` ready for an export: new or empty, or an earlier export's (whose files are removed first).
    Anything else is refused (ValueError) before a byte is written."""
    if root.exists() and not root.is_dir():
        raise ValueError(f"--out {root}: exists and is not a folder")
    entries = list(root.iterdir()) if root.is_dir() else []
    if entries and not (root / MARKER).is_file():
        raise ValueError(
            f"--out {root}: the folder is not empty and no vcot training export wrote it (no {MARKER}); "
            "choose a new or empty folder"
        )
    if entries:
        try:
            record = json.loads((root / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{root / MARKER}: unreadable ({exc}); choose a new or empty --out folder") from None
        files = record.get("files") if isinstance(record, dict) else None
        if files is None:  # an export that was interrupted: everything it may have written is its own
            files = [METADATA, SHAREGPT, CARD]
            _remove_tree(root / "images")
        for rel in files:
            if isinstance(rel, str):
                target = resolve_inside(root, rel, where=f"{root / MARKER}")
                if target.is_file() and not target.is_symlink():
                    target.unlink()
        _prune_empty(root / "images")
    root.mkdir(parents=True, exist_ok=True)
    _write_marker(root, None)


def _write_marker(root: Path, files: list[str] | None) -> None:
    record = {"kind": "vcot-training-export", "vcot_version": __version__, "files": files}
    (root / MARKER).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def _remove_tree(folder: Path) -> None:
    import shutil

    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)


def _prune_empty(folder: Path) -> None:
    if not folder.is_dir() or folder.is_symlink():
        return
    for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(sub.iterdir()):
            sub.rmdir()
    if not any(folder.iterdir()):
        folder.rmdir()


@dataclass
class Source:
    """Instances with a way to fetch each referenced image's PNG bytes, and what the card reports."""

    name: str
    instances: Callable[[], Iterator[tuple[Instance, Callable[[str], bytes]]]]
    tasks: dict[str, Any] = field(default_factory=dict)  # per-task generation settings (a suite manifest's)
    hashes: list[str] = field(default_factory=list)  # content hashes or shard sha256s
    vcot_version: str = ""  # the vcot that generated the source


def open_source(path: str | Path) -> Source:
    """A suite folder, or a shard set (`vcot generate --shards`) of suite folders or Parquet shards."""
    root = Path(path)
    manifest_path = root / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SuiteError(f"{manifest_path}: not a suite or shard set ({exc})") from None
    if isinstance(manifest, dict) and manifest.get("kind") == "vcot-shards":
        return _shard_source(root, manifest)
    suite = read_suite(root)

    def items() -> Iterator[tuple[Instance, Callable[[str], bytes]]]:
        for inst in suite.instances:
            yield inst, lambda rel: suite.image_path(rel).read_bytes()

    return Source(
        suite.name,
        items,
        dict(suite.manifest.get("tasks", {})),
        [suite.content_hash],
        str(suite.manifest.get("vcot_version", "")),
    )


def _shard_source(root: Path, manifest: dict[str, Any]) -> Source:
    fmt = manifest.get("shard_format")
    if not manifest.get("complete"):
        raise SuiteError(f"{root}: the shard set is unfinished; rerun `vcot generate` to complete it first")
    if fmt not in ("folder", "parquet"):
        raise SuiteError(
            f"{root}: training exports read folder or parquet shard sets, not {fmt!r} (a WebDataset "
            "shard set is already a training format)"
        )
    files = [check_name(e["file"], f"{root / 'manifest.json'} (shard file)", "shard") for e in manifest["shards"]]

    def items() -> Iterator[tuple[Instance, Callable[[str], bytes]]]:
        for name in files:
            if fmt == "folder":
                yield from open_source(root / name).instances()
            else:
                yield from _parquet_items(root / name)

    plan = manifest.get("plan", {})
    return Source(
        str(manifest.get("name", root.name)),
        items,
        dict(plan.get("tasks", {})),
        [e["sha256"] for e in manifest["shards"]],
        str(plan.get("vcot_version", "")),
    )


def _parquet_items(path: Path) -> Iterator[tuple[Instance, Callable[[str], bytes]]]:
    """Instances back from a Parquet shard, one row group at a time (the shard rows hold the question image
    and the step images; corrupted trajectories are not in Parquet shards)."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    for group in range(pf.num_row_groups):
        for row in pf.read_row_group(group).to_pylist():
            pngs = {row["image"]["path"]: row["image"]["bytes"]}
            pngs.update({im["path"]: im["bytes"] for im in row["step_images"]})
            inst = Instance(
                uid=row["uid"],
                task=row["task"],
                domain=row["domain"],
                question=row["question"],
                image=row["image"]["path"],
                answer=row["answer"],
                answer_type=row["answer_type"],
                options=row["options"],
                meta=json.loads(row["meta"]),
                steps=[
                    {"image": im["path"], "text": text}
                    for im, text in zip(row["step_images"], row["step_texts"], strict=True)
                ],
            )
            yield inst, pngs.__getitem__


class _Images:
    """Copies referenced images under OUT/images/ and hands out their paths relative to OUT. An instance's
    images are its own (their names carry its uid), so only VAoT's returned images, which episodes can share,
    are remembered (`shared`): memory stays flat however large the source."""

    def __init__(self, out: Path, shared: bool = False) -> None:
        self.out = out
        self.seen: set[str] | None = set() if shared else None
        self.count = 0
        self.written: list[str] = []  # for the export's marker (MARKER)

    def add(self, rel: str, data: Callable[[], bytes]) -> str:
        if not rel.startswith("images/"):
            rel = "images/" + rel
        if self.seen is None or rel not in self.seen:
            target = resolve_inside(self.out, rel, where=f"training export image {rel!r}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data())
            self.count += 1
            self.written.append(rel)
            if self.seen is not None:
                self.seen.add(rel)
        return rel


def user_prompt(inst: Instance) -> str:
    return f"Question: {format_question(inst)}\n\n{COT_ENDING}"


def final_answer(inst: Instance) -> str:
    return f"<answer>{inst.answer}</answer>"


Parts = list[tuple[str, str]]  # ("image", path relative to OUT) or ("text", text), in order


def _trajectory(inst: Instance, fetch: Callable[[str], bytes], images: _Images) -> tuple[Parts, Parts, list[str]]:
    """The user turn (question image, question text), the assistant turn (each step's text followed by its
    picture, then the answer) and the image paths in order of appearance."""
    q = images.add(inst.image, lambda: fetch(inst.image))
    user: Parts = [("image", q), ("text", user_prompt(inst))]
    assistant: Parts = []
    order = [q]
    for step in inst.steps:
        path = images.add(step.image, lambda s=step: fetch(s.image))
        assistant += [("text", step.text), ("image", path)]
        order.append(path)
    assistant.append(("text", final_answer(inst)))
    return user, assistant, order


def _trl_content(parts: Parts) -> list[dict[str, Any]]:
    # Both keys on every part: Arrow (and so `datasets`) needs one struct type for all parts. The image's
    # path is kept under "path" only until `_number_images` replaces it by its index.
    return [
        {"type": "image", "path": v, "text": None} if k == "image" else {"type": "text", "index": None, "text": v}
        for k, v in parts
    ]


def _number_images(messages: list[dict[str, Any]], order: list[str]) -> list[dict[str, Any]]:
    """Image parts as TRL's datasets write them, `{"type": "image", "index": k, "text": None}`, k the
    position in `file_names`. No part carries an `image` key: Qwen-VL's chat template takes any part with
    one for an image, and Arrow would give every part the key."""
    k = 0
    for message in messages:
        for part in message["content"]:
            if part["type"] == "image":
                if order[k] != part.pop("path"):
                    raise RuntimeError("image parts out of step with file_names")
                part["index"] = k
                k += 1
    if k != len(order):
        raise RuntimeError("image parts out of step with file_names")
    return messages


def trl_row(inst: Instance, fetch: Callable[[str], bytes], images: _Images) -> dict[str, Any]:
    user, assistant, order = _trajectory(inst, fetch, images)
    return {
        "uid": inst.uid,
        "task": inst.task,
        "domain": inst.domain,
        "answer": inst.answer,
        "answer_type": str(inst.answer_type),
        "messages": _number_images(
            [
                {"role": "user", "content": _trl_content(user)},
                {"role": "assistant", "content": _trl_content(assistant)},
            ],
            order,
        ),
        "file_names": order,
    }


def sharegpt_row(inst: Instance, fetch: Callable[[str], bytes], images: _Images) -> dict[str, Any]:
    user, assistant, order = _trajectory(inst, fetch, images)

    def value(chunk: Parts) -> str:
        return "\n".join(IMAGE_TOKEN if k == "image" else v for k, v in chunk)

    return {
        "id": inst.uid,
        "task": inst.task,
        "answer": inst.answer,
        "conversations": [{"from": "human", "value": value(user)}, {"from": "gpt", "value": value(assistant)}],
        "images": order,
    }


def export_training(source: Source, out: str | Path, fmt: str, license_id: str = "apache-2.0") -> Path:
    """Write `source` in training format `fmt` ("trl" or "sharegpt") to the folder `out`, with a dataset card."""
    if fmt not in ("trl", "sharegpt"):
        raise ValueError(f"unknown training format {fmt!r}; choose trl or sharegpt (vaot: export_vaot_episodes)")
    root = Path(out)
    prepare_out(root)
    images = _Images(root)
    counts: Counter[str] = Counter()
    if fmt == "trl":
        with open(root / METADATA, "w", encoding="utf-8") as fh:
            for inst, fetch in source.instances():
                fh.write(json.dumps(trl_row(inst, fetch, images), ensure_ascii=False) + "\n")
                counts[inst.task] += 1
    else:
        # One JSON list (what ShareGPT/LLaVA loaders read), written row by row so memory stays flat.
        with open(root / SHAREGPT, "w", encoding="utf-8") as fh:
            fh.write("[")
            for k, (inst, fetch) in enumerate(source.instances()):
                fh.write(
                    ("\n" if k == 0 else ",\n") + json.dumps(sharegpt_row(inst, fetch, images), ensure_ascii=False)
                )
                counts[inst.task] += 1
            fh.write("\n]\n")
    write_card(root, source, fmt, counts, images.count, license_id)
    _write_marker(root, [METADATA if fmt == "trl" else SHAREGPT, CARD, *images.written])
    return root


def _message(
    role: str, parts: Parts, tool_calls: list[dict[str, Any]] | None = None, tool_call_id: str | None = None
) -> dict[str, Any]:
    # Every key on every message, for one Arrow struct type (see _trl_content).
    return {"role": role, "content": _trl_content(parts), "tool_calls": tool_calls or [], "tool_call_id": tool_call_id}


def _vaot_messages(
    traj: Any, images: _Images, input_path: str, returned: Callable[[str], Path], question: str
) -> tuple[list[dict[str, Any]], list[str]]:
    order = [input_path]
    messages = [_message("user", [("image", input_path), ("text", question)])]
    for step in traj.steps:
        calls = [a for a in step.actions if not str(a.get("call_id", "")).startswith("block_")]
        messages.append(_message("assistant", [("text", step.model_text)], [_tool_call(a) for a in calls]))
        feedback: Parts = []
        for action in step.actions:
            digest = action.get("returned_image")
            parts: Parts = [("text", "(no image: the action was acknowledged without rendering)")]
            if digest:
                path = images.add(f"images/vaot/{digest}.png", lambda d=digest: returned(d).read_bytes())
                order.append(path)
                parts = [("image", path)]
            if str(action.get("call_id", "")).startswith("block_"):
                feedback += parts  # actions written as JSON blocks in the text: the images come back as a user turn
            else:
                messages.append(_message("tool", parts, tool_call_id=str(action["call_id"])))
        feedback += [("text", f"Rejected action: {e}") for e in step.errors]
        if feedback:
            messages.append(_message("user", feedback))
    if traj.final_response and (not traj.steps or traj.steps[-1].model_text != traj.final_response):
        messages.append(_message("assistant", [("text", traj.final_response)]))
    return messages, order


def _tool_call(action: Mapping[str, Any]) -> dict[str, Any]:
    args = dict(action.get("action") or {})
    name = str(args.pop("action", "action"))
    return {
        "id": action["call_id"],
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args, sort_keys=True)},
    }


def export_vaot_episodes(
    source: Source,
    trajectories: Iterable[Any],
    returned: Callable[[str], Path],
    out: str | Path,
    license_id: str = "apache-2.0",
) -> Path:
    """Write a run's VAoT episodes (records shaped like `engine.trajectories.Trajectory`) as tool-use
    conversations in `OUT/metadata.jsonl`, loadable like the `trl` export; `returned(digest)` is the path of a
    returned image (`engine.trajectories.returned_image_path`)."""
    root = Path(out)
    prepare_out(root)
    images = _Images(root, shared=True)
    suite = {inst.uid: (inst, fetch) for inst, fetch in source.instances()}
    counts: Counter[str] = Counter()
    with open(root / METADATA, "w", encoding="utf-8") as fh:
        for traj in trajectories:
            if traj.uid not in suite:
                raise SuiteError(f"trajectory {traj.trajectory_id}: uid {traj.uid!r} is not in suite {source.name}")
            inst, fetch = suite[traj.uid]
            input_path = images.add(inst.image, lambda i=inst, f=fetch: f(i.image))
            messages, order = _vaot_messages(traj, images, input_path, returned, user_prompt(inst))
            fh.write(
                json.dumps(
                    {
                        "uid": inst.uid,
                        "task": inst.task,
                        "domain": inst.domain,
                        "answer": inst.answer,
                        "answer_type": str(inst.answer_type),
                        "model": traj.model,
                        "condition": traj.condition,
                        "epoch": traj.epoch,
                        "run_id": traj.run_id,
                        "final_response": traj.final_response,
                        "messages": _number_images(messages, order),
                        "file_names": order,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            counts[inst.task] += 1
    write_card(root, source, "vaot", counts, images.count, license_id)
    _write_marker(root, [METADATA, CARD, *images.written])
    return root


_FORMAT_TEXT = {
    "trl": (
        "`metadata.jsonl`: one conversation per instance — the user turn holds the question image and "
        "text, the assistant turn each reasoning step's text followed by its picture, then the answer in "
        "`<answer></answer>`. `messages` use the content parts of HF TRL's vision datasets, "
        '`{"type": "image", "index": k}` / `{"type": "text", "text": ...}`; image part k is '
        "`file_names[k]` (the `images` column once loaded)."
    ),
    "sharegpt": (
        '`sharegpt.json`: a list of `{"id", "conversations", "images"}` records (ShareGPT / LLaVA '
        "style); each `<image>` in a `value` stands for the next path of `images`."
    ),
    "vaot": (
        "`metadata.jsonl`: one visual-action-of-thought episode per row, as a tool-use conversation — "
        "assistant turns with `tool_calls` (drawing actions), `tool` turns returning the rendered image, the "
        "model's final reply last; `file_names` lists the images in order of appearance."
    ),
}


def write_card(root: Path, source: Source, fmt: str, counts: Mapping[str, int], n_images: int, license_id: str) -> Path:
    """The dataset card: what the data is, how it was generated (tasks, parameters, seeds, vcot version),
    how to load it, and its licence."""
    import yaml

    total = sum(counts.values())
    # Emitted, never formatted: a name or licence holding a newline would otherwise add keys of its own.
    front = yaml.safe_dump(
        {
            "license": license_id,
            "pretty_name": f"{source.name} ({fmt} training export)",
            "task_categories": ["visual-question-answering", "image-text-to-text"],
            "tags": ["visual-chain-of-thought", "synthetic", "vcot"],
        },
        sort_keys=False,
        allow_unicode=True,
        width=1 << 16,
    )
    title = " ".join(source.name.split())  # one heading line whatever the name holds
    lines = [
        "---",
        front.rstrip("\n"),
        "---",
        "",
        f"# {title}: visual chain-of-thought training data ({fmt})",
        "",
        f"{total} {'episodes' if fmt == 'vaot' else 'instances'} of {len(counts)} task(s) and {n_images} images, "
        f"generated by vcot {__version__} (every answer computed by the task's solver; scenes sampled from seeded "
        "generators, so the same plan regenerates the same data).",
        "",
        "## Files",
        "",
        _FORMAT_TEXT[fmt],
        "",
        "Image paths are relative to this folder (`images/`).",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
    ]
    if fmt == "sharegpt":
        lines += [
            'ds = load_dataset("json", data_files="sharegpt.json", split="train")',
            '# image paths in ds[i]["images"] are relative to this folder',
        ]
    else:
        lines += [
            'ds = load_dataset("imagefolder", data_dir=".", split="train")',
            '# ds[i]["images"]: the decoded pictures, in the order of the image parts of ds[i]["messages"]',
        ]
    lines += [
        "```",
        "",
        "## Tasks",
        "",
        "| task | count | seed | difficulty | generator version | parameters |",
        "|---|---|---|---|---|---|",
    ]
    for task in sorted(counts):
        info = source.tasks.get(task, {}) if isinstance(source.tasks.get(task), dict) else {}
        params = json.dumps(info.get("params", {}), sort_keys=True).replace("|", "\\|")
        lines.append(
            f"| {task} | {counts[task]} | {info.get('seed', '')} | {info.get('difficulty', '')} | "
            f"{info.get('generator_version', '')} | `{params}` |"
        )
    lines += [
        "",
        "## Provenance",
        "",
        f"- source: `{source.name}`, generated with vcot {source.vcot_version or '?'}",
        f"- exported with vcot {__version__}",
        "- source content hashes: "
        + (", ".join(f"`{h}`" for h in source.hashes[:8]) + (" …" if len(source.hashes) > 8 else "")),
        "",
        "## Licence",
        "",
        f"Released under `{license_id}` (the licence given when exporting; vcot itself is Apache-2.0).",
        "",
    ]
    path = root / CARD
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
