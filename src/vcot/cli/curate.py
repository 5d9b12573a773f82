"""Curation commands (docs/curation.md): `vcot curate <stage> CONFIG` for each stage and `vcot curate run CONFIG`
for every automatic stage. Every stage resumes from the work folder's store: rerunning sends only missing
calls."""

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any

import typer

from vcot.cli.common import console, counter, err, fail, progress_bar

curate_app = typer.Typer(
    no_args_is_help=True,
    help="Curate a benchmark from existing datasets: ingest, sample, "
    "filter, rewrite, qc, review, freeze, or run (every automatic "
    "stage).",
)

ConfigArg = Annotated[
    Path, typer.Argument(help="Curation config (JSON or YAML, docs/curation.md)", metavar="CONFIG", show_default=False)
]


TagOption = Annotated[
    bool,
    typer.Option(
        "--tag-requests",
        help="Send X-Vcot-Call headers naming each call (mock server, proxies); off by default, as in vcot eval",
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print each stage's result as one JSON line instead of a summary")
]


def _open(config: Path, progress: Any = None, tag_requests: bool = False) -> Any:
    """The curation of a config, or exit 2 with one line naming what is wrong in it."""
    from vcot.curate.pipeline import Curation, CurationConfig

    try:
        return Curation(CurationConfig.load(config), progress, tag_requests=tag_requests)
    except (ValueError, OSError, sqlite3.Error, RecursionError) as exc:  # every config and source error
        fail(_one_line(exc))


def _one_line(exc: BaseException) -> str:
    # A message quoting a hostile file could hold line breaks or terminal escapes; the error stays one line.
    text = " ".join(str(exc).split()) or type(exc).__name__
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)


def _stage(
    config: Path, stages: tuple[str, ...], tag_requests: bool = False, as_json: bool = False, force: bool = False
) -> None:
    """Run `stages` in order, printing a summary line (or a JSON line) as each one ends; exit 3 when calls
    failed after their retries (their items stay pending), 2 on bad input."""
    shown = progress_bar()
    cur = _open(config, lambda name: counter(shown, f"curate {name}"), tag_requests)
    pending = 0
    try:
        with shown:
            for stage in stages:
                r = cur.ingest(force=force) if stage == "ingest" else getattr(cur, stage)()
                for warning in r.get("warnings", []):
                    err.print(f"warning: {_one_line(Exception(warning))}", markup=False, highlight=False)
                console.print(json.dumps(r) if as_json else summary(r), markup=False, highlight=False, soft_wrap=True)
                pending += r.get("pending", 0)
    except (ValueError, OSError, sqlite3.Error, RecursionError) as exc:
        fail(_one_line(exc))
    finally:
        cur.close()
    if pending:
        err.print(f"{pending} item(s) pending after failed calls: rerun the same command to retry them")
        raise typer.Exit(3)


def summary(r: dict[str, Any]) -> str:
    """One human line per stage result: what went in, what came out, the calls it cost."""
    stage = r["stage"]
    if stage == "ingest":
        how = " (from the earlier ingest; --force reads the sources again)" if r.get("resumed") else ""
        return f"ingest: {r['candidates']} candidates{how}"
    if stage == "sample":
        per = ", ".join(f"{c} {n}" for c, n in r.get("per_category", {}).items())
        return f"sample: {r['chosen']} chosen, {r['left_out']} left out" + (f" — {per}" if per else "")
    skip = {"stage", "items", "calls_sent"}
    verdicts = ", ".join(f"{k} {v}" for k, v in r.items() if k not in skip and isinstance(v, int))
    return f"{stage}: {r['items']} items" + (f" — {verdicts}" if verdicts else "") + f"; {r['calls_sent']} calls sent"


def ingest(
    config: ConfigArg,
    force: Annotated[bool, typer.Option("--force", help="Read the sources again even if candidates exist")] = False,
    as_json: JsonOption = False,
) -> None:
    """Read the configured sources into the candidates suite (work/candidates)."""
    _stage(config, ("ingest",), as_json=as_json, force=force)


def sample(config: ConfigArg, as_json: JsonOption = False) -> None:
    """Map candidates to categories and apply the quotas (seeded)."""
    _stage(config, ("sample",), as_json=as_json)


def filter_(config: ConfigArg, tag_requests: TagOption = False, as_json: JsonOption = False) -> None:
    """Caption-only visual-dependency filter: captioner + text-only reasoner trials."""
    _stage(config, ("filter",), tag_requests, as_json)


def rewrite(config: ConfigArg, tag_requests: TagOption = False, as_json: JsonOption = False) -> None:
    """Multiple choice → free form, with the leak test and the judge."""
    _stage(config, ("rewrite",), tag_requests, as_json)


def qc(config: ConfigArg, tag_requests: TagOption = False, as_json: JsonOption = False) -> None:
    """Judge checks: answer uniqueness and image-question consistency."""
    _stage(config, ("qc",), tag_requests, as_json)


def run(config: ConfigArg, tag_requests: TagOption = False, as_json: JsonOption = False) -> None:
    """Every automatic stage in order: ingest, sample, filter, rewrite, qc."""
    from vcot.curate.pipeline import STAGES

    _stage(config, STAGES, tag_requests, as_json)


def review(
    config: ConfigArg,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (not loopback: an access token is required)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (0 picks a free one)")] = 8765,
) -> None:
    """Serve the review page: approve, edit or remove each surviving item."""
    from vcot.cli.common import check_port
    from vcot.curate.review.app import ReviewApp
    from vcot.curate.review.server import ReviewServer
    from vcot.net import listen_error

    check_port(port)  # before the curation is opened: a bad port is refused with nothing read
    cur = _open(config)
    try:
        site = ReviewServer(ReviewApp(cur), host, port)
    except ValueError as exc:
        fail(exc)
    except OSError as exc:
        fail(listen_error(exc, host, port))
    console.print(f"review page: {site.url}  (Ctrl-C to stop)", markup=False, highlight=False)
    try:
        site.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        site.close()
        cur.close()


def freeze(
    config: ConfigArg,
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder of the frozen suite")],
    version: Annotated[int, typer.Option("--version", help="Version number in the suite name")] = 1,
    auto_approve: Annotated[
        bool, typer.Option("--auto-approve", help="Unreviewed survivors count as approved")
    ] = False,
) -> None:
    """Write the approved items as a versioned suite with provenance and a curation report."""
    from vcot.curate.freeze import FreezeError
    from vcot.curate.freeze import freeze as do_freeze

    cur = _open(config)
    try:
        manifest = do_freeze(cur, out, version, auto_approve)
    except (FreezeError, ValueError, OSError) as exc:
        fail(exc)
    finally:
        cur.close()
    console.print(
        f"wrote {manifest['total']} items as {manifest['name']} to {out} (curation_report.md, .html)",
        markup=False,
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    for fn, name in (
        (ingest, "ingest"),
        (sample, "sample"),
        (filter_, "filter"),
        (rewrite, "rewrite"),
        (qc, "qc"),
        (review, "review"),
        (freeze, "freeze"),
        (run, "run"),
    ):
        curate_app.command(name)(fn)
    app.add_typer(curate_app, name="curate")
