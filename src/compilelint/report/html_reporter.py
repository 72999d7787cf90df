"""``--format html``: one self-contained page (inline CSS and JS only, no network fetches).

Sections, in order (see :data:`SECTIONS`): the summary; how the model was cut (when the dynamic
stage ran: every graph torch compiled on the first call as a bar sized by its op count, with
the graph break that ended it, file:line and reason, between the bars); the ranked findings with
a few lines of source around each; the recompiles; errors; and the docs of the rules that fired,
from the catalogue. Every piece of user content goes through :func:`html.escape`; a
Content-Security-Policy forbids loading anything from anywhere.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from compilelint.catalog import Catalog
from compilelint.model import Finding, Report
from compilelint.report.common import (
    RANK_HEADERS,
    cwd_of,
    diff_base_line,
    dynamic_block,
    dynamic_line,
    plural,
    rank_group_lines,
    rank_rows,
    ranked,
    severity_counts,
    stage_label,
    summary_line,
)

CONTEXT = 3  # source lines shown before and after a finding's line
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

Section = Callable[[Report, Catalog, Mapping[str, object]], str]


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_CODE = re.compile(r"`([^`\n]+)`")


def inline(text: str) -> str:
    """Escape, then render `code` spans."""
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", esc(text))


def markdown_block(text: str) -> str:
    """The small Markdown subset of rule docs: paragraphs, `code` and fenced code blocks."""
    out: list[str] = []
    pos = 0
    for m in _FENCE.finditer(text):
        out += _paragraphs(text[pos : m.start()])
        out.append(f"<pre><code>{esc(m.group(1).rstrip())}</code></pre>")
        pos = m.end()
    out += _paragraphs(text[pos:])
    return "\n".join(out)


def _paragraphs(text: str) -> list[str]:
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return [f"<p>{inline(' '.join(p.split()))}</p>" for p in paras]


# --------------------------------------------------------------------------- sections


def summary_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    counts = severity_counts(report.findings)
    stages = {
        k: sum(1 for f in report.findings if stage_label(f) == k)
        for k in ("confirmed", "observed", "predicted")
    }
    tiles = [
        f'<div class="tile sev-{k}"><b>{v}</b><span>{esc(k if k == "info" else k + "s")}</span>'
        "</div>"
        for k, v in counts.items()
    ] + [
        f'<div class="tile st-{k}"><b>{v}</b><span>{esc(k)}</span></div>' for k, v in stages.items()
    ]
    lines = [summary_line(report)]
    for extra in (dynamic_line(report), diff_base_line(report)):
        if extra:
            lines.append(extra)
    dyn = dynamic_block(report)
    if dyn and isinstance(dyn.get("summary"), dict) and not dyn.get("error"):
        share = float(dyn["summary"].get("ops_outside_largest_graph") or 0.0)
        lines.append(f"{share:.0%} of the compiled ops are outside the largest graph.")
    paras = "".join(f"<p>{inline(x)}</p>" for x in lines)
    ranks = rank_rows(report)
    if ranks:
        paras += _ranks_table(ranks, rank_group_lines(report, groups=False))
    return (
        '<section id="summary"><h2>Summary</h2>'
        f'<div class="tiles">{"".join(tiles)}</div>{paras}</section>'
    )


_RANKS_CSS = (  # only in reports of a multi-rank trace
    "<style>table.ranks{border-collapse:collapse;margin:8px 0}table.ranks td,table.ranks th"
    "{border:1px solid var(--line);padding:2px 8px;text-align:left}"
    "table.ranks tr.odd{background:var(--mark)}table.ranks td.diff{color:var(--err);"
    "font-weight:600}ul.rank-groups{margin:4px 0}</style>"
)


def _ranks_table(rows: list[tuple[str, ...]], groups: list[str]) -> str:
    """The ranks side by side: one row per group of ranks that behave the same, the largest
    group first; a row that differs from it is marked, and so is each count that differs."""
    head = "".join(f"<th>{esc(h)}</th>" for h in RANK_HEADERS)
    first = rows[0]
    body = []
    for i, r in enumerate(rows):
        odd = i > 0 and (r[-1] or r[1:5] != first[1:5])
        cells = []
        for j, c in enumerate(r):
            diff = odd and 1 <= j <= 4 and c != first[j]
            cells.append(f'<td class="diff">{esc(c)}</td>' if diff else f"<td>{esc(c)}</td>")
        cls = ' class="odd"' if odd else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    items = "".join(f"<li>{inline(g)}</li>" for g in groups)
    return (
        _RANKS_CSS
        + (f'<ul class="rank-groups">{items}</ul>' if items else "")
        + (
            f'<table class="ranks"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
        )
    )


def _graph_label(g: Mapping[str, Any]) -> str:
    where = ""
    if g.get("path"):
        first, last = g.get("first_line"), g.get("last_line")
        span = f"{first}" if first == last or last is None else f"{first}–{last}"
        where = f"{g['path']}:{span}"
    fn = g.get("function") or "?"
    if g.get("resumed_after"):
        fn += f" (resumed after line {g['resumed_after']})"
    return f"{fn} {where}".strip()


def cut_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    dyn = dynamic_block(report)
    if not dyn or dyn.get("error"):
        return ""
    graphs: Sequence[Mapping[str, Any]] = [
        g for g in dyn.get("graphs") or [] if isinstance(g, Mapping)
    ]
    if not graphs:
        counts = [int(x) for x in dyn.get("ops_per_graph") or []]
        graphs = [{"index": i, "ops": n, "break": None} for i, n in enumerate(counts)]
    if not graphs:
        return (
            '<section id="cut"><h2>How the model was cut</h2>'
            "<p>torch compiled no graph on the first call: the whole model ran eagerly.</p>"
            "</section>"
        )
    biggest = max(int(g.get("ops") or 0) for g in graphs) or 1
    rows: list[str] = []
    for g in graphs:
        ops = int(g.get("ops") or 0)
        width = max(1.5, 88.0 * ops / biggest)  # room for the op count
        cls = "graph recompiled" if g.get("recompile") else "graph"
        tag = ' <span class="tag">recompiled</span>' if g.get("recompile") else ""
        cid = f" ({esc(g['compile_id'])})" if g.get("compile_id") else ""
        rows.append(
            f'<div class="{cls}" data-ops="{ops}">'
            f'<div class="glabel">graph {int(g.get("index", 0)) + 1}{cid}{tag} '
            f"<span>{esc(_graph_label(g))}</span></div>"
            f'<div class="track"><div class="bar" style="width:{width:.1f}%"></div>'
            f'<span class="ops">{esc(plural(ops, "op"))}</span></div></div>'
        )
        br = g.get("break")
        if isinstance(br, Mapping):
            reason = " ".join(x for x in (br.get("gb_id"), br.get("gb_type")) if x)
            rows.append(
                '<div class="cutmark"><span class="scissors" aria-hidden="true">✂</span> '
                f'graph break at <a href="#{esc(_anchor_for(report, br))}">'
                f"{esc(br.get('path'))}:{esc(br.get('line'))}</a> — {esc(reason)}</div>"
            )
        else:
            rows.append('<div class="endmark">↩ frame returns (no break)</div>')
    summary = dyn.get("summary") if isinstance(dyn.get("summary"), Mapping) else {}
    head = (
        f"<p>{esc(plural(len(graphs), 'graph'))} compiled on the first call, in compile order; "
        "each bar is sized by its op count. Between them: where and why torch broke the graph."
    )
    if summary and summary.get("recompiles"):
        head += f" Recompiles: {esc(summary.get('recompiles'))} (see below)."
    head += "</p>"
    return (
        f'<section id="cut"><h2>How the model was cut</h2>{head}'
        f'<div class="cut">{"".join(rows)}</div></section>'
    )


def _anchor_for(report: Report, br: Mapping[str, Any]) -> str:
    for i, f in enumerate(ranked(report.findings), 1):
        if f.path == br.get("path") and f.line == br.get("line") and f.gb_id == br.get("gb_id"):
            return f"f{i}"
    return "findings"


class _Sources:
    """Reads source files once, relative to the report's folder; missing files give nothing."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.files: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self.files:
            try:
                with open(os.path.join(self.cwd, path), encoding="utf-8", errors="replace") as fh:
                    self.files[path] = fh.read().splitlines()
            except OSError:
                self.files[path] = None
        return self.files[path]


def source_context(f: Finding, sources: _Sources) -> str:
    lines = sources.lines(f.path)
    if not lines or not (1 <= f.line <= len(lines)):
        if not f.line_text:
            return ""
        lines, first, last = [f.line_text.rstrip("\n")], f.line, f.line
        offset = f.line - 1
    else:
        first = max(1, f.line - CONTEXT)
        last = min(len(lines), max(f.line, f.end_line) + CONTEXT)
        offset = 0
    rows = []
    for n in range(first, last + 1):
        text = lines[n - 1 - offset]
        hit = f.line <= n <= max(f.line, f.end_line)
        if n == f.line and f.end_line == f.line and f.end_col > f.col:
            a, b = f.col - 1, f.end_col - 1
            code = f"{esc(text[:a])}<mark>{esc(text[a:b])}</mark>{esc(text[b:])}"
        else:
            code = esc(text)
        rows.append(
            f'<tr class="{"hit" if hit else ""}"><td class="ln">{n}</td>'
            f"<td><code>{code}</code></td></tr>"
        )
    return f'<table class="src">{"".join(rows)}</table>'


def findings_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    sources = _Sources(cwd_of(options))
    cards = []
    for i, f in enumerate(ranked(report.findings), 1):
        status = stage_label(f)
        meta = [f'<span class="badge sev-{esc(f.severity)}">{esc(f.severity)}</span>']
        meta.append(f'<span class="badge st-{esc(status)}">{esc(status)}</span>')
        if f.count > 1:
            meta.append(f'<span class="badge">×{f.count}</span>')
        torch_line = ""
        if f.gb_id or f.gb_type:
            torch_line = (
                f'<p class="torch">torch: {esc(" ".join(x for x in (f.gb_id, f.gb_type) if x))}</p>'
            )
        hints = ""
        if f.hints:
            hints = (
                '<ul class="hints">'
                + "".join(f"<li>{inline(h)}</li>" for h in dict.fromkeys(f.hints))
                + "</ul>"
            )
        fix = f'<p class="fix"><b>Fix:</b> {inline(f.fix)}' if f.fix else ""
        if fix and f.edits:
            fix += ' <span class="badge">autofix available</span>'
        fix += "</p>" if fix else ""
        frames = ""
        if len(f.frames) > 1:
            frames = (
                '<p class="frames">stack: '
                + " → ".join(esc(f"{fr.path}:{fr.line} {fr.function}") for fr in f.frames)
                + "</p>"
            )
        cards.append(
            f'<article class="finding" id="f{i}" data-severity="{esc(f.severity)}" '
            f'data-status="{esc(status)}">'
            f'<header><span class="rank">#{f.rank or i}</span> '
            f'<a class="rule" href="#rule-{esc(f.rule)}">{esc(f.rule)} {esc(f.name)}</a> '
            f"{' '.join(meta)} "
            f'<span class="loc">{esc(f.path)}:{f.line}:{f.col}</span></header>'
            f'<p class="msg">{inline(f.message)}</p>{torch_line}{fix}{hints}{frames}'
            f"{source_context(f, sources)}</article>"
        )
    if not cards:
        body = "<p>No findings.</p>"
    else:
        filters = "".join(
            f'<label><input type="checkbox" data-filter="{k}" checked> {k}</label>'
            for k in ("error", "warning", "info", "confirmed", "observed", "predicted")
        )
        body = (
            f'<div class="filters" role="group" aria-label="filter">{filters}'
            f'<span id="shown">{len(cards)} of {len(cards)} shown</span></div>' + "".join(cards)
        )
    return f'<section id="findings"><h2>Findings, ranked</h2>{body}</section>'


def recompiles_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    dyn = dynamic_block(report)
    recs = [r for r in (dyn or {}).get("recompiles") or [] if isinstance(r, Mapping)]
    if not dyn or dyn.get("error"):
        return ""
    if not recs:
        return '<section id="recompiles"><h2>Recompiles</h2><p>No recompiles.</p></section>'
    rows = "".join(
        "<tr>"
        f"<td>{esc(r.get('function') or '')}</td>"
        f"<td>{esc(r.get('path') or '?')}:{esc(r.get('line') or '?')}</td>"
        f"<td><code>{esc(r.get('guard') or '')}</code></td>"
        f"<td>{esc(r.get('count') or 1)}</td>"
        f"<td>{'yes' if r.get('hit_limit') else ''}</td>"
        "</tr>"
        for r in recs
    )
    note = ""
    if dyn.get("hit_recompile_limit"):
        note = "<p><b>The recompile limit was hit: torch ran the function eagerly after it.</b></p>"
    return (
        '<section id="recompiles"><h2>Recompiles</h2>'
        "<p>Each row is a guard that failed on a later call and made torch compile again.</p>"
        f'{note}<table class="grid"><thead><tr><th>function</th><th>guard installed at</th>'
        "<th>failed guard</th><th>times</th><th>hit limit</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></section>"
    )


def errors_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    if not report.errors:
        return ""
    items = "".join(
        f"<li><b>{esc(e.kind)}</b> {esc(e.path)}: {inline(e.message)}</li>" for e in report.errors
    )
    return f'<section id="errors"><h2>Errors</h2><ul>{items}</ul></section>'


def rules_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    codes = sorted({f.rule for f in report.findings})
    docs = []
    for code in codes:
        rule = catalog.get(code)
        if rule is None:
            continue
        parts = [
            f'<details class="rule" id="rule-{esc(code)}"><summary><b>{esc(code)}</b> '
            f"{esc(rule.name)} — {inline(rule.summary)}</summary>",
            f'<p class="meta">{esc(rule.category)} · {esc(rule.severity)} · fix: {esc(rule.fix)}'
            + (f" · torch {esc(', '.join(rule.gb_ids))}" if rule.gb_ids else "")
            + "</p>",
        ]
        for title, text in rule.sections:
            parts.append(f"<h4>{esc(title)}</h4>{markdown_block(text)}")
        parts.append("</details>")
        docs.append("".join(parts))
    if not docs:
        return ""
    return f'<section id="rules"><h2>Rules that fired</h2>{"".join(docs)}</section>'


# The page is these sections in order. To add a section (e.g. the results of
# `compilelint bench`), add one function ``(report, catalog, options) -> html`` here; return ""
# to leave the section out.
def bench_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    """`compilelint bench` results, when the report carries them (``extra["bench"]``)."""
    bench = report.extra.get("bench")
    if not isinstance(bench, dict):
        return ""
    from compilelint.report.bench_html import render_bench_section

    return render_bench_section(bench)


def collectives_section(report: Report, catalog: Catalog, options: Mapping[str, object]) -> str:
    """Each graph whose collectives differ between ranks: the schedules side by side, one
    column per group of ranks with the same schedule, around the first difference."""
    dyn = dynamic_block(report)
    if not dyn or dyn.get("source") != "trace":
        return ""
    parts = []
    for d in dyn.get("divergence") or []:
        scheds = [x for x in d.get("schedules") or [] if isinstance(x, dict)]
        if d.get("kind") != "collectives" or not scheds:
            continue
        pos = int(d.get("position") or 1)
        longest = max(len(x.get("collectives") or []) for x in scheds)
        lo, hi = max(1, pos - 2), min(longest, pos + 5)
        head = "<th>#</th>" + "".join(f"<th>{esc(ranks_label(x['ranks']))}</th>" for x in scheds)
        rows = []
        for i in range(lo, hi + 1):
            cells = [
                (x.get("collectives") or [])[i - 1] if i <= len(x.get("collectives") or []) else "—"
                for x in scheds
            ]
            tds = "".join(
                f'<td class="diff">{esc(c)}</td>' if c != cells[0] else f"<td>{esc(c)}</td>"
                for c in cells
            )
            mark = ' class="odd"' if len(set(cells)) > 1 else ""
            rows.append(f"<tr{mark}><td>{i}</td>{tds}</tr>")
        where = f" ({esc(d.get('path'))}:{d.get('line')})" if d.get("path") else ""
        parts.append(
            f"<h3>`{esc(d.get('function'))}`, compile {esc(d.get('compile_id') or '?')}{where}</h3>"
            f'<table class="ranks"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
            "</tbody></table>"
        )
    if not parts:
        return ""
    return (
        '<section id="collectives"><h2>Collectives per rank</h2><p>Each graph whose collectives '
        "differ between ranks, one column per group of ranks that issue the same ones, from two "
        f"before the first difference.</p>{_RANKS_CSS}{''.join(parts)}</section>"
    )


def ranks_label(ranges: str) -> str:
    return ("ranks " if ("," in ranges or "-" in ranges) else "rank ") + ranges


SECTIONS: list[Section] = [
    summary_section,
    collectives_section,
    bench_section,
    cut_section,
    findings_section,
    recompiles_section,
    errors_section,
    rules_section,
]


_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--line:#d1d9e0;--err:#cf222e;--warn:#9a6700;
--info:#0969da;--ok:#1a7f37;--mark:#fff8c5}
*{box-sizing:border-box}body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;
color:var(--fg);background:var(--bg);margin:0 auto;max-width:1100px;padding:16px 24px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:1px solid var(--line);
padding-bottom:4px;margin-top:28px}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;
font-size:12.5px}pre{background:#f6f8fa;padding:8px;overflow:auto;border-radius:6px}
.tiles{display:flex;gap:8px;flex-wrap:wrap}.tile{border:1px solid var(--line);border-radius:6px;
padding:6px 12px;min-width:90px}.tile b{display:block;font-size:20px}.tile span{color:var(--muted)}
.sev-error{color:var(--err)}.sev-warning{color:var(--warn)}.sev-info{color:var(--info)}
.st-confirmed{color:var(--ok)}.badge{border:1px solid currentColor;border-radius:10px;
padding:0 7px;font-size:12px}.finding{border:1px solid var(--line);border-radius:6px;
padding:8px 12px;margin:10px 0}.finding header{display:flex;gap:8px;flex-wrap:wrap;
align-items:baseline}.rank{color:var(--muted)}.rule{font-weight:600}.loc{font-family:ui-monospace,
monospace;color:var(--muted);margin-left:auto}.msg{margin:6px 0}.torch,.frames,.meta{color:var(--muted);
margin:4px 0}.fix{margin:4px 0}.hints{margin:4px 0;color:var(--muted)}table.src{border-collapse:
collapse;width:100%;background:#f6f8fa;border-radius:6px}table.src td{padding:0 8px;
white-space:pre}table.src .ln{color:var(--muted);text-align:right;width:1%;user-select:none}
table.src tr.hit{background:#ffebe9}mark{background:var(--mark);outline:1px solid #d4a72c}
.grid{border-collapse:collapse;width:100%}.grid td,.grid th{border:1px solid var(--line);
padding:4px 8px;text-align:left;vertical-align:top}.filters{display:flex;gap:12px;
flex-wrap:wrap;align-items:center;margin:8px 0}#shown{color:var(--muted);margin-left:auto}
.cut{display:flex;flex-direction:column;gap:2px}.graph .glabel{font-size:12.5px}
.graph .glabel span{color:var(--muted);font-family:ui-monospace,monospace}.track{display:flex;
align-items:center;gap:8px}.bar{height:18px;background:#2da44e;border-radius:3px}
.recompiled .bar{background:repeating-linear-gradient(45deg,#2da44e,#2da44e 6px,#7ee2a8 6px,
#7ee2a8 12px)}.tag{color:var(--warn);font-size:12px}.ops{font-size:12px;color:var(--muted);white-space:nowrap}
.cutmark{color:var(--err);border-top:2px dashed var(--err);margin:6px 0;padding-top:2px;
font-size:12.5px}.endmark{color:var(--muted);font-size:12px;margin:2px 0 10px}
details.rule{border:1px solid var(--line);border-radius:6px;padding:6px 12px;margin:8px 0}
footer{color:var(--muted);margin:32px 0 8px;font-size:12px}.hidden{display:none}
"""

_JS = """
(function () {
  var boxes = document.querySelectorAll("input[data-filter]");
  var cards = document.querySelectorAll("article.finding");
  var shown = document.getElementById("shown");
  function update() {
    var on = {};
    boxes.forEach(function (b) { on[b.getAttribute("data-filter")] = b.checked; });
    var n = 0;
    cards.forEach(function (c) {
      var visible = on[c.getAttribute("data-severity")] !== false &&
        on[c.getAttribute("data-status")] !== false;
      c.classList.toggle("hidden", !visible);
      if (visible) { n += 1; }
    });
    if (shown) { shown.textContent = n + " of " + cards.length + " shown"; }
  }
  boxes.forEach(function (b) { b.addEventListener("change", update); });
  update();
  document.body.setAttribute("data-ready", "1");
})();
"""


def render(report: Report, catalog: Catalog, options: dict[str, object]) -> str:
    body = "\n".join(s for s in (section(report, catalog, options) for section in SECTIONS) if s)
    torch = f", torch {esc(report.torch)}" if report.torch else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>compilelint report</title>\n"
        f"<style>{_CSS}</style></head>\n<body>\n"
        "<h1>compilelint report</h1>\n"
        f"{body}\n"
        f"<footer>compilelint {esc(report.version)}{torch}</footer>\n"
        f"<script>{_JS}</script>\n"
        "</body></html>\n"
    )
