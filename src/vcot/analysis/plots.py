"""Report figures: grouped bars (domain × condition per model), pass@k curves, task × condition heatmaps.
Each returns PNG bytes, so the HTML report can inline them and the Markdown report link them as files."""

from __future__ import annotations

import io
import math
from typing import Any

from vcot.analysis.tables import CONDITIONS, DOMAINS, PASS_KS, cell, group, model_order, ordered, pass_curve
from vcot.analysis.units import Sample

# The widest figure, in inches: at the report's 90 dpi about 1,000 px, so it fits a 1,280 px window whole.
MAX_WIDTH = 11.0


class _Figures:
    """The part of pyplot the plots use (`subplots`, `close`), on bare `Figure`s: importing pyplot takes about
    half a second, a quarter of a report's budget, and bare figures never open a window nor stay registered."""

    def subplots(self, *args, figsize: tuple[float, float] | None = None, **kwargs):
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize)
        return fig, fig.subplots(*args, **kwargs)

    def close(self, fig) -> None:
        fig.clear()


def _plt() -> _Figures:
    return _Figures()


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    fig.clear()
    return buf.getvalue()


def domain_bars(samples: list[Sample]) -> bytes:
    plt = _plt()
    models = sorted({s.model for s in samples}, key=model_order)
    conds = ordered({s.condition for s in samples}, CONDITIONS)
    domains = [*ordered({s.domain for s in samples}, DOMAINS), "Overall"]
    # At most MAX_WIDTH wide (plus the legend, placed below): the page shows figures at their natural size
    # up to its width, and bars for many conditions get thinner instead of running off the screen.
    width_in = min(MAX_WIDTH, max(6.0, 0.5 * len(domains) * max(1, len(conds)) + 1.0))
    fig, axes = plt.subplots(len(models), 1, figsize=(width_in, 3.0 * len(models)), squeeze=False)
    width = 0.8 / max(1, len(conds))
    for ax, model in zip(axes[:, 0], models, strict=True):
        ms = [s for s in samples if s.model == model]
        for j, c in enumerate(conds):
            cells = [cell([s for s in ms if s.condition == c and (d == "Overall" or s.domain == d)]) for d in domains]
            xs = [i + (j - (len(conds) - 1) / 2) * width for i in range(len(domains))]
            accs = [0 if math.isnan(x.acc) else 100 * x.acc for x in cells]
            # Clamped at 0: matplotlib refuses a negative error, and a bound a rounding error past the
            # accuracy must not abort the report.
            err = [
                [0 if math.isnan(x.acc) else max(0.0, 100 * (x.acc - x.lo)) for x in cells],
                [0 if math.isnan(x.acc) else max(0.0, 100 * (x.hi - x.acc)) for x in cells],
            ]
            ax.bar(xs, accs, width, yerr=err, capsize=2, label=c)
        chance = [cell([s for s in ms if d == "Overall" or s.domain == d]).chance for d in domains]
        # An unknown chance level (NaN) draws no mark rather than one at 0.
        ax.scatter(
            range(len(domains)), [100 * c for c in chance], marker="_", s=400, color="black", label="chance", zorder=3
        )
        ax.set_xticks(range(len(domains)), domains)
        ax.set_ylabel("accuracy %")
        ax.set_ylim(0, 100)
        ax.set_title(model, fontsize=10)
        ax.legend(
            fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=min(len(conds) + 1, 6), frameon=False
        )
    fig.tight_layout()
    return _png(fig)


def pass_curves(samples: list[Sample]) -> bytes | None:
    if max((s.epoch for s in samples), default=0) == 0:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    drew = False
    for (model, cond), ss in sorted(
        group(samples, lambda s: (s.model, s.condition)).items(), key=lambda kv: (model_order(kv[0][0]), kv[0][1])
    ):
        curve = pass_curve(ss, PASS_KS)
        pts = [(k, 100 * v) for k, v in curve.items() if v is not None]
        if len(pts) >= 2:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{model} · {cond}")
            drew = True
    if not drew:
        plt.close(fig)
        return None
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(PASS_KS), [str(k) for k in PASS_KS])
    ax.set_xlabel("k")
    ax.set_ylabel("pass@k %")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


# The report shows a figure at its natural size (never wider than the page), and the page's CSS pixel is
# 1/96 in, so a font of F points at the figures' 90 dpi is displayed at F * 90 / 96 pt: 10 pt in matplotlib is
# about 9.4 pt on screen, the smallest size the issue-26 reading check allows.
HEATMAP_FONT = 10.0
# Rows and columns in inches at that font: a row holds a 10 pt label with room around it, a column a "100".
_ROW_IN = 0.3
_COL_IN = 0.62


def task_heatmaps(samples: list[Sample]) -> list[tuple[str, bytes]]:
    """Per model, a heat map of accuracy % with tasks as rows (grouped by domain) and conditions as columns,
    the value written in every cell (`heatmap_figure`)."""
    return [
        (model, _png(heatmap_figure(model, ms)))
        for model, ms in sorted(group(samples, lambda s: s.model).items(), key=lambda kv: model_order(kv[0]))
    ]


def heatmap_figure(model: str, ms: list[Sample]) -> Any:
    """One model's task × condition heat map as a matplotlib Figure. The height follows the number of tasks,
    so labels never overlap; the colormap is cividis (sequential, legible with any colour vision, and in
    grey); cells with no sample are white, hatched, with "—" (grey would be a colour of cividis's middle)."""
    import numpy as np
    from matplotlib import colormaps
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    plt = _plt()
    # Not run is white and hatched: cividis passes through grey near 50 %, so a grey cell could read as a score.
    cmap = colormaps["cividis"].with_extremes(bad="white")
    norm = Normalize(0, 100)
    conds = ordered({s.condition for s in ms}, CONDITIONS)
    tasks = sorted(
        {(s.domain, s.task) for s in ms}, key=lambda k: (DOMAINS.index(k[0]) if k[0] in DOMAINS else 9, k[1])
    )
    by_cell = group(ms, lambda s: (s.task, s.condition))
    grid = np.array([[100 * cell(by_cell.get((t, c), [])).acc for c in conds] for _, t in tasks])
    # The number of problems beside each task: 33 % of 3 problems and of 300 read differently.
    labels = [f"{d} · {t} (n={max(cell(by_cell.get((t, c), [])).n for c in conds)})" for d, t in tasks]
    # Inches the longest task label and condition label take at the font (about 0.55 em per character).
    label_in = max(len(x) for x in labels) * 0.55 * HEATMAP_FONT / 72
    cond_in = max(len(c) for c in conds) * 0.55 * HEATMAP_FONT / 72
    width = min(MAX_WIDTH, label_in + _COL_IN * len(conds) + 1.3)
    height = _ROW_IN * len(tasks) + cond_in * 0.75 + 0.9
    fig, ax = plt.subplots(figsize=(width, height))
    img = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if math.isnan(v):
                ax.add_patch(
                    Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#999999", linewidth=0)
                )
                ax.text(j, i, "—", ha="center", va="center", fontsize=HEATMAP_FONT, color="#333333")
                continue
            r, g, b, _ = cmap(norm(v))
            # Dark text on light cells, white on dark ones (relative luminance, ITU-R BT.709).
            light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5
            ax.text(
                j, i, f"{v:.0f}", ha="center", va="center", fontsize=HEATMAP_FONT, color="black" if light else "white"
            )
    ax.set_xticks(range(len(conds)), conds, rotation=40, ha="right", rotation_mode="anchor", fontsize=HEATMAP_FONT)
    ax.set_yticks(range(len(tasks)), labels, fontsize=HEATMAP_FONT)
    # Thin white lines between cells keep neighbouring values apart where colours are close.
    ax.set_xticks(np.arange(len(conds) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(tasks) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.2)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_title(f"{model}: accuracy % by task × condition (hatched —: not run)", fontsize=HEATMAP_FONT + 1, loc="left")
    bar = fig.colorbar(img, ax=ax, fraction=0.025 if len(tasks) > 12 else 0.05, pad=0.02)
    bar.ax.tick_params(labelsize=HEATMAP_FONT)
    bar.set_label("accuracy %", fontsize=HEATMAP_FONT)
    fig.tight_layout()
    return fig
