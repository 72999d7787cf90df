"""Run the dynamic stage in a child process and turn its raw output into plain records.

``run_dynamic`` never raises on a broken user model, a missing torch, a hang or a crash: the
problem comes back as ``DynamicResult.error`` (``{"step", "type", "message", "frame", ...}``).
This module never imports torch.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
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
    user_function_name,
)
from compilelint.dynamic.guards import describe
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
    # Lines of the scanned files that ran in the eager coverage pass (absolute paths); None
    # when the run recorded no coverage (``--no-coverage``, an older recorded run, an error).
    covered: dict[str, frozenset[int]] | None = None
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
    code_of: dict[Any, Mapping[str, Any]] = {}  # frame id -> its first metrics with a code name
    for m in raw.get("metrics", []) or []:
        if m.get("co_name"):
            code_of.setdefault(m.get("frame_id"), m)
    for r in raw.get("recompiles", []) or []:
        payload = r.get("payload")
        payload = [remap(p) for p in payload] if isinstance(payload, list) else remap(str(payload))
        fn: dict[str, Any] = {}
        m = code_of.get(r.get("frame_id"))
        if m is not None:
            fn = {
                "name": m["co_name"],
                "path": remap(str(m.get("co_filename") or "")),
                "line": m.get("co_firstlineno"),
            }
        events.append({"reasons": payload, "function": fn})
    hits = [{"message": remap(str(h.get("message", "")))} for h in raw.get("limit_hits", []) or []]
    recompiles = [
        describe_recompile(r, breaks) for r in group_recompiles(events, hits, root, tdirs)
    ]
    graphs = [g for g in raw.get("graphs", []) or [] if isinstance(g, dict)]
    first = [g for g in graphs if g.get("call", 0) == 0 and g.get("phase") == "inputs"]
    reached = {
        remap(p): frozenset(int(x) for x in ls) for p, ls in (raw.get("lines") or {}).items()
    }
    cov_raw = raw.get("coverage")
    covered = (
        {remap(p): frozenset(int(x) for x in ls) for p, ls in cov_raw.items()}
        if isinstance(cov_raw, dict)
        else None
    )
    error = raw.get("error")
    if isinstance(error, dict):
        error = json.loads(remap(json.dumps(error)))
        for f in [error.get("frame"), *(error.get("frames") or [])]:
            if isinstance(f, dict) and f.get("path"):
                f["path"] = relpath(str(f["path"]), root)
    failure = raw.get("compile_failure")
    if isinstance(failure, dict):
        failure = json.loads(remap(json.dumps(failure)))
        for f in [failure.get("frame"), *(failure.get("frames") or [])]:
            if isinstance(f, dict) and f.get("path"):
                f["path"] = relpath(str(f["path"]), root)
    else:
        failure = None
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
        "mode_source": raw.get("mode_source"),
        "inputs_moved": raw.get("inputs_moved"),
        "import_seconds": raw.get("import_seconds"),
        "phases": raw.get("phases") or [],
        "seconds": raw.get("seconds", 0.0),
        "error": error if isinstance(error, dict) else None,
        "compile_failure": failure,
    }
    return DynamicResult(
        block=block,
        breaks=tuple(breaks),
        recompiles=tuple(recompiles),
        reached=reached,
        root=root,
        raw=dict(raw),
        covered=covered,
    )


def describe_recompile(r: ObservedRecompile, breaks: list[ObservedBreak]) -> ObservedRecompile:
    """The recompile with its guard in the user's names and a sentence saying why."""
    path = r.path or r.code_path
    npath = os.path.realpath(path) if path else None
    lines = frozenset(
        int(b.line if b.line is not None else b.loc_line)
        for b in breaks
        if npath and os.path.realpath(b.path or b.loc_path or "") == npath
    )
    g = describe(r.guard, function=r.code_name, path=path, line=r.line, break_lines=lines)
    return dataclasses.replace(
        r,
        readable=g.text,
        explanation=g.explanation,
        every_call=g.every_call,
        invalidated=g.invalidated,
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


def _child_env(progress: bool, pythonpath: Sequence[str] = ()) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)  # set_logs/artifacts must not be overridden by the user's env
    env.pop("TORCH_TRACE", None)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (*pythonpath, pkg_parent, env.get("PYTHONPATH", "")) if p
    )
    env.setdefault("PYTHONUNBUFFERED", "1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # importing the model leaves no __pycache__ behind
    env["PYTHONFAULTHANDLER"] = "1"  # a crash prints the Python stack: we name the user's line
    if progress:
        env["COMPILELINT_PROGRESS"] = "1"
    else:
        env.pop("COMPILELINT_PROGRESS", None)
    return env


def default_memory_mb() -> int:
    """Three quarters of the machine's memory (or of the cgroup's limit, if lower), in MiB."""
    total = 0
    with contextlib.suppress(OSError, ValueError):
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for f in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        with contextlib.suppress(OSError, ValueError):
            with open(f, encoding="ascii") as fh:
                v = fh.read().strip()
            if v.isdigit() and (not total or 0 < int(v) < total):
                total = int(v)
    return max(total * 3 // 4 // (1 << 20), 1024) if total else 0


def _limit_memory(memory_mb: int | None) -> Any:
    """Cap the child's data segment (heap and private writable mappings): a model that
    allocates without end gets a MemoryError (or torch's "can't allocate memory") instead of
    the kernel's OOM killer. ``RLIMIT_DATA`` rather than ``RLIMIT_AS``: CUDA reserves large
    inaccessible address ranges that an address-space limit would refuse."""
    if not memory_mb or os.name != "posix":
        return None

    def preexec() -> None:  # pragma: no cover - runs in the child
        with contextlib.suppress(Exception):
            import resource

            limit = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))

    return preexec


def signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


_SIGNAL_WHY = {
    "SIGSEGV": "a segmentation fault: the model or a native extension accessed invalid memory",
    "SIGBUS": "a bus error in native code",
    "SIGABRT": "the process aborted (os.abort() or a failed native assertion)",
    "SIGKILL": "killed (out of memory? the kernel's OOM killer sends SIGKILL)",
    "SIGFPE": "a floating-point exception in native code",
    "SIGILL": "an illegal instruction in native code",
}


def kill_group(pgid: int) -> None:
    """SIGKILL every process of the child's process group (its session): the child and whatever
    it started. Processes that left the session themselves (setsid) are out of reach."""
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


class _OutputTail:
    """Reads the child's stderr in chunks; keeps a bounded tail (the model may write gigabytes
    or one endless line) and forwards progress lines."""

    LINES = 200
    LINE_CHARS = 2000
    PARTIAL_BYTES = 64 * 1024

    def __init__(self, stream: Any, progress: bool) -> None:
        self.stream = stream
        self.progress = progress
        self.tail: collections.deque[str] = collections.deque(maxlen=self.LINES)
        self.total_bytes = 0
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _line(self, raw: bytes) -> None:
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(PROGRESS_PREFIX):
            if self.progress:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
            return
        if len(line) > self.LINE_CHARS:
            line = line[: self.LINE_CHARS] + f"... ({len(line) - self.LINE_CHARS} more characters)"
        self.tail.append(line)

    def _pump(self) -> None:
        partial = b""
        with contextlib.suppress(OSError, ValueError):
            while True:
                chunk = self.stream.read1(65536)
                if not chunk:
                    break
                self.total_bytes += len(chunk)
                *lines, partial = (partial + chunk).split(b"\n")
                for ln in lines:
                    self._line(ln)
                if len(partial) > self.PARTIAL_BYTES:
                    self._line(partial[: self.LINE_CHARS * 2])
                    partial = b""
        if partial:
            self._line(partial)

    def last(self) -> str:
        return next((ln.strip() for ln in reversed(self.tail) if ln.strip()), "")

    def text(self, limit: int = 4000) -> str:
        out = "\n".join(self.tail)
        return out[-limit:]


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _wait_unreaped(proc: subprocess.Popen[bytes], timeout: float | None) -> bool:
    """Wait for the child to end but leave it a zombie, so its pid (the process group id)
    cannot be reused before the group is killed. False on a timeout."""
    if not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    deadline = None if timeout is None else time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


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
    cover: tuple[str, ...] | list[str] = (),
    pythonpath: Sequence[str] = (),
) -> DynamicResult:
    """Run the spec's model under torch.compile in a child process; errors come back as data.

    The child runs in its own session (process group): on a timeout, an interrupt, or when it
    ends, everything it started is killed with it. ``memory_mb`` caps its data segment
    (``None``: the spec's ``memory_mb``, else :func:`default_memory_mb`; ``0``: no cap).
    ``save_outputs``: a file for the run's initial weights, outputs and gradients;
    ``compare_outputs``: such a file from another run to compare with (``fix --verify``); the
    verdict is ``result.raw["comparison"]``. ``cover``: files and folders (the scanned paths)
    whose executed lines an extra eager pass records (``result.covered``). ``pythonpath``:
    folders to put first on the child's ``sys.path`` (a fixed copy of the project, see
    :mod:`compilelint.fix.copyspec`).
    """
    t0 = time.perf_counter()
    root = os.path.realpath(cwd)
    try:
        spec = load_spec(spec_path)
    except SpecError as exc:
        return DynamicResult(
            block=empty_block(_error("spec", str(exc), type="SpecError")), root=root
        )
    if python is None and not torch_available():
        return DynamicResult(
            block=empty_block(_error("import torch", INSTALL_HINT, type="ImportError")), root=root
        )
    if memory_mb is None:
        memory_mb = spec.memory_mb if spec.memory_mb is not None else default_memory_mb()
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
    for c in cover:
        cmd += ["--cover", os.path.abspath(c)]
    try:
        proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=_child_env(progress, pythonpath),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_limit_memory(memory_mb),
            start_new_session=True,
        )
    except OSError as exc:
        return DynamicResult(
            block=empty_block(
                _error("start", f"cannot start {cmd[0]}: {exc}"), time.perf_counter() - t0
            ),
            root=root,
        )

    stderr = proc.stderr
    assert stderr is not None  # stderr=PIPE
    output = _OutputTail(stderr, progress)
    timed_out = False
    try:
        timed_out = not _wait_unreaped(proc, timeout)
    finally:
        # The child, and anything it started that is still running (threads die with it;
        # processes would not), on every path: a timeout, Ctrl-C, a normal end.
        kill_group(proc.pid)
        proc.wait()
    output.thread.join(timeout=5)
    with contextlib.suppress(OSError):
        stderr.close()
    seconds = time.perf_counter() - t0
    raw: dict[str, Any] | None = None
    if os.path.exists(out_path) and not timed_out:
        try:
            with open(out_path, encoding="utf-8") as fh:
                raw = json.load(fh)
        except (OSError, ValueError):
            raw = None
    for leftover in (out_path, out_path + ".tmp"):
        with contextlib.suppress(OSError):
            os.unlink(leftover)
    if raw is None:
        rc = proc.returncode
        if timed_out:
            err = _error(
                "run",
                f"the model did not finish within {timeout:g} s (--timeout); the child process "
                "and everything it started were killed",
                type="Timeout",
            )
        elif rc is not None and rc < 0:
            name = signal_name(-rc)
            why = _SIGNAL_WHY.get(name, "")
            frame = crash_frame(list(output.tail), root)
            err = _error(
                "run",
                f"the child process was killed by signal {name}"
                + (f" ({why})" if why else "")
                + (f" in {frame['function']} ({frame['path']}:{frame['line']})" if frame else ""),
                type="Crash",
                signal=name,
            )
            err["frame"] = frame
        else:
            err = _error(
                "run",
                f"the child process exited with code {rc} before writing a result "
                "(the model called os._exit() or exited from native code?)",
                type="Exit",
                exit_code=rc,
            )
        err["output"] = output.text()
        err["output_bytes"] = output.total_bytes
        return DynamicResult(block=empty_block(err, seconds), root=root)
    error = raw.get("error")
    if isinstance(error, dict):
        error["message"] = _short(str(error.get("message", "")), 500)
        if memory_mb and _is_memory_error(error):
            error["message"] += (
                f" (memory limit {memory_mb} MiB: raise it with --memory-limit or the spec's"
                ' "memory_mb")'
            )
        error.setdefault("output", output.text())
        error.setdefault("output_bytes", output.total_bytes)
    result = build_result(raw, root)
    result.block["seconds"] = round(seconds, 3)
    result.block["memory_mb"] = memory_mb or None
    return result


def crash_frame(lines: list[str], root: str) -> dict[str, Any] | None:
    """The innermost frame under ``root`` of the stack faulthandler printed for a crash."""
    import re

    start = max(
        (i for i, ln in enumerate(lines) if ln.startswith("Fatal Python error")), default=-1
    )
    if start < 0:
        return None
    rx = re.compile(r'^\s*File "(?P<path>.+)", line (?P<line>\d+) in (?P<func>\S+)')
    for ln in lines[start:]:  # most recent call first
        m = rx.match(ln)
        if not m:
            continue
        path = os.path.realpath(m["path"])
        if path.startswith(root + os.sep) and "site-packages" not in path:
            func = user_function_name(m["func"])
            return {"path": relpath(path, root), "line": int(m["line"]), "function": func}
    return None


def _is_memory_error(error: dict[str, Any]) -> bool:
    msg = str(error.get("message", ""))
    return error.get("type") == "MemoryError" or "can't allocate memory" in msg
