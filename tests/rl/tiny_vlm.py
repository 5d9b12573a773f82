"""A tiny, randomly initialised Qwen2-VL-style model folder built entirely on this machine (nothing downloaded).

`build_tiny_qwen2_vl(path)` writes a folder that `transformers.AutoProcessor` and
`Qwen2VLForConditionalGeneration.from_pretrained` load with `local_files_only=True`: a byte-level BPE
tokenizer trained on a few strings (with Qwen2-VL's special tokens), a Qwen-style chat template that renders
tools, tool calls and images inside user *and* tool messages, a response template so transformers can parse
tool calls back out of generated text, and an image processor whose pixel bounds turn any picture into a few
patches. The adapters' tests (TRL here, verl elsewhere) train it for a couple of steps on CPU, so keep the
function and its defaults stable.
"""

from __future__ import annotations

import json
from pathlib import Path

# Qwen2-VL's vocabulary of control tokens; the chat template and the processor look them up by name.
SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
# Tool-call markers are ordinary added tokens in Qwen's vocabulary (kept when decoding with skip_special_tokens).
TOOL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]

# Written for this helper in the same shape as Qwen's templates (ChatML with <tool_call> JSON blocks and tool
# results wrapped in <tool_response> inside a user turn). It is prefix-preserving on purpose: appending a tool
# turn never changes how the earlier turns render, which is what TRL's tool loop relies on.
CHAT_TEMPLATE = r"""{%- macro render(content) -%}
{%- if content is string -%}{{ content }}{%- else -%}
{%- for part in content -%}
{%- if part.type == 'image' or 'image' in part or 'image_url' in part -%}<|vision_start|><|image_pad|><|vision_end|>
{%- elif part.type == 'video' or 'video' in part -%}<|vision_start|><|video_pad|><|vision_end|>
{%- elif part.text is defined and part.text is not none -%}{{ part.text }}
{%- endif -%}
{%- endfor -%}
{%- endif -%}
{%- endmacro -%}
{%- if tools -%}
<|im_start|>system
{% if messages[0].role == 'system' %}{{ render(messages[0].content) }}

{% endif %}# Tools

You may call one or more functions. Function signatures are within <tools></tools>:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>

For each call, return a JSON object within <tool_call></tool_call>:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages[0].role == 'system' -%}
<|im_start|>system
{{ render(messages[0].content) }}<|im_end|>
{% endif -%}
{%- for message in messages -%}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) -%}
<|im_start|>{{ message.role }}
{{ render(message.content) }}<|im_end|>
{% elif message.role == 'assistant' -%}
<|im_start|>assistant
{{ render(message.content) }}
{%- if message.tool_calls -%}
{%- for call in message.tool_calls -%}
{%- set fn = call.function if call.function is defined else call -%}
{%- if message.content or not loop.first %}
{% endif -%}
<tool_call>
{"name": "{{ fn.name }}", "arguments": {% if fn.arguments is string %}{{ fn.arguments }}{% else %}{{ fn.arguments | tojson }}{% endif %}}
</tool_call>
{%- endfor -%}
{%- endif -%}
<|im_end|>
{% elif message.role == 'tool' -%}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' -%}
<|im_start|>user
{%- endif %}
<tool_response>
{{ render(message.content) }}
</tool_response>
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' -%}
<|im_end|>
{% endif -%}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
<|im_start|>assistant
{% endif -%}"""

# transformers' response-template format (tokenizer.parse_response): the assistant text is split into tool
# calls (JSON inside <tool_call>) and plain content up to <|im_end|>.
RESPONSE_TEMPLATE = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {
            "open": "<tool_call>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

# transformers 5 builds Qwen2VLProcessor only together with its video processor, which needs torchvision; the
# CPU torch build here has no matching torchvision (PyPI's is a CUDA build). The folder therefore ships this
# image-only subclass as its processor (`auto_map`, loaded with trust_remote_code=True from the folder itself):
# the same tokenisation and image-token expansion as Qwen2-VL, without the video half.
PROCESSOR_MODULE = "processing_tiny_qwen2_vl"
PROCESSOR_SOURCE = '''"""An image-only Qwen2-VL processor (no video processor, hence no torchvision)."""

from transformers.models.qwen2_vl.processing_qwen2_vl import Qwen2VLProcessor
from transformers.processing_utils import ProcessorMixin


class TinyQwen2VLProcessor(Qwen2VLProcessor):
    """Qwen2-VL's processor with the image processor and tokenizer only."""

    def __init__(self, image_processor=None, tokenizer=None, chat_template=None, **kwargs):
        self.image_token = "<|image_pad|>"
        self.video_token = "<|video_pad|>"
        self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
        self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)
        ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)
'''

# Image bounds: 28 px is one merged 2×2 block of 14 px patches, so every picture becomes 2×2 … 4×4 merged
# tokens (4–16 image tokens) whatever its size.
MIN_PIXELS = 56 * 56
MAX_PIXELS = 112 * 112


def _corpus() -> list[str]:
    text = [
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n",
        "<|im_start|>user\nHow many dots are there? Answer with <answer>...</answer>.<|im_end|>\n",
        "<|im_start|>assistant\n<step1>count</step1> <answer>3</answer><|im_end|>\n",
        '<tool_call>\n{"name": "draw_line", "arguments": {"x1": 10, "y1": 20, "x2": 30, "y2": 40}}\n</tool_call>',
        "<tool_response>\nDrew the line. The picture is 256 x 256 pixels.\n</tool_response>",
        "The answer is (A) (B) (C) (D) yes no left right up down red blue green 0 1 2 3 4 5 6 7 8 9 10 100",
        "Coordinates are pixels of the current image: origin at the top-left corner, x to the right, y downwards.",
        '{"type": "function", "function": {"name": "mark_point", "description": "Mark a point", "parameters": '
        '{"type": "object", "properties": {"x": {"type": "number", "description": "x"}}, "required": ["x"]}}}',
    ]
    try:  # the real tool descriptions compress the prompt a lot; vcot is always importable in these tests
        from vcot.vaot.actions import tool_definitions

        text.append(json.dumps(tool_definitions()))
    except ImportError:  # pragma: no cover - the helper stays usable outside vcot
        pass
    return text * 4


def _tokenizer(vocab_size: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        padding_side="left",
        model_max_length=8192,
    )
    fast.add_tokens(TOOL_TOKENS)
    fast.chat_template = CHAT_TEMPLATE
    fast.response_template = RESPONSE_TEMPLATE
    return fast


def build_tiny_qwen2_vl(
    path: str | Path, *, vocab_size: int = 1024, hidden_size: int = 32, layers: int = 2, seed: int = 0
) -> Path:
    """Write a tiny random Qwen2-VL model folder (weights, tokenizer, processor, chat template) at `path`.

    Two decoder layers of width 32, a one-block vision tower of width 16, a ~1k-token byte-level BPE
    vocabulary: a forward pass over a few thousand tokens takes milliseconds on CPU. Returns `path`.
    """
    import torch
    from transformers import (
        GenerationConfig,
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessorPil,
    )

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(vocab_size)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    heads = 2
    head_dim = hidden_size // heads
    # M-RoPE splits half the head dimension into (temporal, height, width) sections.
    half = head_dim // 2
    mrope = [half - 2 * (half // 3), half // 3, half // 3]
    config = Qwen2VLConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": hidden_size,
            "intermediate_size": 2 * hidden_size,
            "num_hidden_layers": layers,
            "num_attention_heads": heads,
            "num_key_value_heads": 1,
            "max_position_embeddings": 8192,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": mrope},
            "bos_token_id": None,
            "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"],
        },
        vision_config={
            "depth": 1,
            "embed_dim": 16,
            "hidden_size": hidden_size,
            "num_heads": 2,
            "mlp_ratio": 2,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "in_channels": 3,
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(seed)
    model = Qwen2VLForConditionalGeneration(config)
    model.generation_config = GenerationConfig(
        eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], do_sample=True
    )
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    Qwen2VLImageProcessorPil(min_pixels=MIN_PIXELS, max_pixels=MAX_PIXELS).save_pretrained(path)
    (path / "chat_template.jinja").write_text(CHAT_TEMPLATE, encoding="utf-8")
    (path / f"{PROCESSOR_MODULE}.py").write_text(PROCESSOR_SOURCE, encoding="utf-8")
    (path / "processor_config.json").write_text(
        json.dumps(
            {
                "processor_class": "TinyQwen2VLProcessor",
                "auto_map": {"AutoProcessor": f"{PROCESSOR_MODULE}.TinyQwen2VLProcessor"},
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    return path


def load_processor(path: str | Path):
    """The folder's processor without transformers' remote-code module cache (same class, imported here)."""
    from transformers import AutoImageProcessor, AutoTokenizer

    namespace: dict = {}
    exec(compile(PROCESSOR_SOURCE, f"{PROCESSOR_MODULE}.py", "exec"), namespace)  # noqa: S102 - our own source
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    image_processor = AutoImageProcessor.from_pretrained(path, local_files_only=True)
    chat_template = (Path(path) / "chat_template.jinja").read_text(encoding="utf-8")
    return namespace["TinyQwen2VLProcessor"](
        image_processor=image_processor, tokenizer=tokenizer, chat_template=chat_template
    )
