"""Human-validation page: storage, strict form validation, blinding, path safety, sampling, agreement, and a
real headless-Chromium round trip (score entered in the browser → SQLite → /agreement)."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from browser_support import launch, require_browser
from vcot.annotate import (
    ANNOTATIONS_DB,
    AnnotationApp,
    AnnotationServer,
    AnnotationStore,
    agreement_report,
    item_key,
    load_process_scores,
    sample_trajectories,
)
from vcot.draw.png import encode_png
from vcot.engine.trajectories import TRAJ_DIR, TRAJ_FILE, Trajectory, TrajectoryStep, read_trajectories
from vcot.schema import Instance
from vcot.scoring.process_judge import ProcessScore
from vcot.suite import read_suite, write_suite
from vcot.tasks.base import Sample

XSS = "<script>alert(1)</script>"
MODEL = "secret-model-A"
RUN = "run42"


def _png(color: tuple[int, int, int], size: int = 24) -> bytes:
    return encode_png(Image.new("RGB", (size, size), color))


def _tid(cond: str, uid: str) -> str:
    return f"{RUN}|{MODEL}|{cond}|{uid}|0"


def _traj(cond: str, uid: str, text: str, digest: str | None, corruption: str | None = None) -> Trajectory:
    act: dict[str, Any] = {
        "call_id": "c0",
        "action": {"action": "draw_line", "from": [1, 2], "to": [20, 20]},
        "returned_image": digest,
    }
    if corruption:
        act["corruption"] = corruption
    steps = [
        TrajectoryStep(turn=1, model_text=text, actions=[act]),
        TrajectoryStep(turn=2, model_text="So the answer is <answer>5</answer>"),
    ]
    return Trajectory(
        _tid(cond, uid),
        RUN,
        MODEL,
        cond,
        uid,
        0,
        "convex_hull",
        "EG",
        f"How many hull vertices ({uid})?",
        "5",
        "<answer>5</answer>",
        f"images/{uid}.png",
        steps,
        corruption,
    )


@pytest.fixture
def run(tmp_path: Path) -> dict[str, Any]:
    """A run folder with 4 trajectories (3 conditions), content-addressed returned images, a suite, and judge
    verdicts in process_scores.jsonl."""
    suite_dir, run_dir = tmp_path / "suite", tmp_path / "run"
    samples = [
        Sample(
            Instance(
                uid=u,
                task="convex_hull",
                domain="EG",
                question=f"How many hull vertices ({u})?",
                image=f"images/{u}.png",
                answer="5",
                answer_type="integer",
            ),
            {f"images/{u}.png": Image.new("RGB", (32, 32), (200, 220, 255))},
        )
        for u in ("u1", "u2")
    ]
    write_suite(suite_dir, "annotate-test", samples)
    img_dir = run_dir / TRAJ_DIR / "images"
    img_dir.mkdir(parents=True)
    digests = []
    for color in ((255, 0, 0), (0, 128, 0), (0, 0, 255)):
        data = _png(color)
        digest = hashlib.sha256(data).hexdigest()
        (img_dir / f"{digest}.png").write_bytes(data)
        digests.append(digest)
    trajs = [
        _traj("vaot", "u1", f"Let me draw. {XSS} & <b>bold</b>", digests[0]),
        _traj("vaot_wrongrender", "u1", "Drawing the hull edge.", digests[1], "modify_key: vertex moved"),
        _traj("vaot_norender", "u1", "Drawing, nothing comes back.", None),
        _traj("vaot", "u2", "Zooming in.", digests[2]),
    ]
    (run_dir / TRAJ_DIR / TRAJ_FILE).write_text("".join(t.to_json() + "\n" for t in trajs), encoding="utf-8")
    scores = [
        ProcessScore(trajs[0].trajectory_id, "judge-x", 1, 0, 1.0, 1.0, 0.5, "fine"),
        ProcessScore(trajs[1].trajectory_id, "judge-x", 1, 0, 1.0, 0.0, 1.0, "wrong render"),
        ProcessScore(trajs[2].trajectory_id, "judge-x", None, None, None, None, None, "", error="timeout"),
    ]
    (run_dir / "process_scores.jsonl").write_text("".join(json.dumps(asdict(s)) + "\n" for s in scores))
    return {"run_dir": run_dir, "suite_dir": suite_dir, "trajs": read_trajectories(run_dir), "digests": digests}


@pytest.fixture
def server(run: dict[str, Any]) -> Iterator[AnnotationServer]:
    app = AnnotationApp(run["run_dir"], read_suite(run["suite_dir"]), sample_trajectories(run["trajs"], 10, seed=0))
    with AnnotationServer(app) as srv:
        yield srv


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _post(url: str, body: str | bytes, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(
        url, data=data, method="POST", headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})}
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(req, timeout=10) as resp:
            return resp.status, dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


# ----------------------------------------------------------------------------------------------- no browser


def test_store_upserts_one_row_per_annotator_and_trajectory(tmp_path: Path) -> None:
    store = AnnotationStore(tmp_path / ANNOTATIONS_DB)
    store.put("ann", "t1", 1.0, 0.5, 0.0, "first", timestamp=1.0)
    store.put("ann", "t1", 0.0, 0.0, 1.0, "second", timestamp=2.0)
    store.put("other", "t1", 1.0, 1.0, 1.0)
    rows = store.all()
    assert len(rows) == 2
    mine = store.get("ann", "t1")
    assert mine is not None and (mine.ar, mine.rf, mine.fu, mine.note, mine.timestamp) == (0.0, 0.0, 1.0, "second", 2.0)
    with pytest.raises(ValueError):
        store.put("ann", "t2", 0.7, 0.0, 0.0)
    with pytest.raises(ValueError):
        store.put("  ", "t2", 0.0, 0.0, 0.0)


def test_sampling_is_deterministic_and_balanced(run: dict[str, Any]) -> None:
    trajs = [
        replace(
            run["trajs"][i % 4],
            trajectory_id=f"id{i:03d}",
            condition=("vaot", "vaot_wrongrender", "vaot_norender")[i % 3] if i < 90 else "vaot",
        )
        for i in range(120)
    ]  # 30 + 30 + 60 per condition
    a = sample_trajectories(trajs, 30, seed=7)
    b = sample_trajectories(list(reversed(trajs)), 30, seed=7)  # input order must not matter
    assert [t.trajectory_id for t in a] == [t.trajectory_id for t in b]
    assert len({t.trajectory_id for t in a}) == 30
    assert Counter(t.condition for t in a) == {"vaot": 10, "vaot_wrongrender": 10, "vaot_norender": 10}
    assert [t.trajectory_id for t in sample_trajectories(trajs, 30, seed=8)] != [t.trajectory_id for t in a]
    # When a condition runs out the others fill the sample; asking for more than exists gives everything.
    few = [t for t in trajs if t.condition != "vaot_norender"][:40] + [
        t for t in trajs if t.condition == "vaot_norender"
    ][:2]
    picked = sample_trajectories(few, 20, seed=0)
    assert len(picked) == 20 and Counter(t.condition for t in picked)["vaot_norender"] == 2
    assert len(sample_trajectories(trajs, 1000, seed=0)) == 120
    assert sample_trajectories(trajs, 0) == []


def test_process_scores_loader(tmp_path: Path, run: dict[str, Any]) -> None:
    scores = load_process_scores(run["run_dir"] / "process_scores.jsonl")
    assert [(s.judge_model, s.ar, s.rf, s.fu, s.error) for s in scores] == [
        ("judge-x", 1.0, 1.0, 0.5, None),
        ("judge-x", 1.0, 0.0, 1.0, None),
        ("judge-x", None, None, None, "timeout"),
    ]
    assert load_process_scores(tmp_path / "missing.jsonl") == []
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"trajectory_id": "a", "ar": 1, "rf": 1, "fu": 1}\n{"trajectory_id": "b", "ar": 0.7}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: ar"):
        load_process_scores(bad)
    bad.write_text("not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: malformed JSON"):
        load_process_scores(bad)


def test_agreement_report_hand_computed() -> None:
    import pandas as pd

    human = pd.DataFrame(
        [
            {"annotator": "a", "trajectory_id": "t1", "ar": 1.0, "rf": 0.5, "fu": 0.0},
            {"annotator": "a", "trajectory_id": "t2", "ar": 0.0, "rf": 0.0, "fu": 1.0},
            {"annotator": "b", "trajectory_id": "t1", "ar": 1.0, "rf": 1.0, "fu": 1.0},
            {"annotator": "b", "trajectory_id": "t3", "ar": 1.0, "rf": 1.0, "fu": 1.0},  # judge failed on t3
        ]
    )
    judge = [
        ProcessScore("t1", "j", 1, 0, 1.0, 1.0, 0.5, ""),
        ProcessScore("t2", "j", 1, 0, 0.5, 0.0, 1.0, ""),
        ProcessScore("t3", "j", None, None, None, None, None, "", error="boom"),
    ]
    rep = agreement_report(human, judge)
    pooled = next(t for t in rep["tables"] if t["annotator"] == "all")
    by_dim = {r["dimension"]: r for r in pooled["rows"]}
    # pairs (human, judge): ar (1,1) (0,.5) (1,1); rf (.5,1) (0,0) (1,1); fu (0,.5) (1,1) (1,.5)
    assert by_dim["ar"] == {"dimension": "ar", "n": 3, "strict": 2 / 3, "partial": 1.0}
    assert by_dim["rf"] == {"dimension": "rf", "n": 3, "strict": 2 / 3, "partial": 1.0}
    assert by_dim["fu"] == {"dimension": "fu", "n": 3, "strict": 1 / 3, "partial": 1.0}
    per_a = next(t for t in rep["tables"] if t["annotator"] == "a")
    assert {r["dimension"]: r["n"] for r in per_a["rows"]} == {"ar": 2, "rf": 2, "fu": 2}
    empty = agreement_report(human.iloc[0:0], judge)
    assert empty["tables"][0]["rows"][0] == {"dimension": "ar", "n": 0, "strict": None, "partial": None}


def test_pages_escape_model_text_and_stay_blind(server: AnnotationServer, run: dict[str, Any]) -> None:
    status, index = _get(server.url)
    assert status == 200 and "0 / 4 trajectories scored" in index
    pages = [index]
    for t in run["trajs"]:
        status, page = _get(f"{server.url}t/{item_key(t.trajectory_id)}")
        assert status == 200
        assert t.question in page and "<answer>" not in page and "&lt;answer&gt;5&lt;/answer&gt;" in page
        pages.append(page)
    xss_page = pages[1 + [t.condition for t in run["trajs"]].index("vaot")]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in xss_page
    for page in pages:
        assert "<script" not in page.lower()
        for secret in (MODEL, RUN, "vaot_wrongrender", "vaot_norender", "modify_key", "corruption", "|"):
            assert secret not in page, secret
    # The no-render trajectory says so instead of showing an image.
    norender = pages[1 + [t.condition for t in run["trajs"]].index("vaot_norender")]
    assert "No image was returned after action 0" in norender
    # Returned and input images are served.
    for d in run["digests"]:
        with urllib.request.urlopen(f"{server.url}img/{d}.png", timeout=10) as resp:
            assert resp.headers["Content-Type"] == "image/png" and resp.read().startswith(b"\x89PNG")
    with urllib.request.urlopen(f"{server.url}input/{item_key(run['trajs'][0].trajectory_id)}", timeout=10) as resp:
        assert resp.read().startswith(b"\x89PNG")
    with urllib.request.urlopen(server.url, timeout=10) as resp:
        assert "script-src" not in resp.headers["Content-Security-Policy"]  # default-src 'none' forbids scripts


def test_paths_outside_the_image_folders_are_refused(
    server: AnnotationServer, run: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("top secret")
    stray = hashlib.sha256(b"x").hexdigest()  # valid digest shape, but no sampled trajectory references it
    (run["run_dir"] / TRAJ_DIR / "images" / f"{stray}.png").write_bytes(_png((1, 2, 3)))
    for path in (
        "img/../../process_scores.jsonl",
        "img/%2e%2e%2f%2e%2e%2fprocess_scores.jsonl",
        f"img/{run['digests'][0].upper()}.png",
        f"img/{run['digests'][0][:-1]}.png",
        f"img/{stray}.png",
        "img/..%2f..%2f..%2fsecret.txt",
        "input/../../secret.txt",
        "input/..%2f..%2fsecret.txt",
        "input/0000000000000000",
        "t/0000000000000000",
        "t/../annotations.sqlite",
        "annotations.sqlite",
        "trajectories/trajectories.jsonl",
        "etc/passwd",
    ):
        status, body = _get(server.url + path)
        assert status in (400, 404), path
        assert "top secret" not in body and "judge-x" not in body
    # A trajectory whose stored input path leaves the suite folder gets a 404, not the file.
    evil = replace(run["trajs"][0], trajectory_id="evil", input_image="../secret.txt")
    app = AnnotationApp(run["run_dir"], read_suite(run["suite_dir"]), [evil])
    with AnnotationServer(app) as srv:
        assert _get(f"{srv.url}input/{item_key('evil')}")[0] == 404


def test_post_validation_and_storage(server: AnnotationServer, run: dict[str, Any]) -> None:
    t = run["trajs"][0]
    url = f"{server.url}t/{item_key(t.trajectory_id)}"
    good = "ar=1&rf=0.5&fu=0&annotator=alice&note=looks+fine"
    for body in (
        "ar=2&rf=0.5&fu=0&annotator=alice",
        "ar=1.0&rf=0.5&fu=0&annotator=alice",
        "ar=0.50&rf=0.5&fu=0&annotator=alice",
        "ar=&rf=0.5&fu=0&annotator=alice",
        "ar=1e0&rf=0.5&fu=0&annotator=alice",
        "ar=nan&rf=0.5&fu=0&annotator=alice",
        "ar=-0&rf=0.5&fu=0&annotator=alice",
        "ar=%201&rf=0.5&fu=0&annotator=alice",
        "rf=0.5&fu=0&annotator=alice",
        "ar=1&ar=0&rf=0.5&fu=0&annotator=alice",
        "ar=1&rf=0.5&fu=0&annotator=",
        "ar=1&rf=0.5&fu=0",
        "ar=1&rf=0.5&fu=0&annotator=a%0Ab",
        good + "&model=x",
        good + "&note=" + "x" * 5000,
        "",
        "garbage",
        b"ar=1&rf=0.5&fu=0&annotator=\xff",
    ):
        assert _post(url, body)[0] == 400, body
    assert _post(url, good, {"Content-Type": "application/json"})[0] == 400
    assert _post(url, good, {"Origin": "http://evil.example"})[0] == 403
    assert _post(url, good, {"Origin": "null"})[0] == 403  # what a sandboxed foreign frame sends
    assert _post(f"{server.url}t/0000000000000000", good)[0] == 404
    assert server.app.store.all() == []

    status, headers = _post(url, good, {"Origin": server.url.rstrip("/")})
    assert status == 303 and "annotator=alice" in headers["Location"] and "/t/" in headers["Location"]
    rows = server.app.store.all()
    assert [(r.annotator, r.trajectory_id, r.ar, r.rf, r.fu, r.note) for r in rows] == [
        ("alice", t.trajectory_id, 1.0, 0.5, 0.0, "looks fine")
    ]
    # Re-submitting updates the row; the page shows the saved choice back to the same annotator.
    assert _post(url, "ar=0&rf=1&fu=1&annotator=alice")[0] == 303
    rows = server.app.store.all()
    assert len(rows) == 1 and (rows[0].ar, rows[0].rf, rows[0].fu, rows[0].note) == (0.0, 1.0, 1.0, "")
    page = _get(url + "?annotator=alice")[1]
    assert 'id="ar-0" value="0" checked' in page and 'id="rf-1" value="1" checked' in page
    assert "1 / 4 trajectories scored" in _get(server.url + "?annotator=alice")[1]


def test_agreement_json_reflects_annotations(server: AnnotationServer, run: dict[str, Any]) -> None:
    def table() -> dict[str, Any]:
        rep = json.loads(_get(server.url + "agreement.json")[1])
        return {r["dimension"]: r for r in rep["tables"][0]["rows"]}

    assert table()["ar"]["n"] == 0
    wrong = run["trajs"][1]  # judge: ar 1, rf 0, fu 1
    assert _post(f"{server.url}t/{item_key(wrong.trajectory_id)}", "ar=1&rf=0.5&fu=0&annotator=bob")[0] == 303
    after = table()
    assert after["ar"] == {"dimension": "ar", "n": 1, "strict": 1.0, "partial": 1.0}
    assert after["rf"] == {"dimension": "rf", "n": 1, "strict": 0.0, "partial": 1.0}
    assert after["fu"] == {"dimension": "fu", "n": 1, "strict": 0.0, "partial": 0.0}
    # The judge failed on the no-render trajectory: a human score there adds no pair.
    norender = run["trajs"][2]
    assert _post(f"{server.url}t/{item_key(norender.trajectory_id)}", "ar=1&rf=0&fu=0&annotator=bob")[0] == 303
    assert table()["ar"]["n"] == 1


def test_cli_prints_url_and_serves(run: dict[str, Any]) -> None:
    # Through the `vcot` command itself, so the test follows the command wherever its module lives.
    cmd = [
        sys.executable,
        "-m",
        "vcot.cli",
        "annotate",
        str(run["run_dir"]),
        "--suite",
        str(run["suite_dir"]),
        "--port",
        "0",
        "--sample",
        "3",
        "--seed",
        "1",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = ""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if line.startswith("http://127.0.0.1:"):
                url = line.strip()
                break
        assert url, proc.stderr.read() if proc.poll() is not None else "no URL printed"  # type: ignore[union-attr]
        status, page = _get(url)
        assert status == 200 and "0 / 3 trajectories scored" in page
    finally:
        proc.send_signal(signal.SIGINT)  # the documented way to stop it
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0


# -------------------------------------------------------------------------------------------------- browser


def test_score_entered_in_headless_chromium_reaches_sqlite_and_agreement(
    server: AnnotationServer, run: dict[str, Any]
) -> None:
    require_browser()
    from playwright.sync_api import sync_playwright

    target = run["trajs"][0]  # the trajectory with <script> in its model text; judge: ar 1, rf 1, fu 0.5
    problems: list[str] = []
    dialogs: list[str] = []
    with sync_playwright() as p:
        browser = launch(p)
        try:
            page = browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            # Anything not served by our server (a CDN, a font) would be a network use at view time.
            page.on("request", lambda r: None if r.url.startswith(server.url) else problems.append(f"external {r.url}"))

            page.goto(server.url + "agreement")
            assert page.locator('table[data-annotator="all"] tr[data-dim="ar"] td.n').inner_text() == "0"

            page.goto(server.url)
            assert "0 / 4 trajectories scored" in page.locator("#progress").inner_text()
            key = item_key(target.trajectory_id)
            page.click(f'a[href="/t/{key}"]')
            page.wait_for_load_state("load")
            assert XSS in page.locator(".model-text").first.inner_text()
            assert page.locator("script").count() == 0 and not dialogs
            # Every image (input and returned) decoded in the browser.
            sizes = page.eval_on_selector_all("img", "els => els.map(e => [e.complete, e.naturalWidth])")
            assert len(sizes) == 2 and all(done and w > 0 for done, w in sizes), sizes
            assert MODEL not in page.content() and "vaot_" not in page.content()

            page.check("#ar-1")
            page.check("#rf-0_5")
            page.check("#fu-0_5")
            page.fill("#note", "edge drawn where asked")
            page.fill("#annotator", "carol")
            with page.expect_navigation():
                page.click("#submit")
            assert "/t/" in page.url and "annotator=carol" in page.url  # on to the next unscored item

            row = server.app.store.get("carol", target.trajectory_id)
            assert row is not None and (row.ar, row.rf, row.fu, row.note) == (1.0, 0.5, 0.5, "edge drawn where asked")

            page.goto(server.url + "agreement")
            cells = {
                dim: [
                    page.locator(f'table[data-annotator="all"] tr[data-dim="{dim}"] td.{c}').inner_text()
                    for c in ("n", "strict", "partial")
                ]
                for dim in ("ar", "rf", "fu")
            }
            assert cells == {
                "ar": ["1", "1.000", "1.000"],
                "rf": ["1", "0.000", "1.000"],
                "fu": ["1", "1.000", "1.000"],
            }

            # An out-of-range value sent from the page's own origin is still refused.
            resp = page.request.post(
                f"{server.url}t/{key}", form={"ar": "2", "rf": "0", "fu": "0", "annotator": "carol"}
            )
            assert resp.status == 400
            assert server.app.store.get("carol", target.trajectory_id).ar == 1.0  # type: ignore[union-attr]
        finally:
            browser.close()
    assert not problems, problems
    assert not dialogs, dialogs
