"""Drawing-backend comparison behind the choice of aggdraw for `vcot.draw`.

Scene: 768×768, 50 shapes (lines, polygons, circles) + 10 labels, the load of a typical task picture.
Backends that are importable are measured; the others are reported as unavailable (pycairo and
skia-python need system libraries that a fresh machine with only pip does not have).
Also measures PNG encoding at several zlib levels, which dominates the cost of a picture.

    python benchmarks/draw_backends.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from collections.abc import Callable

from PIL import Image, ImageDraw, ImageFont

from vcot.draw import Canvas
from vcot.draw.canvas import font_path

SIZE = 768


def _scene(seed: int = 0) -> list[tuple]:
    rng = random.Random(seed)
    shapes: list[tuple] = []
    for i in range(50):
        kind = ("line", "poly", "circle")[i % 3]
        if kind == "line":
            shapes.append(("line", [(rng.uniform(0, SIZE), rng.uniform(0, SIZE)) for _ in range(2)]))
        elif kind == "poly":
            cx, cy = rng.uniform(50, SIZE - 50), rng.uniform(50, SIZE - 50)
            shapes.append(("poly", [(cx + rng.uniform(-40, 40), cy + rng.uniform(-40, 40)) for _ in range(5)]))
        else:
            shapes.append(("circle", (rng.uniform(20, SIZE - 20), rng.uniform(20, SIZE - 20)), rng.uniform(5, 30)))
    for i in range(10):
        shapes.append(("text", (rng.uniform(20, SIZE - 100), rng.uniform(20, SIZE - 30)), f"label {i}"))
    return shapes


def draw_vcot(shapes) -> Image.Image:
    c = Canvas(SIZE, SIZE)
    for s in shapes:
        if s[0] == "line":
            c.line(s[1], "red", 2)
        elif s[0] == "poly":
            c.polygon(s[1], fill="lightblue", outline="blue")
        elif s[0] == "circle":
            c.circle(s[1], s[2], fill="yellow", outline="black")
        else:
            c.text(s[1], s[2], size=16)
    return c.image()


def _pillow(scale: int) -> Callable:
    font = ImageFont.truetype(font_path(), 16 * scale)

    def draw(shapes) -> Image.Image:
        im = Image.new("RGB", (SIZE * scale, SIZE * scale), "white")
        d = ImageDraw.Draw(im)
        for s in shapes:
            if s[0] == "line":
                d.line([(x * scale, y * scale) for x, y in s[1]], fill=(213, 40, 40), width=2 * scale)
            elif s[0] == "poly":
                d.polygon([(x * scale, y * scale) for x, y in s[1]], fill=(170, 200, 240), outline=(31, 90, 200))
            elif s[0] == "circle":
                (x, y), r = s[1], s[2]
                d.ellipse(
                    [(x - r) * scale, (y - r) * scale, (x + r) * scale, (y + r) * scale],
                    fill=(235, 200, 30),
                    outline=(0, 0, 0),
                    width=2 * scale,
                )
            else:
                d.text((s[1][0] * scale, s[1][1] * scale), s[2], fill=(0, 0, 0), font=font)
        return im.resize((SIZE, SIZE), Image.LANCZOS) if scale > 1 else im

    return draw


def draw_matplotlib(shapes) -> Image.Image:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, Polygon

    fig = Figure(figsize=(SIZE / 100, SIZE / 100), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, SIZE)
    ax.set_ylim(SIZE, 0)
    ax.axis("off")
    for s in shapes:
        if s[0] == "line":
            xs, ys = zip(*s[1], strict=True)
            ax.plot(xs, ys, color="red", lw=2)
        elif s[0] == "poly":
            ax.add_patch(Polygon(s[1], closed=True, fc="lightblue", ec="blue"))
        elif s[0] == "circle":
            ax.add_patch(Circle(s[1], s[2], fc="yellow", ec="black"))
        else:
            ax.text(s[1][0], s[1][1], s[2], fontsize=12)
    fig.canvas.draw()
    return Image.frombuffer("RGBA", fig.canvas.get_width_height(), fig.canvas.buffer_rgba()).convert("RGB")


def _time(fn: Callable, arg, repeat: int) -> float:
    fn(arg)  # warm caches (fonts, imports)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(arg)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    shapes = _scene()
    backends: dict[str, Callable | None] = {
        "vcot.draw (aggdraw, anti-aliased)": draw_vcot,
        "Pillow ImageDraw (no anti-aliasing)": _pillow(1),
        "Pillow 2x supersampled": _pillow(2),
        "Pillow 4x supersampled": _pillow(4),
        "matplotlib Agg": draw_matplotlib,
    }
    for name, module in (("pycairo", "cairo"), ("skia-python", "skia")):
        try:
            __import__(module)
            backends[f"{name} (installed, not wired)"] = None
        except Exception:  # an absent optional backend is reported, not fatal
            backends[f"{name} (unavailable: needs system libraries)"] = None
    print(f"drawing {SIZE}x{SIZE}, 50 shapes + 10 labels, median of {args.repeat} runs")
    for name, fn in backends.items():
        if fn is None:
            print(f"  {name:45s}      -")
            continue
        print(f"  {name:45s} {_time(fn, shapes, args.repeat):7.2f} ms")
    img = draw_vcot(shapes)
    print("PNG encoding of that picture (Pillow):")
    for level in (1, 3, 6, 9):

        def enc(im, level=level):
            buf = io.BytesIO()
            im.save(buf, format="PNG", compress_level=level)
            return buf.getvalue()

        size_kb = len(enc(img)) / 1024
        print(f"  compress_level={level}  {_time(enc, img, args.repeat):7.2f} ms  {size_kb:7.1f} KiB")


if __name__ == "__main__":
    main()
