"""vcot.draw.png: the fast PNG writer gives back the exact pixels, is a valid PNG, falls back to Pillow where
it does not apply, and leaves suite content hashes as Pillow's encoder gives them."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vcot.build import TaskPlan, build_suite
from vcot.draw import png
from vcot.tasks import get_task

pytestmark = pytest.mark.skipif(not png.fast_png_available(), reason="isal is a dependency")


def _images() -> list[Image.Image]:
    rng = np.random.default_rng(7)
    out = []
    for mode, channels in (("L", 1), ("LA", 2), ("RGB", 3), ("RGBA", 4)):
        for h, w in ((1, 1), (1, 17), (13, 1), (31, 47)):
            noise = rng.integers(0, 256, size=(h, w, channels), dtype=np.uint8)
            out.append(Image.fromarray(noise.squeeze(-1) if channels == 1 else noise, mode))
        flat = Image.new(mode, (64, 40), (200,) * channels if channels > 1 else 200)
        out.append(flat)
    return out


@pytest.mark.parametrize("image", _images(), ids=lambda im: f"{im.mode}-{im.width}x{im.height}")
def test_round_trip_gives_the_exact_pixels(image: Image.Image) -> None:
    data = png.encode_png(image)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    Image.open(io.BytesIO(data)).verify()  # chunk CRCs and structure
    back = png.decode_png(data)
    assert back.mode == image.mode and back.size == image.size
    assert back.tobytes() == image.tobytes()
    assert png.pixel_digest(back) == png.pixel_digest(image)


def test_the_fast_writer_is_used_and_differs_from_pillow_in_bytes_only() -> None:
    image = get_task("billiards").make(0, 1).images
    for im in image.values():
        fast, slow = png.encode_png(im), png.encode_png_pillow(im)
        assert fast != slow  # otherwise the fast path is not the one running
        assert png.decode_png(fast).tobytes() == png.decode_png(slow).tobytes() == im.tobytes()
        # files stay within +25 % of Pillow's (docs/scale.md)
        assert len(fast) <= 1.25 * len(slow)


def test_other_modes_and_a_missing_isal_fall_back_to_pillow(monkeypatch: pytest.MonkeyPatch) -> None:
    palette = Image.new("P", (20, 10), 3)
    assert png.encode_png(palette) == png.encode_png_pillow(palette)
    assert png.decode_png(png.encode_png(palette)).convert("RGB").tobytes() == palette.convert("RGB").tobytes()
    one_bit = Image.new("1", (9, 9), 1)
    assert png.decode_png(png.encode_png(one_bit)).tobytes() == one_bit.tobytes()
    rgb = Image.new("RGB", (30, 20), (1, 2, 3))
    monkeypatch.setattr(png, "_fast_zlib", None)
    assert png.encode_png(rgb) == png.encode_png_pillow(rgb)


def test_suite_content_hash_is_the_same_with_either_encoder(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    plans = [
        TaskPlan(task="localizer", difficulty="easy", n=3, seed=5),
        TaskPlan(task="gear_rotation", difficulty="easy", n=2, seed=5),
    ]
    fast = build_suite(tmp_path / "fast", "t", plans, processes=1)
    fast_bytes = sorted(p.read_bytes() for p in (tmp_path / "fast").rglob("*.png"))
    monkeypatch.setattr(png, "_fast_zlib", None)
    slow = build_suite(tmp_path / "slow", "t", plans, processes=1)
    slow_bytes = sorted(p.read_bytes() for p in (tmp_path / "slow").rglob("*.png"))
    assert fast["content_hash"] == slow["content_hash"]
    assert fast_bytes != slow_bytes and len(fast_bytes) == len(slow_bytes) > 0


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "L"])
def test_encode_and_digest_together_match_them_apart(mode: str) -> None:
    image = get_task("localizer").make(1, 1).images
    for im in image.values():
        im = im.convert(mode)
        data, digest = png.encode_png_and_digest(im)
        assert png.decode_png(data).tobytes() == im.tobytes()
        assert digest == png.pixel_digest(im.convert("RGB"))
