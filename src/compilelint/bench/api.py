"""Run ``compilelint bench``: one child process per configuration, a plain result dict back.

``run_bench`` never raises on a broken model, a crash or a hang: the problem comes back as the
``error`` of the run or mode it hit. Bad options raise :class:`BenchError` (one line) before
anything starts. This module never imports torch.

Discipline (see the README's Bench section): the same spec seed, so the same weights and inputs,
for every configuration (checked with checksums the children report); each configuration in a
fresh process, so a fresh dynamo state, and by default a fresh inductor cache, so compile times
are cold; warm-up steps excluded; medians with quartiles; a speedup whose interquartile ranges
overlap the eager ones is reported as "not significant".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from compilelint import __version__
from compilelint.bench import stats
from compilelint.dynamic.api import _child_env, build_result
from compilelint.dynamic.capture import (
    LIMIT_FN_RE,
    guard_key,
    parse_break_message,
    parse_recompile_reason,
    relpath,
    strip_resume,
)
from compilelint.dynamic.registry import Registry, load_registry
from compilelint.dynamic.spec import SpecError, load_spec

BENCH_VERSION = 1
EAGER = "eager"
COMPILE_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")
CUDAGRAPH_MODES = ("reduce-overhead", "max-autotune")
DTYPES = ("float32", "bfloat16", "float16")
CHILD_TIMEOUT = 1200.0
PROGRESS_PREFIX = "compilelint: "
# A child's result is trusted to have seen the same weights and inputs when its checksums
# agree with the eager run's to this relative tolerance (they are float64 sums).
CHECKSUM_RTOL = 1e-9


class BenchError(Exception):
    """Bad options or an unreadable spec: one line, raised before anything runs."""


@dataclass(frozen=True)
class BenchOptions:
    """What to measure. ``modes=None``: ``default`` and, on a GPU, ``reduce-overhead``."""

    modes: tuple[str, ...] | None = None
    steps: int = 50
    warmup: int = 10
    warmup_seconds: float = 2.0  # on a GPU, warm up at least this long (clocks settle)
    attribution_steps: int = 20
    eager_runs: int = 1  # eager runs per model: one before the compiled modes, the rest after
    train: bool = False
    dtype: str | None = None
    backend: str = "inductor"
    device: str | None = None
    timeout: float | None = CHILD_TIMEOUT
    fresh_cache: bool = True
    progress: bool = False
    python: str | None = None  # the interpreter for the children (default: this one)


@dataclass(frozen=True)
class Target:
    """One model to bench: a label and its spec file."""

    label: str
    spec: str
    note: str = ""
    root: str | None = None  # the project folder it runs in (default: the current folder)
    pythonpath: tuple[str, ...] = ()  # folders first on the run's sys.path (a fixed copy)
    # a fixed copy run with torch settings (config remedies): the same copy without them, run
    # for a mode that fails with them (verified in one mode, a setting can fail in another)
    without_config: str | None = None
    config_names: tuple[str, ...] = ()


@dataclass
class _Ctx:
    root: str
    opts: BenchOptions
    tmp: str
    registry: Registry
    warnings: list[str] = field(default_factory=list)
    n_children: int = 0


def parse_modes(text: str) -> tuple[str, ...]:
    """``"default,reduce-overhead"`` -> a tuple; :class:`BenchError` names an unknown mode."""
    modes = tuple(m.strip() for m in text.split(",") if m.strip())
    if not modes:
        raise BenchError("--modes: expected a comma-separated list of compile modes")
    for m in modes:
        if m not in COMPILE_MODES:
            raise BenchError(
                f"--modes: unknown mode {m!r}; expected one of {', '.join(COMPILE_MODES)}"
            )
    if len(set(modes)) != len(modes):
        raise BenchError("--modes: a mode is listed twice")
    return modes


def validate_options(opts: BenchOptions) -> None:
    if opts.eager_runs < 1:
        raise BenchError(f"--eager-runs: expected a positive number, got {opts.eager_runs}")
    if opts.steps < 1:
        raise BenchError(f"--steps: expected at least 1, got {opts.steps}")
    if opts.warmup < 0:
        raise BenchError(f"--warmup: expected 0 or more, got {opts.warmup}")
    if opts.attribution_steps < 0:
        raise BenchError(f"--attribution-steps: expected 0 or more, got {opts.attribution_steps}")
    if opts.dtype is not None and opts.dtype not in DTYPES:
        raise BenchError(
            f"--dtype: unknown dtype {opts.dtype!r}; expected one of {', '.join(DTYPES)}"
        )
    for m in opts.modes or ():
        if m not in COMPILE_MODES:
            raise BenchError(
                f"--modes: unknown mode {m!r}; expected one of {', '.join(COMPILE_MODES)}"
            )
    if opts.backend != "inductor" and any(m != "default" for m in opts.modes or ()):
        raise BenchError(
            f"--modes: compile modes other than default need the inductor backend, "
            f"not {opts.backend!r}"
        )
    if opts.device is not None and opts.device.split(":")[0] not in ("cpu", "cuda", "auto"):
        raise BenchError(f"--device: unknown device {opts.device!r}; expected cpu, cuda or auto")


def check_spec(path: str) -> None:
    """Validate a spec before anything runs; :class:`BenchError` names the problem."""
    try:
        load_spec(path)
    except SpecError as exc:
        msg = str(exc)
        raise BenchError(msg if msg.startswith(path) else f"{path}: {msg}") from None


# --------------------------------------------------------------------------- children


def _child(
    ctx: _Ctx,
    spec: str,
    mode: str,
    extra: Sequence[str],
    progress_label: str,
    root: str,
    pythonpath: Sequence[str] = (),
) -> dict[str, Any]:
    """Run one configuration; the raw result, or ``{"error": {...}}`` when none came back."""
    opts = ctx.opts
    ctx.n_children += 1
    out_path = os.path.join(ctx.tmp, f"result-{ctx.n_children}.json")
    cmd = [
        opts.python or sys.executable,
        "-m",
        "compilelint.bench.runner",
        os.path.abspath(spec),
        "--mode",
        mode,
        "--backend",
        opts.backend,
        "--steps",
        str(opts.steps),
        "--warmup",
        str(opts.warmup),
        "--warmup-seconds",
        str(opts.warmup_seconds),
        "--attribution-steps",
        str(opts.attribution_steps),
        "--out",
        out_path,
        "--root",
        root,
        *extra,
    ]
    if opts.train:
        cmd.append("--train")
    if opts.dtype:
        cmd += ["--dtype", opts.dtype]
    if opts.device:
        cmd += ["--device", opts.device]
    env = _child_env(opts.progress, pythonpath)
    if opts.fresh_cache:
        cache = os.path.join(ctx.tmp, f"cache-{ctx.n_children}")
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache, "inductor")
        env["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    if opts.progress:
        sys.stderr.write(f"{PROGRESS_PREFIX}bench {progress_label}\n")
        sys.stderr.flush()
    tail: list[str] = []
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        )
    except OSError as exc:
        return {"error": _error("start", f"cannot start {cmd[0]}: {exc}", "Error")}

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith(PROGRESS_PREFIX):
                if opts.progress:
                    sys.stderr.write(line)
                    sys.stderr.flush()
                continue
            tail.append(line)
            if len(tail) > 200:
                del tail[:100]

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    reader.join(timeout=5)
    raw: dict[str, Any] | None = None
    if os.path.exists(out_path):
        try:
            with open(out_path, encoding="utf-8") as fh:
                raw = json.load(fh)
        except (OSError, ValueError):
            raw = None
    if raw is None:
        last = next((ln.strip() for ln in reversed(tail) if ln.strip()), "")
        if timed_out:
            err = _error(
                "run", f"{mode} did not finish within {opts.timeout:g} s (--timeout)", "Timeout"
            )
        elif proc.returncode is not None and proc.returncode < 0:
            err = _error(
                "run",
                f"the child process was killed by signal {-proc.returncode}"
                + (f": {last}" if last else ""),
                "Crash",
            )
        else:
            err = _error(
                "run",
                f"the child process exited with code {proc.returncode} without a result"
                + (f": {last}" if last else ""),
                "Exit",
            )
        return {"error": err, "seconds": round(time.perf_counter() - t0, 3)}
    raw["seconds"] = round(time.perf_counter() - t0, 3)
    return raw


def _error(step: str, message: str, typ: str) -> dict[str, Any]:
    return {"step": step, "type": typ, "message": message, "frame": None}


def _clean_error(err: Any, root: str) -> dict[str, Any] | None:
    if not isinstance(err, dict):
        return None
    out = {k: err.get(k) for k in ("step", "type", "message")}
    frame = err.get("frame")
    out["frame"] = (
        {"path": relpath(str(frame["path"]), root), "line": frame.get("line")}
        if isinstance(frame, dict) and frame.get("path")
        else None
    )
    return out


# --------------------------------------------------------------------------- analysis


def _memory(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "peak_memory_bytes": raw.get("peak_memory_bytes"),
        "peak_allocated_bytes": raw.get("peak_allocated_bytes"),
        "peak_memory_kind": raw.get("peak_memory_kind"),
    }


def eager_entry(raw: Mapping[str, Any], root: str) -> dict[str, Any]:
    err = _clean_error(raw.get("error"), root)
    return {
        "status": "error" if err else "ok",
        "first_call_ms": _r(raw.get("first_call_ms")),
        "step": stats.summarize(raw.get("step_ms") or []),
        "back_to_back": stats.summarize(raw.get("back_to_back_ms") or []),
        **_memory(raw),
        "seconds": raw.get("seconds"),
        "error": err,
    }


def eager_spread(steps: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Repeated eager runs of one model: their medians and whether any two disagree beyond
    their noise (interquartile ranges that do not overlap)."""
    runs = [x for x in steps if x.get("n")]
    if len(runs) < 2:
        return None
    medians = [float(x["median_ms"]) for x in runs]
    disagree = any(stats.significant(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :])
    lo, hi = min(medians), max(medians)
    return {
        "runs": len(runs),
        "medians_ms": [round(m, 4) for m in medians],
        "spread": round((hi - lo) / lo, 4) if lo else None,
        "consistent": not disagree,
    }


def median_run(steps: Sequence[Mapping[str, Any]]) -> int:
    """Which of repeated eager runs is the baseline: the one whose median is the median of
    the runs' medians (three or more runs; one process that ran slow — the scheduler, the
    clocks — then moves no speedup), else the first."""
    runs = [(float(x["median_ms"]), i) for i, x in enumerate(steps) if x.get("n")]
    if len(runs) < 3:
        return 0
    runs.sort()
    return runs[(len(runs) - 1) // 2][1]


def use_eager_run(run: dict[str, Any], step: Mapping[str, Any]) -> None:
    """Make ``step`` the run's eager step time and recompute its modes' speedups against it."""
    run["eager"]["step"] = dict(step)
    for m in run.get("modes", []):
        if m.get("status") == "ok":
            m.update(stats.speedup(step, m["step"]))


def _r(v: Any, nd: int = 4) -> Any:
    return round(float(v), nd) if isinstance(v, (int, float)) else None


def break_keys_by_compile(
    raw_breaks: Iterable[Mapping[str, Any]], registry: Registry
) -> dict[tuple[Any, Any], tuple[str, str, int]]:
    """(frame_id, frame_compile_id) -> the dedup key of the break that ended that frame's graph.

    A frame that breaks compiles the graph up to the break; its break record carries the same
    compile id as the graph (the last record wins: torch logs one per attempt)."""
    out: dict[tuple[Any, Any], tuple[str, str, int]] = {}
    for b in raw_breaks:
        pb = parse_break_message(str(b.get("message", "")), registry)
        out[(b.get("frame_id"), b.get("frame_compile_id"))] = (pb.gb_type, pb.loc_path, pb.loc_line)
    return out


def attribute_time(
    steps: Sequence[Sequence[Sequence[Any]]],
    graphs: Sequence[Mapping[str, Any]],
    break_of_compile: Mapping[tuple[Any, Any], tuple[str, str, int]],
    break_index: Mapping[tuple[str, str, int], int],
    *,
    train: bool = False,
) -> dict[str, Any] | None:
    """Split instrumented steps into time inside compiled graphs and the gaps between them.

    ``steps`` holds, per step, ``[kind, graph id, ms]`` segments (see the runner's ``Marks``).
    A gap after graph g (up to the next graph, or to the step end) is charged to the graph
    break that ended g, found through g's compile id; gaps after a graph whose frame ended
    without a break are "between compiled frames" (returning, Python code of frames torch runs
    eagerly, guard checks). In train mode the time after the last forward graph is "backward".
    Every figure is the median over steps of the per-step sum.
    """
    if not steps:
        return None
    by_gid = {int(g["id"]): g for g in graphs}

    def key_after(gid: int, kind: str) -> tuple[str, Any]:
        if kind == "tail" and train:
            return ("backward", None)
        g = by_gid.get(gid)
        if g is not None:
            bk = break_of_compile.get((g.get("frame_id"), g.get("frame_compile_id")))
            if bk is not None and bk in break_index:
                return ("break", break_index[bk])
        if kind == "tail":
            return ("after-last-graph", None)
        return ("between-frames", None)

    totals: list[float] = []
    inside: list[float] = []
    calls: list[int] = []
    parts: dict[tuple[str, Any], list[float]] = {}
    counts: dict[tuple[str, Any], list[int]] = {}
    for segs in steps:
        total = sum(float(s[2]) for s in segs)
        per: dict[tuple[str, Any], float] = {}
        cnt: dict[tuple[str, Any], int] = {}
        g_ms = 0.0
        n_calls = 0
        for kind, gid, ms in segs:
            ms = float(ms)
            if kind == "graph":
                g_ms += ms
                n_calls += 1
                continue
            key = ("before-first-graph", None) if kind == "head" else key_after(int(gid), kind)
            per[key] = per.get(key, 0.0) + ms
            cnt[key] = cnt.get(key, 0) + 1
        totals.append(total)
        inside.append(g_ms)
        calls.append(n_calls)
        for key in set(per) | set(parts):
            parts.setdefault(key, []).append(per.get(key, 0.0))
            counts.setdefault(key, []).append(cnt.get(key, 0))
    step_ms = stats.median(totals)
    in_ms = stats.median(inside)
    share = stats.median([i / t for i, t in zip(inside, totals) if t > 0]) if step_ms else 0.0
    order = {"break": 0, "between-frames": 1, "before-first-graph": 2, "after-last-graph": 3}
    rows: list[dict[str, Any]] = []
    for key, vals in parts.items():
        # steps where the key did not occur count as 0 ms
        vals = vals + [0.0] * (len(steps) - len(vals))
        ms = stats.median(vals)
        kind, idx = key
        rows.append(
            {
                "kind": kind,
                "break": idx,
                "ms_per_step": round(ms, 4),
                "share": round(ms / step_ms, 4) if step_ms else 0.0,
                "per_step": round(
                    stats.median(counts[key] + [0] * (len(steps) - len(counts[key])))
                ),
            }
        )
    rows.sort(key=lambda r: (-r["ms_per_step"], order.get(r["kind"], 9), r["break"] or 0))
    return {
        "steps": len(steps),
        "step_ms": round(step_ms, 4),
        "in_graphs_ms": round(in_ms, 4),
        "outside_graphs_ms": round(max(step_ms - in_ms, 0.0), 4),
        "in_graphs_share": round(share, 4),
        "graph_calls_per_step": round(stats.median(calls)),
        "parts": rows,
    }


LIMIT_RE = re.compile(r"hit config\.(?P<kind>\w+) \((?P<n>\d+)\)")
LAST_REASON_RE = re.compile(r"last reason: (?P<r>.*)")
PHASE_TEXT = {
    "first": "the first call",
    "inputs": "the inputs",
    "warmup": "warm-up",
    "timed": "the timed steps",
    "back-to-back": "the back-to-back steps",
    "attribution": "the attribution steps",
}


def eager_fallbacks(
    hits: Iterable[Mapping[str, Any]],
    recompiles: Sequence[Mapping[str, Any]],
    time_split: Mapping[str, Any] | None,
    root: str,
) -> list[dict[str, Any]]:
    """Frames torch gave up on at the recompile limit (they run eagerly from then on): which
    function, since which call, the guard that failed last and its line, and what the time
    outside compiled graphs (where that eager run is) costs per step."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    outside = [p for p in (time_split or {}).get("parts", []) if p.get("kind") != "break"]
    ms = round(sum(float(p.get("ms_per_step") or 0.0) for p in outside), 4)
    share = round(sum(float(p.get("share") or 0.0) for p in outside), 4)
    for h in hits:
        msg = str(h.get("message", ""))
        fm = LIMIT_FN_RE.search(msg)
        lm = LIMIT_RE.search(msg)
        name = strip_resume(fm.group("name")) if fm else "?"
        path = relpath(fm.group("path"), root) if fm else None
        key = (name, str(path))
        if key in seen:
            continue
        seen.add(key)
        rm = LAST_REASON_RE.search(msg)
        last = parse_recompile_reason(rm.group("r")).guard if rm else ""
        match = next(
            (
                r
                for r in recompiles
                if r.get("function") == name and guard_key(str(r.get("guard"))) == guard_key(last)
            ),
            None,
        )
        if match is None and last:
            match = next((r for r in recompiles if r.get("function") == name), None)
        out.append(
            {
                "function": name,
                "path": path,
                "line": int(fm.group("line")) if fm else None,
                "limit": lm.group("kind") if lm else "recompile_limit",
                "limit_value": int(lm.group("n")) if lm else None,
                "since_call": h.get("call"),
                "since_phase": h.get("phase"),
                "guard": last or (match or {}).get("guard"),
                "guard_readable": (match or {}).get("guard_readable") or last or None,
                "guard_path": (match or {}).get("path"),
                "guard_line": (match or {}).get("line"),
                "explanation": (match or {}).get("explanation") or "",
                "ms_per_step": ms if time_split else None,
                "share": share if time_split else None,
            }
        )
    return out


def fallback_text(fb: Mapping[str, Any]) -> str:
    """One sentence for a frame that runs eagerly after the recompile limit."""
    since = ""
    if fb.get("since_call"):
        phase = PHASE_TEXT.get(str(fb.get("since_phase")), str(fb.get("since_phase") or ""))
        since = f" since call {fb['since_call']}" + (f" ({phase})" if phase else "")
    where = f" ({fb['path']}:{fb['line']})" if fb.get("path") else ""
    limit = f"config.{fb.get('limit')}" + (
        f" ({fb['limit_value']})" if fb.get("limit_value") is not None else ""
    )
    text = f"`{fb['function']}`{where} runs eagerly{since}: torch hit {limit}"
    if fb.get("guard_readable"):
        at = f" at line {fb['guard_line']}" if fb.get("guard_line") else ""
        text += f"; the last failed guard is `{fb['guard_readable']}`{at}"
    if fb.get("ms_per_step") is not None:
        text += (
            f"; that eager run is in the {fb['ms_per_step']:.3g} ms per step "
            f"({fb['share']:.0%}) spent outside compiled graphs"
        )
    return text


def mode_entry(
    raw: Mapping[str, Any],
    mode: str,
    eager: Mapping[str, Any],
    ctx: _Ctx,
    root: str | None = None,
) -> dict[str, Any]:
    root = root or ctx.root
    err = _clean_error(raw.get("error"), root)
    step = stats.summarize(raw.get("step_ms") or [])
    sp = stats.speedup(eager["step"], step)
    b2b = stats.summarize(raw.get("back_to_back_ms") or [])
    graphs = [g for g in raw.get("graphs") or [] if isinstance(g, dict)]
    dyn_raw = {
        "root": raw.get("root") or root,
        "breaks": raw.get("breaks") or [],
        "recompiles": raw.get("recompiles") or [],
        "metrics": raw.get("metrics") or [],
        "limit_hits": raw.get("limit_hits") or [],
        "graphs": [
            {
                "phase": "inputs" if g.get("phase") == "first" else g.get("phase"),
                "call": 0,
                "ops": g.get("ops", 0),
            }
            for g in graphs
        ],
    }
    dyn = build_result(dyn_raw, root, ctx.registry)
    breaks = [dict(b) for b in dyn.block["breaks"]]
    index = {b.key: i for i, b in enumerate(dyn.breaks)}
    time_split = attribute_time(
        raw.get("attribution") or [],
        graphs,
        break_keys_by_compile(raw.get("breaks") or [], ctx.registry),
        index,
        train=bool(raw.get("train")),
    )
    if time_split is not None:
        skipping = [i for i, b in enumerate(breaks) if b.get("in_loop") or b.get("frame_skipped")]
        for part in time_split["parts"]:
            part["skipped_frames_by"] = skipping if part["kind"] != "break" else []
            if part["kind"] == "break" and part["break"] is not None:
                b = breaks[part["break"]]
                part["path"], part["line"] = b.get("path"), b.get("line")
                part["gb_type"] = b.get("gb_type")
                b["ms_per_step"] = part["ms_per_step"]
                b["share"] = part["share"]
                b["per_step"] = part["per_step"]
    for b in breaks:
        b.setdefault("ms_per_step", None)
        b.setdefault("share", None)
        b.setdefault("per_step", 0)
    phases = [str(r.get("phase")) for r in raw.get("recompiles") or []]
    after_first = sum(1 for p in phases if p != "first")
    in_timed = sum(1 for p in phases if p == "timed")
    if in_timed:
        ctx.warnings.append(
            f"{mode}: recompiled {in_timed} time(s) during the timed steps; its step times "
            "include compile time"
        )
    fallbacks = eager_fallbacks(
        raw.get("limit_hits") or [], dyn.block.get("recompiles") or [], time_split, root
    )
    if time_split is not None and fallbacks:
        names = [f"{fb['function']}" for fb in fallbacks]
        for part in time_split["parts"]:
            if part["kind"] != "break":
                part["eager_fallback"] = names
    for fb in fallbacks:
        fb["text"] = fallback_text(fb)
        ctx.warnings.append(f"{mode}: {fb['text']}")
    if dyn.block.get("hit_recompile_limit") and not fallbacks:
        ctx.warnings.append(f"{mode}: hit the recompile limit; the frames past it run eagerly")
    return {
        "mode": mode,
        "status": "error" if err else "ok",
        "compile_s": _r(raw.get("compile_s")),
        "first_call_ms": _r(raw.get("first_call_ms")),
        "step": step,
        **sp,
        "back_to_back": b2b,
        "back_to_back_speedup": stats.speedup(eager["back_to_back"], b2b)["speedup"],
        **_memory(raw),
        "graphs": dyn.block.get("graph_count", 0),
        "graphs_total": len(graphs),
        "graph_calls_per_step": time_split["graph_calls_per_step"] if time_split else None,
        "break_count": len(breaks),
        "breaks": breaks,
        "recompiles": dyn.block.get("recompile_count", 0),
        "recompiles_after_first_call": after_first,
        "recompiles_during_timed_steps": in_timed,
        "hit_recompile_limit": bool(dyn.block.get("hit_recompile_limit")),
        "recompile_details": dyn.block.get("recompiles", []),
        "eager_fallback": fallbacks,
        "time": time_split,
        "output": _output(raw.get("reference")),
        "seconds": raw.get("seconds"),
        "error": err,
    }


def _median_ms(raw: Mapping[str, Any]) -> float | None:
    if raw.get("error"):
        return None
    med = stats.summarize(raw.get("step_ms") or []).get("median_ms")
    return float(med) if med is not None else None


def _output(ref: Any) -> dict[str, Any] | None:
    if not isinstance(ref, dict) or "max_abs_diff" not in ref:
        return None
    return {"max_abs_diff": ref["max_abs_diff"], "rel_l2": ref.get("rel_l2")}


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    for k in ("weights", "inputs"):
        x, y = a.get(k), b.get(k)
        if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
            return False
        if abs(x - y) > CHECKSUM_RTOL * max(abs(x), abs(y), 1.0):
            return False
    return True


def _run_target(
    ctx: _Ctx, target: Target, base_ref: str | None, idx: int
) -> tuple[dict[str, Any], str | None, dict[str, Any] | None]:
    """Bench one spec: eager, then each mode. Returns (run, its reference file, environment)."""
    opts = ctx.opts
    root = os.path.realpath(target.root) if target.root else ctx.root
    spec = load_spec(target.spec)
    ref = os.path.join(ctx.tmp, f"reference-{idx}.pt")
    extra = ["--save-reference", ref]
    if base_ref:
        extra += ["--reference", base_ref]
    raw_e = _child(
        ctx, target.spec, EAGER, extra, f"{target.label}: eager", root, target.pythonpath
    )
    eager = eager_entry(raw_e, root)
    device = raw_e.get("device") or (opts.device or spec.device)
    run: dict[str, Any] = {
        "label": target.label,
        "spec": relpath(os.path.abspath(target.spec), root),
        "model": spec.model,
        "note": target.note,
        "device": device,
        "train": bool(raw_e.get("train", opts.train or spec.mode == "train")),
        "mode_source": raw_e.get("mode_source"),
        "inputs_moved": raw_e.get("inputs_moved"),
        "checksums": raw_e.get("checksums") or {},
        "same_weights_and_inputs": None,
        "output_vs_baseline": _output(raw_e.get("reference")) if base_ref else None,
        "eager": eager,
        "modes": [],
        "error": eager["error"],
    }
    env = raw_e.get("environment") if isinstance(raw_e.get("environment"), dict) else None
    if eager["error"]:
        return run, None, env
    modes = opts.modes
    if modes is None:
        modes = ("default", "reduce-overhead") if str(device).startswith("cuda") else ("default",)
    if not str(device).startswith("cuda"):
        for m in modes:
            if m in CUDAGRAPH_MODES:
                ctx.warnings.append(
                    f"{m}: CUDA graphs need a CUDA device; on {device} it compiles like "
                    "default (plus max-autotune's tuning)"
                )
    same = True
    for mode in modes:
        raw_m = _child(
            ctx,
            target.spec,
            mode,
            ["--reference", ref],
            f"{target.label}: {mode}",
            root,
            target.pythonpath,
        )
        alternative: dict[str, Any] | None = None
        if target.without_config:
            # a fixed copy with torch settings (config remedies) is also run without them: a
            # setting verified on one machine can fail in another mode, and a config that
            # removes breaks can still be slower on a GPU (unbacked sizes and scalars limit
            # what inductor fuses, `dynamic=True` specializes less). The faster one is the
            # mode's figure; the other is kept beside it.
            names = ", ".join(target.config_names)
            raw_p = _child(
                ctx,
                target.without_config,
                mode,
                ["--reference", ref],
                f"{target.label}: {mode} (without {names})",
                root,
                target.pythonpath,
            )
            with_ms = _median_ms(raw_m)
            plain_ms = _median_ms(raw_p)
            if raw_m.get("error"):
                first = raw_m.get("error")
                why = first.get("message") if isinstance(first, dict) else str(first)
                ctx.warnings.append(
                    f"{target.label}: {mode} failed with the torch config {names} "
                    f"({_short_error(why)}); this mode is measured with the source fixes alone"
                )
                raw_m, alternative = raw_p, {"config": list(target.config_names), "error": True}
            elif plain_ms is not None and with_ms is not None and plain_ms < with_ms:
                ctx.warnings.append(
                    f"{target.label}: {mode} is faster without the torch config {names} "
                    f"({plain_ms:.3g} ms against {with_ms:.3g} ms a step): this mode is "
                    "measured with the source fixes alone; the config is not worth adding for it"
                )
                alternative = {"config": list(target.config_names), "step_median_ms": with_ms}
                raw_m = raw_p
            else:
                alternative = {"config": [], "step_median_ms": plain_ms}
        entry = mode_entry(raw_m, mode, eager, ctx, root)
        if alternative is not None:
            entry["config"] = [] if alternative["config"] else list(target.config_names)
            entry["other_config"] = alternative
        if not raw_m.get("error") and not _same(run["checksums"], raw_m.get("checksums") or {}):
            same = False
        run["modes"].append(entry)
    repeats = [eager["step"]]
    for k in range(1, opts.eager_runs):  # after the compiled modes: interleaved with them
        raw_k = _child(ctx, target.spec, EAGER, [], f"{target.label}: eager (run {k + 1})", root)
        if not raw_k.get("error"):
            repeats.append(eager_entry(raw_k, root)["step"])
    spread = eager_spread(repeats)
    if spread is not None:
        eager["repeats"] = spread
        k = median_run(repeats)
        spread["baseline_run"] = k + 1
        if k:
            use_eager_run(run, repeats[k])
        if not spread["consistent"]:
            meds = ", ".join(f"{m:.3g}" for m in spread["medians_ms"])
            which = "the first" if k == 0 else f"run {k + 1}, the median of them"
            ctx.warnings.append(
                f"{target.label}: {spread['runs']} eager runs of the same model disagree beyond "
                f"their noise (medians {meds} ms); speedups use {which}"
            )
    run["same_weights_and_inputs"] = same
    if not same:
        ctx.warnings.append(
            f"{target.label}: the compiled runs saw different weights or inputs than eager "
            "(the model's initialisation is not deterministic under the spec's seed)"
        )
    return run, ref, env


def one_baseline(runs: Sequence[dict[str, Any]], warnings: list[str]) -> None:
    """Every run's speedups against one eager baseline: the first run's (the model as written).

    Each variant still runs eagerly in its own process (its weights, inputs and output are
    checked against the baseline's); that eager time is kept as a check of the measurement:
    when two eager runs disagree beyond their spread (interquartile ranges that do not overlap)
    it is said. The speedup a variant's compiled step gets against its own eager run stays
    available as ``speedup_vs_own_eager``."""
    if len(runs) < 2:
        return
    base = runs[0]
    be = base.get("eager", {}).get("step") or {}
    bb = base.get("eager", {}).get("back_to_back") or {}
    if not be.get("n"):
        return
    for run in runs[1:]:
        own = run.get("eager", {}).get("step") or {}
        check = stats.speedup(be, own)
        run["eager"]["vs_baseline"] = check
        run["baseline"] = base["label"]
        if own.get("n") and check["significant"]:
            warnings.append(
                f"eager runs disagree: {base['label']} {be['median_ms']:.3g} ms and "
                f"{run['label']} {own['median_ms']:.3g} ms per step, beyond their spread; "
                f"every speedup is against {base['label']}'s eager run"
            )
        for m in run.get("modes", []):
            if m.get("status") != "ok":
                continue
            m["speedup_vs_own_eager"] = m.get("speedup")
            m.update(stats.speedup(be, m["step"]))
            m["back_to_back_speedup"] = stats.speedup(bb, m.get("back_to_back") or {})["speedup"]
            m["baseline"] = f"{base['label']} eager"


def compare_runs(base: Mapping[str, Any], other: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per mode present in both: speedups side by side, and the break lines the other lacks."""
    out: list[dict[str, Any]] = []
    other_modes = {m["mode"]: m for m in other.get("modes", [])}
    for m in base.get("modes", []):
        o = other_modes.get(m["mode"])
        if o is None or m["status"] != "ok" or o["status"] != "ok":
            continue
        gone = sorted(
            {
                f"{b['path']}:{b['line']}"
                for b in m["breaks"]
                if b.get("path")
                and b.get("line")
                and not any(
                    ob.get("gb_type") == b.get("gb_type")
                    and ob.get("function") == b.get("function")
                    for ob in o["breaks"]
                )
            }
        )
        vs = stats.speedup(m["step"], o["step"])
        out.append(
            {
                "mode": m["mode"],
                "baseline_speedup": m["speedup"],
                "other_speedup": o["speedup"],
                "baseline_ms": m["step"]["median_ms"],
                "other_ms": o["step"]["median_ms"],
                "other_vs_baseline": vs["speedup"],
                "significant": vs["significant"],
                "verdict": vs["verdict"],
                "baseline_breaks": m["break_count"],
                "other_breaks": o["break_count"],
                "fixed_break_lines": gone,
            }
        )
    return out


def comparison_summary(label: str, comp: Sequence[Mapping[str, Any]]) -> str | None:
    """``fixing these 2 lines (a.py:40, a.py:41): default 0.77x -> 1.97x, ...``."""
    if not comp:
        return None
    lines = sorted({ln for c in comp for ln in c["fixed_break_lines"]})
    parts = []
    for c in comp:
        a, b = c["baseline_speedup"], c["other_speedup"]
        if a is None or b is None:
            continue
        tag = "" if c["significant"] else " (not significant)"
        parts.append(f"{c['mode']} {a:.2f}x -> {b:.2f}x{tag}")
    if not parts:
        return None
    head = (
        f"fixing {'this line' if len(lines) == 1 else f'these {len(lines)} lines'} "
        f"({', '.join(lines)})"
        if lines
        else label
    )
    return f"{head}: " + ", ".join(parts)


def annotate_rules(result: dict[str, Any], findings: Iterable[Any]) -> None:
    """Name the static break rules (``CL103``...) that flag each measured break's line (a
    recompile finding on the same line, CL303, is not what broke)."""
    from compilelint.static.analysis.breakpoints import break_codes

    breaks = break_codes()
    by_line: dict[tuple[str, int], list[str]] = {}
    for f in findings:
        if f.rule not in breaks:
            continue
        by_line.setdefault((str(f.path).replace(os.sep, "/"), int(f.line)), []).append(f.rule)
    for run in result.get("runs", []):
        for m in run.get("modes", []):
            for b in m.get("breaks", []):
                b["rules"] = sorted(
                    set(by_line.get((str(b.get("path")), int(b.get("line") or 0)), []))
                )
            for part in (m.get("time") or {}).get("parts", []):
                if part["kind"] == "break":
                    part["rules"] = m["breaks"][part["break"]].get("rules", [])


def fixed_copy(
    spec: str, paths: Sequence[str], root: str, dest: str
) -> tuple[Target | None, dict[str, Any]]:
    """A copy of ``root`` in ``dest`` with compilelint's fixes for ``paths`` applied, each fix
    verified by the dynamic stage with ``spec`` (kept only if its break is gone and the outputs
    match). Returns the target that benches the copy (None when no fix was accepted) and a
    record of the fixes."""
    try:
        from compilelint.fix import fix_copy
    except ImportError as exc:  # pragma: no cover - packaging error
        raise BenchError(f"--fix needs the fix stage: {exc}") from None
    root = os.path.realpath(root)
    rel = [os.path.relpath(os.path.realpath(p), root) for p in paths]
    if any(r.startswith("..") for r in rel):
        raise BenchError("--fix: the files to fix must be inside the current folder")
    run = fix_copy(root, dest, rel, unsafe=True, spec=os.path.abspath(spec), verify=True)
    dest = os.path.realpath(dest)

    def rec(r: Any) -> dict[str, Any]:
        return {
            "rule": r.rule,
            "path": relpath(os.path.realpath(r.path), dest),
            "line": r.line,
            "title": r.title,
            "reason": r.reason,
        }

    applied = [rec(r) for r in run.records if r.status == "applied"]
    configs = [c for c in run.configs if c.accepted]
    info: dict[str, Any] = {
        "applied": applied,
        "not_applied": [
            {**rec(r), "status": r.status} for r in run.records if r.status != "applied"
        ],
        "configs": [
            {
                "name": c.name,
                "lines": list(c.lines),
                "written": relpath(os.path.realpath(c.written.rsplit(":", 1)[0]), dest)
                + ":"
                + c.written.rsplit(":", 1)[1]
                if c.written
                else None,
                "reason": c.reason,
            }
            for c in configs
        ],
        "verified": run.verification is not None and not run.verification.error,
        "error": run.verification.error if run.verification else None,
    }
    if not applied and not configs:
        return None, info
    cs = run.copy_spec
    what = ", ".join(f"{a['rule']} at {a['path']}:{a['line']}" for a in applied)
    note = f"a copy with compilelint's verified fixes applied ({what or 'no source fix'})"
    if configs:
        note += (
            "; with the torch config " + ", ".join(c.name for c in configs) + " (a config that "
            "removes graph breaks can still be slower on a GPU: unbacked symbolic sizes and "
            "scalars limit what inductor fuses and specializes; compare the timings)"
        )
    if cs is None:  # pragma: no cover - applied fixes imply a verified copy spec
        return None, info
    plain = None
    if configs:
        plain = _spec_without_config(cs.spec, configs)
    return (
        Target(
            "fixed",
            cs.spec,
            note=note,
            root=dest,
            pythonpath=cs.pythonpath,
            without_config=plain,
            config_names=tuple(c.name for c in configs),
        ),
        info,
    )


def _spec_without_config(spec_path: str, configs: Sequence[Any]) -> str:
    """A copy of the fixed copy's spec without the accepted config remedies' settings."""
    with open(spec_path, encoding="utf-8") as fh:
        data = json.load(fh)
    for c in configs:
        for k in c.settings:
            (data.get("config") or {}).pop(k, None)
        for k in c.compile:
            (data.get("compile") or {}).pop(k, None)
    out = os.path.join(os.path.dirname(spec_path), ".compilelint-spec-without-config.json")
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)
    return out


def _short_error(text: Any, n: int = 120) -> str:
    t = " ".join(str(text or "unknown error").split())
    return t if len(t) <= n else t[: n - 3] + "..."


def run_bench(
    targets: Sequence[Target],
    opts: BenchOptions,
    *,
    cwd: str | None = None,
    command: str | None = None,
    fix: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Bench each target (the first is the baseline the others are compared with).

    ``fix``: files to fix (``bench --fix``): a temporary copy of the current folder gets
    compilelint's verified fixes for them, and is benched after the targets."""
    validate_options(opts)
    if not targets:
        raise BenchError("nothing to bench: give --input-spec")
    for t in targets:
        check_spec(t.spec)
    t0 = time.perf_counter()
    root = os.path.realpath(cwd or os.getcwd())
    tmp = tempfile.mkdtemp(prefix="compilelint-bench-")
    ctx = _Ctx(root=root, opts=opts, tmp=tmp, registry=load_registry())
    runs: list[dict[str, Any]] = []
    env: dict[str, Any] | None = None
    fix_info: dict[str, Any] | None = None
    try:
        targets = list(targets)
        if fix is not None:
            if opts.progress:
                sys.stderr.write(f"{PROGRESS_PREFIX}bench: fixing a copy and verifying each fix\n")
            fixed, fix_info = fixed_copy(targets[0].spec, fix, root, os.path.join(tmp, "fixed"))
            if fixed is None:
                ctx.warnings.append(
                    "--fix: no verified fix applies to these files; nothing to compare"
                )
            else:
                targets.append(fixed)
        base_ref: str | None = None
        for i, t in enumerate(targets):
            run, ref, run_env = _run_target(ctx, t, base_ref, i)
            runs.append(run)
            env = env or run_env
            if i == 0:
                base_ref = ref
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
    one_baseline(runs, ctx.warnings)
    comparison = []
    for other in runs[1:]:
        comp = compare_runs(runs[0], other)
        comparison.append(
            {
                "baseline": runs[0]["label"],
                "other": other["label"],
                "modes": comp,
                "summary": comparison_summary(other["label"], comp),
            }
        )
    modes_run = sorted({m["mode"] for r in runs for m in r["modes"]}, key=_mode_order)
    cuda = any(str(r.get("device", "")).startswith("cuda") for r in runs)
    return {
        "bench_version": BENCH_VERSION,
        "version": __version__,
        "command": command,
        "settings": {
            "steps": opts.steps,
            "warmup": opts.warmup,
            "warmup_seconds_on_gpu": opts.warmup_seconds,
            "attribution_steps": opts.attribution_steps,
            "modes": modes_run,
            "train": any(r.get("train") for r in runs),
            "dtype": opts.dtype,
            "backend": opts.backend,
            "inductor_cache": "fresh per process (cold compile)"
            if opts.fresh_cache
            else "the user's cache",
            "timing": "CUDA events, synchronized after each step"
            if cuda
            else "time.perf_counter per step",
            "significance": "interquartile ranges do not overlap",
            "baseline": "every speedup is against the first run's eager step time"
            if len(runs) > 1
            else "eager step time",
        },
        "environment": env,
        "runs": runs,
        "comparison": comparison,
        "fix": fix_info,
        "warnings": list(dict.fromkeys(ctx.warnings)),
        "seconds": round(time.perf_counter() - t0, 3),
    }


def _mode_order(m: str) -> int:
    return COMPILE_MODES.index(m) if m in COMPILE_MODES else len(COMPILE_MODES)


def exit_code(result: Mapping[str, Any]) -> int:
    """0 every configuration measured, 1 some failed, 2 nothing could be measured."""
    runs = result.get("runs") or []
    if not runs or any(r.get("error") for r in runs[:1]):
        return 2
    failed = any(r.get("error") for r in runs) or any(
        m.get("status") != "ok" for r in runs for m in r.get("modes", [])
    )
    return 1 if failed else 0
