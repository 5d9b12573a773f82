"""Did it learn? From a base model to a measured gain, end to end (docs/rl.md, "Did it learn?").

1. a held-out evaluation suite is generated first (`vcot generate`);
2. warm-start rows in the RL prompt's exact format are exported with that suite excluded
   (`vcot export rl stream -f sft --exclude`), and checked to share no scene with it (`vcot overlap`);
3. a few supervised steps on them teach the answer format (TRL's SFTTrainer);
4. GRPO on a stream that excludes the suite (TRL's GRPOTrainer, vcot's rewards; with `--condition vaot` the
   drawing environment);
5. the base model and the trained one are evaluated in-process on the held-out suite (`vcot eval --model
   hf:PATH`), under the training condition, greedy;
6. `vcot report runs/before runs/after` gives the paired difference, chance, the best constant answer and a
   verdict ("Before and after"), printed at the end.

On CPU with a tiny random model (what tests/rl/test_learning_protocol.py runs) nothing is learned: it checks the
plumbing. With a GPU and a pretrained vision-language model, raise the sizes:

    python examples/did_it_learn.py --model PATH/TO/Qwen2.5-VL-3B-Instruct --out work --task cubes_count \\
        --heldout 300 --warm 2000 --sft-steps 200 --grpo-steps 500 --batch 8 --generations 8 --device cuda

Every step is an ordinary vcot command or a few lines of TRL, so each can be run, repeated or replaced alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

# A model folder's files other than its weights: what a trained folder needs beside the new weights.
WEIGHT_FILES = (
    "config.json",
    "generation_config.json",
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
)


def vcot(*args: str, env: dict[str, str] | None = None) -> str:
    """Run one vcot command as a user would; its output, or exit with it."""
    done = subprocess.run(
        [sys.executable, "-m", "vcot", *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if done.returncode != 0:
        sys.exit(f"vcot {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def copy_processor(base: Path, out: Path) -> None:
    for f in base.iterdir():
        if f.is_file() and f.name not in WEIGHT_FILES and not (out / f.name).exists():
            shutil.copy2(f, out / f.name)


def load(model_dir: Path, trust_remote_code: bool, device: str):
    import torch
    from transformers import AutoModelForImageTextToText, AutoProcessor

    processor = AutoProcessor.from_pretrained(model_dir, local_files_only=True, trust_remote_code=trust_remote_code)
    model = AutoModelForImageTextToText.from_pretrained(model_dir, local_files_only=True, dtype=torch.float32)
    return model.to(device), processor


def sft(args: argparse.Namespace, warm: Path, out: Path) -> Path:
    import datasets
    from trl import SFTConfig, SFTTrainer

    model, processor = load(args.model, args.trust_remote_code, args.device)
    config = SFTConfig(
        output_dir=str(out / "sft-run"),
        max_steps=args.sft_steps,
        per_device_train_batch_size=args.batch,
        learning_rate=args.lr,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=args.device == "cpu",
        bf16=False,
        max_length=None,
        seed=args.seed,
        disable_tqdm=True,
        dataloader_num_workers=0,
    )
    train = datasets.load_from_disk(str(warm))["train"]
    SFTTrainer(model=model, args=config, train_dataset=train, processing_class=processor).train()
    folder = out / "sft"
    model.save_pretrained(folder)
    copy_processor(args.model, folder)
    return folder


def grpo(args: argparse.Namespace, start: Path, heldout: Path, out: Path) -> Path:
    from trl import GRPOConfig, GRPOTrainer

    from vcot.rl.trl import DrawingEnvironment, iterable_dataset, reward_funcs

    model, processor = load(start, args.trust_remote_code, args.device)
    config = GRPOConfig(
        output_dir=str(out / "grpo-run"),
        max_steps=args.grpo_steps,
        per_device_train_batch_size=args.batch,
        num_generations=args.generations,
        max_completion_length=args.completion_tokens,
        learning_rate=args.lr,
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=args.device == "cpu",
        bf16=False,
        seed=args.seed,
        shuffle_dataset=False,
        dataloader_num_workers=0,
        disable_tqdm=True,
        max_tool_calling_iterations=2,
    )
    drawing = args.condition.startswith("vaot")
    train = iterable_dataset(
        args.task, difficulty=args.difficulty, seed=args.seed, exclude=str(heldout), condition=args.condition
    )
    eos = [processor.tokenizer.eos_token_id]
    trainer = GRPOTrainer(
        model=model,
        processing_class=processor,
        args=config,
        train_dataset=train,
        reward_funcs=reward_funcs(answer=not drawing, step=False, eos_token_ids=eos),
        environment_factory=DrawingEnvironment.factory() if drawing else None,
    )
    trainer.train()
    folder = out / "grpo"
    trainer.model.save_pretrained(folder)
    copy_processor(args.model, folder)
    return folder


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True, help="local model folder (nothing is downloaded)")
    p.add_argument("--out", type=Path, required=True, help="working folder (suites, data, checkpoints, runs)")
    p.add_argument("--task", default="cubes_count", help="the task trained and evaluated")
    p.add_argument("--difficulty", default="easy")
    p.add_argument("--condition", default="direct", help="direct (plain GRPO) or vaot (the drawing environment)")
    p.add_argument("--heldout", type=int, default=12, help="held-out problems")
    p.add_argument("--warm", type=int, default=16, help="warm-start problems (0: skip supervised steps)")
    p.add_argument("--sft-steps", type=int, default=2)
    p.add_argument("--grpo-steps", type=int, default=2)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--generations", type=int, default=2)
    p.add_argument("--completion-tokens", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--trust-remote-code", action="store_true", help="the model folder ships its own processor code")
    args = p.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    heldout = out / "heldout"
    vcot(
        "generate",
        "--task",
        args.task,
        "--difficulty",
        args.difficulty,
        "--n",
        str(args.heldout),
        "--seed",
        str(10_000 + args.seed),
        "--out",
        str(heldout),
        "--no-progress",
    )
    start = args.model
    if args.warm:
        warm = out / "warm"
        vcot(
            "export-rl",
            "stream",
            "--task",
            args.task,
            "--difficulty",
            args.difficulty,
            "--n",
            str(args.warm),
            "--seed",
            str(args.seed),
            "-c",
            args.condition,
            "-f",
            "sft",
            "--exclude",
            str(heldout),
            "--validation-fraction",
            "0",
            "-o",
            str(warm),
            "--no-progress",
        )
        vcot("overlap", str(heldout), str(warm))  # exits non-zero, and so does this script, on a shared scene
        start = sft(args, warm, out)
    trained = grpo(args, start, heldout, out)

    # The in-process client's knobs are environment variables (docs/rl.md, "Evaluating a local checkpoint").
    hf_env = {"VCOT_HF_DEVICE": args.device, "VCOT_HF_TRUST_REMOTE_CODE": "1" if args.trust_remote_code else "0"}
    for name, folder in (("before", args.model), ("after", trained)):
        vcot(
            "eval",
            str(heldout),
            "--model",
            f"hf:{folder}",
            "-c",
            args.condition,
            "--temperature",
            "0",
            "--max-tokens",
            str(args.completion_tokens * 4),
            "--run",
            str(out / "runs" / name),
            "--no-progress",
            env=hf_env,
        )
    vcot(
        "report",
        str(out / "runs" / "before"),
        str(out / "runs" / "after"),
        "--suite",
        str(heldout),
        "--out",
        str(out / "report"),
        "--no-progress",
    )
    table = _before_after(out / "report" / "report.md")
    print(table or "the report has no before/after table")
    print(json.dumps({"seconds": round(time.perf_counter() - started, 1), "report": str(out / "report")}))


def _before_after(report: Path) -> str:
    """The report's "Before and after" table (its heading to the next heading)."""
    text = report.read_text(encoding="utf-8")
    head = text.find("Before and after")
    if head < 0:
        return ""
    end = text.find("\n#", head)
    return text[text.rfind("\n", 0, head) + 1 : end if end > 0 else len(text)].strip()


if __name__ == "__main__":
    main()
