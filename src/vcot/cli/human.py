"""Human-baseline commands: `vcot human` serves a study page, `vcot human export` writes its answers as Parquet.

`vcot report RUN... --human STUDY` (in `cli/report.py`) puts a study beside the models.
"""

import shutil
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from vcot.cli.common import check_port, console, err, fail, split_list

if TYPE_CHECKING:
    from vcot.human.study import Study


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def human(
    suite: Annotated[Path, typer.Argument(help="Suite folder the study asks about", metavar="SUITE")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Study folder: created on the first run, resumed after")],
    participants: Annotated[
        str | None,
        typer.Option(
            "--participants",
            metavar="N|ID,…",
            help="Who takes part: a number (ids P1…PN) or comma-separated ids; needed to create a study",
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            help="Participants answering each problem under each condition "
            "(default 2, or 1 when there are too few participants)",
        ),
    ] = None,
    items: Annotated[
        int | None,
        typer.Option("--items", help="Problems to sample from the suite, spread over its tasks (default: all)"),
    ] = None,
    conditions: Annotated[
        list[str] | None,
        typer.Option(
            "--conditions",
            "-c",
            metavar="NAME,…",
            help="What people "
            "are shown: direct, visual_cot (step pictures), "
            "text_state_cot (step texts); default direct",
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="Sampling and assignment seed (default 0)")] = None,
    port: Annotated[int, typer.Option("--port", help="Port; 0 picks a free one")] = 0,
    host: Annotated[str, typer.Option("--host", help="Address to bind (default: this machine only)")] = "127.0.0.1",
    allow_network: Annotated[
        bool,
        typer.Option(
            "--allow-network",
            help="Allow a --host reachable from other machines (every request then needs the printed access token)",
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Log every request")] = False,
) -> None:
    """Run a human-baseline study: a local page where participants answer sampled questions of the suite."""
    from vcot.human import (
        HumanApp,
        StudyBusy,
        StudyError,
        StudyLock,
        StudyServer,
        export_parquet,
        prepare_study,
    )
    from vcot.human.study import LOCK_FILE
    from vcot.net import is_loopback, listen_error

    # Every option is checked before the study folder is made: a refused command leaves nothing behind.
    check_port(port)
    for value, option in ((k, "--k"), (items, "--items")):
        if value is not None and value < 1:
            fail(f"{option} {value}: must be at least 1")
    if not is_loopback(host) and not allow_network:
        fail(
            f"--host {host} makes the study reachable from other machines; add --allow-network to do so on "
            "purpose (every request then needs the access token in the printed URL)"
        )
    # The lock comes first, so two servers started at once cannot both create (or resume) the study.
    new_dir = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create the study folder {out}: {exc}")
    lock = StudyLock(out / LOCK_FILE)
    try:
        lock.acquire()
    except StudyBusy as exc:
        fail(exc)
    try:
        try:
            study, created = prepare_study(out, suite, participants, k, split_list(conditions), items, seed)
        except StudyError as exc:
            if new_dir:  # leave nothing behind: the folder holds only the lock file
                lock.release()
                (out / LOCK_FILE).unlink(missing_ok=True)
                out.rmdir()
            fail(exc)
        try:
            server = StudyServer(HumanApp(study), host, port, verbose)
        except OSError as exc:
            if new_dir and created:  # nobody has answered anything yet: the folder made here goes again
                lock.release()
                shutil.rmtree(out, ignore_errors=True)
            fail(listen_error(exc, host, port))
        _describe(study, created)
        if not is_loopback(host):
            err.print(
                f"warning: listening on {host}, reachable from other machines; every request needs the "
                "access token in the URL below (share it only with participants)",
                markup=False,
                soft_wrap=True,
            )
        # A process started in the background by a non-interactive shell inherits SIGINT as ignored; install
        # the handler explicitly so that Ctrl-C (and SIGTERM) always stop the server cleanly.
        signal.signal(signal.SIGINT, _interrupt)
        signal.signal(signal.SIGTERM, _interrupt)
        print(server.url, flush=True)
        console.print("Ctrl-C to stop; the answers are then also written to answers.parquet.")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.close()
            path, n = export_parquet(study)
            console.print(f"{n} answers in {path}", markup=False)
    finally:
        lock.release()


def _describe(study: "Study", created: bool) -> None:
    plan = study.plan
    jobs = study.store.all_jobs()
    answered = len(study.store.answers())
    per = sorted({sum(1 for j in jobs if j.participant == p) for p in plan.participants})
    verb = "created" if created else "resumed"
    console.print(
        f"{verb} study {study.root}: {len(plan.problems)} problems of suite {plan.suite_name}, "
        f"{len(plan.participants)} participants, {plan.k} answer(s) per problem and condition "
        f"({', '.join(plan.conditions)}), {'–'.join(map(str, per))} items each; {answered} of "
        f"{len(jobs)} answered",
        markup=False,
        soft_wrap=True,
    )
    console.print(f"participant ids: {', '.join(plan.participants)}", markup=False, soft_wrap=True)


def human_export(
    study: Annotated[Path, typer.Argument(help="Study folder", metavar="STUDY")],
    suite: Annotated[
        Path | None, typer.Option("--suite", help="The study's suite (default: the folder recorded in the study)")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Parquet file (default: STUDY/answers.parquet)")
    ] = None,
) -> None:
    """Grade a study's answers and write them as Parquet, one row per answer with its timing."""
    from vcot.human import StudyError, export_parquet, open_study

    try:
        the_study = open_study(study, suite)
    except StudyError as exc:
        fail(exc)
    path, n = export_parquet(the_study, out)
    console.print(f"{n} answers in {path}", markup=False)


def register(app: typer.Typer) -> None:
    from vcot.cli.groups import human_app, register_in

    register_in(human_app, "run", human)
    register_in(human_app, "export", human_export, app=app, old_name="human-export")
