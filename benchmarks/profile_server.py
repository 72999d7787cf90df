"""Where the editor server's edit spends its CPU, end to end, in one process.

    python benchmarks/profile_server.py [--model wav2vec2] [--edits 20] [--repeat 3]
                                        [--pattern spread|typing] [--cprofile N]
                                        [--sort tottime|cumulative] [--callers NAME]

Copies the installed transformers model folder to a temporary folder, opens its modeling file
with the server's analyser (``lsp.analyzer.Analyzer``, cold), then makes ``ab_server.py``'s edits
(``--pattern spread``: a ``.item()`` line inserted in a ``forward`` and taken out again, spread
through the file; ``typing``: four different lines at one place, then the next) ``--repeat``
times, and after each check turns the findings into the LSP ``publishDiagnostics`` message the
server writes (``server.diagnostic`` for each finding, pygls's converter, ``json.dumps``), as
``compilelint server`` does.

Everything runs on one thread with the engine's deep stack and recursion limit (the engine's
hand-off to its deep-stack thread is bypassed), so that the thread CPU clock and cProfile see the
whole edit. Prints the thread CPU per edit (median, p95, the inserts and reverts apart) and per
phase (exclusive: a phase nested in another is taken out of it, summed over the edits, then per
edit): the incremental parse (CPython's tree, libcst's), the walk (resumed or not; the checks' hooks in it,
apart with ``--hooks``, which turns the resumed walk off), positions, calls through objects, the project view, following, the findings phase
(reachability of candidates, suppressions, loop shadows), the spec-free recompiles, the LSP
conversion and JSON; ``--cprofile N``: the N functions with the largest own (or cumulative)
time over the edits, and ``--callers NAME``: who calls the functions whose name holds NAME.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import importlib
import importlib.util
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_server import _p95, _sites  # benchmarks/ is the script's folder
from profile_static import Timer
from profile_static import install as install_wrappers

PHASES = [
    "python tree",
    "libcst parse",
    "walk",
    "walk memo",
    "tail: exports",
    "tail: previous exports",
    "tail: record",
    "tail: take",
    "checks",
    "positions",
    "object calls",
    "project",
    "following",
    "findings",
    "loop shadows",
    "frame inputs",
    "recompiles",
    "discover, read",
    "suppressions",
    "lsp",
    "gc",
    "other",
]

# (module, attribute path, phase): functions timed (exclusive thread CPU). Missing ones are
# listed, not fatal, so the script runs on older versions of the engine.
TARGETS: list[tuple[str, str, str]] = [
    ("compilelint.static.incremental", "IncrementalParser.python_tree", "python tree"),
    ("compilelint.static.incremental", "IncrementalParser.parse", "libcst parse"),
    ("compilelint.static.analysis.walker", "FileWalker.walk_module", "walk"),
    ("compilelint.static.analysis.walker", "FileWalker.walk_top", "walk"),
    ("compilelint.static.analysis.resume", "WalkMemo.load", "walk memo"),
    ("compilelint.static.analysis.resume", "WalkMemo.dump", "walk memo"),
    # the statements after the edit (``analysis.tail``): the exports' digest after the edited
    # statements, the previous version's walked again from the memo, the record a walk of the
    # tail leaves (marks, the final tables' pickle), and taking the tail from it
    ("compilelint.static.analysis.tail", "digest", "tail: exports"),
    ("compilelint.static.analysis.tail", "region_ids", "tail: exports"),
    ("compilelint.static.analysis.walker", "_old_exports", "tail: previous exports"),
    ("compilelint.static.analysis.tail", "marks", "tail: record"),
    ("compilelint.static.analysis.tail", "dump_final", "tail: record"),
    ("compilelint.static.analysis.tail", "take_tail", "tail: take"),
    ("compilelint.static.analysis.tail", "apply_tail", "tail: take"),
    ("compilelint.static.positions", "spans", "positions"),
    ("compilelint.static.positions", "spans_in_statements", "positions"),
    ("compilelint.static.engine", "add_object_calls", "object calls"),
    ("compilelint.static.engine", "_Scan.compute_project", "project"),
    ("compilelint.static.engine", "_Scan.follow_libraries", "following"),
    ("compilelint.static.engine", "_Scan.findings", "findings"),
    ("compilelint.static.engine", "_Scan._spec_free_recompiles", "recompiles"),
    ("compilelint.static.engine", "_Scan._loop_shadowed", "loop shadows"),
    ("compilelint.static.engine", "_Scan._frame_inputs", "frame inputs"),
    ("compilelint.static.engine", "_Scan.discover", "discover, read"),
    ("compilelint.static.engine", "_Scan.read", "discover, read"),
    ("compilelint.static.engine", "parse_suppressions", "suppressions"),
]


def install(timer: Timer, hooks: bool = False) -> list[str]:
    """profile_static's wrappers over this script's targets, and the cyclic collector's
    passes on the profiled thread as a phase of their own."""

    def collecting(phase: str, info: dict[str, int]) -> None:
        if threading.current_thread().name != "profile-server":
            return
        if phase == "start":
            timer.enter("gc")
        elif timer.stack and timer.stack[-1][0] == "gc":
            timer.leave()

    gc.callbacks.append(collecting)
    # the checks' hooks apart from the walk (``hooks``): wrapped hooks cannot be pickled, which
    # turns the resumed walk off (``analysis.resume``), and the wrappers cost more than many hooks
    return install_wrappers(timer, TARGETS, hooks)


def _on_this_thread() -> None:
    """The engine's analyses on the calling thread (which has the deep stack), not handed to
    its deep-stack thread, so that the thread clock and cProfile see them."""
    from compilelint.static import engine

    engine._deep_thread = lambda: None  # type: ignore[attr-defined]


def _publish_json(findings: list[Any], uri: str, version: int) -> bytes:
    """The bytes ``compilelint server`` writes for these findings: the diagnostics, pygls's
    converter, the JSON-RPC notification."""
    from lsprotocol import types
    from pygls.protocol import default_converter

    from compilelint.lsp.server import diagnostic

    params = types.PublishDiagnosticsParams(
        uri=uri, version=version, diagnostics=[diagnostic(f) for f in findings]
    )
    conv = _converter(default_converter)
    body = {
        "jsonrpc": "2.0",
        "method": types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
        "params": conv.unstructure(params),
    }
    data = json.dumps(body, separators=(",", ":")).encode("utf-8")
    return f"Content-Length: {len(data)}\r\n\r\n".encode("ascii") + data


@functools.cache
def _converter(make: Callable[[], Any]) -> Any:
    return make()


def run(args: argparse.Namespace, out: dict[str, Any]) -> None:
    from compilelint.lsp.analyzer import Analyzer

    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        sys.exit("profile_server: needs transformers installed")
    tmp = Path(tempfile.mkdtemp(prefix="profile-server-"))
    try:
        work = tmp / args.model
        shutil.copytree(
            Path(spec.origin).parent / "models" / args.model,
            work,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        target = work / f"modeling_{args.model}.py"
        text = target.read_text(encoding="utf-8")
        lines = text.split("\n")
        sites = _sites(lines)
        _on_this_thread()
        an = Analyzer()
        c = time.thread_time()
        got = an.check(str(target), text)
        _publish_json(got.findings, target.as_uri(), 1)
        out["cold"] = time.thread_time() - c
        timer = Timer(PHASES, time.thread_time)
        out["missing"] = install(timer, args.hooks)
        prof = cProfile.Profile() if args.cprofile or args.callers or args.callees else None
        per: list[float] = []
        pairs = max((args.edits + 1) // 2, 1)
        for _r in range(args.repeat):
            for e in range(args.edits):
                new = list(lines)
                if args.pattern == "typing":
                    groups = max(args.edits // 4, 1)
                    k, indent = sites[min((e // 4) * len(sites) // groups, len(sites) - 1)]
                    new.insert(k, f"{indent}_probe = torch.zeros({e % 4 + 1}).item()")
                else:
                    k, indent = sites[min((e // 2) * len(sites) // pairs, len(sites) - 1)]
                    if e % 2 == 0:
                        new.insert(k, f"{indent}_probe = torch.zeros(1).item()")
                body = "\n".join(new)
                if prof is not None:
                    prof.enable()
                c = time.thread_time()
                timer.enter("other")
                got = an.check(str(target), body)
                with timer.phase("lsp"):
                    _publish_json(got.findings, target.as_uri(), e + 2)
                timer.leave()
                per.append(time.thread_time() - c)
                if prof is not None:
                    prof.disable()
        out["per"] = per
        out["timer"] = timer
        out["prof"] = prof
        out["lines"] = len(lines)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="wav2vec2")
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pattern", choices=("spread", "typing"), default="spread")
    ap.add_argument("--cprofile", type=int, default=0)
    ap.add_argument("--sort", choices=("tottime", "cumulative"), default="tottime")
    ap.add_argument(
        "--hooks",
        action="store_true",
        help="time the checks' hooks apart from the walk (turns the resumed walk off)",
    )
    ap.add_argument("--callers", default="", help="print the callers of functions named so")
    ap.add_argument("--callees", default="", help="print the callees of functions named so")
    args = ap.parse_args()

    from compilelint.static import engine

    out: dict[str, Any] = {}
    old = threading.stack_size(engine.DEEP_STACK)
    try:

        def target() -> None:
            sys.setrecursionlimit(max(sys.getrecursionlimit(), engine.DEEP_RECURSION))
            run(args, out)

        th = threading.Thread(target=target, name="profile-server")
        th.start()
        th.join()
    finally:
        threading.stack_size(old)
    if "per" not in out:
        sys.exit("profile_server: the run failed")
    per: list[float] = out["per"]
    timer: Timer = out["timer"]
    n = len(per)
    print(
        f"profile of: transformers {args.model} ({out['lines']} lines), {n} edits "
        f"({args.pattern}); python {sys.version.split()[0]}; load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(
        f"thread CPU per edit: median {statistics.median(per) * 1000:.1f} ms, p95 "
        f"{_p95(per) * 1000:.1f} ms, mean {statistics.fmean(per) * 1000:.1f} ms; cold open "
        f"{out['cold'] * 1000:.0f} ms"
    )
    if args.pattern == "spread":
        ins, rev = per[0::2], per[1::2]
        print(
            f"  inserts median {statistics.median(ins) * 1000:.1f} ms, reverts median "
            f"{statistics.median(rev) * 1000:.1f} ms"
        )
    total = sum(timer.total.values())
    print(f"{'phase (exclusive)':18} {'ms/edit':>8} {'share':>7} {'calls':>7}")
    for p in PHASES:
        v = timer.total[p]
        print(f"{p:18} {v / n * 1000:8.2f} {v / total:7.1%} {timer.calls[p]:7d}")
    print(f"{'total':18} {total / n * 1000:8.2f}")
    if out["missing"]:
        print("not found (not timed): " + ", ".join(out["missing"]))
    prof = out["prof"]
    if prof is not None:
        s = io.StringIO()
        st = pstats.Stats(prof, stream=s)
        print(f"python calls per edit: {st.total_calls / n:.0f}")  # type: ignore[attr-defined]
        if args.cprofile:
            st.sort_stats(args.sort).print_stats(args.cprofile)
        if args.callers:
            st.print_callers(args.callers)
        if args.callees:
            st.print_callees(args.callees)
        print(s.getvalue())


if __name__ == "__main__":
    main()
