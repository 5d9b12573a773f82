"""One curation run from a config file (docs/curation.md, "Config"): the work folder, the sources, categories and
quotas, the role models and each stage's settings. Every stage reads the candidates suite and the store, so
each can run alone (`vcot curate <stage> CONFIG`) and any rerun resumes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from vcot.curate import categories as cats
from vcot.curate import checks
from vcot.curate.caption_filter import SCENE_GRAPH, FilterSettings, run_filter
from vcot.curate.models import ROLES, Caller, ModelSpec
from vcot.curate.qc import run_qc
from vcot.curate.rewrite import RewriteSettings, apply_rewrite, run_rewrite
from vcot.curate.sources import SourceSpec, ingest
from vcot.curate.store import CurationStore
from vcot.images import ImagePolicy, SuiteImages
from vcot.jsonl import loads_checked
from vcot.schema import Instance
from vcot.suite import Suite, read_suite

T = TypeVar("T")
CANDIDATES = "candidates"
STAGES = ("ingest", "sample", "filter", "rewrite", "qc")
CONFIG_KEYS = (
    "work",
    "sources",
    "name",
    "seed",
    "categories",
    "quotas",
    "keep_unmapped",
    "models",
    "filter",
    "rewrite",
    "concurrency",
    "max_side",
)
REWRITE_KEYS = ("keep_options", "keep_categories", "leak_trials", "leak_threshold", "on_reject", "judge", "extra")
# Trials per item are model calls per item: past a hundred a typo (5000 for 5) would queue millions of calls
# before the first reply.
MAX_TRIALS = 100
# Concurrent calls: the engine's client pool holds 256 connections; more only queues inside the process.
MAX_CONCURRENCY = 1024


class ConfigError(ValueError):
    """The curation config is invalid."""


@dataclass
class CurationConfig:
    work: Path
    sources: list[SourceSpec]
    name: str = "curated"
    seed: int = 0
    mapping: dict[str, str] = field(default_factory=dict)
    quotas: dict[str, int] = field(default_factory=dict)
    keep_unmapped: bool = False
    models: dict[str, ModelSpec] = field(default_factory=dict)
    filter: FilterSettings = field(default_factory=FilterSettings)
    rewrite: RewriteSettings = field(default_factory=RewriteSettings)
    concurrency: int = 8
    max_side: int = 2000

    @classmethod
    def load(cls, path: str | Path) -> CurationConfig:
        p = Path(path)
        text = checks.read_text(p, "config", ConfigError, checks.MAX_CONFIG_BYTES)
        try:
            data = loads_checked(text, str(p), ConfigError)
        except ConfigError as exc:
            if "nested too deeply" in str(exc) or "unreadable JSON value" in str(exc):
                raise
            data = _yaml(text, p)
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: a config is a mapping, got {type(data).__name__}")
        return cls.from_dict(data, p.parent, str(p))

    @classmethod
    def from_dict(cls, d: dict[str, Any], base: Path, where: str = "config") -> CurationConfig:
        """A config from its parsed mapping. Every key is checked for its type and range here, so that a bad
        value is refused up front with its name rather than failing (or hanging) in a stage."""
        E = ConfigError  # noqa: N806 - the error type every check raises
        d = checks.mapping(d, where, E)
        checks.unknown_keys(d, CONFIG_KEYS, where, E)
        if "work" not in d or not d.get("sources"):
            raise E(f"{where}: a config needs 'work' (a folder) and at least one source in 'sources'")
        work = checks.text(d["work"], f"{where}: 'work'", E)
        if not isinstance(d["sources"], list):
            raise E(f"{where}: 'sources' must be a list of sources")
        sources = [SourceSpec.from_config(s, base, f"{where}: sources[{n}]") for n, s in enumerate(d["sources"])]
        models_cfg = checks.mapping(d.get("models") or {}, f"{where}: 'models'", E)
        checks.unknown_keys(models_cfg, ROLES, f"{where}: 'models'", E)
        try:
            models = {r: ModelSpec.from_config(v, f"{where}: models.{r}") for r, v in models_cfg.items()}
        except ValueError as exc:
            raise E(str(exc)) from None
        mapping = checks.mapping(d.get("categories") or {}, f"{where}: 'categories'", E)
        for pattern, cat in mapping.items():
            checks.text(cat, f"{where}: categories.{pattern}", E)
        quotas = checks.mapping(d.get("quotas") or {}, f"{where}: 'quotas'", E)
        for cat, q in quotas.items():
            checks.integer(q, f"{where}: quotas.{cat}", E, 0, 10**9)
        filt = checks.mapping(d.get("filter") or {}, f"{where}: 'filter'", E)
        checks.unknown_keys(filt, ("trials", "threshold"), f"{where}: 'filter'", E)
        for key in filt:
            checks.integer(filt[key], f"{where}: filter.{key}", E, 1, MAX_TRIALS)
        rw = dict(checks.mapping(d.get("rewrite") or {}, f"{where}: 'rewrite'", E))
        checks.unknown_keys(rw, REWRITE_KEYS, f"{where}: 'rewrite'", E)
        for key in ("leak_trials", "leak_threshold"):
            if key in rw:
                checks.integer(rw[key], f"{where}: rewrite.{key}", E, 1, MAX_TRIALS)
        for key in ("keep_options", "on_reject"):
            if key in rw:
                checks.text(rw[key], f"{where}: rewrite.{key}", E)
        if "keep_categories" in rw:
            rw["keep_categories"] = tuple(
                checks.text_list(rw["keep_categories"], f"{where}: rewrite.keep_categories", E)
            )
            cats.check_mapping({f"keep_categories[{n}]": c for n, c in enumerate(rw["keep_categories"])}, {})
        if "judge" in rw:
            checks.boolean(rw["judge"], f"{where}: rewrite.judge", E)
        if "extra" in rw:
            checks.mapping(rw["extra"], f"{where}: rewrite.extra", E)
        try:
            cfg = cls(
                work=(base / work).resolve(),
                sources=sources,
                name=checks.text(d.get("name", "curated"), f"{where}: 'name'", E),
                seed=checks.integer(d.get("seed", 0), f"{where}: 'seed'", E, 0, 2**63 - 1),
                mapping=dict(mapping),
                quotas={c: int(q) for c, q in quotas.items()},
                keep_unmapped=checks.boolean(d.get("keep_unmapped", False), f"{where}: 'keep_unmapped'", E),
                models=models,
                filter=FilterSettings(**filt),
                rewrite=RewriteSettings(**rw),
                concurrency=checks.integer(d.get("concurrency", 8), f"{where}: 'concurrency'", E, 1, MAX_CONCURRENCY),
                max_side=checks.integer(d.get("max_side", 2000), f"{where}: 'max_side'", E, 16, 16384),
            )
        except (TypeError, ValueError, OSError) as e:
            if isinstance(e, ConfigError):
                raise
            raise E(f"{where}: {e}") from None
        cats.check_mapping(cfg.mapping, cfg.quotas)
        return cfg


def _yaml(text: str, p: Path) -> Any:
    try:
        import yaml  # JSON is YAML too; PyYAML is needed only for a config that is not JSON
    except ImportError:
        raise ConfigError(f"{p} is not JSON, and reading YAML needs PyYAML (pip install pyyaml)") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{p}: neither JSON nor YAML ({' '.join(str(e).split())[:200]})") from None
    except RecursionError:
        raise ConfigError(f"{p}: YAML nested too deeply") from None


def _run(
    make: Callable[[Caller], Awaitable[T]],
    cfg: CurationConfig,
    store: CurationStore,
    progress: Callable[..., None] | None = None,
    tag_requests: bool = False,
) -> tuple[T, int]:
    async def go() -> tuple[T, int]:
        caller = Caller(store, cfg.models, cfg.concurrency, tag_requests=tag_requests, progress=progress)
        try:
            return await make(caller), caller.sent
        finally:
            await caller.aclose()

    return asyncio.run(go())


class Curation:
    """The stages over one work folder."""

    def __init__(
        self,
        cfg: CurationConfig,
        progress: Callable[[str], Callable[..., None]] | None = None,
        tag_requests: bool = False,
    ) -> None:
        self.cfg = cfg
        # The X-Vcot-Call header names run, item and stage: for the mock server and proxies only, never sent
        # to a provider unless asked for (`--tag-requests`, as in `vcot eval`).
        self.tag_requests = tag_requests
        # Called with a stage's name, returns what gets (items done, items, failed=…, retries=…) in the stage.
        self.progress = progress
        cfg.work.mkdir(parents=True, exist_ok=True)
        self.store = CurationStore(cfg.work)

    def close(self) -> None:
        self.store.close()

    # -- data ------------------------------------------------------------------------------------------------

    def candidates(self) -> Suite:
        path = self.cfg.work / CANDIDATES
        if not (path / "manifest.json").is_file():
            raise ConfigError(f"no candidates in {path}: run `vcot curate ingest` first")
        return read_suite(path)

    def images(self) -> SuiteImages:
        return SuiteImages(self.candidates(), ImagePolicy(max_side=self.cfg.max_side))

    def selected(self) -> list[tuple[Instance, str]]:
        by_uid = {i.uid: i for i in self.candidates().instances}
        return [
            (by_uid[u], d["details"]["category"])
            for u, d in self.store.decisions("sample").items()
            if d["verdict"] == "chosen" and u in by_uid
        ]

    def after(self, stage: str, ok: tuple[str, ...]) -> list[tuple[Instance, str]]:
        decided = self.store.decisions(stage)
        return [(i, c) for i, c in self.selected() if decided.get(i.uid, {}).get("verdict") in ok]

    def current(self, inst: Instance) -> Instance:
        """The item in its latest accepted form (the free-form rewrite when there is one)."""
        return apply_rewrite(inst, self.store.decision("rewrite", inst.uid))

    # -- stages ---------------------------------------------------------------------------------------------

    def ingest(self, force: bool = False) -> dict[str, Any]:
        path = self.cfg.work / CANDIDATES
        if (path / "manifest.json").is_file() and not force:
            return {"stage": "ingest", "candidates": len(self.candidates()), "resumed": True}
        manifest = ingest(self.cfg.sources, path, progress=self._progress("ingest"))
        return {"stage": "ingest", "candidates": manifest["total"], "resumed": False}

    def sample(self) -> dict[str, Any]:
        instances = self.candidates().instances
        chosen, left = cats.sample(instances, self.cfg.mapping, self.cfg.quotas, self.cfg.seed, self.cfg.keep_unmapped)
        for inst, cat in chosen:
            self.store.decide(
                "sample", inst.uid, "chosen", f"category {cat}", {"category": cat, "level": cats.level_of(cat)}
            )
        for uid, why in left.items():
            self.store.decide("sample", uid, "left_out", why, {})
        present = {cats.category_of(i, self.cfg.mapping) for i in instances}
        out = {"stage": "sample", "chosen": len(chosen), "left_out": len(left), **cats.counts(chosen)}
        warnings = cats.unused_quotas(self.cfg.quotas, present)
        return {**out, "warnings": warnings} if warnings else out

    def filter(self) -> dict[str, Any]:
        items = [i for i, _ in self.selected()]
        scene = self.cfg.models.get("captioner", ModelSpec("")).model == SCENE_GRAPH
        images = self.images()
        res, sent = _run(
            lambda c: run_filter(c, items, images, self.cfg.filter, scene),
            self.cfg,
            self.store,
            self._progress("filter"),
            self.tag_requests,
        )
        return _summary("filter", res, sent)

    def rewrite(self) -> dict[str, Any]:
        items = self.after("filter", ("kept",))
        res, sent = _run(
            lambda c: run_rewrite(c, items, self.cfg.rewrite),
            self.cfg,
            self.store,
            self._progress("rewrite"),
            self.tag_requests,
        )
        return _summary("rewrite", res, sent)

    def qc(self) -> dict[str, Any]:
        items = [
            self.current(i)
            for i, _ in self.after("filter", ("kept",))
            if self.store.decision("rewrite", i.uid) and self.store.decision("rewrite", i.uid)["verdict"] != "removed"
        ]
        images = self.images()
        res, sent = _run(
            lambda c: run_qc(c, items, images), self.cfg, self.store, self._progress("qc"), self.tag_requests
        )
        return _summary("qc", res, sent)

    def _progress(self, stage: str) -> Callable[..., None] | None:
        return self.progress(stage) if self.progress is not None else None

    def survivors(self) -> list[tuple[Instance, str]]:
        """Items that passed every automatic stage (qc passed or flagged), in their current form."""
        return [(self.current(i), c) for i, c in self.after("qc", ("passed", "flagged"))]

    def run(self) -> list[dict[str, Any]]:
        """Every automatic stage in order."""
        return [self.ingest(), self.sample(), self.filter(), self.rewrite(), self.qc()]


def _summary(stage: str, results: list[dict[str, Any]], sent: int) -> dict[str, Any]:
    verdicts: dict[str, int] = {}
    for r in results:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    return {"stage": stage, "items": len(results), "calls_sent": sent, **dict(sorted(verdicts.items()))}
