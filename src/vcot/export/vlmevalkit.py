"""Export a suite for VLMEvalKit: TSV files plus a dataset-class source file to drop into VLMEvalKit.

Written files (``<prefix>`` is ``vcot_<suite name>`` made identifier-safe)::

    <out>/<prefix>.tsv              every instance, input image only (conditions direct and text_cot)
    <out>/<prefix>_visual_cot.tsv   instances with steps: input image followed by the step images
    <out>/vcot_vlmeval_dataset.py   `VcotDataset`, an ImageBaseDataset subclass (source text)
    <out>/vcot_vlmeval_api.py       `VcotOpenAI`, an API model that sends the PNGs unchanged (source text)

TSV conventions follow VLMEvalKit's ``ImageBaseDataset``: ``index`` (int), ``image`` (base64 of the PNG
file bytes; for several images the Python ``repr`` of a list of base64 strings, which VLMEvalKit's
``toliststr`` evaluates, together with an ``image_path`` column holding the repr of a list of file
names), ``question``, ``answer`` (option letter for choice items), ``category`` (vcot task),
``l2-category`` (vcot domain) and option columns ``A``, ``B``, ... (empty for non-choice items).
vcot-specific columns: ``vcot_uid``, ``answer_type``, ``vcot_options`` (JSON list or empty) and
``vcot_question`` (the question as vcot shows it to a model, options block included).
The ``index`` of an instance is the same in both TSVs, so results can be joined across conditions.

The dataset class alone cannot keep the pictures lossless for API models: it can only hand a model image
file paths, and VLMEvalKit's OpenAI-compatible wrappers open every path with PIL and send it re-encoded as
JPEG. `VcotOpenAI` (a subclass of VLMEvalKit's `GPT4V`) sends the PNG file bytes instead.

Nothing here imports VLMEvalKit: the dataset and model classes are generated as text.
"""

from __future__ import annotations

import base64
import csv
import json
import re
from pathlib import Path

from vcot.conditions import REGISTRY
from vcot.prompts.templates import DIRECT, TEXT_COT, VISUAL_COT, format_question
from vcot.schema import option_letters
from vcot.suite import Suite

DATASET_FILE = "vcot_vlmeval_dataset.py"
API_FILE = "vcot_vlmeval_api.py"
# The registry says which conditions this part offers (`Condition.offered_by`), in its display order.
CONDITIONS = tuple(REGISTRY.offered_by("harness"))
BASE_COLUMNS = [
    "index",
    "image",
    "image_path",
    "question",
    "answer",
    "category",
    "l2-category",
    "vcot_uid",
    "answer_type",
    "vcot_options",
    "vcot_question",
]


def dataset_prefix(suite: Suite) -> str:
    """Identifier-safe name stem shared by the TSVs and VLMEvalKit dataset names."""
    return "vcot_" + (re.sub(r"[^0-9A-Za-z_]+", "_", suite.name).strip("_") or "suite")


def _b64(suite: Suite, rel: str) -> str:
    # The PNG bytes are sent as stored so that decoding gives exactly the suite's pixels.
    return base64.b64encode(suite.image_path(rel).read_bytes()).decode("ascii")


def _rows(suite: Suite, with_steps: bool) -> tuple[list[dict[str, str]], int]:
    n_options = max((len(i.options or []) for i in suite.instances), default=0)
    rows = []
    for index, inst in enumerate(suite.instances):
        if with_steps and not inst.steps:
            continue
        row = {
            "index": str(index),
            "question": inst.question,
            "answer": inst.answer,
            "category": inst.task,
            "l2-category": inst.domain,
            "vcot_uid": inst.uid,
            "answer_type": str(inst.answer_type),
            "vcot_options": json.dumps(inst.options, ensure_ascii=False) if inst.options else "",
            "vcot_question": format_question(inst),
        }
        if with_steps:
            rels = [inst.image] + [s.image for s in inst.steps]
            row["image"] = repr([_b64(suite, r) for r in rels])
            row["image_path"] = repr([f"{index}_{k}.png" for k in range(len(rels))])
        else:
            row["image"] = _b64(suite, inst.image)
        letters = option_letters(n_options) if n_options else []
        for k, letter in enumerate(letters):
            row[letter] = inst.options[k] if inst.options and k < len(inst.options) else ""
        rows.append(row)
    return rows, n_options


def _write_tsv(path: Path, rows: list[dict[str, str]], n_options: int, multi_image: bool) -> None:
    # image_path only where images are lists: VLMEvalKit's toliststr fails on an empty cell.
    columns = [c for c in BASE_COLUMNS if multi_image or c != "image_path"]
    columns += option_letters(n_options) if n_options else []
    with open(path, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def export_vlmevalkit(suite: Suite, out: str | Path) -> Path:
    """Write the TSVs and the dataset-class file into folder `out`; returns the folder."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    prefix = dataset_prefix(suite)
    rows, n_options = _rows(suite, with_steps=False)
    _write_tsv(root / f"{prefix}.tsv", rows, n_options, multi_image=False)
    step_rows, _ = _rows(suite, with_steps=True)
    datasets = {f"{prefix}_direct": (f"{prefix}.tsv", "direct"), f"{prefix}_text_cot": (f"{prefix}.tsv", "text_cot")}
    if step_rows:
        _write_tsv(root / f"{prefix}_visual_cot.tsv", step_rows, n_options, multi_image=True)
        datasets[f"{prefix}_visual_cot"] = (f"{prefix}_visual_cot.tsv", "visual_cot")
    (root / DATASET_FILE).write_text(dataset_source(datasets), encoding="utf-8")
    (root / API_FILE).write_text(_API_SOURCE, encoding="utf-8")
    return root


def dataset_source(datasets: dict[str, tuple[str, str]]) -> str:
    """Source of the VLMEvalKit dataset class serving `datasets` (name -> (tsv file, condition))."""
    # The templates are written in from vcot.prompts.templates so the file also works where vcot is absent;
    # when vcot is importable its live templates win, so the two cannot drift apart silently.
    return _DATASET_TEMPLATE.format(
        datasets=json.dumps(datasets, indent=4),
        direct=repr(DIRECT),
        text_cot=repr(TEXT_COT),
        visual_cot=repr(VISUAL_COT),
    )


_DATASET_TEMPLATE = '''\
"""vcot suite as a VLMEvalKit dataset (generated by `vcot export --format vlmevalkit`).

Install: copy this file to vlmeval/dataset/, add `from .vcot_vlmeval_dataset import VcotDataset` to
vlmeval/dataset/__init__.py and append VcotDataset to its IMAGE_DATASET list; put the TSVs in
$LMUData (or point VCOT_TSV_DIR at their folder). Run e.g. `python run.py --data <name> --model ...`
with a dataset name from DATASETS below. For API models install vcot_vlmeval_api.py (VcotOpenAI) too:
VLMEvalKit's own OpenAI-compatible wrappers send the images re-encoded as JPEG.
Prompts follow vcot's MIRA-style templates; answers are graded with vcot's grader when vcot is
importable, otherwise by comparing the last <answer>...</answer> with the gold answer (cruder).
"""

import base64
import json
import os
import re

import pandas as pd
from vlmeval.dataset.image_base import ImageBaseDataset
from vlmeval.smp import LMUDataRoot, dump, load

# dataset name -> [TSV file name, vcot condition]
DATASETS = {datasets}

_FALLBACK_TEMPLATES = {{
    "direct": {direct},
    "text_cot": {text_cot},
    "visual_cot": {visual_cot},
}}


def _templates():
    try:
        from vcot.prompts.templates import DIRECT, TEXT_COT, VISUAL_COT
    except ImportError:
        return _FALLBACK_TEMPLATES
    return {{"direct": DIRECT, "text_cot": TEXT_COT, "visual_cot": VISUAL_COT}}


def vcot_prompt_text(question, condition):
    """The text part of the prompt; `question` is the TSV's vcot_question column."""
    return _templates()[condition].format(question=question)


def vcot_grade(prediction, answer, answer_type, options_json=""):
    """(correct, extracted answer or None) for one prediction."""
    options = json.loads(options_json) if options_json else None
    try:
        from vcot.scoring import score_fields
    except ImportError:
        found = re.findall(r"<answer>(.*?)</answer>", prediction or "", flags=re.S | re.I)
        extracted = found[-1].strip() if found else None
        return extracted is not None and extracted.lower() == str(answer).strip().lower(), extracted
    s = score_fields(prediction, str(answer), answer_type, options)
    return bool(s.correct), s.extracted


class VcotDataset(ImageBaseDataset):
    TYPE = "VQA"
    MODALITY = "IMAGE"
    DATASET_URL = {{name: "" for name in DATASETS}}
    DATASET_MD5 = {{name: None for name in DATASETS}}

    @classmethod
    def supported_datasets(cls):
        return list(DATASETS)

    def load_data(self, dataset):
        folder = os.environ.get("VCOT_TSV_DIR") or LMUDataRoot()
        # Every column as text: answers like "07" or "1.50" must not be turned into numbers.
        return pd.read_csv(os.path.join(folder, DATASETS[dataset][0]), sep="\\t", dtype=str,
                           keep_default_na=False)

    @property
    def condition(self):
        return DATASETS[self.dataset_name][1]

    def dump_image(self, line):
        # PNG files written byte for byte: VLMEvalKit's default re-encodes to JPEG, which blurs diagrams.
        os.makedirs(self.img_root, exist_ok=True)
        images = line["image"] if isinstance(line["image"], list) else [line["image"]]
        paths = []
        for k, b64 in enumerate(images):
            path = os.path.join(self.img_root, f"{{line['index']}}_{{k}}.png")
            if not os.path.exists(path):
                with open(path, "wb") as fh:
                    fh.write(base64.b64decode(b64))
            paths.append(path)
        return paths

    def build_prompt(self, line):
        if isinstance(line, int):
            line = self.data.iloc[line]
        msgs = [dict(type="image", value=p) for p in self.dump_image(line)]
        msgs.append(dict(type="text", value=vcot_prompt_text(line["vcot_question"], self.condition)))
        return msgs

    def evaluate(self, eval_file, **judge_kwargs):
        preds = load(eval_file)
        gold = {{str(r["index"]): r for _, r in self.data.iterrows()}}
        rows = []
        for _, p in preds.iterrows():
            g = gold[str(p["index"])]
            pred = p.get("prediction")
            pred = "" if pred is None or (isinstance(pred, float) and pd.isna(pred)) else str(pred)
            ok, extracted = vcot_grade(pred, g["answer"], g["answer_type"], g["vcot_options"])
            rows.append({{"index": p["index"], "vcot_uid": g["vcot_uid"], "category": g["category"],
                         "l2-category": g["l2-category"], "answer": g["answer"], "prediction": pred,
                         "extracted": extracted, "correct": ok}})
        scored = pd.DataFrame(rows)
        stem = os.path.splitext(eval_file)[0]
        dump(scored, stem + "_vcot_score.xlsx")
        acc = scored.groupby("category")["correct"].agg(["count", "mean"]).reset_index()
        acc.columns = ["category", "total", "accuracy"]
        overall = pd.DataFrame([{{"category": "Overall", "total": len(scored),
                                 "accuracy": scored["correct"].mean() if len(scored) else 0.0}}])
        acc = pd.concat([overall, acc], ignore_index=True)
        dump(acc, stem + "_vcot_acc.csv")
        return acc
'''


_API_SOURCE = '''\
"""An OpenAI-compatible API model for VLMEvalKit that sends PNG images unchanged (generated by vcot).

VLMEvalKit's GPT4V / OpenAIWrapper opens every image path with PIL and sends it re-encoded as JPEG, which
blurs the thin lines and flat colours of vcot's diagrams, and defaults to img_detail="low". VcotOpenAI
takes the same arguments as GPT4V but sends each PNG file's bytes as they are (data:image/png), and
defaults to img_detail="high". If img_size or total_img_size asks for smaller images, the image is shrunk
and sent as PNG. VLMEVAL_MAX_IMAGE_SIZE and max_file_size are not applied.

Install: copy this file to vlmeval/api/ and add `from .vcot_vlmeval_api import VcotOpenAI` to
vlmeval/api/__init__.py; then name it in a `python run.py --config cfg.json` model entry:
{"class": "VcotOpenAI", "model": ..., "api_base": "http://host:port/v1/chat/completions", "key": ...}.
"""

import base64
import io

from PIL import Image
from vlmeval.api.gpt import GPT4V

PNG_SIGNATURE = b"\\x89PNG\\r\\n\\x1a\\n"


def png_data_url(path, max_side=-1):
    """data: URL of the image at `path` as PNG; the file's own bytes unless it must be shrunk or converted."""
    with open(path, "rb") as fh:
        data = fh.read()
    if max_side > 0 or not data.startswith(PNG_SIGNATURE):
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            if max_side > 0:
                im.thumbnail((max_side, max_side))
            buf = io.BytesIO()
            im.save(buf, format="PNG")
            data = buf.getvalue()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


class VcotOpenAI(GPT4V):
    def __init__(self, *args, img_detail="high", **kwargs):
        super().__init__(*args, img_detail=img_detail, **kwargs)

    def _max_side(self, n_images):
        sides = []
        if self.img_size > 0:
            sides.append(self.img_size)
        if self.total_img_size > 0:
            sides.append(int(self.total_img_size / n_images ** 0.5))
        return min(sides) if sides else -1

    def prepare_itlist(self, inputs):
        n_images = sum(1 for x in inputs if x["type"] == "image")
        if not n_images:
            return super().prepare_itlist(inputs)
        max_side = self._max_side(n_images)
        content = []
        for msg in inputs:
            if msg["type"] == "text" and msg["value"]:
                content.append(dict(type="text", text=msg["value"]))
            elif msg["type"] == "image":
                url = png_data_url(msg["value"], max_side)
                content.append(dict(type="image_url", image_url=dict(url=url, detail=self.img_detail)))
        return content
'''
