"""Render analysis Tables as Markdown, HTML and rich terminal tables. Every string is escaped for its target:
model names and answers come from outside and must never become markup."""

from __future__ import annotations

import math
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


def _md_escape(s: str) -> str:
    # Pipes split Markdown cells; angle brackets could open raw HTML in renderers that allow it.
    return escape(s, quote=False).replace("|", "\\|").replace("\n", " ")


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
    out = [f'<section class="table"{id_attr}>',
           f"<h3>{e(t.title)}</h3>", '<div class="scroll"><table>', "<thead><tr>"]
    out += [f"<th>{e(h)}</th>" for h in t.header]
    out.append("</tr></thead><tbody>")
    for row in t.rows:
        out.append("<tr>")
        for v in row:
            if isinstance(v, Cell) and not math.isnan(v.acc):
                failures = f'<span class="fail">{e(v.failures())}</span>' if v.failures() else ""
                chance = "unknown" if math.isnan(v.chance) else f"{100 * v.chance:.1f}%"
                out.append(f'<td title="n={v.n} problems, {v.samples} samples, chance {chance}">'
                           f"{e(v.pct())}<span class=\"ci\">[{100 * v.lo:.1f}, {100 * v.hi:.1f}]</span>{failures}</td>")
            else:
                out.append(f"<td>{e(_text(v, False))}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    if t.note:
        out.append(f'<p class="note">{e(t.note)}</p>')
    out.append("</section>")
    return "".join(out)


def to_rich(t: Table):  # -> rich.table.Table, imported lazily so analysis works without a terminal
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    rt = RichTable(title=escape(t.title), show_lines=False, box=box.SIMPLE_HEAD, pad_edge=False)
    for h in t.header:
        rt.add_column(escape(h), overflow="fold")
    for row in t.rows:
        rt.add_row(*[escape(_text(v, False)) for v in row])
    return rt
