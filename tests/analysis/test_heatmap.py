"""Issue 26: the per-task heat map is readable at the page width: every text at least 10 pt at the report's
90 dpi (9.4 pt on a 96-dpi page at natural size), never wider than the page, as tall as its rows need, a
value in every cell, a colour-blind-safe sequential colormap."""

from __future__ import annotations

import io
import json

from PIL import Image

from vcot.analysis.plots import HEATMAP_FONT, MAX_WIDTH, heatmap_figure, task_heatmaps
from vcot.analysis.tables import CONDITIONS
from vcot.analysis.units import to_samples


def _rows(n_tasks: int, conds: tuple[str, ...] = ("direct", "text_cot", "visual_cot")) -> list[dict]:
    return [
        dict(
            run_id="r",
            model="m",
            condition=c,
            uid=f"t{t}-{k}",
            task=f"task_with_a_long_name_{t}",
            domain="EG",
            answer_type="choice",
            gold="B",
            options=json.dumps(["p", "q", "r", "s"]),
            epoch=0,
            extracted="B" if (t + k) % 3 else "A",
            tier="tag",
            correct=bool((t + k) % 3),
        )
        for t in range(n_tasks)
        for k in range(3)
        for c in conds
    ]


def _size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def test_every_text_is_large_enough_and_every_cell_has_its_value():
    samples = to_samples(_rows(6))
    fig = heatmap_figure("m", samples)
    ax = fig.axes[0]
    texts = [*ax.texts, *ax.get_xticklabels(), *ax.get_yticklabels(), ax.title, ax._left_title]
    assert all(t.get_fontsize() >= HEATMAP_FONT for t in texts if t.get_text())
    assert HEATMAP_FONT * 90 / 96 >= 9  # pt on screen at the report's 90 dpi, shown at natural size
    assert len(ax.texts) == 6 * 3  # a value in every task × condition cell
    assert {t.get_text() for t in ax.texts} <= {"0", "33", "67", "100"}
    assert ax.images[0].get_cmap().name.startswith("cividis")
    assert all("(n=3)" in t.get_text() for t in ax.get_yticklabels())


def test_height_follows_the_rows_and_width_stays_within_the_page():
    ((_, small),) = task_heatmaps(to_samples(_rows(4)))
    ((_, big),) = task_heatmaps(to_samples(_rows(40)))
    ((_, wide),) = task_heatmaps(to_samples(_rows(3, tuple(CONDITIONS))))
    ws, hs = _size(small)
    wb, hb = _size(big)
    # 36 more rows at 0.3 in and 90 dpi: about 970 px more, so 40 rows never crowd their labels.
    assert hb - hs >= 36 * 0.3 * 90 * 0.95
    # bbox_inches="tight" may add the labels' overhang to MAX_WIDTH; the page is 1,232 px wide at 1,280.
    assert max(ws, wb, _size(wide)[0]) <= MAX_WIDTH * 90 + 100 < 1232
