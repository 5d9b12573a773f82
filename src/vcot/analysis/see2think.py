"""See2Think analyses on scored results: process scores, render benefit/harm, corrupted-feedback gaps,
semantic answer changes and human–judge agreement.

Input: a pandas DataFrame of scored results, one row per (model, condition, uid, epoch), with columns
`model, condition, uid, epoch, correct` plus a grouping column (default `domain`), `extracted` (the
extracted final answer) and, for VAoT rows that were process-judged, `ar`, `rf`, `fu` in {0, 0.5, 1}.

Pairing rules (documented because the paper leaves some of them implicit):
- Render benefit/harm aligns each `vaot_norender` row with the `vaot` row of the same (model, uid, epoch);
  the Render Faithfulness group is the `vaot` trajectory's RF (the NoRender run renders nothing). Shares are
  normalised by all matched pairs in the group; balance = benefit − harm, in percentage points.
- The corrupted-feedback gap aligns `vaot` with `vaot_wrongrender`; the Feedback Uptake group is taken from
  the WrongRender trajectory by default (`fu_from`), since it measures uptake of the corrupted state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

DIMENSIONS = ("ar", "rf", "fu")
KEY = ["model", "uid", "epoch"]


def _norm(answer: object) -> str:
    return " ".join(str(answer).strip().lower().split()) if answer is not None and answer == answer else ""


def process_means(df: pd.DataFrame, by: Sequence[str] = ("model", "domain")) -> pd.DataFrame:
    """Mean AR/RF/FU (and count) per group over judged rows."""
    judged = df.dropna(subset=list(DIMENSIONS), how="all")
    out = judged.groupby(list(by))[list(DIMENSIONS)].mean()
    out["n"] = judged.groupby(list(by)).size()
    return out.reset_index()


def correct_incorrect_gaps(df: pd.DataFrame, by: Sequence[str] = ("domain",)) -> pd.DataFrame:
    """Per group and dimension: mean score on correct trajectories minus mean on incorrect ones."""
    judged = df.dropna(subset=list(DIMENSIONS), how="all")
    rows = []
    for keys, part in judged.groupby(list(by)):
        keys = keys if isinstance(keys, tuple) else (keys,)
        row = dict(zip(by, keys, strict=True))
        for dim in DIMENSIONS:
            good = part.loc[part["correct"].astype(bool), dim].dropna()
            bad = part.loc[~part["correct"].astype(bool), dim].dropna()
            row[f"{dim}_gap"] = (good.mean() - bad.mean()) if len(good) and len(bad) else float("nan")
        row["n_correct"] = int(part["correct"].astype(bool).sum())
        row["n_incorrect"] = int((~part["correct"].astype(bool)).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def _aligned(df: pd.DataFrame, before: str, after: str, cols_after: Sequence[str] = ()) -> pd.DataFrame:
    a = df[df["condition"] == before]
    b = df[df["condition"] == after]
    keep_b = KEY + ["correct", "extracted", *cols_after]
    keep_b = [c for c in dict.fromkeys(keep_b) if c in b.columns]
    return a.merge(b[keep_b], on=KEY, suffixes=("_before", "_after"))


def render_transitions(df: pd.DataFrame, group: str = "domain") -> pd.DataFrame:
    """Aligned vaot_norender → vaot transitions per (group, RF of the vaot trajectory)."""
    pairs = _aligned(df, "vaot_norender", "vaot", cols_after=["rf"])
    rf_col = "rf_after" if "rf_after" in pairs.columns else "rf"
    pairs = pairs.dropna(subset=[rf_col])
    rows = []
    for (g, rf), part in pairs.groupby([group, rf_col]):
        before = part["correct_before"].astype(bool)
        after = part["correct_after"].astype(bool)
        n = len(part)
        benefit = int((~before & after).sum())
        harm = int((before & ~after).sum())
        rows.append(
            {
                group: g,
                "rf": rf,
                "n": n,
                "benefit": benefit,
                "harm": harm,
                "benefit_share": benefit / n,
                "harm_share": harm / n,
                "balance_pts": 100.0 * (benefit - harm) / n,
            }
        )
    return pd.DataFrame(rows)


def wrongrender_gap(df: pd.DataFrame, group: str = "domain", fu_from: str = "vaot_wrongrender") -> pd.DataFrame:
    """Acc(vaot) − Acc(vaot_wrongrender) in points per (group, FU group) over aligned pairs."""
    if fu_from not in ("vaot", "vaot_wrongrender"):
        raise ValueError("fu_from must be 'vaot' or 'vaot_wrongrender'")
    pairs = _aligned(df, "vaot", "vaot_wrongrender", cols_after=["fu"])
    fu_col = (
        ("fu_after" if "fu_after" in pairs.columns else "fu")
        if fu_from == "vaot_wrongrender"
        else ("fu_before" if "fu_before" in pairs.columns else "fu")
    )
    pairs = pairs.dropna(subset=[fu_col])
    rows = []
    for (g, fu), part in pairs.groupby([group, fu_col]):
        acc_v = part["correct_before"].astype(bool).mean()
        acc_w = part["correct_after"].astype(bool).mean()
        rows.append(
            {
                group: g,
                "fu": fu,
                "n": len(part),
                "acc_vaot": acc_v,
                "acc_wrongrender": acc_w,
                "gap_pts": 100.0 * (acc_v - acc_w),
            }
        )
    return pd.DataFrame(rows)


def answer_change_rate(
    df: pd.DataFrame, same: Callable[[object, object], bool] | None = None, by: Sequence[str] = ("model",)
) -> pd.DataFrame:
    """Share of aligned vaot / vaot_wrongrender pairs whose final answers differ semantically, over the pairs
    whose WrongRender episode had at least one image corrupted (column `corruptions`); `n` counts them and
    `excluded` the pairs without a corruption, which measure only sampling noise.

    `same(a, b)` decides equivalence (default: normalised text equality; the report passes the
    type-aware grader). A missing answer on either side counts as a change only if the other exists.
    """
    same = same or (lambda a, b: _norm(a) == _norm(b))
    pairs = _aligned(df, "vaot", "vaot_wrongrender", cols_after=["corruptions"])
    col = "corruptions_after" if "corruptions_after" in pairs.columns else "corruptions"
    corrupted = pairs[col].fillna(0).astype(int) > 0 if col in pairs.columns else pd.Series(False, pairs.index)
    pairs["changed"] = [
        not same(a, b) for a, b in zip(pairs["extracted_before"], pairs["extracted_after"], strict=True)
    ]
    pairs["counted"] = corrupted
    rows = []
    for key, part in pairs.groupby(list(by)):
        kept = part[part["counted"]]
        n = len(kept)
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                "change_rate": kept["changed"].mean() if n else float("nan"),
                "changed": int(kept["changed"].sum()),
                "n": n,
                "excluded": len(part) - n,
            }
        )
    return pd.DataFrame(rows, columns=[*by, "change_rate", "changed", "n", "excluded"])


def agreement(human: pd.DataFrame, judge: pd.DataFrame) -> pd.DataFrame:
    """Human–judge agreement per dimension: strict (same score) and partial (within 0.5).

    Both frames have `trajectory_id` and the dimension columns; rows pair on trajectory_id.
    """
    merged = human.merge(judge, on="trajectory_id", suffixes=("_human", "_judge"))
    rows = []
    for dim in DIMENSIONS:
        pair = merged[[f"{dim}_human", f"{dim}_judge"]].dropna()
        diff = (pair[f"{dim}_human"] - pair[f"{dim}_judge"]).abs()
        rows.append(
            {
                "dimension": dim,
                "n": len(pair),
                "strict": float((diff < 1e-9).mean()) if len(pair) else float("nan"),
                "partial": float((diff <= 0.5 + 1e-9).mean()) if len(pair) else float("nan"),
            }
        )
    return pd.DataFrame(rows)
