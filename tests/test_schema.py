import pytest
from pydantic import ValidationError

from vcot.schema import AnswerType, Instance, Step, option_letters


def _inst(**kw):
    base = dict(
        uid="u1",
        task="convex_hull",
        domain="EG",
        question="How many?",
        image="images/a.png",
        answer="3",
        answer_type="integer",
        steps=[{"image": "images/a_1.png", "text": "hull drawn"}],
        meta={"scene": {"points": [[1, 2], [3, 4]], "nested": {"x": 1.5, "ok": True, "none": None}}},
    )
    base.update(kw)
    return Instance.model_validate(base)


def test_json_round_trip_is_lossless():
    inst = _inst(options=None, corrupted_steps=[{"image": "images/a_c1.png", "text": "wrong hull"}])
    again = Instance.from_json(inst.to_json())
    assert again == inst
    assert again.to_json() == inst.to_json()
    assert again.meta["scene"]["nested"]["x"] == 1.5


def test_unicode_survives_round_trip():
    inst = _inst(question="Wie viele Punkte? — 点の数 ≥ 3")
    assert Instance.from_json(inst.to_json()).question == inst.question


def test_answer_types_are_the_spec_list():
    assert {t.value for t in AnswerType} == {
        "integer",
        "number",
        "choice",
        "text",
        "time",
        "coordinates",
        "set",
        "pair",
        "direction",
    }


@pytest.mark.parametrize("field,value", [("answer_type", "float"), ("uid", ""), ("question", ""), ("answer", "")])
def test_invalid_fields_rejected(field, value):
    with pytest.raises(ValidationError):
        _inst(**{field: value})


def test_unknown_field_rejected():
    with pytest.raises(ValidationError):
        _inst(colour="red")


@pytest.mark.parametrize("path", ["/abs/a.png", "../a.png", "images/../../a.png", "images\\a.png", "C:/a.png"])
def test_image_paths_must_stay_inside(path):
    with pytest.raises(ValidationError):
        _inst(image=path)
    with pytest.raises(ValidationError):
        Step(image=path, text="x")


def test_choice_needs_options_and_letter_answer():
    ok = _inst(answer_type="choice", answer="B", options=["red", "blue", "green"])
    assert ok.options == ["red", "blue", "green"]
    with pytest.raises(ValidationError):
        _inst(answer_type="choice", answer="B", options=None)
    with pytest.raises(ValidationError):
        _inst(answer_type="choice", answer="D", options=["red", "blue", "green"])


def test_option_letters():
    assert option_letters(4) == ["A", "B", "C", "D"]
    with pytest.raises(ValueError):
        option_letters(0)


def test_image_paths_lists_all():
    inst = _inst(corrupted_steps=[{"image": "images/c.png", "text": "t"}])
    assert inst.image_paths() == ["images/a.png", "images/a_1.png", "images/c.png"]
