"""Issue 19's speed-ups must not change what the report shows: thumbnails made by worker processes equal
those made in place, the browser's images are those of the instances it shows, and the memoised cube turns
of the unfolded_cube audit cues give the plain matrix products' counts."""

from __future__ import annotations

import base64
import io
import random
from pathlib import Path

import pytest
from PIL import Image

from vcot.analysis.report import browser_images, instance_images
from vcot.analysis.shortcuts import unfolded_cube as uc
from vcot.analysis.thumbnails import (
    CACHE_ENV,
    MIN_FOR_WORKERS,
    THUMB_SIDE,
    Thumbnails,
    _cache_file,
    cache_dir,
    thumbnail,
)
from vcot.schema import AnswerType, Instance, Step
from vcot.tasks.common import cube_nets as cn


class _Suite:
    """What the thumbnails read of a suite: its images by relative path (and none outside its folder)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def image_path(self, rel: str) -> Path:
        if ".." in rel:
            raise ValueError(f"{rel} escapes the suite folder")
        return self.root / rel


def _images(root: Path, n: int) -> list[str]:
    rng = random.Random(7)
    rels = []
    for k in range(n):
        img = Image.new("RGB", (rng.randrange(300, 900), rng.randrange(200, 700)), (255, 255, 255))
        for _ in range(40):  # some structure, so that resampling has something to get wrong
            x, y = rng.randrange(img.width), rng.randrange(img.height)
            img.paste((rng.randrange(256), rng.randrange(256), rng.randrange(256)), (x, y, x + 25, y + 9))
        rels.append(f"img/{k}.png")
        (root / "img").mkdir(exist_ok=True)
        img.save(root / rels[-1])
    return rels


def _size(uri: str) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).size


def test_worker_thumbnails_equal_those_made_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, "")  # no cache: both ways make every thumbnail
    rels = _images(tmp_path, MIN_FOR_WORKERS + 2)
    suite = _Suite(tmp_path)
    asked = [*reversed(rels), "img/missing.png", "../outside.png", rels[0]]
    with Thumbnails(suite, workers=2) as made:
        made.start(rels)
        assert made._pool is not None  # enough images: the workers do them
        got = made.get(asked)
    with Thumbnails(suite, workers=1) as here:
        assert here.get(asked) == got
        assert here._pool is None
    assert list(got) == list(dict.fromkeys(asked))
    assert got["img/missing.png"] is None and got["../outside.png"] is None
    for rel in rels:
        assert got[rel] == thumbnail(str(tmp_path / rel))
        w, h = Image.open(tmp_path / rel).size
        tw, th = _size(got[rel])
        assert max(tw, th) == min(THUMB_SIDE, max(w, h)) and abs(tw / th - w / h) < 0.02


def test_cached_thumbnails_equal_fresh_ones_and_a_damaged_entry_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "suite").mkdir()
    rels = _images(tmp_path / "suite", 3)
    paths = [str(tmp_path / "suite" / rel) for rel in rels]
    monkeypatch.setenv(CACHE_ENV, "")
    fresh = [thumbnail(p) for p in paths]
    assert cache_dir() is None
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    assert [thumbnail(p) for p in paths] == fresh  # made and stored
    stored = sorted((tmp_path / "cache" / "thumbnails").rglob("*.png"))
    assert len(stored) == 3
    # Served from the cache: a stored entry with valid chunks is what is returned.
    entry = _cache_file(Path(paths[0]).read_bytes(), THUMB_SIDE)
    assert entry in stored
    made = entry.read_bytes()
    buf = io.BytesIO()
    Image.new("RGB", (7, 5)).save(buf, format="PNG")
    entry.write_bytes(buf.getvalue())
    assert _size(thumbnail(paths[0])) == (7, 5)
    for damage in (lambda b: b[:-5], lambda b: b[:60] + bytes([b[60] ^ 1]) + b[61:], lambda b: b"junk"):
        for f in stored:
            f.write_bytes(damage(made if f == entry else f.read_bytes()))
        assert [thumbnail(p) for p in paths] == fresh  # never trusted: made again ...
        assert entry.read_bytes() == made  # ... and the entry replaced
    # The key is the image's bytes: an edited image is not served its old thumbnail.
    Image.new("RGB", (50, 40), (0, 0, 255)).save(paths[0])
    assert thumbnail(paths[0]) != fresh[0] and _size(thumbnail(paths[0])) == (50, 40)


def test_the_browser_shows_the_images_of_its_first_instances_only() -> None:
    def inst(k: int) -> Instance:
        return Instance(
            uid=f"u{k}",
            task="toy",
            domain="EG",
            question="?",
            image=f"{k}.png",
            answer="1",
            answer_type=AnswerType.INTEGER,
            steps=[Step(text="s", image=f"{k}_s.png")],
        )

    class Suite:
        instances = [inst(k) for k in range(5)]

    # Rows of instances 3, 1, 4 (twice) and one the suite lacks: the browser follows the suite's order.
    rows = [{"uid": u} for u in ("u3", "u1", "u4", "u4", "gone")]
    assert browser_images(rows, Suite, 2) == ["1.png", "1_s.png", "3.png", "3_s.png"]
    assert browser_images(rows, Suite, 300) == instance_images([Suite.instances[k] for k in (1, 3, 4)])
    assert browser_images(rows, None, 300) == []


def test_memoised_cube_turns_count_as_the_matrix_products() -> None:
    rng = random.Random(3)
    axes = [v for k in range(3) for v in ((0,) * k + (s,) + (0,) * (2 - k) for s in (1, -1))]

    def partial(n: int) -> uc.Partial:
        return {normal: (rng.choice("LT"), rng.choice("rg"), rng.choice(axes)) for normal in rng.sample(axes, n)}

    def plain(a: uc.Partial, b: uc.Partial) -> int:
        best = 0
        for m in cn.ROTATIONS:
            turned = {cn.apply(m, n): (g, c, cn.apply(m, up)) for n, (g, c, up) in a.items()}
            best = max(best, sum(1 for n, f in turned.items() if b.get(n) == f))
        return best

    counts = set()
    for _ in range(300):
        a, b = partial(rng.choice((3, 6))), partial(rng.choice((3, 6)))
        if rng.random() < 0.3:  # a turned copy agrees on every face
            m = rng.choice(cn.ROTATIONS)
            b = {cn.apply(m, n): (g, c, cn.apply(m, up)) for n, (g, c, up) in a.items()}
        counts.add(uc._agreement(a, b))
        assert uc._agreement(a, b) == plain(a, b)
    assert {0, 3, 6} <= counts  # the cases cover no agreement, a whole view and a whole cube


def test_report_with_suite_shows_a_missing_image_as_unavailable_and_repeats_itself(
    toy_suite: Path, tmp_path: Path, _own_thumbnail_cache: Path
) -> None:
    """`vcot report --suite` reads the suite without opening its images: a missing one is shown as
    unavailable instead of failing the report; a second report (thumbnails from the cache) is the same page."""
    import re

    from typer.testing import CliRunner

    from vcot.cli import app
    from vcot.suite import read_suite

    runner = CliRunner()
    run = tmp_path / "run"
    r = runner.invoke(
        app, ["eval", str(toy_suite), "--model", "chance", "-c", "direct", "--run", str(run), "--no-progress"]
    )
    assert r.exit_code == 0, r.output
    first = read_suite(toy_suite).instances[0]
    (toy_suite / first.image).unlink()
    pages = []
    for k in range(2):
        r = runner.invoke(app, ["report", str(run), "--suite", str(toy_suite), "--out", str(tmp_path / f"r{k}")])
        assert r.exit_code == 0, r.output
        pages.append(re.sub(r"Generated \S+ ", "", (tmp_path / f"r{k}" / "report.html").read_text()))
    assert f"input image {first.image} unavailable" in pages[0]
    assert pages[0].count('class="thumb"') == 2 * 8 - 1  # every other input and step image
    assert pages[1] == pages[0]
    assert len(list((_own_thumbnail_cache / "thumbnails").rglob("*.png"))) == 2 * 8 - 1


def test_the_cache_is_pruned_least_recently_used_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from vcot.analysis.thumbnails import CACHE_MAX_ENV, prune_cache

    (tmp_path / "suite").mkdir()
    rels = _images(tmp_path / "suite", 6)
    paths = [str(tmp_path / "suite" / rel) for rel in rels]
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    uris = [thumbnail(p) for p in paths]
    entries = [_cache_file(Path(p).read_bytes(), THUMB_SIDE) for p in paths]
    sizes = [e.stat().st_size for e in entries]
    for k, e in enumerate(entries):  # made in order, oldest first
        os.utime(e, (1_000_000 + k, 1_000_000 + k))
    assert prune_cache(sum(sizes)) == 0  # within the bound: nothing goes
    # Using the oldest entry makes it the newest, so the next oldest go first.
    assert thumbnail(paths[0]) == uris[0]
    deleted = prune_cache(sum(sizes) - 1)
    kept = [e.exists() for e in entries]
    assert deleted >= 1 and kept[0] and not kept[1]
    assert sum(s for s, k in zip(sizes, kept, strict=True) if k) <= 0.8 * (sum(sizes) - 1)
    # Leaving a Thumbnails prunes to $VCOT_CACHE_MAX_MB: 0 empties the cache.
    monkeypatch.setenv(CACHE_MAX_ENV, "0")
    with Thumbnails(_Suite(tmp_path / "suite"), workers=1) as thumbs:
        assert thumbs.get(rels[:1])[rels[0]] == uris[0]
    assert not any(e.exists() for e in entries)
