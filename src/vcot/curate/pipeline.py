"""One curation run from a config file (docs/curation.md, "Config"): the work folder, the sources, categories and
quotas, the role models and each stage's settings. Every stage reads the candidates suite and the store, so
each can run alone (`vcot curate <stage> CONFIG`) and any rerun resumes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from vcot.curate import categories as cats
from vcot.curate.caption_filter import SCENE_GRAPH, FilterSettings, run_filter
from vcot.curate.models import ROLES, Caller, ModelSpec
from vcot.curate.qc import run_qc
from vcot.curate.rewrite import RewriteSettings, apply_rewrite, run_rewrite
from vcot.curate.sources import SourceSpec, ingest
from vcot.curate.store import CurationStore
from vcot.images import ImagePolicy, SuiteImages
from vcot.schema import Instance
from vcot.suite import Suite, read_suite

T = TypeVar("T")
CANDIDATES = "candidates"
STAGES = ("ingest", "sample", "filter", "rewrite", "qc")


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
        text = p.read_text(encoding="utf-8")
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            try:
                import yaml  # JSON is YAML too; PyYAML is needed only for a config that is not JSON
            except ImportError:
                raise ConfigError(f"{p} is not JSON, and reading YAML needs PyYAML (pip install pyyaml)") from None
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as e:
                raise ConfigError(f"{p}: neither JSON nor YAML ({e})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: a config is a mapping")
        return cls.from_dict(data, p.parent)

    @classmethod
    def from_dict(cls, d: dict[str, Any], base: Path) -> CurationConfig:
        known = {"work", "sources", "name", "seed", "categories", "quotas", "keep_unmapped", "models", "filter",
                 "rewrite", "concurrency", "max_side"}
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"unknown config key(s) {sorted(unknown)}; known: {sorted(known)}")
        if "work" not in d or not d.get("sources"):
            raise ConfigError("a config needs 'work' (a folder) and at least one source")
        models = {r: ModelSpec.from_config(v) for r, v in (d.get("models") or {}).items()}
        bad = set(models) - set(ROLES)
        if bad:
            raise ConfigError(f"unknown role(s) {sorted(bad)}; roles: {ROLES}")
        rw = dict(d.get("rewrite") or {})
        if "keep_categories" in rw:
            rw["keep_categories"] = tuple(rw["keep_categories"])
        try:
            cfg = cls(work=(base / d["work"]).resolve(), sources=[SourceSpec.from_config(s, base) for s in d["sources"]],
                      name=str(d.get("name", "curated")), seed=int(d.get("seed", 0)),
                      mapping=dict(d.get("categories") or {}), quotas=dict(d.get("quotas") or {}),
                      keep_unmapped=bool(d.get("keep_unmapped", False)), models=models,
                      filter=FilterSettings(**(d.get("filter") or {})), rewrite=RewriteSettings(**rw),
                      concurrency=int(d.get("concurrency", 8)), max_side=int(d.get("max_side", 2000)))
        except (TypeError, ValueError) as e:
            raise ConfigError(str(e)) from e
        cats.check_mapping(cfg.mapping, cfg.quotas)
        return cfg


def _run(make: Callable[[Caller], Awaitable[T]], cfg: CurationConfig, store: CurationStore,
         progress: Callable[..., None] | None = None) -> tuple[T, int]:
    async def go() -> tuple[T, int]:
        caller = Caller(store, cfg.models, cfg.concurrency, progress=progress)
        try:
            return await make(caller), caller.sent
        finally:
            await caller.aclose()

    return asyncio.run(go())


class Curation:
    """The stages over one work folder."""

    def __init__(self, cfg: CurationConfig, progress: Callable[[str], Callable[..., None]] | None = None) -> None:
        self.cfg = cfg
        # Called with a stage's name, returns what gets (items done, items, pending=…, retries=…) in the stage.
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
        return [(by_uid[u], d["details"]["category"]) for u, d in self.store.decisions("sample").items()
                if d["verdict"] == "chosen" and u in by_uid]

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
        manifest = ingest(self.cfg.sources, path)
        return {"stage": "ingest", "candidates": manifest["total"], "resumed": False}

    def sample(self) -> dict[str, Any]:
        chosen, left = cats.sample(self.candidates().instances, self.cfg.mapping, self.cfg.quotas, self.cfg.seed,
                                   self.cfg.keep_unmapped)
        for inst, cat in chosen:
            self.store.decide("sample", inst.uid, "chosen", f"category {cat}",
                              {"category": cat, "level": cats.level_of(cat)})
        for uid, why in left.items():
            self.store.decide("sample", uid, "left_out", why, {})
        return {"stage": "sample", "chosen": len(chosen), "left_out": len(left), **cats.counts(chosen)}

    def filter(self) -> dict[str, Any]:
        items = [i for i, _ in self.selected()]
        scene = self.cfg.models.get("captioner", ModelSpec("")).model == SCENE_GRAPH
        images = self.images()
        res, sent = _run(lambda c: run_filter(c, items, images, self.cfg.filter, scene), self.cfg, self.store,
                         self._progress("filter"))
        return _summary("filter", res, sent)

    def rewrite(self) -> dict[str, Any]:
        items = self.after("filter", ("kept",))
        res, sent = _run(lambda c: run_rewrite(c, items, self.cfg.rewrite), self.cfg, self.store,
                         self._progress("rewrite"))
        return _summary("rewrite", res, sent)

    def qc(self) -> dict[str, Any]:
        items = [self.current(i) for i, _ in self.after("filter", ("kept",))
                 if self.store.decision("rewrite", i.uid) and self.store.decision("rewrite", i.uid)["verdict"]
                 != "removed"]
        images = self.images()
        res, sent = _run(lambda c: run_qc(c, items, images), self.cfg, self.store, self._progress("qc"))
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
