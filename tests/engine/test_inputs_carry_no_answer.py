"""No input carries the answer: every text_state_cot request the engine sends, captured at the server, holds
step texts that never state the answer (`vcot.tasks.answer_leaks`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vcot.build import build_suite, preset_plans
from vcot.engine.mock import spawn_mock_server
from vcot.engine.runner import EvalSpec, run_eval
from vcot.suite import read_suite
from vcot.tasks import get_task_class
from vcot.tasks.answer_leaks import answer_statements
from vcot.tasks.catalog import MIRA_TASKS

STEPS_HEADER = "Intermediate reasoning steps:\n"


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inputs") / "mini"
    # Only the MIRA tasks: the test-only task registered by tests/conftest.py is unknown to the server process.
    build_suite(out, "mini", [p for p in preset_plans("mini", 3) if p.task in MIRA_TASKS])
    return out


def test_text_state_cot_requests_state_no_answer(mini: Path, tmp_path: Path) -> None:
    suite = read_suite(mini, check_images="none")
    server = spawn_mock_server(mini, "--p", "1")
    try:
        server.configure(record_images=True)
        result = run_eval(
            EvalSpec(
                suite=mini,
                model="m",
                base_url=server.base_url,
                conditions=["text_state_cot"],
                run_dir=tmp_path / "run",
                tag_requests=True,
                concurrency=8,
            )
        )
        captured = server.images()
    finally:
        server.stop()
    assert result.progress.done == len(suite)
    seen = set()
    found = []
    for rec in captured:
        inst = suite.get(rec["uid"])
        text = rec["text"]
        assert STEPS_HEADER in text, rec["uid"]
        steps = text.split(STEPS_HEADER, 1)[1].split("\n\nQuestion: ", 1)[0]
        assert steps.strip(), rec["uid"]
        final = bool(get_task_class(inst.task).final_state_shows)
        for line in steps.splitlines():
            found += [f"{inst.uid}: {why}: {line[:120]!r}" for why in answer_statements(line, inst, final)]
        seen.add(inst.uid)
    assert seen == {i.uid for i in suite.instances}
    assert not found, "\n".join(found[:10])
