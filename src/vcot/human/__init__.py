"""Human baseline: a local web study in which people answer a suite's questions, graded like the models.

`vcot human run SUITE --out STUDY --participants N` creates a study folder (or resumes it) and serves the page;
`vcot report RUN... --human STUDY` puts people beside the models (docs/human.md).

`study` holds what the organiser chose and checks the suite against it, `assign` the seeded balanced
assignment, `store` the SQLite (WAL) store of displays and answers, `answers` the answer checks and
grading, `page` the HTML and the timing script, `app` the page logic, `server` the HTTP side, `lock` the
one-server-per-study lock, `export` the graded rows and Parquet, and `analysis` the report's tables and
section (imported on its own: it pulls in the report machinery).
"""

from __future__ import annotations

from vcot.human.answers import AnswerError, check_answer, grade
from vcot.human.app import HumanApp, Response
from vcot.human.assign import AssignmentError, Job, assign, sample_problems
from vcot.human.export import export_parquet, study_rows
from vcot.human.lock import StudyBusy, StudyLock
from vcot.human.server import CSP, StudyServer
from vcot.human.store import StudyStore, Timing
from vcot.human.study import (
    DB_FILE,
    EXPORT_FILE,
    HUMAN_CONDITIONS,
    LOCK_FILE,
    STUDY_FILE,
    Study,
    StudyError,
    StudyPlan,
    open_study,
    parse_participants,
    prepare_study,
)

__all__ = [
    "CSP",
    "DB_FILE",
    "EXPORT_FILE",
    "HUMAN_CONDITIONS",
    "LOCK_FILE",
    "STUDY_FILE",
    "AnswerError",
    "AssignmentError",
    "HumanApp",
    "Job",
    "Response",
    "Study",
    "StudyBusy",
    "StudyError",
    "StudyLock",
    "StudyPlan",
    "StudyServer",
    "StudyStore",
    "Timing",
    "assign",
    "check_answer",
    "export_parquet",
    "grade",
    "open_study",
    "parse_participants",
    "prepare_study",
    "sample_problems",
    "study_rows",
]
