"""A suite's HTML gallery: question, input image, steps with texts, answer, corrupted trajectory.

Two layouts:

* linked (the default): an index page with a card per task (a thumbnail of its first instance, its one-line
  description, domain and counts per difficulty, links to its pages), and beside it a
  folder `<index stem>_pages/` with one page per task (split into pages of `per_page` instances). Images are
  not copied: every <img> points at the suite's own PNG file by a relative path, loads lazily, and carries
  its width and height so the page does not jump while images arrive. The HTML stays small whatever the
  suite's size, but the gallery only works while the suite folder stays where it was (relative to it).
* embedded (`embed=True`): one self-contained file with every image as a data: URI thumbnail, for sharing
  a small suite. It grows with the suite (the mira-synth suite made a 130 MB file), so it is refused above
  `EMBED_LIMIT_BYTES`.

Everything from the suite goes through `vcot.html.escape`; file names come from task names that pass
`suite.check_name` and are written through `suite.resolve_inside` (docs/design.md, "A name that becomes a
path").
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from PIL import Image

from vcot.html import SELF, content_security_policy, escape, page, thumbnail_data_uri
from vcot.schema import Instance
from vcot.suite import Suite, check_name, resolve_inside

THUMB_MAX_SIDE = 512
PER_PAGE = 50
# An embedded gallery above this size loads slowly and is no longer "a file to share"; the embedded mini
# suite (63 instances, every image) is about 14 MB.
EMBED_LIMIT_BYTES = 32 * 1024 * 1024
# Order of the difficulty columns on the index; any other value follows, sorted.
DIFFICULTIES = ("easy", "medium", "hard", "custom")
NO_DIFFICULTY = "unspecified"

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;background:#fafafa;color:#222}
h1{font-size:1.4em} h2{font-size:1.1em;margin:.2em 0}
nav{display:flex;flex-wrap:wrap;gap:.3em .9em;margin:.6em 0}
nav [aria-current]{font-weight:bold}
.inst{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1em;margin:1em 0}
.meta{color:#666;font-size:.85em}
.row{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
figure{margin:0;max-width:520px} figcaption{font-size:.85em;white-space:pre-wrap}
img{max-width:100%;height:auto;border:1px solid #ccc}
.q{white-space:pre-wrap} .ans{font-weight:bold;color:#064}
details{margin-top:.5em}
table{border-collapse:collapse;background:#fff} td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left}
td.n{text-align:right}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:14px;margin:1em 0}
.card{background:#fff;border:1px solid #ddd;border-radius:8px;padding:.8em;display:flex;flex-direction:column;
gap:.35em}
.card .thumb{display:flex;align-items:center;justify-content:center;height:170px;background:#f3f3f3;
border-radius:4px;overflow:hidden}
.card .thumb img{max-height:160px;max-width:100%;width:auto;border:0}
.card .none{color:#888;font-size:.85em}
.card h2 a{color:#0550ae;text-decoration:none} .card h2 a:hover{text-decoration:underline}
.card .desc{margin:0;font-size:.92em;line-height:1.35}
.counts{display:flex;flex-wrap:wrap;gap:.3em;margin:0;padding:0;list-style:none;font-size:.82em}
.counts li{background:#eef2f7;border-radius:3px;padding:.1em .45em}
.counts li.zero{color:#999;background:#f5f5f5}
.card .pages{font-size:.82em;color:#555;margin:0}
"""
# Index thumbnails are embedded: a card's picture must show wherever the index is opened, and a few small
# PNGs keep it small (about 10-30 KB each at this size).
INDEX_THUMB_SIDE = 240


class GalleryError(ValueError):
    """The gallery cannot be written as asked (an embedded gallery over the size limit, a bad page size)."""


@dataclass
class GalleryFiles:
    """What `write_gallery` wrote: the index (the one file when embedded) and the task pages."""

    index: Path
    pages: list[Path] = field(default_factory=list)

    @property
    def pages_dir(self) -> Path:
        return pages_dir(self.index)

    @property
    def total_bytes(self) -> int:
        return sum(p.stat().st_size for p in [self.index, *self.pages])


@dataclass
class TaskPage:
    """One page of one task's instances."""

    task: str
    number: int  # 1-based
    count: int  # pages of this task
    instances: list[Instance]
    filename: str


# An <img> element for a suite-relative image path.
ImageTag = Callable[[str], str]


def pages_dir(index: Path) -> Path:
    """The folder of task pages written beside the index page `index`."""
    return index.with_name(f"{index.stem}_pages")


def difficulty(inst: Instance) -> str:
    gen = inst.meta.get("generator")
    value = gen.get("difficulty") if isinstance(gen, dict) else None
    return value if isinstance(value, str) and value else NO_DIFFICULTY


def _by_task(instances: Iterable[Instance]) -> dict[str, list[Instance]]:
    """Instances grouped by task, tasks in order of first appearance, suite order within a task."""
    groups: dict[str, list[Instance]] = {}
    for inst in instances:
        groups.setdefault(inst.task, []).append(inst)
    return groups


def _file_stems(tasks: Iterable[str]) -> dict[str, str]:
    """A file name stem per task. Task names are already checked when the suite is read; checked again here
    because they become file names. '~' cannot occur in a task name, so `<task>~2` never meets another task;
    names equal but for case get a suffix, for file systems that ignore case."""
    stems: dict[str, str] = {}
    taken: set[str] = set()
    for task in tasks:
        stem = check_name(task, "gallery")
        k = 1
        while stem.casefold() in taken:
            k += 1
            stem = f"{task}~t{k}"
        taken.add(stem.casefold())
        stems[task] = stem
    return stems


def plan_pages(instances: Iterable[Instance], per_page: int = PER_PAGE) -> dict[str, list[TaskPage]]:
    """Every task's instances split into pages of at most `per_page`; the first page is `<task>.html`."""
    if per_page < 1:
        raise GalleryError(f"instances per page must be at least 1, got {per_page}")
    groups = _by_task(instances)
    stems = _file_stems(groups)
    plan: dict[str, list[TaskPage]] = {}
    for task, insts in groups.items():
        count = math.ceil(len(insts) / per_page)
        plan[task] = [
            TaskPage(
                task,
                k + 1,
                count,
                insts[k * per_page : (k + 1) * per_page],
                f"{stems[task]}.html" if k == 0 else f"{stems[task]}~{k + 1}.html",
            )
            for k in range(count)
        ]
    return plan


def _href(path: str) -> str:
    """A relative path as an attribute-safe URL (spaces, '#', '?' and '%' in folder names stay literal)."""
    return escape(quote(path, safe="/~"))


# --------------------------------------------------------------------------------------------- instances


def _figure(img: str, caption: str) -> str:
    return f"<figure>{img}<figcaption>{escape(caption)}</figcaption></figure>"


def _instance(inst: Instance, image: ImageTag, position: str = "") -> str:
    options = ""
    if inst.options:
        options = "<ol type='A'>" + "".join(f"<li>{escape(o)}</li>" for o in inst.options) + "</ol>"
    figs = [_figure(image(inst.image), "input")]
    figs += [_figure(image(s.image), f"step {k}: {s.text}") for k, s in enumerate(inst.steps, 1)]
    corrupted = ""
    if inst.corrupted_steps:
        cfigs = [_figure(image(s.image), f"corrupted {k}: {s.text}") for k, s in enumerate(inst.corrupted_steps, 1)]
        note = escape(str(inst.meta.get("corruption", "")))
        corrupted = (
            f"<details><summary>corrupted trajectory — {note}</summary>"
            f"<div class='row'>{''.join(cfigs)}</div></details>"
        )
    meta = " · ".join(escape(x) for x in (position, inst.uid, inst.answer_type, difficulty(inst)) if x)
    return (
        f"<section class='inst' id='{escape(inst.uid)}'><div class='meta'>{meta}</div>"
        f"<p class='q'>{escape(inst.question)}</p>{options}"
        f"<div class='row'>{''.join(figs)}</div>"
        f"<p>Answer: <span class='ans'>{escape(inst.answer)}</span></p>{corrupted}</section>"
    )


# ------------------------------------------------------------------------------------------------ linked


class _LinkedImages:
    """<img> tags pointing from one folder at the suite's PNG files, with their sizes read once."""

    def __init__(self, suite: Suite, page_dir: Path) -> None:
        self.suite = suite
        self.page_dir = page_dir.resolve()
        self._sizes: dict[str, tuple[int, int]] = {}

    def _size(self, path: Path, rel: str) -> tuple[int, int]:
        if rel not in self._sizes:
            with Image.open(path) as im:  # reads the header only
                self._sizes[rel] = im.size
        return self._sizes[rel]

    def __call__(self, rel: str) -> str:
        path = self.suite.image_path(rel)  # refuses paths that leave the suite folder
        try:
            src = _href(Path(os.path.relpath(path, self.page_dir)).as_posix())
        except ValueError:  # another drive (Windows): no relative path exists
            src = escape(path.as_uri())
        w, h = self._size(path, rel)
        return f'<img src="{src}" alt="{escape(rel)}" width="{w}" height="{h}" loading="lazy" decoding="async">'


def _task_nav(plan: dict[str, list[TaskPage]], prefix: str, current: str | None, index_href: str | None) -> str:
    links = [f"<a href='{_href(index_href)}'>↑ index</a>"] if index_href else []
    for task, pages in plan.items():
        mark = " aria-current='page'" if task == current else ""
        links.append(f"<a href='{_href(prefix + pages[0].filename)}'{mark}>{escape(task)}</a>")
    return "<nav class='tasks'>" + "".join(links) + "</nav>"


def _page_nav(pages: list[TaskPage], current: TaskPage) -> str:
    if len(pages) == 1:
        return ""
    links = []
    if current.number > 1:
        links.append(f"<a href='{_href(pages[current.number - 2].filename)}' rel='prev'>← previous</a>")
    for p in pages:
        mark = " aria-current='page'" if p is current else ""
        links.append(f"<a href='{_href(p.filename)}'{mark}>{p.number}</a>")
    if current.number < len(pages):
        links.append(f"<a href='{_href(pages[current.number].filename)}' rel='next'>next →</a>")
    return "<nav class='pages'>" + "".join(links) + "</nav>"


def _linked_page(title: str, body: str) -> str:
    # Images come from the suite folder and nothing else loads: 'self' for a gallery served over HTTP, file:
    # for one opened from disk (browsers differ on whether 'self' matches file: URLs).
    return page(title, body, css=_CSS, csp=content_security_policy(img_src=f"{SELF} file:"))


def render_task_page(
    suite: Suite, plan: dict[str, list[TaskPage]], tp: TaskPage, page_dir: Path, index_name: str
) -> str:
    """One task page; `page_dir` is where it will be written (image paths are relative to it)."""
    image = _LinkedImages(suite, page_dir)
    pages = plan[tp.task]
    total = sum(len(p.instances) for p in pages)
    first = sum(len(p.instances) for p in pages[: tp.number - 1])
    domain = tp.instances[0].domain if tp.instances else ""
    heading = f"{tp.task} ({domain})" + (f" — page {tp.number} of {tp.count}" if tp.count > 1 else "")
    parts = [
        _task_nav(plan, "", tp.task, f"../{index_name}"),
        f"<h1>{escape(heading)}</h1>",
        f"<p class='meta'>suite {escape(suite.name)} · {total} instances · "
        f"showing {first + 1}–{first + len(tp.instances)}</p>",
        _page_nav(pages, tp),
    ]
    parts += [_instance(inst, image, f"#{first + k}") for k, inst in enumerate(tp.instances, 1)]
    parts.append(_page_nav(pages, tp))
    return _linked_page(f"{tp.task} — {suite.name}", "\n".join(parts))


def _descriptions(tasks: Iterable[str]) -> dict[str, str]:
    """The one-line description of every registered task among `tasks` (imported tasks have none)."""
    from vcot.tasks import task_infos

    wanted = set(tasks)
    return {t.name: t.description for t in task_infos() if t.name in wanted and t.description}


def _card_thumbnail(suite: Suite, inst: Instance) -> str:
    """The first instance's input picture as an embedded thumbnail, or a note when it cannot be read (the
    task page then says which file is wrong)."""
    try:
        uri = thumbnail_data_uri(suite.load_image(inst.image), INDEX_THUMB_SIDE, mode="RGB", optimize=True)
    except (OSError, ValueError):
        return "<span class='none'>no thumbnail: the input image cannot be read</span>"
    return f'<img src="{uri}" alt="{escape(inst.task)}: {escape(inst.uid)}, input image">'


def render_index(
    suite: Suite, plan: dict[str, list[TaskPage]], pages_name: str, suite_href: str, title: str | None = None
) -> str:
    """The index page: a card per task (thumbnail, one-line description, domain, counts per difficulty, links
    to its pages); `suite_href` is the suite folder as seen from the index (shown, so that a reader knows
    what the task pages' images depend on)."""
    groups = {task: [i for p in pages for i in p.instances] for task, pages in plan.items()}
    per_task = {task: Counter(difficulty(i) for i in insts) for task, insts in groups.items()}
    seen = {d for c in per_task.values() for d in c}
    levels = [d for d in DIFFICULTIES if d in seen] + sorted(seen - set(DIFFICULTIES))
    about = _descriptions(plan)
    prefix = pages_name + "/"
    cards = []
    for task, pages in plan.items():
        first = groups[task][0]
        href = _href(prefix + pages[0].filename)
        counts = "".join(
            f"<li class='{'n' if per_task[task].get(d, 0) else 'zero'}'>{escape(d)} "
            f"<b>{per_task[task].get(d, 0)}</b></li>"
            for d in levels
        )
        links = " ".join(f"<a href='{_href(prefix + p.filename)}'>{p.number}</a>" for p in pages)
        pages_line = f"<p class='pages'>pages {links}</p>" if len(pages) > 1 else ""
        desc = about.get(task, "Not a vcot task: no description (an imported or curated task).")
        cards.append(
            f"<article class='card' id='card-{escape(task)}'>"
            f"<a class='thumb' href='{href}' aria-label='{escape(task)}'>{_card_thumbnail(suite, first)}</a>"
            f"<h2><a href='{href}'>{escape(task)}</a></h2>"
            f"<p class='desc'>{escape(desc)}</p>"
            f"<p class='meta'>domain {escape(first.domain)} · {len(groups[task])} instances</p>"
            f"<ul class='counts' aria-label='instances per difficulty'>{counts}</ul>{pages_line}</article>"
        )
    n = sum(len(g) for g in groups.values())
    body = "\n".join(
        [
            f"<h1>{escape(title or 'Suite ' + suite.name)}</h1>",
            f"<p class='meta'>{n} instances of {len(plan)} tasks · content hash {escape(suite.content_hash)} · "
            f"the task pages read their images from the suite folder {escape(suite_href)}: move the gallery and the "
            "suite together</p>",
            _task_nav(plan, prefix, None, None),
            f"<div class='cards'>{''.join(cards)}</div>",
        ]
    )
    # The thumbnails are data: URIs; nothing else loads.
    return page(title or suite.name, body, css=_CSS, csp=content_security_policy(img_src="data:"))


def _write_linked(suite: Suite, chosen: list[Instance], index: Path, per_page: int) -> GalleryFiles:
    plan = plan_pages(chosen, per_page)
    folder = pages_dir(index)
    if folder.resolve() == suite.root.resolve():
        raise GalleryError(f"the task pages would go into the suite folder {folder}; choose another --out")
    try:
        suite_href = os.path.relpath(suite.root.resolve(), index.parent.resolve())
    except ValueError:  # another drive (Windows)
        suite_href = str(suite.root.resolve())
    # The index first: an --out that cannot be written fails before any page is.
    index.write_text(render_index(suite, plan, folder.name, suite_href), encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for pages in plan.values():
        for tp in pages:
            target = resolve_inside(folder, tp.filename, where="gallery")
            target.write_text(render_task_page(suite, plan, tp, folder, index.name), encoding="utf-8")
            written.append(target)
    return GalleryFiles(index, written)


# ---------------------------------------------------------------------------------------------- embedded


def estimate_embedded_bytes(suite: Suite, instances: Iterable[Instance]) -> int:
    """A quick guess of the embedded gallery's size from the PNG files, without encoding anything: each file's
    bytes, scaled by the area its thumbnail keeps, plus a third for base64. Thumbnails are encoded at the
    fastest level, so the real page is larger (twice the guess for the mira-synth suite)."""
    total = 0.0
    for rel in {rel for inst in instances for rel in inst.image_paths()}:
        path = suite.image_path(rel)
        with Image.open(path) as im:  # reads the header only
            side = max(im.size)
        total += path.stat().st_size * min(1.0, THUMB_MAX_SIDE / side) ** 2 * 4 / 3
    return int(total)


def render_gallery(
    suite: Suite,
    uids: Iterable[str] | None = None,
    title: str | None = None,
    max_bytes: int | None = EMBED_LIMIT_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The self-contained gallery: one page, every image a data: URI thumbnail.

    Raises GalleryError when the page would be larger than `max_bytes` (None: no limit): at once when the
    estimate already is, else as soon as the page grows past it, before encoding the rest. `progress` gets
    (instances done, instances) after each instance.
    """
    chosen = [suite.get(u) for u in uids] if uids is not None else suite.instances
    groups = _by_task(chosen)
    refusal = (
        f"an embedded gallery of {len(chosen)} instances is refused above {(max_bytes or 0) / 2**20:g} MiB; "
        "write the linked gallery (without --embed) or embed fewer instances (--per-task)"
    )
    if max_bytes is not None and (guess := estimate_embedded_bytes(suite, chosen)) > max_bytes:
        raise GalleryError(f"{refusal} (estimated from its PNG files: {guess / 2**20:.0f} MiB or more)")

    def image(rel: str) -> str:
        # Every image of the suite is embedded, so encoding speed matters more than file size here.
        return f'<img src="{thumbnail_data_uri(suite.load_image(rel), THUMB_MAX_SIDE)}" alt="{escape(rel)}">'

    parts = [
        f"<h1>{escape(title or 'Suite ' + suite.name)}</h1>",
        f"<p class='meta'>{len(chosen)} instances · content hash {escape(suite.content_hash)}</p>",
        "<nav>" + "".join(f"<a href='#task-{escape(t)}'>{escape(t)}</a>" for t in groups) + "</nav>",
    ]
    size = done = 0
    if progress is not None:
        progress(0, len(chosen))
    for task, insts in groups.items():
        parts.append(f"<h2 id='task-{escape(task)}'>{escape(task)} ({escape(insts[0].domain)})</h2>")
        for inst in insts:
            parts.append(_instance(inst, image))
            size += len(parts[-1])  # ASCII apart from the texts: close enough to the bytes written
            done += 1
            if progress is not None:
                progress(done, len(chosen))
            if max_bytes is not None and size > max_bytes:
                raise GalleryError(f"{refusal} (it passed the limit after {done} instances)")
    return page(title or suite.name, "\n".join(parts), css=_CSS, csp=content_security_policy(img_src="data:"))


# ------------------------------------------------------------------------------------------------- entry


def write_gallery(
    suite: Suite,
    out: str | Path,
    uids: Iterable[str] | None = None,
    *,
    embed: bool = False,
    per_page: int = PER_PAGE,
    max_embed_bytes: int | None = EMBED_LIMIT_BYTES,
    progress: Callable[[int, int], None] | None = None,
) -> GalleryFiles:
    """Write the gallery with its index at `out`: linked task pages beside it, or one embedded file (whose
    making, the slow one, reports to `progress` as `render_gallery` does)."""
    index = Path(out)
    index.parent.mkdir(parents=True, exist_ok=True)
    if embed:
        index.write_text(render_gallery(suite, uids, max_bytes=max_embed_bytes, progress=progress), encoding="utf-8")
        return GalleryFiles(index)
    chosen = [suite.get(u) for u in uids] if uids is not None else list(suite.instances)
    return _write_linked(suite, chosen, index, per_page)
