"""The bench result as a self-contained HTML section (for the HTML report).

``render_bench_section(result)`` takes the plain dict of :func:`compilelint.bench.api.run_bench`
and returns one ``<section class="cl-bench">`` element: its own ``<style>`` scoped to that class,
bars drawn with CSS widths, no scripts, no external resources, every value escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from compilelint.report.bench_text import (
    env_line,
    fmt_bytes,
    fmt_ms,
    graphs_label,
    part_label,
    step_text,
)

STYLE = """
.cl-bench{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;color:#1f2328}
.cl-bench h2{font-size:1.25em;margin:1em 0 .3em}
.cl-bench h3{font-size:1.05em;margin:1.1em 0 .3em}
.cl-bench .meta{color:#59636e;margin:.2em 0}
.cl-bench table{border-collapse:collapse;margin:.4em 0 .8em}
.cl-bench th,.cl-bench td{padding:3px 10px;border-bottom:1px solid #d1d9e0;text-align:right;
 white-space:nowrap}
.cl-bench th:first-child,.cl-bench td:first-child{text-align:left}
.cl-bench td.what{text-align:left;white-space:normal;max-width:42em}
.cl-bench .bar{display:inline-block;height:.8em;background:#0969da;vertical-align:middle}
.cl-bench .bar.fast{background:#1a7f37}.cl-bench .bar.slow{background:#cf222e}
.cl-bench .bar.ns{background:#bf8700}.cl-bench .bar.graph{background:#1a7f37}
.cl-bench .barcell{width:160px;text-align:left}
.cl-bench .fast{color:#1a7f37;font-weight:600}.cl-bench .slow{color:#cf222e;font-weight:600}
.cl-bench .ns{color:#9a6700}.cl-bench .err{color:#cf222e}
.cl-bench .summary{font-weight:600;margin:.6em 0}
.cl-bench code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em}
"""


def _e(v: Any) -> str:
    return escape("" if v is None else str(v), quote=True)


def _bar(value: float | None, top: float, cls: str = "") -> str:
    if not value or top <= 0:
        return ""
    pct = max(0.0, min(float(value) / top, 1.0)) * 100
    return f'<span class="bar {_e(cls)}" style="width:{pct:.1f}%"></span>'


def _speed_class(m: Mapping[str, Any]) -> str:
    if m.get("speedup") is None:
        return ""
    if not m.get("significant"):
        return "ns"
    return "fast" if m["speedup"] > 1 else "slow"


def _mode_table(run: Mapping[str, Any]) -> str:
    eager = run["eager"]
    top = max([1.0] + [m.get("speedup") or 0.0 for m in run["modes"]])
    head = (
        "<tr><th>mode</th><th>compile</th><th>first step</th><th>step (median ± IQR/2)</th>"
        "<th>speedup</th><th></th><th>peak memory</th><th>graphs</th><th>breaks</th>"
        "<th>recompiles</th></tr>"
    )
    rows = [
        "<tr><td>eager</td><td>-</td>"
        f"<td>{_e(fmt_ms(eager.get('first_call_ms')))}</td><td>{_e(step_text(eager['step']))}</td>"
        f'<td>1.00x</td><td class="barcell">{_bar(1.0, top)}</td>'
        f"<td>{_e(fmt_bytes(eager.get('peak_memory_bytes')))}</td><td>-</td><td>-</td><td>-</td></tr>"
    ]
    for m in run["modes"]:
        if m.get("status") != "ok":
            err = m.get("error") or {}
            rows.append(
                f'<tr><td>{_e(m["mode"])}</td><td class="what err" colspan="9">failed at '
                f"{_e(err.get('step'))}: {_e(err.get('message'))}</td></tr>"
            )
            continue
        cls = _speed_class(m)
        sp = m.get("speedup")
        sp_text = "-" if sp is None else f"{sp:.2f}x" + ("" if m.get("significant") else " n.s.")
        comp = m.get("compile_s")
        rows.append(
            f"<tr><td>{_e(m['mode'])}</td>"
            f"<td>{_e(f'{comp:.1f} s' if comp is not None else '-')}</td>"
            f"<td>{_e(fmt_ms(m.get('first_call_ms')))}</td><td>{_e(step_text(m['step']))}</td>"
            f'<td class="{cls}">{_e(sp_text)}</td>'
            f'<td class="barcell">{_bar(sp, top, cls)}</td>'
            f"<td>{_e(fmt_bytes(m.get('peak_memory_bytes')))}</td>"
            f"<td>{_e(m.get('graphs'))}</td><td>{_e(m.get('break_count'))}</td>"
            f"<td>{_e(m.get('recompiles'))}</td></tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _time_table(m: Mapping[str, Any]) -> str:
    ts = m.get("time")
    if not ts or not ts.get("parts"):
        return ""
    step_ms = ts.get("step_ms") or 0.0
    rows = [
        f'<tr><td class="what">{_e(graphs_label(ts))}</td>'
        f'<td class="barcell">{_bar(ts["in_graphs_ms"], step_ms, "graph")}</td>'
        f"<td>{_e(fmt_ms(ts['in_graphs_ms']))}</td><td>{ts['in_graphs_share']:.0%}</td>"
        "<td></td></tr>"
    ]
    for p in ts["parts"]:
        if p["kind"] == "break":
            rules = p.get("rules") or []
            rule_text = f" ({', '.join(rules)})" if rules else ""
            what = (
                f"break at <code>{_e(p.get('path'))}:{_e(p.get('line'))}</code>"
                f"{_e(rule_text)}: {_e(p.get('gb_type'))}"
            )
            cls = "slow"
        else:
            what = _e(part_label(p, m.get("breaks") or []))
            cls = "ns"
        rows.append(
            f'<tr><td class="what">{what}</td>'
            f'<td class="barcell">{_bar(p["ms_per_step"], step_ms, cls)}</td>'
            f"<td>{_e(fmt_ms(p['ms_per_step']))}</td><td>{p['share']:.0%}</td>"
            f"<td>{_e(p['per_step'])}x/step</td></tr>"
        )
    title = (
        f"Where a {_e(m['mode'])} step goes ({_e(fmt_ms(step_ms))} with timers, median of "
        f"{_e(ts['steps'])} steps): {ts['in_graphs_share']:.0%} inside compiled graphs"
    )
    eager = "".join(
        f'<p class="err">{_e(fb.get("text"))}'
        + (f"<br>{_e(fb['explanation'])}" if fb.get("explanation") else "")
        + "</p>"
        for fb in m.get("eager_fallback") or []
    )
    return f'<p class="meta">{title}</p><table>{"".join(rows)}</table>{eager}'


def render_bench_section(result: Mapping[str, Any]) -> str:
    """One self-contained ``<section>`` for the HTML report."""
    s = result.get("settings", {})
    out = [f'<section class="cl-bench"><style>{STYLE}</style>', "<h2>Benchmark</h2>"]
    out.append(f'<p class="meta">{_e(env_line(result.get("environment")))}</p>')
    what = "train (forward + backward)" if s.get("train") else "inference"
    out.append(
        f'<p class="meta">{_e(what)}, dtype {_e(s.get("dtype") or "as built")}, backend '
        f"{_e(s.get('backend'))}, {_e(s.get('steps'))} timed steps after {_e(s.get('warmup'))} "
        f"warm-up; {_e(s.get('timing'))}; n.s. = not significant "
        f"({_e(s.get('significance'))} fails).</p>"
    )
    if result.get("command"):
        out.append(f'<p class="meta"><code>{_e(result["command"])}</code></p>')
    for comp in result.get("comparison", []):
        if comp.get("summary"):
            out.append(
                f'<p class="summary">{_e(comp["other"])} vs {_e(comp["baseline"])}: '
                f"{_e(comp['summary'])}</p>"
            )
    for run in result.get("runs", []):
        out.append(
            f"<h3>{_e(run['label'])}: <code>{_e(run['model'])}</code></h3>"
            f'<p class="meta">{_e(run["spec"])} on {_e(run["device"])}'
            + (f" · {_e(run['note'])}" if run.get("note") else "")
            + "</p>"
        )
        if run["eager"].get("status") != "ok":
            err = run["eager"].get("error") or {}
            out.append(
                f'<p class="err">eager run failed at {_e(err.get("step"))}: '
                f"{_e(err.get('message'))}</p>"
            )
            continue
        out.append(_mode_table(run))
        for m in run["modes"]:
            out.append(_time_table(m))
    warnings = result.get("warnings") or []
    if warnings:
        out.append("<ul>" + "".join(f'<li class="ns">{_e(w)}</li>' for w in warnings) + "</ul>")
    out.append("</section>")
    return "\n".join(x for x in out if x)
