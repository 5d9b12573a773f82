"""Curation commands (docs/curation.md): `vcot curate <stage> CONFIG` for each stage and `vcot curate run CONFIG`
for every automatic stage. Every stage resumes from the work folder's store: rerunning sends only missing
calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from vcot.cli.common import console, counter, err, fail, progress_bar

curate_app = typer.Typer(no_args_is_help=True, help="Curate a benchmark from existing datasets: ingest, sample, "
                                                    "filter, rewrite, qc, review, freeze, or run (every automatic "
                                                    "stage).")

ConfigArg = Annotated[Path, typer.Argument(help="Curation config (JSON or YAML, docs/curation.md)", metavar="CONFIG",
                                           show_default=False)]


def _open(config: Path, progress: Any = None) -> Any:
    from vcot.curate.categories import CategoryError
    from vcot.curate.pipeline import ConfigError, Curation, CurationConfig
    from vcot.curate.sources import SourceError

    if not config.is_file():
        fail(f"config not found: {config}")
    try:
        return Curation(CurationConfig.load(config), progress)
    except (ConfigError, SourceError, CategoryError, OSError) as exc:
        fail(exc)


def _stage(config: Path, stage: str) -> None:
    from vcot.curate.pipeline import ConfigError
    from vcot.curate.sources import SourceError
    from vcot.curate.store import SettingsMismatch

    shown = progress_bar()
    cur = _open(config, lambda name: counter(shown, f"curate {name}"))
    try:
        with shown:
            results = cur.run() if stage == "run" else [getattr(cur, stage)()]
    except (ConfigError, SourceError, SettingsMismatch, ValueError) as exc:
        fail(exc)
    finally:
        cur.close()
    for r in results:
        console.print(json.dumps(r), markup=False, highlight=False, soft_wrap=True)
    pending = sum(r.get("pending", 0) for r in results)
    if pending:
        err.print(f"{pending} item(s) pending after failed calls: rerun the same command to retry them")
        raise typer.Exit(3)


def ingest(config: ConfigArg,
           force: Annotated[bool, typer.Option("--force", help="Read the sources again even if candidates exist")
                            ] = False) -> None:
    """Read the configured sources into the candidates suite (work/candidates)."""
    cur = _open(config)
    try:
        console.print(json.dumps(cur.ingest(force=force)), markup=False, highlight=False)
    except (ValueError, OSError) as exc:
        fail(exc)
    finally:
        cur.close()


def sample(config: ConfigArg) -> None:
    """Map candidates to categories and apply the quotas (seeded)."""
    _stage(config, "sample")


def filter_(config: ConfigArg) -> None:
    """Caption-only visual-dependency filter: captioner + text-only reasoner trials."""
    _stage(config, "filter")


def rewrite(config: ConfigArg) -> None:
    """Multiple choice → free form, with the leak test and the judge."""
    _stage(config, "rewrite")


def qc(config: ConfigArg) -> None:
    """Judge checks: answer uniqueness and image-question consistency."""
    _stage(config, "qc")


def run(config: ConfigArg) -> None:
    """Every automatic stage in order: ingest, sample, filter, rewrite, qc."""
    _stage(config, "run")


def review(config: ConfigArg,
           host: Annotated[str, typer.Option("--host", help="Address to listen on (not loopback: an access token "
                                                           "is required)")] = "127.0.0.1",
           port: Annotated[int, typer.Option("--port", help="Port (0 picks a free one)")] = 8765) -> None:
    """Serve the review page: approve, edit or remove each surviving item."""
    from vcot.curate.review.app import ReviewApp
    from vcot.curate.review.server import ReviewServer
    from vcot.net import listen_error

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


def freeze(config: ConfigArg,
           out: Annotated[Path, typer.Option("--out", "-o", help="Folder of the frozen suite")],
           version: Annotated[int, typer.Option("--version", help="Version number in the suite name")] = 1,
           auto_approve: Annotated[bool, typer.Option("--auto-approve", help="Unreviewed survivors count as "
                                                                            "approved")] = False) -> None:
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
    console.print(f"wrote {manifest['total']} items as {manifest['name']} to {out} (curation_report.md, .html)",
                  markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    for fn, name in ((ingest, "ingest"), (sample, "sample"), (filter_, "filter"), (rewrite, "rewrite"), (qc, "qc"),
                     (review, "review"), (freeze, "freeze"), (run, "run")):
        curate_app.command(name)(fn)
    app.add_typer(curate_app, name="curate")
