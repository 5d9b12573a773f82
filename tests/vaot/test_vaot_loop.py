"""The VAoT closed loop over real HTTP: a scripted tool-calling policy on the local mock server.

Checks what the model actually receives: in `vaot` the returned images are byte-identical to the
renderer's output, `vaot_norender` returns none, `vaot_wrongrender` returns corrupted images and the
results say which corruption; invalid actions get an error message and the sample goes on.
"""

from __future__ import annotations

import hashlib
import io
import json

import pyarrow.parquet as pq
from PIL import Image

from vaot_fixtures import SCRIPT, VAOT
from vcot.draw.png import encode_png
from vcot.engine.trajectories import read_trajectories, rebuild_trajectories, returned_image_path
from vcot.suite import read_suite
from vcot.vaot.actions import validate_action
from vcot.vaot.render import apply_action, bound_size


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _expected_returned(suite_dir, uid: str) -> list[str]:
    """sha256 of the PNG bytes our renderer produces for the script, action by action."""
    suite = read_suite(suite_dir)
    inst = suite.get(uid)
    state = Image.open(io.BytesIO(suite.image_path(inst.image).read_bytes())).convert("RGB")
    shas = []
    for turn in SCRIPT:
        for call in turn:
            try:
                action = validate_action(call["name"], json.dumps(call["arguments"]), *state.size)
            except ValueError:
                continue  # rejected actions return no image
            state, view = apply_action(state, action)
            shas.append(_sha(encode_png(bound_size(view))))
    return shas


def test_vaot_returns_exactly_the_rendered_images(vaot_run):
    suite_dir, result, received = vaot_run
    assert result.progress.errors == 0 and result.progress.done == 2 * 3
    suite = read_suite(suite_dir)
    for inst in suite.instances:
        input_sha = _sha(suite.image_path(inst.image).read_bytes())
        last = max((r for r in received if r["uid"] == inst.uid and r["condition"] == "vaot"), key=lambda r: r["turn"])
        assert last["turn"] == 2
        assert last["sha256"][0] == input_sha
        assert last["sha256"][1:] == _expected_returned(suite_dir, inst.uid)


def test_norender_returns_no_image(vaot_run):
    _, _, received = vaot_run
    rows = [r for r in received if r["condition"] == "vaot_norender"]
    assert {r["turn"] for r in rows} == {0, 1, 2}
    assert all(len(r["sha256"]) == 1 for r in rows)


def test_wrongrender_returns_corrupted_images_and_says_which(vaot_run):
    suite_dir, result, received = vaot_run
    table = pq.read_table(result.results_path).to_pylist()
    for inst in read_suite(suite_dir).instances:
        faithful = _expected_returned(suite_dir, inst.uid)
        last = max(
            (r for r in received if r["uid"] == inst.uid and r["condition"] == "vaot_wrongrender"),
            key=lambda r: r["turn"],
        )
        got = last["sha256"][1:]
        assert len(got) == len(faithful) == 4
        assert all(g != f for g, f in zip(got, faithful, strict=True))
        row = next(r for r in table if r["uid"] == inst.uid and r["condition"] == "vaot_wrongrender")
        episode = json.loads(row["episode"])
        assert len(episode["vaot"]["corruptions"]) == 4
        assert all(c.startswith("modify_key") for c in episode["vaot"]["corruptions"])
        clean = next(r for r in table if r["uid"] == inst.uid and r["condition"] == "vaot")
        assert json.loads(clean["episode"])["vaot"]["corruptions"] == []


def test_invalid_actions_get_errors_and_trajectories_rebuild(vaot_run):
    suite_dir, result, _ = vaot_run
    rebuild_trajectories(result.run_dir, read_suite(suite_dir))
    trajs = read_trajectories(result.run_dir)
    assert {t.condition for t in trajs} == set(VAOT) and len(trajs) == 6
    for t in trajs:
        second = t.steps[1]
        assert len(second.actions) == 2 and len(second.errors) == 2
        assert any("unknown action 'teleport'" in e for e in second.errors)
        assert t.final_response.endswith(f"<answer>{t.reference}</answer>")
        for step in t.steps:
            for act in step.actions:
                if t.condition == "vaot_norender":
                    assert act.get("returned_image") is None
                else:
                    assert returned_image_path(result.run_dir, act["returned_image"]).is_file()


def test_replay_stops_when_a_returned_image_differs_from_the_record(vaot_run, tmp_path):
    import shutil
    import sqlite3

    import pytest

    from vcot.engine.store import STORE_NAME
    from vcot.engine.trajectories import ReplayMismatch

    suite_dir, result, _ = vaot_run
    run = tmp_path / "run"
    shutil.copytree(result.run_dir, run)
    db = sqlite3.connect(run / STORE_NAME)
    uid, episode = db.execute("SELECT uid, episode FROM samples WHERE condition='vaot' LIMIT 1").fetchone()
    record = json.loads(episode)
    record["vaot"]["steps"][0]["actions"][0]["returned_image"] = "0" * 64
    db.execute("UPDATE samples SET episode=? WHERE condition='vaot' AND uid=?", (json.dumps(record), uid))
    db.commit()
    db.close()
    with pytest.raises(ReplayMismatch, match=f"vaot / {uid}.*recorded returned_image '0000"):
        rebuild_trajectories(run, read_suite(suite_dir))
