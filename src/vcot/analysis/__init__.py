"""Analyses and reports (docs/scoring.md, "Statistics"): metrics, MIRA-style tables, plots, the HTML report, MIRA interop."""

from vcot.analysis.metrics import majority_vote, mcnemar, paired_bootstrap, pass_at_k, relative_gain, wilson
from vcot.analysis.report import analyse, write_report
from vcot.analysis.units import Sample, to_samples

__all__ = ["Sample", "analyse", "majority_vote", "mcnemar", "paired_bootstrap", "pass_at_k", "relative_gain",
           "to_samples", "wilson", "write_report"]
