"""Report figures: grouped bars (domain × condition per model), pass@k curves, task × condition heatmaps.
Each returns PNG bytes, so the HTML report can inline them and the Markdown report link them as files."""

from __future__ import annotations

import io
import math

from vcot.analysis.tables import CONDITIONS, DOMAINS, PASS_KS, cell, group, ordered, pass_curve
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
    models = sorted({s.model for s in samples})
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
            err = [[0 if math.isnan(x.acc) else max(0.0, 100 * (x.acc - x.lo)) for x in cells],
                   [0 if math.isnan(x.acc) else max(0.0, 100 * (x.hi - x.acc)) for x in cells]]
            ax.bar(xs, accs, width, yerr=err, capsize=2, label=c)
        chance = [cell([s for s in ms if d == "Overall" or s.domain == d]).chance for d in domains]
        # An unknown chance level (NaN) draws no mark rather than one at 0.
        ax.scatter(range(len(domains)), [100 * c for c in chance], marker="_", s=400,
                   color="black", label="chance", zorder=3)
        ax.set_xticks(range(len(domains)), domains)
        ax.set_ylabel("accuracy %")
        ax.set_ylim(0, 100)
        ax.set_title(model, fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=min(len(conds) + 1, 6),
                  frameon=False)
    fig.tight_layout()
    return _png(fig)


def pass_curves(samples: list[Sample]) -> bytes | None:
    if max((s.epoch for s in samples), default=0) == 0:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    drew = False
    for (model, cond), ss in sorted(group(samples, lambda s: (s.model, s.condition)).items()):
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


def task_heatmaps(samples: list[Sample]) -> list[tuple[str, bytes]]:
    plt = _plt()
    out = []
    for model, ms in sorted(group(samples, lambda s: s.model).items()):
        conds = ordered({s.condition for s in ms}, CONDITIONS)
        tasks = sorted({(s.domain, s.task) for s in ms},
                       key=lambda k: (DOMAINS.index(k[0]) if k[0] in DOMAINS else 9, k[1]))
        grid = [[cell([s for s in ms if s.task == t and s.condition == c]).acc for c in conds] for _, t in tasks]
        fig, ax = plt.subplots(figsize=(min(MAX_WIDTH, 1.1 * len(conds) + 3), 0.32 * len(tasks) + 1.5))
        img = ax.imshow([[0 if math.isnan(v) else 100 * v for v in row] for row in grid], vmin=0, vmax=100,
                        cmap="viridis", aspect="auto")
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                ax.text(j, i, "—" if math.isnan(v) else f"{100 * v:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if math.isnan(v) or v < 0.6 else "black")
        ax.set_xticks(range(len(conds)), conds, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(tasks)), [f"{d} · {t}" for d, t in tasks], fontsize=8)
        ax.set_title(f"{model}: accuracy % by task × condition", fontsize=10)
        fig.colorbar(img, ax=ax, fraction=0.03)
        fig.tight_layout()
        out.append((model, _png(fig)))
    return out
