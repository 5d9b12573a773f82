"""Conditions build MIRA's messages (images first, exact wording), apply the image policy and record it."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from vcot.conditions import PROMPT_VERSION, ConditionError, build_prompt, check_servable
from vcot.conditions.single_turn import SINGLE_TURN as CONDITIONS
from vcot.engine.clients.openai_compat import to_openai_messages
from vcot.images import ImageCache, ImagePolicy, SuiteImages
from vcot.messages import ImagePart, Message, TextPart, ToolCall, user
from vcot.prompts.templates import format_question
from vcot.prompts.text_cot_spec import GUIDES
from vcot.suite import read_suite
from vcot.tasks.catalog import MIRA_TASKS

MIRA_DIRECT = (
    "Question: {q}\n\nPlease provide the final answer directly. The final answer is placed in <answer></answer>."
)
MIRA_TEXT_COT = (
    "Question: {q}\n\nPlease first conduct step-by-step reasoning, and then provide the final answer. "
    "The final answer is placed in <answer></answer>."
)
MIRA_VISUAL_COT = (
    "Based on the question image and the intermediate reasoning image(s) provided, please continue "
    "the reasoning to solve the problem.\n\nQuestion: {q}\n\nThe final answer is placed in "
    "<answer></answer>."
)


@pytest.fixture(scope="module")
def suite(suite_small):
    return read_suite(suite_small)


def _layout(prompt):
    (msg,) = prompt.messages
    assert msg.role == "user"
    kinds = ["I" if isinstance(p, ImagePart) else "T" for p in msg.parts]
    return msg, kinds


def test_every_condition_builds_images_first_with_mira_wording(suite):
    images = SuiteImages(suite)
    inst = suite.instances[1]  # a choice instance with two steps and one corrupted step
    q = format_question(inst)
    assert "Options:\nA. the red pair\nB. the blue pair" in q
    expected = {
        "direct": (["I", "T"], MIRA_DIRECT.format(q=q), [inst.image]),
        "text_cot": (["I", "T"], MIRA_TEXT_COT.format(q=q), [inst.image]),
        "visual_cot": (["I", "I", "I", "T"], MIRA_VISUAL_COT.format(q=q), [inst.image] + [s.image for s in inst.steps]),
        "visual_cot_corrupted": (
            ["I", "I", "T"],
            MIRA_VISUAL_COT.format(q=q),
            [inst.image] + [s.image for s in inst.corrupted_steps],
        ),
    }
    for cond, (kinds, text, paths) in expected.items():
        prompt = build_prompt(inst, cond, images)
        msg, got = _layout(prompt)
        assert got == kinds, cond
        assert msg.parts[-1].text == text, cond
        assert [r["path"] for r in prompt.images] == paths, cond
    spec = build_prompt(inst, "text_cot_spec", images)
    msg, kinds = _layout(spec)
    assert kinds == ["I", "T"]
    assert (
        msg.text == f"Question: {q}\n\n{GUIDES['overlap']}\n\nPlease first conduct step-by-step reasoning, and "
        "then provide the final answer. The final answer is placed in <answer></answer>."
    )
    state = build_prompt(inst, "text_state_cot", images)
    msg, kinds = _layout(state)
    assert kinds == ["I", "T"]
    assert "Step 1: first state of item 1\nStep 2: second state of item 1" in msg.text
    assert msg.text.endswith(f"Question: {q}\n\nThe final answer is placed in <answer></answer>.")
    cap = build_prompt(inst, "caption_only", images)
    msg, kinds = _layout(cap)
    assert kinds == ["T"] and msg.text.startswith("Image description: A picture for item 1.\n\nQuestion: ")
    assert set(CONDITIONS) == {
        "direct",
        "text_cot",
        "text_cot_spec",
        "visual_cot",
        "text_state_cot",
        "visual_cot_corrupted",
        "caption_only",
        "question_only",
    }


def test_guides_cover_every_registered_task_and_never_state_answers():
    from vcot.tasks import task_names

    assert set(MIRA_TASKS) <= set(GUIDES) and set(GUIDES) == set(task_names()) - {"toy_dots"}
    assert len(set(GUIDES.values())) == len(GUIDES)
    for task, guide in GUIDES.items():
        assert len(guide) > 150, task
        assert "<answer>" not in guide and "the answer is" not in guide.lower(), task
    assert PROMPT_VERSION.startswith("2+")


def test_prompt_version_covers_every_vaot_text_and_tool_spec(monkeypatch):
    """A run's identity must change when anything the VAoT episode can send changes."""
    import vcot.conditions as conditions
    import vcot.vaot.episode as episode

    before = conditions._prompt_version()
    for name in (
        "VAOT_PROMPT",
        "RENDER_ACK",
        "NORENDER_ACK",
        "ZOOM_ACK",
        "BUDGET_NOTE",
        "NO_ACTION_REMINDER",
        "REJECTED_PREFIX",
        "COORDINATE_NOTE",
    ):
        with monkeypatch.context() as m:
            m.setattr(episode, name, getattr(episode, name) + " (edited)")
            assert conditions._prompt_version() != before, name
    real = episode.tool_definitions
    with monkeypatch.context() as m:
        m.setattr(episode, "tool_definitions", lambda: [*real()[:-1], {"edited": True}])
        assert conditions._prompt_version() != before
    assert conditions._prompt_version() == before


def test_size_policy_applied_recorded_and_encoded_once(suite):
    cache = ImageCache(ImagePolicy(max_side=2000))
    images = SuiteImages(suite, cache=cache)
    big = suite.instances[0]  # its input image is 3000 x 1000
    prompt = build_prompt(big, "direct", images)
    rec = prompt.images[0]
    assert (rec["orig_width"], rec["orig_height"]) == (3000, 1000)
    assert (rec["width"], rec["height"]) == (2000, 667) and rec["resized"] is True
    sent = prompt.messages[0].parts[0].image
    decoded = Image.open(io.BytesIO(base64.b64decode(sent.b64)))
    assert decoded.size == (2000, 667)
    small = build_prompt(big, "visual_cot", images).images[1]
    assert small["resized"] is False and small["width"] == 64
    misses = cache.misses
    for cond in ("text_cot", "visual_cot", "visual_cot_corrupted", "direct"):
        build_prompt(big, cond, images)
    assert cache.misses == misses + 1  # only the corrupted step image was new
    # A different policy encodes differently.
    tiny = SuiteImages(suite, ImagePolicy(max_side=500, format="jpeg"))
    rec = build_prompt(big, "direct", tiny).images[0]
    assert (rec["width"], rec["height"], rec["mime"]) == (500, 167, "image/jpeg")


def test_unservable_condition_is_refused(suite):
    inst = suite.instances[2].model_copy(update={"steps": [], "corrupted_steps": []})
    with pytest.raises(ConditionError, match="no visual chain-of-thought steps"):
        build_prompt(inst, "visual_cot", SuiteImages(suite))
    with pytest.raises(ConditionError, match=rf"'visual_cot_corrupted' cannot be served for 1 of 2 .*{inst.uid}"):
        check_servable([suite.instances[0], inst], ["direct", "visual_cot_corrupted"])
    odd = inst.model_copy(update={"task": "not_a_mira_task"})
    with pytest.raises(ConditionError, match="no task-specific guide"):
        check_servable([odd], ["text_cot_spec"])


def test_tool_images_travel_in_a_user_message_after_the_tool_messages(suite):
    img = SuiteImages(suite)(suite.instances[0].steps[0].image)
    calls = [ToolCall("c1", "draw_line", '{"x": 1}'), ToolCall("c2", "zoom", "{}")]
    messages = [
        user(ImagePart(img), "Question"),
        Message("assistant", [TextPart("let me draw")], tool_calls=calls),
        Message("tool", [TextPart("drawn"), ImagePart(img)], tool_call_id="c1"),
        Message("tool", [TextPart("zoomed"), ImagePart(img)], tool_call_id="c2"),
    ]
    out = to_openai_messages(messages)
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "user"]
    assert out[1]["tool_calls"][0]["function"] == {"name": "draw_line", "arguments": '{"x": 1}'}
    assert all(isinstance(m["content"], str) for m in out[2:4])  # no images inside tool results
    kinds = [p["type"] for p in out[4]["content"]]
    assert kinds == ["text", "image_url", "text", "image_url"]
    assert out[4]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert out[0]["content"][0]["type"] == "image_url" and out[0]["content"][1]["type"] == "text"


def test_options_block_rule():
    from vcot.schema import Instance

    def q(question, options):
        return format_question(
            Instance(
                uid="u",
                task="overlap",
                domain="EG",
                question=question,
                image="a.png",
                answer="A",
                answer_type="choice",
                options=options,
            )
        )

    # Pictorial panels: the letters are the options, nothing to add.
    assert "Options:" not in q("Which pair overlaps most? Answer A, B, C or D.", ["A", "B", "C", "D"])
    # A short option text that merely occurs in the question is not "listed": the block is added.
    assert "Options:\nA. red\nB. blue" in q("Which wire is red-hot? A colour word.", ["red", "blue"])
    # Options already listed with their letters are not repeated.
    assert "Options:" not in q("Which colour?\n(A) red\n(B) blue", ["red", "blue"])
