"""Render analysis Tables as Markdown, HTML and rich terminal tables. Every string is escaped for its target:
model names and answers come from outside and must never become markup."""

from __future__ import annotations

import math
import re
from typing import Any

from vcot.analysis.tables import Cell, Table
from vcot.html import escape


def _text(v: Any, full: bool) -> str:
    if isinstance(v, Cell):
        return v.full() if full else v.pct()
    if isinstance(v, float):
        return "—" if math.isnan(v) else f"{100 * v:.1f}"
    if v is None:
        return "—"
    return str(v)


# What could open raw HTML (a tag, comment, declaration or autolink: "<" then a letter, "/", "!" or "?") or
# read as a character reference in Markdown; a "<" before a space or a digit is text, so "p < 0.05" stays as it
# is instead of the "p &lt; 0.05" a reader of the raw file saw (issue 45).
_MD_MARKUP = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?\w+;)")


def md_text(s: str) -> str:
    """Text for a Markdown line: anything that could become markup escaped as an HTML character reference,
    everything else left readable."""
    return _MD_MARKUP.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", s)


def _md_escape(s: str) -> str:
    # Pipes split Markdown cells; newlines end them.
    return md_text(s).replace("|", "\\|").replace("\n", " ")


def to_markdown(t: Table, full: bool = True) -> str:
    lines = [f"### {_md_escape(t.title)}", ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in t.header) + " |")
    lines.append("|" + "|".join("---" for _ in t.header) + "|")
    for row in t.rows:
        lines.append("| " + " | ".join(_md_escape(_text(v, full)) for v in row) + " |")
    if t.note:
        lines += ["", f"_{_md_escape(t.note)}_"]
    return "\n".join(lines) + "\n"


def to_html(t: Table, anchor: str = "") -> str:
    e = escape
    id_attr = f' id="{e(anchor)}"' if anchor else ""
    out = [
        f'<section class="table"{id_attr}>',
        f"<h3>{e(t.title)}</h3>",
        # Shown by the page's script when the table is wider than the page (the scroll bar alone sits
        # below a long table, out of sight).
        '<p class="scroll-cue" hidden>Wider than the page: scroll sideways for more columns →</p>',
        '<div class="scroll"><table>',
        "<thead><tr>",
    ]
    out += [f"<th>{e(h)}</th>" for h in t.header]
    out.append("</tr></thead><tbody>")
    for row in t.rows:
        out.append("<tr>")
        for v in row:
            if isinstance(v, Cell) and not math.isnan(v.acc):
                failures = f'<span class="fail">{e(v.failures())}</span>' if v.failures() else ""
                chance = "unknown" if math.isnan(v.chance) else f"{100 * v.chance:.1f}%"
                out.append(
                    f'<td title="n={v.n} problems, {v.samples} samples, chance {chance}">'
                    f'{e(v.pct())}<span class="ci">[{100 * v.lo:.1f}, {100 * v.hi:.1f}]</span>{failures}</td>'
                )
            else:
                out.append(f"<td>{e(_text(v, False))}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    if t.note:
        out.append(f'<p class="note">{e(t.note)}</p>')
    out.append("</section>")
    return "".join(out)


def to_rich(t: Table) -> Any:
    """The table for a terminal, laid out at the width it is printed at (a rich renderable). A cell is never
    broken: a condition name or an accuracy with its interval stays on one line; headers wrap between words.
    A table too wide even so moves a model column holding one value into its title, then is printed as
    several narrower tables, each repeating the leading label columns (model, condition, …)."""
    return _Fitted(t)


class _Fitted:
    def __init__(self, t: Table) -> None:
        self.table = t

    def __rich_console__(self, console: Any, options: Any) -> Any:
        yield from _fit(self.table, options.max_width, plain=not console.is_terminal)


def _overhead(n: int) -> int:
    # box.SIMPLE_HEAD without edge padding: an edge each side, a separator and one space each side within.
    return 3 * n - 1


def _fit(t: Table, width: int, plain: bool = False) -> list[Any]:
    """`plain` (a pipe or a log): the rule is ASCII and every line fits in `width` bytes, not only columns, so
    that byte-counting tools (mawk's `length`, `cut -b`) agree: a "→" in a cell costs the bytes it takes."""
    from rich.cells import cell_len

    title, header = t.title, list(t.header)
    rows = [[_text(v, False) for v in row] for row in t.rows]

    def sizes(hdr: list[str], body: list[list[str]]) -> tuple[list[int], list[int]]:
        cells = [max((cell_len(r[j]) for r in body), default=0) for j in range(len(hdr))]
        natural = [max(c, cell_len(h), 1) for c, h in zip(cells, hdr, strict=True)]
        least = [max(c, *(cell_len(w) for w in h.split() or [""]), 1) for c, h in zip(cells, hdr, strict=True)]
        return natural, least

    def excess(texts: list[str]) -> int:
        return sum(len(x.encode()) - cell_len(x) for x in texts)

    natural, least = sizes(header, rows)
    if (
        sum(natural) + _overhead(len(header)) > width
        and len(header) > 1
        and header[0] == "model"
        and len({r[0] for r in rows}) == 1
    ):
        title = f"{title}: {rows[0][0]}"
        header, rows = header[1:], [r[1:] for r in rows]
        natural, least = sizes(header, rows)
    if plain:  # an upper bound: as if every column were in each part
        width -= max(excess([title]), excess(header), *(excess(r) for r in rows))
    cols = list(range(len(header)))
    if sum(least) + _overhead(len(cols)) <= width or len(cols) == 1:
        return [_rich_table(title, header, rows, cols, _widen(cols, natural, least, width), plain)]
    keys = _keys(t, header, least, width)
    chunks = _chunks(cols[keys:], keys, least, width)
    return [
        _rich_table(
            f"{title} ({k} of {len(chunks)})",
            header,
            rows,
            [*range(keys), *chunk],
            _widen([*range(keys), *chunk], natural, least, width),
            plain,
        )
        for k, chunk in enumerate(chunks, 1)
    ]


def _keys(t: Table, header: list[str], least: list[int], width: int) -> int:
    """How many leading columns label the rows (text, not numbers): each part of a split table repeats
    them."""
    offset = len(t.header) - len(header)  # a model column moved into the title
    keys = 0
    for j in range(len(header) - 1):
        values = [row[j + offset] for row in t.rows]
        if not all(isinstance(v, str) and not _NUMERIC.match(v) for v in values):
            break
        keys += 1
    keys = max(keys, 1)
    while keys > 1 and sum(least[:keys]) + _overhead(keys + 1) > width // 2:
        keys -= 1
    return keys


# Data, not a row label: a number, a signed delta, a missing value ("—") or nothing.
_NUMERIC = re.compile(r"^\s*(?:[-+−—]|\d|$)")


def _chunks(rest: list[int], keys: int, least: list[int], width: int) -> list[list[int]]:
    """The columns after the keys in as few parts as fit `width`, the parts about equally wide (a greedy
    packing leaves a last part of one column)."""
    base = sum(least[:keys]) + _overhead(keys)

    def pack(cap: int) -> list[list[int]]:
        parts: list[list[int]] = []
        used = cap + 1
        for j in rest:
            if used + least[j] + 3 > cap:
                parts.append([])
                used = base
            parts[-1].append(j)
            used += least[j] + 3
        return parts

    fewest = len(pack(width))
    lo, hi = max(base + least[j] + 3 for j in rest), max(width, base + max(least[j] for j in rest) + 3)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if len(pack(mid)) <= fewest else (mid + 1, hi)
    return pack(lo)


def _widen(cols: list[int], natural: list[int], least: list[int], width: int) -> dict[int, int]:
    """Column widths: each at least its longest cell and header word; the room left unwraps headers, the
    narrowest first."""
    widths = {j: least[j] for j in cols}
    room = width - _overhead(len(cols)) - sum(widths.values())
    for j in sorted(cols, key=lambda j: natural[j] - least[j]):
        grow = natural[j] - least[j]
        if 0 < grow <= room:
            widths[j] = natural[j]
            room -= grow
    return widths


def _rich_table(
    title: str, header: list[str], rows: list[list[str]], cols: list[int], widths: dict[int, int], plain: bool
) -> Any:
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    rule = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True) if plain else box.SIMPLE_HEAD
    rt = RichTable(title=escape(title), show_lines=False, box=rule, pad_edge=False)
    for j in cols:
        # The width holds the longest cell, so only a header wraps (between words); fold is the last resort
        # of a column wider than the terminal.
        rt.add_column(escape(header[j]), width=widths[j], overflow="fold")
    for row in rows:
        rt.add_row(*[escape(row[j]) for j in cols])
    return rt
