"""Model doctor: does a local model folder's chat template and processor survive multi-turn image RL?

`vcot rl doctor MODEL_DIR` (docs/rl.md, "Model doctor") loads the folder's processor and chat template with
`local_files_only=True` and renders one drawing-loop conversation — a user turn with the problem picture, an
assistant tool call, a tool result carrying the redrawn picture, an answer and a follow-up user turn with a
third picture — then checks what silently breaks image RL most often:

- `tool_turn`: the template renders the assistant's tool call (name and arguments) and the tool result;
- `tool_images`: every image stays in the rendered text, including those inside tool and follow-up messages;
- `image_tokens`: after the tool turn the tokenised conversation holds exactly as many image tokens as the
  image processor produces features for all the pictures (a mismatch makes TRL drop every image of the
  sample, and fails the forward pass elsewhere);
- `prefix`: appending a tool turn does not change the tokens of the turns before it (TRL builds each
  multi-turn sequence by concatenation and replaces a template that is not prefix-preserving, or refuses it
  when it knows no replacement);
- `tool_parsing`: a generated tool call can be parsed back into a structured call (the tokenizer's
  `response_template`, or one TRL knows for this template).

Only transformers and PIL are needed (TRL, when installed, is asked whether it knows a response template).
Every check returns a verdict and a one-line reason; nothing here downloads anything.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

# Distinct sentinels tell which part of the exchange a template drops.
TOOL_NAME = "mark_point"
TOOL_ARGS = {"x": 12, "y": 34, "label": "vcotsentinel"}
TOOL_TEXT = "Marked the point; toolresultsentinel."
ANSWER_TEXT = "The answer is <answer>3</answer>."


# A chat template is a few kilobytes; anything far larger is not one (or is a device such as /dev/zero).
TEMPLATE_MAX_BYTES = 1_000_000
# Rendering a template runs the template's own loops: a hostile or broken one (nested `range(100000)`) would
# never finish, so the checks run in a worker process with a wall-clock bound and an address-space bound.
RENDER_SECONDS = 60.0
RENDER_MEMORY_BYTES = 2 * 1024**3


class DoctorError(Exception):
    """The folder cannot be examined at all (missing, no chat template, no image processor, unloadable)."""


@dataclass(frozen=True)
class Check:
    """One verdict: `ok` with a one-line `reason` either way."""

    name: str
    ok: bool
    reason: str

    @property
    def verdict(self) -> str:
        return "PASS" if self.ok else "FAIL"


def _pictures() -> list[Image.Image]:
    # Three sizes, so a template or processor that reuses one image's token count for another shows up.
    return [
        Image.new("RGB", (64, 48), (200, 30, 30)),
        Image.new("RGB", (120, 90), (30, 200, 30)),
        Image.new("RGB", (90, 120), (30, 30, 200)),
    ]


def _tool_call() -> dict[str, Any]:
    return {"type": "function", "function": {"name": TOOL_NAME, "arguments": dict(TOOL_ARGS)}}


def conversation(images: list[Image.Image] | None = None) -> list[dict[str, Any]]:
    """The drawing-loop conversation the checks render, in TRL's structured form (content as part lists)."""
    a, b, c = images or _pictures()
    return [
        {
            "role": "user",
            "content": [{"type": "image", "image": a}, {"type": "text", "text": "How many dots are there?"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": ""}], "tool_calls": [_tool_call()]},
        {
            "role": "tool",
            "name": TOOL_NAME,
            "content": [{"type": "image", "image": b}, {"type": "text", "text": TOOL_TEXT}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": ANSWER_TEXT}]},
        {"role": "user", "content": [{"type": "image", "image": c}, {"type": "text", "text": "And in this picture?"}]},
    ]


def _line(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:limit]}{'…' if len(text) > limit else ''}"


def _render(processor: Any, messages: list[dict], **kwargs: Any) -> str:
    return processor.apply_chat_template(messages, tokenize=False, **kwargs)


def _ids(processor: Any, messages: list[dict], **kwargs: Any) -> list[int]:
    out = processor.apply_chat_template(messages, tokenize=True, return_dict=True, **kwargs)
    ids = out["input_ids"]
    ids = ids.tolist() if hasattr(ids, "tolist") else ids
    return list(ids[0]) if ids and isinstance(ids[0], list) else list(ids)


def check_tool_turn(processor: Any) -> Check:
    """The template renders the assistant's tool call and the tool result."""
    name = "tool_turn"
    try:
        text = _render(processor, conversation()[:3], add_generation_prompt=True)
    except Exception as exc:  # a template may raise anything (TemplateError, TypeError on dict arguments, …)
        return Check(name, False, f"the template cannot render a tool call and its result ({_line(exc)})")
    missing = [
        what
        for what, s in (
            ("the tool name", TOOL_NAME),
            ("the tool arguments", TOOL_ARGS["label"]),
            ("the tool result", "toolresultsentinel"),
        )
        if s not in text
    ]
    if missing:
        return Check(name, False, f"the rendered conversation lacks {' and '.join(missing)}")
    return Check(name, True, "tool calls and tool results are rendered")


def check_tool_images(processor: Any) -> Check:
    """Each image (first user turn, tool result, follow-up user turn) changes the rendered text."""
    name = "tool_images"
    messages = conversation()
    try:
        full = _render(processor, messages)
    except Exception as exc:
        return Check(name, False, f"the template cannot render images in a multi-turn conversation ({_line(exc)})")
    dropped = []
    for where, index in (("the first user message", 0), ("the tool message", 2), ("the follow-up user message", 4)):
        without = copy.copy(messages)
        without[index] = {**messages[index], "content": [p for p in messages[index]["content"] if p["type"] != "image"]}
        try:
            if _render(processor, without) == full:
                dropped.append(where)
        except Exception as exc:
            return Check(name, False, f"rendering without the image of {where} fails ({_line(exc)})")
    if dropped:
        return Check(name, False, f"the template drops the image in {', '.join(dropped)}")
    return Check(name, True, "images in user, tool and follow-up messages are all rendered")


def _image_token_id(processor: Any) -> int | None:
    tid = getattr(processor, "image_token_id", None)
    if isinstance(tid, int):
        return tid
    token = getattr(processor, "image_token", None)
    if isinstance(token, str):
        tid = processor.tokenizer.convert_tokens_to_ids(token)
        return tid if tid != processor.tokenizer.unk_token_id else None
    return None


def _expected_image_tokens(processor: Any, images: list[Image.Image], token_id: int) -> list[int]:
    """Image tokens per picture as the model consumes them: from the image processor's grids when it has
    them (what TRL compares against), otherwise by tokenising each picture alone."""
    image_processor = processor.image_processor
    out = image_processor(images=images, return_tensors="np")
    grid = out.get("image_grid_thw") if hasattr(out, "get") else None
    if grid is not None:
        merge = int(getattr(image_processor, "merge_size", 1) or 1)
        return [int(g[0] * g[1] * g[2]) // (merge * merge) for g in grid]
    counts = []
    for image in images:
        ids = _ids(
            processor, [{"role": "user", "content": [{"type": "image", "image": image}, {"type": "text", "text": "?"}]}]
        )
        counts.append(ids.count(token_id))
    return counts


def check_image_tokens(processor: Any) -> Check:
    """After a tool turn the conversation's image-token count equals the pictures' feature count."""
    name = "image_tokens"
    token_id = _image_token_id(processor)
    if token_id is None:
        return Check(name, False, "the processor names no image token (image_token / image_token_id)")
    images = _pictures()
    try:
        ids = _ids(processor, conversation(images), add_generation_prompt=True)
    except Exception as exc:
        return Check(name, False, f"tokenising the conversation with its {len(images)} images fails ({_line(exc)})")
    try:
        expected = _expected_image_tokens(processor, images, token_id)
    except Exception as exc:
        return Check(name, False, f"the image processor fails on the pictures ({_line(exc)})")
    got = ids.count(token_id)
    if got != sum(expected):
        return Check(
            name,
            False,
            f"{got} image tokens after the tool turn, but the {len(images)} images give "
            f"{sum(expected)} features ({' + '.join(map(str, expected))})",
        )
    return Check(name, True, f"{got} image tokens for {len(images)} images ({' + '.join(map(str, expected))})")


def check_prefix(processor: Any) -> Check:
    """Appending a tool turn keeps the earlier turns' tokens unchanged. The user turn carries a picture, so
    image-token expansion is part of the prefix; the tool turn is text only, so that a template which cannot
    take an image there fails `tool_images` and `image_tokens`, not this check too (TRL's own probe is the
    same)."""
    name = "prefix"
    messages = conversation()
    tool_turn = {**messages[2], "content": [{"type": "text", "text": TOOL_TEXT}]}
    try:
        before = _ids(processor, messages[:2])
        after = _ids(processor, [*messages[:2], tool_turn], add_generation_prompt=True)
    except Exception as exc:
        return Check(name, False, f"tokenising the tool turn fails ({_line(exc)})")
    if after[: len(before)] == before:
        return Check(name, True, "earlier turns tokenise identically when a tool turn is appended")
    at = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y), min(len(before), len(after)))
    decode = processor.tokenizer.decode
    return Check(
        name,
        False,
        f"appending a tool turn changes token {at} of {len(before)}: "
        f"{decode(before[at : at + 8])!r} becomes {decode(after[at : at + 8])!r}",
    )


def _parser(processor: Any) -> tuple[str, Callable[..., Any]] | None:
    """How generated text becomes a structured message: the tokenizer's own template, else TRL's."""
    tokenizer = processor.tokenizer
    if getattr(tokenizer, "response_template", None) is not None or getattr(tokenizer, "response_schema", None):
        return "the tokenizer's response template", tokenizer.parse_response
    try:
        from trl.chat_template_utils import add_response_schema
    except ImportError:
        return None
    try:
        add_response_schema(processor)
    except ValueError:
        return None
    return "the response template TRL sets for this chat template", tokenizer.parse_response


def check_tool_parsing(processor: Any) -> Check:
    """A tool call rendered by the template parses back to the same name and arguments."""
    name = "tool_parsing"
    found = _parser(processor)
    if found is None:
        return Check(
            name,
            False,
            "no response template: set tokenizer.response_template (TRL knows none for this "
            "chat template), or the trainer cannot read tool calls",
        )
    source, parse = found
    messages = conversation()[:2]
    try:
        prefix = _render(processor, messages[:1], add_generation_prompt=True)
        full = _render(processor, messages)
    except Exception as exc:
        return Check(name, False, f"the template cannot render a tool call ({_line(exc)})")
    if not full.startswith(prefix):
        return Check(name, False, "the rendered tool call does not continue the generation prompt")
    tokenizer = processor.tokenizer
    generated = tokenizer(full[len(prefix) :], add_special_tokens=False)["input_ids"]
    try:
        parsed = parse(generated, prefix=tokenizer(prefix, add_special_tokens=False)["input_ids"])
    except TypeError:  # a legacy response_schema parser takes no prefix
        parsed = parse(generated)
    except Exception as exc:
        return Check(name, False, f"{source} fails on the rendered tool call ({_line(exc)})")
    calls = (parsed or {}).get("tool_calls") or []
    function = (calls[0].get("function", calls[0]) if calls and isinstance(calls[0], dict) else {}) or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            pass
    if function.get("name") != TOOL_NAME or arguments != TOOL_ARGS:
        return Check(name, False, f"{source} does not read the tool call back (got {str(calls)[:80]})")
    return Check(name, True, f"tool calls parse back with {source}")


CHECKS: tuple[Callable[[Any], Check], ...] = (
    check_tool_turn,
    check_tool_images,
    check_image_tokens,
    check_prefix,
    check_tool_parsing,
)


def diagnose(processor: Any, chat_template: str | None = None) -> list[Check]:
    """Run every check on a loaded processor (its own chat template unless `chat_template` replaces it)."""
    if chat_template is not None:
        processor.chat_template = chat_template
        processor.tokenizer.chat_template = chat_template
    if not getattr(processor, "chat_template", None):
        raise DoctorError("the processor has no chat template")
    results = []
    for check in CHECKS:
        try:
            results.append(check(processor))
        except Exception as exc:  # a check's own failure is a verdict, not a crash of the whole report
            results.append(Check(check.__name__.removeprefix("check_"), False, f"the check crashed ({_line(exc)})"))
    return results


def load_processor(model_dir: str | Path, *, trust_remote_code: bool = False) -> Any:
    """The folder's processor, loaded from disk only; DoctorError says why a folder cannot be examined."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise DoctorError(f"{model_dir} is not a folder")
    if not any(model_dir.glob("*.json")):
        raise DoctorError(f"{model_dir} holds no model files (no *.json config)")
    try:
        from transformers import AutoProcessor
    except ImportError as exc:
        raise DoctorError(f"transformers is needed to load the processor ({_line(exc)})") from None
    try:
        processor = AutoProcessor.from_pretrained(model_dir, local_files_only=True, trust_remote_code=trust_remote_code)
    except Exception as exc:  # transformers raises OSError, ValueError, ImportError, KeyError… for bad folders
        hint = " (transformers' video processors need torchvision)" if "torchvision" in str(exc).lower() else ""
        raise DoctorError(f"cannot load the processor from {model_dir}: {_line(exc, 240)}{hint}") from None
    if getattr(processor, "image_processor", None) is None or getattr(processor, "tokenizer", None) is None:
        raise DoctorError(f"{model_dir} has no image processor: the doctor checks vision-language models")
    return processor


def read_template(path: str | Path, max_bytes: int = TEMPLATE_MAX_BYTES) -> str:
    """A chat template file's text. Refuses what is not a regular file before opening it (opening a FIFO
    blocks until a writer appears; a device such as /dev/zero never ends) and anything over `max_bytes`."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise DoctorError(f"cannot read the chat template {path}: {_line(exc)}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = (
            "a folder"
            if stat.S_ISDIR(info.st_mode)
            else "a FIFO"
            if stat.S_ISFIFO(info.st_mode)
            else "a device"
            if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
            else "a special file"
        )
        raise DoctorError(f"the chat template {path} is {kind}, not a regular file")
    if info.st_size > max_bytes:
        raise DoctorError(f"the chat template {path} has {info.st_size:,} bytes, over the limit of {max_bytes:,}")
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)  # the file may grow between stat and read
    except OSError as exc:
        raise DoctorError(f"cannot read the chat template {path}: {_line(exc)}") from None
    if len(data) > max_bytes:
        raise DoctorError(f"the chat template {path} has more than {max_bytes:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DoctorError(f"cannot read the chat template {path}: {_line(exc)}") from None


def _limit_memory(budget: int) -> None:
    """Cap the worker's address space at its current size plus `budget` (Linux; elsewhere a no-op), so a
    template that builds a huge string or list fails with MemoryError inside its check."""
    try:
        import resource

        with open("/proc/self/statm", encoding="ascii") as handle:
            size = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = size + budget if hard == resource.RLIM_INFINITY else min(hard, size + budget)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass


def _worker(conn: Any, processor: Any, memory: int) -> None:
    _limit_memory(memory)
    for check in CHECKS:
        try:
            result = check(processor)
        except BaseException as exc:  # MemoryError included: the bound above turns into a verdict
            result = Check(check.__name__.removeprefix("check_"), False, f"the check crashed ({_line(exc)})")
        conn.send(result)
    conn.close()


def diagnose_bounded(
    processor: Any,
    chat_template: str | None = None,
    *,
    seconds: float = RENDER_SECONDS,
    memory: int = RENDER_MEMORY_BYTES,
) -> list[Check]:
    """`diagnose` with every check run in a forked worker bounded by `seconds` in all and `memory` bytes more
    than the worker starts with. A check still running at the deadline fails with the bound named, the
    checks after it fail as not run. Without `fork` (Windows) the checks run unbounded in this process."""
    if chat_template is not None:
        processor.chat_template = chat_template
        processor.tokenizer.chat_template = chat_template
    if not getattr(processor, "chat_template", None):
        raise DoctorError("the processor has no chat template")
    if "fork" not in multiprocessing.get_all_start_methods():
        return diagnose(processor)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    worker = context.Process(target=_worker, args=(send, processor, memory), daemon=True)
    worker.start()
    send.close()
    deadline = time.monotonic() + seconds
    results: list[Check] = []
    try:
        for check in CHECKS:
            name = check.__name__.removeprefix("check_")
            if not receive.poll(max(0.0, deadline - time.monotonic())):
                results.append(
                    Check(
                        name,
                        False,
                        f"rendering the chat template took longer than {seconds:g} s "
                        "(the template's loops are too long)",
                    )
                )
                break
            try:
                results.append(receive.recv())
            except EOFError:
                worker.join(5)
                results.append(Check(name, False, f"the check ended its worker process (exit code {worker.exitcode})"))
                break
    finally:
        if worker.is_alive():
            worker.kill()
        worker.join(5)
        receive.close()
    done = {c.name for c in results}
    stopped = results[-1].name
    for check in CHECKS:
        name = check.__name__.removeprefix("check_")
        if name not in done:
            results.append(Check(name, False, f"not run: the {stopped} check did not finish"))
    return results


def doctor(
    model_dir: str | Path,
    *,
    trust_remote_code: bool = False,
    chat_template_file: str | Path | None = None,
    seconds: float = RENDER_SECONDS,
    memory: int = RENDER_MEMORY_BYTES,
    return_processor: bool = False,
) -> Any:
    """Load `model_dir` and run every check (with the template in `chat_template_file` when given), bounded
    by `seconds` and `memory` (`diagnose_bounded`). With `return_processor`: (checks, the loaded processor
    with that template), for the trainer checks of `vcot.rl.conformance`."""
    template = None if chat_template_file is None else read_template(chat_template_file)
    processor = load_processor(model_dir, trust_remote_code=trust_remote_code)
    if template is None and not getattr(processor, "chat_template", None):
        raise DoctorError(
            f"{model_dir} has no chat template (chat_template.jinja, or chat_template in "
            "tokenizer_config.json / processor_config.json)"
        )
    checks = diagnose_bounded(processor, template, seconds=seconds, memory=memory)
    return (checks, processor) if return_processor else checks
