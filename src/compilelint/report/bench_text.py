"""``compilelint bench --format text``: rich tables with bars, rendered to a string.

Input is the plain result dict of :func:`compilelint.bench.api.run_bench`.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

BAR_WIDTH = 24
TABLE_BAR = 12
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(value: float, top: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar of ``value / top`` of ``width`` cells, in eighths of a cell."""
    if top <= 0 or value <= 0:
        return ""
    cells = max(0.0, min(value / top, 1.0)) * width
    full = int(cells)
    rest = round((cells - full) * 8)
    if rest == 8:
        full, rest = full + 1, 0
    return "█" * full + (_EIGHTHS[rest] if rest else "")


def fmt_ms(ms: Any) -> str:
    if not isinstance(ms, (int, float)):
        return "-"
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    if ms >= 100:
        return f"{ms:.0f} ms"
    if ms >= 10:
        return f"{ms:.1f} ms"
    return f"{ms:.2f} ms"


def fmt_bytes(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "-"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.2f} {unit}" if unit == "GiB" else f"{n / div:.0f} {unit}"
    return f"{int(n)} B"


def step_text(step: Mapping[str, Any]) -> str:
    if not step.get("n"):
        return "-"
    return f"{fmt_ms(step['median_ms'])} ± {fmt_ms(step['iqr_ms'] / 2)}"


def speedup_text(m: Mapping[str, Any]) -> Text:
    sp = m.get("speedup")
    if sp is None:
        return Text("-")
    if not m.get("significant"):
        return Text(f"{sp:.2f}x n.s.", style="yellow")
    return Text(f"{sp:.2f}x", style="bold green" if sp > 1 else "bold red")


def env_line(env: Mapping[str, Any] | None) -> str:
    if not env:
        return "environment: unknown"
    dev = env.get("gpu") or env.get("cpu") or env.get("device")
    parts = [str(dev), f"torch {env.get('torch')}"]
    if env.get("triton"):
        parts.append(f"triton {env['triton']}")
    if env.get("cuda"):
        parts.append(f"CUDA {env['cuda']}")
    if env.get("driver"):
        parts.append(f"driver {env['driver']}")
    parts.append(f"Python {env.get('python')}")
    return " · ".join(parts)


KIND_TEXT = {
    "between-frames": "between compiled frames (returns, eager frames, guards)",
    "before-first-graph": "before the first graph (guards, eager code)",
    "after-last-graph": "after the last graph",
    "backward": "after the last forward graph (backward)",
}


def part_label(part: Mapping[str, Any], breaks: Sequence[Mapping[str, Any]]) -> str:
    """What a slice of the step is, in words."""
    kind = part["kind"]
    if kind == "break":
        rules = part.get("rules") or []
        tag = f" ({', '.join(rules)})" if rules else ""
        return f"break at {part.get('path')}:{part.get('line')}{tag}: {part.get('gb_type')}"
    text = KIND_TEXT.get(kind, kind)
    skipped = [breaks[i] for i in part.get("skipped_frames_by") or [] if 0 <= i < len(breaks)]
    if skipped and kind in ("between-frames", "before-first-graph"):
        outer = []
        for b in skipped:
            frames = b.get("frames") or []
            f = frames[0] if frames else b
            outer.append(f"{f.get('path')}:{f.get('line')}")
        text += f"; runs uncompiled: {', '.join(dict.fromkeys(outer))} (break in a loop)"
    eager = part.get("eager_fallback") or []
    if eager:
        names = ", ".join(f"`{n}`" for n in dict.fromkeys(eager))
        text += f"; includes {names} run eagerly (recompile limit)"
    return text


def graphs_label(ts: Mapping[str, Any]) -> str:
    n = ts.get("graph_calls_per_step") or 0
    return f"inside compiled graphs ({n} call{'s' if n != 1 else ''} per step)"


def mode_table(run: Mapping[str, Any]) -> Table:
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("mode", "left"),
        ("compile", "right"),
        ("1st step", "right"),
        ("step ± IQR/2", "right"),
        ("speedup", "right"),
        ("", "left"),
        ("peak mem", "right"),
        ("graphs", "right"),
        ("breaks", "right"),
        ("recomp.", "right"),
    )
    for col, just in columns:
        t.add_column(col, justify=just, no_wrap=True)
    eager = run["eager"]
    top = max([1.0] + [m["speedup"] or 0 for m in run["modes"]])
    t.add_row(
        "eager",
        "-",
        fmt_ms(eager.get("first_call_ms")),
        step_text(eager["step"]),
        "1.00x",
        Text(bar(1.0, top, TABLE_BAR), style="blue"),
        fmt_bytes(eager.get("peak_memory_bytes")),
        "-",
        "-",
        "-",
    )
    for m in run["modes"]:
        if m["status"] != "ok":
            err = m.get("error") or {}
            t.add_row(
                m["mode"],
                Text(f"failed at {err.get('step')}: {err.get('message')}", style="red"),
                *[""] * 8,
            )
            continue
        sp = m.get("speedup") or 0.0
        style = "yellow" if not m.get("significant") else ("green" if sp > 1 else "red")
        t.add_row(
            m["mode"],
            f"{m['compile_s']:.1f} s" if m.get("compile_s") is not None else "-",
            fmt_ms(m.get("first_call_ms")),
            step_text(m["step"]),
            speedup_text(m),
            Text(bar(sp, top, TABLE_BAR), style=style),
            fmt_bytes(m.get("peak_memory_bytes")),
            str(m["graphs"]),
            str(m["break_count"]),
            str(m["recompiles"]),
        )
    return t


def time_table(m: Mapping[str, Any]) -> Table | None:
    ts = m.get("time")
    if not ts or not ts.get("parts"):
        return None
    t = Table(box=None, pad_edge=False, show_header=False)
    t.add_column("what", no_wrap=False, max_width=78)
    t.add_column("bar", no_wrap=True)
    t.add_column("ms", justify="right", no_wrap=True)
    t.add_column("share", justify="right", no_wrap=True)
    t.add_column("count", justify="right", no_wrap=True)
    step_ms = ts["step_ms"] or 0.0
    t.add_row(
        Text(graphs_label(ts), style="green"),
        Text(bar(ts["in_graphs_ms"], step_ms), style="green"),
        fmt_ms(ts["in_graphs_ms"]),
        f"{ts['in_graphs_share']:.0%}",
        "",
    )
    for part in ts["parts"]:
        style = "red" if part["kind"] == "break" else "yellow"
        t.add_row(
            Text(
                part_label(part, m.get("breaks") or []),
                style=style if part["kind"] == "break" else "",
            ),
            Text(bar(part["ms_per_step"], step_ms), style=style),
            fmt_ms(part["ms_per_step"]),
            f"{part['share']:.0%}",
            f"{part['per_step']}x/step",
        )
    return t


def render(result: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> str:
    opts = dict(options or {})
    color = bool(opts.get("color"))
    buf = io.StringIO()
    console = Console(
        file=buf,
        width=int(opts.get("width") or 120),
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
    )
    s = result.get("settings", {})
    console.print(Text("compilelint bench", style="bold"), "·", env_line(result.get("environment")))
    what = "train (forward + backward)" if s.get("train") else "inference"
    console.print(
        f"{what}, dtype {s.get('dtype') or 'as built'}, backend {s.get('backend')}, "
        f"{s.get('steps')} timed steps after {s.get('warmup')} warm-up; {s.get('timing')}; "
        f"speedups whose {s.get('significance')} are marked significant, others n.s."
    )
    for run in result.get("runs", []):
        console.print()
        title = f"{run['label']}: {run['model']}  ({run['spec']}, {run['device']})"
        console.print(Text(title, style="bold"))
        if run.get("note"):
            console.print(run["note"])
        if run.get("error") and run["eager"]["status"] != "ok":
            err = run["error"]
            where = f" ({err['frame']['path']}:{err['frame']['line']})" if err.get("frame") else ""
            console.print(
                Text(
                    f"eager run failed at {err.get('step')}: {err.get('message')}{where}",
                    style="red",
                )
            )
            continue
        console.print(mode_table(run))
        rep = run["eager"].get("repeats")
        if rep:
            meds = ", ".join(fmt_ms(m) for m in rep["medians_ms"])
            console.print(
                f"eager, {rep['runs']} runs (before and after the compiled modes): medians "
                f"{meds}, spread {rep['spread'] or 0:.1%}"
                + ("" if rep["consistent"] else "; they disagree beyond their noise")
                + (
                    f"; the baseline is run {rep['baseline_run']}, the median"
                    if (rep.get("baseline_run") or 1) > 1
                    else ""
                )
            )
        b2b = [
            f"{m['mode']} {m['back_to_back_speedup']:.2f}x"
            for m in run["modes"]
            if m.get("back_to_back_speedup") is not None
        ]
        if b2b and run["eager"].get("back_to_back", {}).get("n"):
            console.print(
                f"back to back (no sync per step): eager "
                f"{fmt_ms(run['eager']['back_to_back']['median_ms'])}/step; " + ", ".join(b2b)
            )
        ovb = run.get("output_vs_baseline")
        if ovb:
            console.print(
                f"output vs the baseline's eager output: max abs diff {ovb['max_abs_diff']:.3g}, "
                f"relative L2 {ovb['rel_l2']:.3g}"
            )
        for m in run["modes"]:
            tt = time_table(m)
            if tt is None:
                continue
            ts = m["time"]
            console.print(
                Text(
                    f"where a {m['mode']} step goes ({fmt_ms(ts['step_ms'])} with timers, "
                    f"median of {ts['steps']} steps): {ts['in_graphs_share']:.0%} inside compiled "
                    "graphs",
                    style="bold",
                )
            )
            console.print(tt)
            for fb in m.get("eager_fallback") or []:
                console.print(Text(f"  {fb.get('text')}", style="yellow"))
                if fb.get("explanation"):
                    console.print(f"    ({fb['explanation']})")
            costly = [p for p in ts["parts"] if p["kind"] == "break"]
            for p in costly[:3]:
                console.print(
                    f"  the break at {p.get('path')}:{p.get('line')} costs about "
                    f"{fmt_ms(p['ms_per_step'])} per step ({p['per_step']}x per step)"
                )
    for comp in result.get("comparison", []):
        if comp.get("summary"):
            console.print()
            console.print(
                Text(f"{comp['other']} vs {comp['baseline']}: {comp['summary']}", style="bold")
            )
    warnings: Sequence[str] = result.get("warnings", [])
    if warnings:
        console.print()
        for w in warnings:
            console.print(Text(f"warning: {w}", style="yellow"))
    return buf.getvalue()
