"""Human validation of the process judge: a local web page to score sampled VAoT trajectories.

Annotators score the same three dimensions as the judge (Action Relevance, Render Faithfulness, Feedback
Uptake, each 0 / 0.5 / 1) for one key visual step per trajectory. Scores go to `annotations.sqlite` in the
run folder, one row per (annotator, trajectory); re-submitting replaces the row. Agreement with the judge
(strict = same score, partial = within 0.5) is computed by `vcot.analysis.see2think.agreement`; see docs/vaot.md.

Blinding: trajectory ids embed the model and condition, so pages are addressed by an opaque key and never
show the model, the condition, the corruption applied or whether the answer was right. Model text is
untrusted and always escaped; pages carry no script at all and a CSP that forbids it, so an escaping slip
still cannot run code. Nothing is fetched from the network: CSS is inline, images come from this server.

`store` keeps the scores (SQLite), `sampling` picks the trajectories and their keys, `page` builds the HTML,
`app` holds the state and validates posts, `server` speaks HTTP.
"""

from __future__ import annotations

from vcot.annotate.app import SCORES_FILE, AnnotationApp, agreement_report
from vcot.annotate.page import CSS, DIMENSION_HELP, MAX_ANNOTATOR, MAX_NOTE
from vcot.annotate.sampling import item_key, sample_trajectories
from vcot.annotate.server import CSP, MAX_BODY, AnnotationServer
from vcot.annotate.store import ANNOTATIONS_DB, SCORE_VALUES, Annotation, AnnotationStore

# Re-exported because callers of the single-module version imported the judge's loader from here.
from vcot.scoring.process_judge import ProcessScore, load_process_scores

__all__ = [
    "ANNOTATIONS_DB",
    "CSP",
    "CSS",
    "DIMENSION_HELP",
    "MAX_ANNOTATOR",
    "MAX_BODY",
    "MAX_NOTE",
    "SCORES_FILE",
    "SCORE_VALUES",
    "Annotation",
    "AnnotationApp",
    "AnnotationServer",
    "AnnotationStore",
    "ProcessScore",
    "agreement_report",
    "item_key",
    "load_process_scores",
    "sample_trajectories",
]
