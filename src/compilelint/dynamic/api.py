"""Run the dynamic stage in a child process and turn its raw output into plain records.

``run_dynamic`` never raises on a broken user model, a missing torch, a hang or a crash: the
problem comes back as ``DynamicResult.error`` (``{"step", "type", "message", "frame", ...}``).
This module never imports torch.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from compilelint.dynamic.capture import (
    RESUME_RE,
    ObservedBreak,
    ObservedRecompile,
    break_json,
    dedupe_breaks,
    group_recompiles,
    parse_break_message,
    recompile_json,
    relpath,
)
from compilelint.dynamic.registry import Registry, load_registry
from compilelint.dynamic.spec import SpecError, load_spec

DEFAULT_TIMEOUT = 300.0
INSTALL_HINT = "torch is not installed: pip install 'compilelint[torch]' (or pip install torch)"
PROGRESS_PREFIX = "compilelint: "


@dataclass(frozen=True)
class DynamicResult:
    """What the dynamic stage observed, as plain data.

    ``block`` is the JSON ``"dynamic"`` object of the report; ``reached`` maps absolute file
    paths to the lines torch traced into graphs (used to tell "not reached" from "no break").
    """

    block: dict[str, Any]
    breaks: tuple[ObservedBreak, ...] = ()
    recompiles: tuple[ObservedRecompile, ...] = ()
    reached: dict[str, frozenset[int]] = field(default_factory=dict)
    root: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def error(self) -> dict[str, Any] | None:
        err = self.block.get("error")
        return err if isinstance(err, dict) else None

    @property
    def ok(self) -> bool:
        return self.error is None


def torch_available() -> bool:
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def torch_dirs() -> tuple[str, ...]:
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return ()
    return tuple(spec.submodule_search_locations or ()) if spec else ()


def _error(step: str, message: str, **extra: Any) -> dict[str, Any]:
    err: dict[str, Any] = {"step": step, "type": extra.pop("type", "Error"), "message": message}
    err.setdefault("frame", None)
    err.update(extra)
    return err


def empty_block(error: dict[str, Any] | None, seconds: float = 0.0) -> dict[str, Any]:
    return {
        "torch": None,
        "device": None,
        "graph_count": 0,
        "graph_break_count": 0,
        "ops_per_graph": [],
        "breaks": [],
        "recompiles": [],
        "seconds": round(seconds, 3),
        "error": error,
    }


def build_result(
    raw: Mapping[str, Any], root: str, registry: Registry | None = None
) -> DynamicResult:
    """Parse a runner result (live or recorded) into a :class:`DynamicResult`. Pure."""
    registry = registry if registry is not None else load_registry()
    root = os.path.realpath(root)
    # A recorded run keeps its own root; remap its paths onto ours.
    raw_root = str(raw.get("root") or root)
    tdirs = torch_dirs()

    def remap(text: str) -> str:
        return text.replace(raw_root, root) if raw_root != root else text

    parsed = [
        parse_break_message(remap(str(b.get("message", ""))), registry)
        for b in raw.get("breaks", [])
    ]
    for fe in raw.get("fullgraph_errors", []) or []:
        msg = remap(str(fe.get("message", "")))
        pb = parse_break_message(msg, registry)
        if fe.get("gb_type") and pb.gb_type != fe["gb_type"] and registry.id_for(fe["gb_type"]):
            pb = parse_break_message(f"{fe['gb_type']}\n{msg}", registry)
        if not any(p.loc_path == pb.loc_path and p.loc_line == pb.loc_line for p in parsed):
            parsed.append(pb)
    breaks = dedupe_breaks(parsed, root, tdirs)
    events = []
    for r in raw.get("recompiles", []) or []:
        payload = r.get("payload")
        payload = [remap(p) for p in payload] if isinstance(payload, list) else remap(str(payload))
        fn: dict[str, Any] = {}
        for m in raw.get("metrics", []) or []:
            if m.get("frame_id") == r.get("frame_id") and m.get("co_name"):
                fn = {
                    "name": m["co_name"],
                    "path": remap(str(m.get("co_filename") or "")),
                    "line": m.get("co_firstlineno"),
                }
                break
        events.append({"reasons": payload, "function": fn})
    hits = [{"message": remap(str(h.get("message", "")))} for h in raw.get("limit_hits", []) or []]
    recompiles = group_recompiles(events, hits, root, tdirs)
    graphs = [g for g in raw.get("graphs", []) or [] if isinstance(g, dict)]
    first = [g for g in graphs if g.get("call", 0) == 0 and g.get("phase") == "inputs"]
    reached = {
        remap(p): frozenset(int(x) for x in ls) for p, ls in (raw.get("lines") or {}).items()
    }
    error = raw.get("error")
    if isinstance(error, dict):
        error = json.loads(remap(json.dumps(error)))
        for f in [error.get("frame"), *(error.get("frames") or [])]:
            if isinstance(f, dict) and f.get("path"):
                f["path"] = relpath(str(f["path"]), root)
    raw_breaks = [b for b in raw.get("breaks", []) if isinstance(b, dict)]
    ended_by = {
        (b.get("frame_id"), b.get("frame_compile_id")): (p.gb_type, p.loc_path, p.loc_line)
        for b, p in zip(raw_breaks, parsed)
        if b.get("frame_id") is not None
    }
    by_key = {br.key: br for br in breaks}
    block: dict[str, Any] = {
        "torch": raw.get("torch"),
        "device": raw.get("device"),
        "graph_count": len(first),
        "graph_break_count": len(breaks),
        "ops_per_graph": [int(g.get("ops", 0)) for g in first],
        "graphs_total": len(graphs),
        "graphs": [graph_json(i, g, ended_by, by_key, root, remap) for i, g in enumerate(first)],
        "breaks": [break_json(b, root) for b in breaks],
        "recompiles": [recompile_json(r, root) for r in recompiles],
        "recompile_count": sum(r.count for r in recompiles),
        "hit_recompile_limit": any(r.hit_limit for r in recompiles) or bool(hits),
        "compile": raw.get("compile") or {},
        "config": raw.get("config") or {},
        "mode": raw.get("mode"),
        "phases": raw.get("phases") or [],
        "seconds": raw.get("seconds", 0.0),
        "error": error if isinstance(error, dict) else None,
    }
    return DynamicResult(
        block=block,
        breaks=tuple(breaks),
        recompiles=tuple(recompiles),
        reached=reached,
        root=root,
        raw=dict(raw),
    )


def graph_json(
    index: int,
    g: Mapping[str, Any],
    ended_by: Mapping[tuple[Any, Any], tuple[str, str, int]],
    by_key: Mapping[tuple[str, str, int], ObservedBreak],
    root: str,
    remap: Any,
) -> dict[str, Any]:
    """One compiled graph of the first call, in compile order, and the break that ended it.

    ``break`` is the deduplicated break torch recorded while compiling the same frame
    (matched on torch's frame and compile ids), or ``None`` when the graph ran to the end of
    its frame. ``resumed_after`` is the line a resume function continues after.
    """
    fn = str(g.get("function") or "")
    resumed_after = None
    m = RESUME_RE.match(fn)
    if m:
        resumed_after = int(fn.rsplit("_at_", 1)[1])
        fn = m.group("fn")
    path = g.get("path")
    fcid = g.get("frame_compile_id")
    out: dict[str, Any] = {
        "index": index,
        "ops": int(g.get("ops", 0)),
        "compile_id": f"{g['frame_id']}/{fcid}" if g.get("frame_id") is not None else None,
        "recompile": bool(fcid),
        "function": fn or None,
        "path": relpath(remap(str(path)), root) if path else None,
        "first_line": g.get("first_line"),
        "last_line": g.get("last_line"),
        "resumed_after": resumed_after,
        "break": None,
    }
    key = ended_by.get((g.get("frame_id"), fcid))
    br = by_key.get(key) if key else None
    if br is not None:
        out["break"] = {
            "gb_type": br.gb_type,
            "gb_id": br.gb_id,
            "path": relpath(br.path, root) if br.path else relpath(br.loc_path, root),
            "line": br.line if br.line is not None else br.loc_line,
        }
    return out


def _child_env(progress: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)  # set_logs/artifacts must not be overridden by the user's env
    env.pop("TORCH_TRACE", None)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (pkg_parent, env.get("PYTHONPATH", "")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    if progress:
        env["COMPILELINT_PROGRESS"] = "1"
    else:
        env.pop("COMPILELINT_PROGRESS", None)
    return env


def _limit_memory(memory_mb: int | None) -> Any:
    if not memory_mb:
        return None

    def preexec() -> None:  # pragma: no cover - runs in the child
        with contextlib.suppress(Exception):
            import resource

            limit = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec if os.name == "posix" else None


def run_dynamic(
    spec_path: str,
    *,
    cwd: str,
    timeout: float | None = DEFAULT_TIMEOUT,
    progress: bool = False,
    memory_mb: int | None = None,
    python: str | None = None,
    save_outputs: str | None = None,
    compare_outputs: str | None = None,
) -> DynamicResult:
    """Run the spec's model under torch.compile in a child process; errors come back as data.

    ``save_outputs``: a file for the run's initial weights, outputs and gradients;
    ``compare_outputs``: such a file from another run to compare with (``fix --verify``); the
    verdict is ``result.raw["comparison"]``."""
    t0 = time.perf_counter()
    root = os.path.realpath(cwd)
    try:
        load_spec(spec_path)
    except SpecError as exc:
        return DynamicResult(
            block=empty_block(_error("spec", str(exc), type="SpecError")), root=root
        )
    if python is None and not torch_available():
        return DynamicResult(
            block=empty_block(_error("import torch", INSTALL_HINT, type="ImportError")), root=root
        )
    fd, out_path = tempfile.mkstemp(prefix="compilelint-dyn-", suffix=".json")
    os.close(fd)
    os.unlink(out_path)
    cmd = [
        python or sys.executable,
        "-m",
        "compilelint.dynamic.runner",
        os.path.abspath(spec_path),
        "--out",
        out_path,
        "--root",
        root,
    ]
    if save_outputs:
        cmd += ["--save-outputs", save_outputs]
    if compare_outputs:
        cmd += ["--compare-outputs", compare_outputs]
    tail: list[str] = []
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=_child_env(progress),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            preexec_fn=_limit_memory(memory_mb),
        )
    except OSError as exc:
        return DynamicResult(
            block=empty_block(
                _error("start", f"cannot start {cmd[0]}: {exc}"), time.perf_counter() - t0
            ),
            root=root,
        )

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith(PROGRESS_PREFIX):
                if progress:
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
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    reader.join(timeout=5)
    seconds = time.perf_counter() - t0
    raw: dict[str, Any] | None = None
    if os.path.exists(out_path):
        try:
            with open(out_path, encoding="utf-8") as fh:
                raw = json.load(fh)
        except (OSError, ValueError):
            raw = None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(out_path)
    if raw is None:
        last = next((ln.strip() for ln in reversed(tail) if ln.strip()), "")
        if timed_out:
            err = _error(
                "run", f"the model did not finish within {timeout:g} s (--timeout)", type="Timeout"
            )
        elif proc.returncode is not None and proc.returncode < 0:
            err = _error(
                "run",
                f"the child process was killed by signal {-proc.returncode}"
                + (f": {last}" if last else "")
                + (" (memory limit?)" if memory_mb else ""),
                type="Crash",
            )
        else:
            err = _error(
                "run",
                f"the child process exited with code {proc.returncode} without a result"
                + (f": {last}" if last else ""),
                type="Exit",
            )
        return DynamicResult(block=empty_block(err, seconds), root=root)
    result = build_result(raw, root)
    result.block["seconds"] = round(seconds, 3)
    return result
