"""The drawing layer: anti-aliasing, determinism, bundled font, footprints."""

import numpy as np
import pytest

from vcot.draw import Canvas, decode_png, pixel_digest, rgb
from vcot.draw.canvas import font_path, hstack


def _scene() -> Canvas:
    c = Canvas(320, 200)
    c.line([(10, 10), (300, 180)], "red", 3)
    c.line([(10, 190), (300, 20)], "blue", 2, dash=(8, 6))
    c.polygon([(50, 50), (120, 40), (90, 120)], fill="lightgreen", outline="green")
    c.circle((200, 100), 30, fill="yellow", outline="black")
    c.arrow((20, 100), (150, 160), "purple", 3)
    c.text((160, 20), "Label 42", size=18, anchor="mt")
    return c


def test_deterministic_pixels():
    assert pixel_digest(_scene().image()) == pixel_digest(_scene().image())


def test_antialiased_edges_have_intermediate_tones():
    c = Canvas(100, 100)
    c.line([(0, 0), (100, 37)], "black", 2)
    arr = np.asarray(c.image())[:, :, 0]
    values = set(np.unique(arr).tolist())
    assert len(values - {0, 255}) > 10, "a diagonal line should have anti-aliased grey levels"


def test_text_uses_bundled_font_and_reaches_size():
    assert font_path().endswith("DejaVuSans.ttf")
    c = Canvas(200, 60)
    box = c.text((10, 10), "Hg 14", size=16)
    w, h = box[2] - box[0], box[3] - box[1]
    assert h >= 16 and w > 30
    arr = np.asarray(c.image())
    assert (arr < 128).any()


def test_text_anchor_centres():
    c = Canvas(200, 100)
    x0, y0, x1, y1 = c.text((100, 50), "centre", size=20, anchor="mm", padding=0)
    assert abs((x0 + x1) / 2 - 100) < 1 and abs((y0 + y1) / 2 - 50) < 1
    with pytest.raises(ValueError):
        c.text((0, 0), "x", anchor="zz")


def test_drawing_stays_in_footprint():
    c = Canvas(200, 200)
    before = np.asarray(c.image()).copy()
    c.circle((50, 50), 10, fill="red")
    after = np.asarray(c.image())
    changed = np.argwhere((before != after).any(axis=2))
    assert changed[:, 0].min() >= 38 and changed[:, 0].max() <= 62
    assert changed[:, 1].min() >= 38 and changed[:, 1].max() <= 62


def test_arrow_tip_at_end():
    c = Canvas(200, 100)
    c.arrow((10, 50), (190, 50), "black", 3)
    arr = np.asarray(c.image())[:, :, 0]
    cols = np.where((arr < 200).any(axis=0))[0]
    assert 188 <= cols.max() <= 191


def test_png_round_trip_and_paste():
    c = _scene()
    img = decode_png(c.png())
    assert img.size == (320, 200)
    other = Canvas(400, 220)
    other.paste(img, (40, 10))
    other.text((5, 5), "after paste", size=14)
    assert np.asarray(other.image())[100, 200].tolist() == np.asarray(img)[90, 160].tolist()
    assert hstack([img, img], gap=10).size == (650, 200)


def test_unknown_colour_named():
    with pytest.raises(KeyError, match="unknown colour 'chartreuse'"):
        rgb("chartreuse")
