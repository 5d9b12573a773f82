"""`--model hf:PATH`: a transformers vision-language model in a local folder, run in this process.

    vcot eval SUITE --model hf:PATH
    VCOT_HF_DEVICE=cpu VCOT_HF_BATCH=4 vcot eval SUITE --model hf:PATH --concurrency 8

PATH is a folder holding a model saved with `save_pretrained` (config, weights, processor, chat template);
nothing is downloaded (`local_files_only=True`). How it runs is set by environment variables, not in the model
name, because the run store files samples under the model name as given: a resumed run must name the model
as the first one did, whatever batch size or device it uses this time.

- `VCOT_HF_DEVICE`: `auto` (the default: cuda when available, else cpu), `cpu`, `cuda`, `cuda:1`, `mps`, …
- `VCOT_HF_DTYPE`: `auto` (the default: as saved), `float32`, `bfloat16` or `float16`. It changes the replies,
  so it is part of the run's identity (a run folder refuses a resume in another dtype).
- `VCOT_HF_BATCH`: at most this many requests in one padded `generate` (default 8). The engine sends up to
  `--concurrency` requests at once; those that arrive within `VCOT_HF_WINDOW_MS` of each other (default 20),
  or while the previous batch generates, go together.
- `VCOT_HF_WINDOW_MS`: how long the first request of a batch waits for companions (0: not at all).
- `VCOT_HF_TRUST_REMOTE_CODE=1`: run Python code the folder ships (its own processor or model class); off by
  default, as for `transformers serve`.

Needs torch and transformers: vcot's `rl-trl` extra installs both (`pip install 'vcot[rl-trl]'`).

The conversation is laid out as for an OpenAI-compatible server (`openai_compat.to_openai_messages`: images a
tool returns follow the tool messages in a user message) and rendered with the folder's chat template, the
tools as OpenAI function dicts. Tool calls are read back from the generated tokens with the tokenizer's response
template (`parse_response`; for Qwen-family models without one, the template `transformers serve` falls back
on), else from Qwen/Hermes `<tool_call>{json}</tool_call>` blocks. So a run here and a run against
`transformers serve PATH` see the same prompts and parse the same replies; one difference: an assistant turn
that called tools keeps its text in the history here, where the server drops it.

Sampling: greedy (`do_sample=False`) when the temperature is 0 or unset, else sampled with the run's
temperature (and top_p when given); the folder's generation config supplies the rest (top_k, repetition
penalty), as it does behind vLLM or `transformers serve`. A batch shares one random stream, so sampled replies
are reproducible (`--seed`) only with `VCOT_HF_BATCH=1`. Greedy replies do not depend on the batch on CPU in
float32; in half precision, or with GPU kernels, padding may flip a near-tie.

One thread runs the model, one batch at a time: generating on the same model from two threads is not safe.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.errors import ConfigError, FatalCallError, RetryableError
from vcot.engine.settings import GenSettings
from vcot.images import EncodedImage
from vcot.messages import Message, ModelResponse, ToolCall, ToolSpec

PREFIX = "hf:"
EXTRA_HINT = "install torch and transformers (vcot's rl-trl extra: pip install 'vcot[rl-trl]')"
DTYPES = ("auto", "float32", "bfloat16", "float16")
MAX_BATCH = 1024
_TOOL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass(frozen=True, slots=True)
class HFOptions:
    device: str = "auto"
    dtype: str = "auto"
    batch: int = 8
    window_ms: float = 20.0
    trust_remote_code: bool = False


def parse_hf_model(model: str) -> Path:
    """The folder `hf:PATH` names."""
    spec = model[len(PREFIX) :] if model.startswith(PREFIX) else model
    if not spec.strip():
        raise ConfigError(f"model {model!r} names no folder: use hf:PATH")
    return Path(spec).expanduser()


ENV = {
    "device": "VCOT_HF_DEVICE",
    "dtype": "VCOT_HF_DTYPE",
    "batch": "VCOT_HF_BATCH",
    "window_ms": "VCOT_HF_WINDOW_MS",
    "trust_remote_code": "VCOT_HF_TRUST_REMOTE_CODE",
}


def hf_options(environ: Mapping[str, str] | None = None) -> HFOptions:
    """The options in the environment (`ENV`); ConfigError naming the variable for a malformed one."""
    env = os.environ if environ is None else environ
    values = {k: env[v].strip() for k, v in ENV.items() if env.get(v, "").strip()}
    opts: dict[str, Any] = {}
    if "device" in values:
        opts["device"] = values["device"]
    if "dtype" in values:
        if values["dtype"] not in DTYPES:
            raise ConfigError(f"{ENV['dtype']}={values['dtype']!r}: use one of {', '.join(DTYPES)}")
        opts["dtype"] = values["dtype"]
    if "batch" in values:
        if not values["batch"].isdigit() or not 1 <= int(values["batch"]) <= MAX_BATCH:
            raise ConfigError(f"{ENV['batch']}={values['batch']!r}: use a whole number within 1..{MAX_BATCH}")
        opts["batch"] = int(values["batch"])
    if "window_ms" in values:
        try:
            window = float(values["window_ms"])
        except ValueError:
            window = -1.0
        if not 0 <= window <= 10_000:
            raise ConfigError(f"{ENV['window_ms']}={values['window_ms']!r}: use milliseconds within 0..10000")
        opts["window_ms"] = window
    if "trust_remote_code" in values:
        flag = values["trust_remote_code"].lower()
        if flag not in ("0", "1", "true", "false", "yes", "no"):
            raise ConfigError(f"{ENV['trust_remote_code']}={values['trust_remote_code']!r}: use 1 or 0")
        opts["trust_remote_code"] = flag in ("1", "true", "yes")
    return HFOptions(**opts)


def check_folder(path: Path) -> None:
    """ConfigError unless `path` is a folder with a transformers config: cheap, before anything is imported."""
    if not path.exists():
        hint = " (options go in VCOT_HF_* environment variables, not after a ?)" if "?" in str(path) else ""
        raise ConfigError(f"hf: model folder {path} does not exist{hint}")
    if not path.is_dir():
        raise ConfigError(f"hf: {path} is not a folder (hf:PATH names a folder saved with save_pretrained)")
    if not (path / "config.json").is_file():
        raise ConfigError(f"hf: {path} has no config.json: not a transformers model folder")


def decode_image(image: EncodedImage) -> Any:
    """The picture as a PIL RGB image, as transformers' `load_image` makes it of a data URI (so that a run
    here and one through `transformers serve` feed the processor the same pixels)."""
    from PIL import Image, ImageOps

    picture = image.picture
    if picture is None:
        try:
            data = base64.b64decode(image.b64, validate=False)
            picture = Image.open(io.BytesIO(data))
            picture.load()
        except (binascii.Error, IndexError, OSError, ValueError, Image.DecompressionBombError) as exc:
            raise FatalCallError(
                f"image {image.source} cannot be decoded ({type(exc).__name__}: {str(exc)[:120]})"
            ) from None
    return ImageOps.exif_transpose(picture).convert("RGB")


def _arguments(text: str) -> Any:
    # Chat templates iterate the arguments as a mapping; a call whose arguments are not JSON (model output is
    # untrusted) is shown to the model again as it wrote it.
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def to_hf_messages(messages: Sequence[Message]) -> tuple[list[dict[str, Any]], list[Any]]:
    """vcot messages → (chat-template messages, their pictures in the order they appear).

    The layout is the OpenAI-compatible clients' own (`to_openai_messages`: tool answers as text, the pictures
    they return in a user message right after the run of tool messages), so this client and a server fed by
    those clients see the same conversation; here each part list holds the decoded pictures and each tool call
    its arguments as a mapping, as chat templates read them.
    """
    from vcot.engine.clients.openai_compat import to_openai_messages

    # Decoded from the vcot messages, so that a failure names the picture's source; `to_openai_messages` keeps
    # the pictures in this order (a tool's pictures move only past the other tool answers, which hold none).
    pictures = [decode_image(i) for m in messages if m.role in ("user", "tool") for i in m.images]
    queue = iter(pictures)
    out: list[dict[str, Any]] = []
    for m in to_openai_messages(messages):
        content = m.get("content")
        parts = (
            [{"type": "text", "text": content}]
            if isinstance(content, str)
            else [{"type": "image", "image": next(queue)} if p["type"] == "image_url" else p for p in content or []]
        )
        msg: dict[str, Any] = {**m, "content": parts}
        if m.get("tool_calls"):
            msg["tool_calls"] = [
                {**c, "function": {**c["function"], "arguments": _arguments(c["function"]["arguments"])}}
                for c in m["tool_calls"]
            ]
        out.append(msg)
    return out, pictures


def to_hf_tools(tools: Sequence[ToolSpec] | None) -> list[dict[str, Any]] | None:
    from vcot.engine.clients.openai_compat import to_openai_tools

    return to_openai_tools(tools) if tools else None


def parse_tool_blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Qwen/Hermes `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks → (the text without them,
    [(name, arguments JSON)]). A block that is not such JSON stays in the text: it is what the model wrote."""
    calls: list[tuple[str, str]] = []

    def take(match: re.Match[str]) -> str:
        try:
            obj = json.loads(match.group(1))
        except (ValueError, RecursionError):
            return match.group(0)
        if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
            return match.group(0)
        args = obj.get("arguments", obj.get("parameters", {}))
        calls.append((obj["name"], args if isinstance(args, str) else json.dumps(args)))
        return ""

    rest = _TOOL_BLOCK.sub(take, text)
    return (rest.strip() if calls else text), calls


@dataclass(eq=False)
class _Request:
    messages: list[dict[str, Any]]
    pictures: list[Any]
    tools: list[dict[str, Any]] | None
    settings: GenSettings
    seed: int | None
    turn: int
    future: asyncio.Future[ModelResponse]
    key: tuple[Any, ...] = field(init=False)

    def __post_init__(self) -> None:
        s = self.settings
        greedy = not s.temperature
        # Requests share a generate call only when they would be generated alike.
        self.key = (
            s.max_tokens,
            greedy,
            None if greedy else s.temperature,
            None if greedy else s.top_p,
            None if greedy else self.seed,
        )


class HFLocalClient(ModelClient):
    """A local transformers VLM behind the `ModelClient` interface (see the module docstring)."""

    provider = "hf-local"

    def __init__(self, model: str) -> None:
        path = parse_hf_model(model)
        self.options = hf_options()
        check_folder(path)
        self.path = path.resolve()
        self.model = str(self.path)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="vcot-hf")
        self._load_lock: asyncio.Lock | None = None
        self._loaded = False
        self._queue: list[_Request] = []
        self._wake: asyncio.Event | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._closed = False
        self.model_obj: Any = None
        self.processor: Any = None
        self.device: Any = None
        self._template: dict[str, Any] | None = None
        self._eos: set[int] = set()
        self._pad: int | None = None

    def describe(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "dtype": self.options.dtype}

    async def preflight(self) -> None:
        await self._ensure_loaded()

    # ----- loading -----

    async def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        if self._load_lock is None:
            self._load_lock = asyncio.Lock()
        async with self._load_lock:
            if not self._loaded:
                await asyncio.get_running_loop().run_in_executor(self._executor, self._load)
                self._loaded = True

    def _load(self) -> None:
        try:
            import torch
            import transformers
            from transformers import AutoConfig, AutoModelForImageTextToText, AutoProcessor
            from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
        except ImportError as exc:
            raise ConfigError(
                f"hf: models run in-process with torch and transformers ({exc.name or exc} is missing): {EXTRA_HINT}"
            ) from None
        where = str(self.path)
        trust = self.options.trust_remote_code
        try:
            config = AutoConfig.from_pretrained(where, local_files_only=True, trust_remote_code=trust)
        except Exception as exc:  # noqa: BLE001 - any reason the folder's config does not load
            raise ConfigError(f"hf: cannot read the model config in {where}: {_short(exc)}") from None
        arch = (getattr(config, "architectures", None) or [None])[0]
        vlm_classes = set(MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES.values())
        own_class = trust and "AutoModelForImageTextToText" in (getattr(config, "auto_map", None) or {})
        if (
            config.model_type not in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES
            and arch not in vlm_classes
            and not own_class
        ):
            raise ConfigError(
                f"hf: {where} holds a {arch or config.model_type} model, which transformers does "
                "not know as a vision-language (image-text-to-text) model; hf: needs one"
            )
        try:
            processor = AutoProcessor.from_pretrained(where, local_files_only=True, trust_remote_code=trust)
        except Exception as exc:  # noqa: BLE001 - any reason the processor does not load
            hint = "" if trust else f" (if the folder ships its own processor code, set {ENV['trust_remote_code']}=1)"
            raise ConfigError(f"hf: cannot load the processor in {where}: {_short(exc)}{hint}") from None
        if getattr(processor, "image_processor", None) is None or getattr(processor, "tokenizer", None) is None:
            raise ConfigError(
                f"hf: the processor in {where} ({type(processor).__name__}) has no image processor: "
                "hf: needs a vision-language model"
            )
        if not getattr(processor, "chat_template", None) and not getattr(processor.tokenizer, "chat_template", None):
            raise ConfigError(f"hf: {where} has no chat template")
        device = self.options.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype: Any = "auto" if self.options.dtype == "auto" else getattr(torch, self.options.dtype)
        # The class the config names, as transformers serve loads it; else the image-text-to-text auto class.
        cls = getattr(transformers, arch, None) if arch in vlm_classes else None
        try:
            # Placed on the device as it loads: a model as large as the host's memory never sits there whole.
            model = (cls or AutoModelForImageTextToText).from_pretrained(
                where, local_files_only=True, trust_remote_code=trust, dtype=dtype, device_map=device
            )
        except Exception as exc:  # noqa: BLE001 - weights missing, device absent, out of memory, …
            raise ConfigError(f"hf: cannot load the model in {where} on {device}: {_short(exc)}") from None
        model.eval()
        processor.tokenizer.padding_side = "left"
        gen = model.generation_config
        eos = gen.eos_token_id if gen.eos_token_id is not None else processor.tokenizer.eos_token_id
        self._eos = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        self._pad = gen.pad_token_id if gen.pad_token_id is not None else processor.tokenizer.pad_token_id
        if self._pad is None and self._eos:
            self._pad = min(self._eos)
        self._template = _response_template(processor, config)
        self.model_obj, self.processor, self.device = model, processor, model.device

    # ----- requests -----

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec] | None, settings: GenSettings, ctx: CallContext
    ) -> ModelResponse:
        if self._closed:
            raise FatalCallError("the hf: client is closed")
        await self._ensure_loaded()
        hf_messages, pictures = to_hf_messages(messages)
        loop = asyncio.get_running_loop()
        seed = None if settings.seed is None else settings.seed + ctx.epoch
        request = _Request(hf_messages, pictures, to_hf_tools(tools), settings, seed, ctx.turn, loop.create_future())
        self._queue.append(request)
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._dispatcher is None or self._dispatcher.done():
            self._dispatcher = asyncio.create_task(self._dispatch(), name="vcot-hf-dispatch")
        try:
            # shield: a time-out abandons the reply, not the batch the request shares with others.
            async with asyncio.timeout(settings.timeout_s):
                return await asyncio.shield(request.future)
        except TimeoutError:
            request.future.cancel()
            raise RetryableError(f"no reply within {settings.timeout_s:g} s", kind="timeout") from None
        except asyncio.CancelledError:
            request.future.cancel()
            raise

    async def _dispatch(self) -> None:
        """Forms batches and runs them on the model's thread, one at a time."""
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        while not self._closed:
            self._queue = [r for r in self._queue if not r.future.done()]
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            if len(self._queue) < self.options.batch and self.options.window_ms > 0:
                await asyncio.sleep(self.options.window_ms / 1000)
                self._queue = [r for r in self._queue if not r.future.done()]
                if not self._queue:
                    continue
            key = self._queue[0].key
            batch = [r for r in self._queue if r.key == key][: self.options.batch]
            taken = set(map(id, batch))
            self._queue = [r for r in self._queue if id(r) not in taken]
            try:
                results = await loop.run_in_executor(self._executor, self._run_batch, batch)
            except Exception as exc:  # noqa: BLE001 - handed to the requests of this batch
                results = [exc] * len(batch)
            for request, result in zip(batch, results, strict=True):
                if request.future.done():
                    continue
                if isinstance(result, BaseException):
                    request.future.set_exception(result)
                else:
                    request.future.set_result(result)

    def _run_batch(self, batch: list[_Request]) -> list[ModelResponse | Exception]:
        """One padded generate for `batch` (on the model's thread); when it fails with several requests, each is
        tried alone, so that one request the model cannot take fails only itself."""
        prompts: list[str | None] = []
        errors: list[Exception | None] = []
        for r in batch:
            try:
                prompts.append(self._render(r))
                errors.append(None)
            except Exception as exc:  # noqa: BLE001 - a template that refuses this conversation
                prompts.append(None)
                errors.append(
                    FatalCallError(f"the chat template of {self.path} cannot render this request: {_short(exc)}")
                )
        ok = [i for i, p in enumerate(prompts) if p is not None]
        results: list[ModelResponse | Exception] = [e if e is not None else FatalCallError("") for e in errors]
        if not ok:
            return results
        try:
            replies = self._generate([batch[i] for i in ok], [prompts[i] or "" for i in ok])
            for i, reply in zip(ok, replies, strict=True):
                results[i] = reply
        except Exception as exc:  # noqa: BLE001 - mapped below
            if len(ok) == 1:
                results[ok[0]] = _generate_error(exc)
            else:
                for i in ok:
                    try:
                        results[i] = self._generate([batch[i]], [prompts[i] or ""])[0]
                    except Exception as one:  # noqa: BLE001 - this request only
                        results[i] = _generate_error(one)
        return results

    def _render(self, request: _Request) -> str:
        return self.processor.apply_chat_template(
            request.messages, tools=request.tools, add_generation_prompt=True, tokenize=False
        )

    def _generate(self, batch: list[_Request], prompts: list[str]) -> list[ModelResponse]:
        import torch

        processor, tokenizer = self.processor, self.processor.tokenizer
        # One list per prompt, as processor.apply_chat_template passes a batch (some processors need the split).
        pictures = [r.pictures for r in batch] if any(r.pictures for r in batch) else None
        kwargs: dict[str, Any] = {}
        # As processor.apply_chat_template does: a template that writes the BOS itself gets no second one.
        if tokenizer.bos_token is not None and prompts[0].startswith(tokenizer.bos_token):
            kwargs["add_special_tokens"] = False
        inputs = processor(text=prompts, images=pictures, padding=True, return_tensors="pt", **kwargs)
        inputs = inputs.to(self.device)
        s = batch[0].settings
        gen: dict[str, Any] = {"max_new_tokens": s.max_tokens or 8192, "pad_token_id": self._pad}
        if self._eos:
            gen["eos_token_id"] = sorted(self._eos)
        if s.temperature:
            gen.update(do_sample=True, temperature=s.temperature)
            if s.top_p is not None:
                gen["top_p"] = s.top_p
            if batch[0].seed is not None:
                torch.manual_seed(batch[0].seed)
        else:
            # The folder's generation config may ask for sampling; its temperature and top_p mean nothing then.
            gen.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        futures = [r.future for r in batch]

        def abandoned(input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            # Rows whose caller left (a time-out, an interrupted run) stop; the whole batch once the client closes.
            flags = [self._closed or f.done() for f in futures]
            return torch.tensor(flags, dtype=torch.bool, device=input_ids.device)

        with torch.inference_mode():
            sequences = self.model_obj.generate(**inputs, **gen, stopping_criteria=[abandoned])
        width = inputs["input_ids"].shape[-1]
        mask = inputs.get("attention_mask")
        replies = []
        for row, r in enumerate(batch):
            generated = sequences[row, width:].tolist()
            stopped = next((k for k, t in enumerate(generated) if t in self._eos), None)
            ids = generated if stopped is None else generated[: stopped + 1]
            prompt_ids = inputs["input_ids"][row]
            if mask is not None:
                prompt_ids = prompt_ids[mask[row].bool()]
            prompt_list = prompt_ids.tolist()
            length = stopped is None and len(ids) >= gen["max_new_tokens"]
            replies.append(self._reply(ids, prompt_list, r, "length" if length else "stop"))
        return replies

    def _reply(self, ids: list[int], prompt_ids: list[int], request: _Request, finish: str) -> ModelResponse:
        tokenizer = self.processor.tokenizer
        text: str | None = None
        calls: list[tuple[str, str]] = []
        if self._template is not None:
            try:
                parsed = tokenizer.parse_response(ids, self._template, prefix=prompt_ids, tools=request.tools)
                text = parsed.get("content") or ""
                for c in parsed.get("tool_calls") or []:
                    fn = c.get("function", c) if isinstance(c, dict) else {}
                    args = fn.get("arguments", {})
                    calls.append((str(fn.get("name", "")), args if isinstance(args, str) else json.dumps(args)))
            except Exception:  # noqa: BLE001 - output the template cannot parse: read as plain text below
                text, calls = None, []
        if text is None:
            text, calls = parse_tool_blocks(tokenizer.decode(ids, skip_special_tokens=True))
        tool_calls = [ToolCall(id=f"call_{request.turn}_{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)]
        raw = json.dumps(
            {
                "model": self.path.name,
                "output": tokenizer.decode(ids, skip_special_tokens=False),
                "prompt_tokens": len(prompt_ids),
                "completion_tokens": len(ids),
                "finish_reason": finish,
            },
            ensure_ascii=False,
        )
        return ModelResponse(
            text=text,
            tool_calls=tool_calls,
            finish_reason=finish,
            input_tokens=len(prompt_ids),
            output_tokens=len(ids),
            raw=raw,
        )

    async def aclose(self) -> None:
        self._closed = True
        if self._wake is not None:
            self._wake.set()
        if self._dispatcher is not None:
            self._dispatcher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._dispatcher
        for r in self._queue:
            r.future.cancel()
        self._queue.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
        # Whoever keeps the client (a curation session holds several) need not keep the weights.
        self.model_obj = self.processor = None


def _response_template(processor: Any, config: Any) -> dict[str, Any] | None:
    """The tokenizer's response template; else the one `transformers serve` falls back on for the model type
    (Qwen-family tokenizers ship none), when the installed transformers has it."""
    template = getattr(processor.tokenizer, "response_template", None)
    if template is not None:
        return template
    try:
        from transformers.cli.serving.utils import get_response_template
    except Exception:  # noqa: BLE001 - a transformers without serve, or one that moved it: block parsing then
        return None
    try:
        return get_response_template(processor, config)
    except Exception:  # noqa: BLE001 - same
        return None


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def _generate_error(exc: BaseException) -> Exception:
    if type(exc).__name__ == "OutOfMemoryError":  # torch.cuda.OutOfMemoryError: may pass with a smaller batch
        return RetryableError(f"out of memory while generating ({_short(exc)[:200]})", kind="oom")
    return FatalCallError(f"generate failed: {_short(exc)}")
