"""``compilelint bench``: statistics, time attribution, rendering, the CLI's errors, and a CPU
smoke run of the real thing on tiny shapes (structure and counts only, never timings)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from compilelint.bench import stats
from compilelint.bench.api import (
    BenchError,
    BenchOptions,
    attribute_time,
    break_keys_by_compile,
    compare_runs,
    comparison_summary,
    exit_code,
    parse_modes,
    validate_options,
)
from compilelint.dynamic.registry import load_registry
from compilelint.report.bench_html import render_bench_section
from compilelint.report.bench_text import bar, render

from .cli_invoke import invoke

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "benchmarks" / "bench_results_h100_torch2.11.json"
DEMO = "fixtures/demo/transformer.py"


# --------------------------------------------------------------------------- statistics


def test_summary_quartiles_match_numpy_linear_method() -> None:
    s = stats.summarize([4.0, 1.0, 3.0, 2.0, 10.0])
    assert (s["n"], s["median_ms"], s["p25_ms"], s["p75_ms"]) == (5, 3.0, 2.0, 4.0)
    assert (s["iqr_ms"], s["min_ms"], s["max_ms"]) == (2.0, 1.0, 10.0)
    assert stats.summarize([])["median_ms"] is None


def test_speedup_is_not_significant_when_spreads_overlap() -> None:
    eager = stats.summarize([10.0, 10.5, 11.0, 11.5, 12.0])
    fast = stats.summarize([5.0, 5.1, 5.2, 5.3, 5.4])
    overlapping = stats.summarize([9.0, 10.0, 11.0, 12.0, 13.0])
    assert stats.speedup(eager, fast) == {
        "speedup": 2.115,
        "significant": True,
        "verdict": "faster",
    }
    sp = stats.speedup(eager, overlapping)
    assert sp["verdict"] == "not significant" and not sp["significant"]
    assert stats.speedup(fast, eager)["verdict"] == "slower"
    assert stats.speedup(eager, stats.summarize([]))["speedup"] is None


# --------------------------------------------------------------------------- attribution

BREAK_MSG = """Graph break in user code at {path}:{line}
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching.
User code traceback:
  File "{path}", line {line}, in forward
"""


def test_gaps_are_charged_to_the_break_that_ended_the_graph_before() -> None:
    path = str(ROOT / DEMO)
    raw_breaks = [
        {"message": BREAK_MSG.format(path=path, line=41), "frame_id": 2, "frame_compile_id": 0},
        {"message": BREAK_MSG.format(path=path, line=41), "frame_id": 2, "frame_compile_id": 1},
    ]
    by_compile = break_keys_by_compile(raw_breaks, load_registry())
    key = ("Data-dependent branching", path, 41)
    assert by_compile == {(2, 0): key, (2, 1): key}
    graphs = [
        {"id": 0, "frame_id": 2, "frame_compile_id": 0},
        {"id": 1, "frame_id": 3, "frame_compile_id": 0},
        {"id": 2, "frame_id": 2, "frame_compile_id": 1},
    ]
    steps = [
        [
            ["head", -1, 0.5],
            ["graph", 0, 2.0],
            ["gap", 0, 1.0],  # after graph 0: the break at line 41
            ["graph", 1, 3.0],
            ["gap", 1, 0.25],  # frame 3 ended without a break
            ["graph", 2, 2.0],
            ["tail", 2, 0.75],  # the break at line 41 again, up to the step end
        ],
        [
            ["head", -1, 0.5],
            ["graph", 0, 2.0],
            ["gap", 0, 1.5],
            ["graph", 1, 3.0],
            ["tail", 1, 0.5],
        ],
    ]
    ts = attribute_time(steps, graphs, by_compile, {key: 0})
    assert ts is not None
    parts = {(p["kind"], p["break"]): p for p in ts["parts"]}
    assert parts[("break", 0)]["ms_per_step"] == 1.625  # median of 1.75 and 1.5
    assert parts[("break", 0)]["per_step"] == 2  # 2 and 1 occurrences: median 1.5 -> 2
    assert parts[("between-frames", None)]["ms_per_step"] == 0.125  # 0.25 and 0 (absent)
    assert parts[("after-last-graph", None)]["ms_per_step"] == 0.25  # 0 (a break's) and 0.5
    assert ts["in_graphs_ms"] == 6.0 and ts["graph_calls_per_step"] == 2
    assert ts["step_ms"] == pytest.approx(stats.median([9.5, 7.5]))
    train = attribute_time(steps, graphs, by_compile, {key: 0}, train=True)
    assert train is not None
    assert {p["kind"] for p in train["parts"]} >= {"backward"}
    assert attribute_time([], graphs, by_compile, {}) is None


def test_marks_split_a_step_into_graphs_and_gaps() -> None:
    from compilelint.bench.runner import Marks

    m = Marks(torch=None, cuda=False)
    m.items = [
        ("step", -1, 0.000),
        ("start", 0, 0.001),
        ("end", 0, 0.003),
        ("start", 1, 0.004),
        ("end", 1, 0.006),
        ("stepend", -1, 0.010),
    ]
    kinds = [(k, g, round(ms, 6)) for k, g, ms in m.segments()]
    assert kinds == [
        ("head", -1, 1.0),
        ("graph", 0, 2.0),
        ("gap", 0, 1.0),
        ("graph", 1, 2.0),
        ("tail", 1, 4.0),
    ]


def _mode(mode: str, speedup: float, ms: float, breaks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "mode": mode,
        "status": "ok",
        "speedup": speedup,
        "significant": True,
        "step": stats.summarize([ms * 0.99, ms, ms * 1.01]),
        "breaks": breaks,
        "break_count": len(breaks),
    }


def test_comparison_names_the_fixed_lines() -> None:
    b40 = {"path": DEMO, "line": 40, "gb_type": "item", "function": "forward"}
    b41 = {"path": DEMO, "line": 41, "gb_type": "branch", "function": "forward"}
    base = {"modes": [_mode("default", 0.77, 13.0, [b40, b41])]}
    fixed = {"modes": [_mode("default", 1.97, 5.0, [])]}
    comp = compare_runs(base, fixed)
    assert comp[0]["fixed_break_lines"] == [f"{DEMO}:40", f"{DEMO}:41"]
    assert comp[0]["verdict"] == "faster"
    assert comparison_summary("compare", comp) == (
        f"fixing these 2 lines ({DEMO}:40, {DEMO}:41): default 0.77x -> 1.97x"
    )


# --------------------------------------------------------------------------- options


def test_bad_options_are_one_line_errors() -> None:
    assert parse_modes("default, reduce-overhead") == ("default", "reduce-overhead")
    with pytest.raises(BenchError, match="unknown mode 'fast'"):
        parse_modes("default,fast")
    with pytest.raises(BenchError, match="listed twice"):
        parse_modes("default,default")
    with pytest.raises(BenchError, match="--steps"):
        validate_options(BenchOptions(steps=0))
    with pytest.raises(BenchError, match="inductor backend"):
        validate_options(BenchOptions(backend="eager", modes=("max-autotune",)))
    with pytest.raises(BenchError, match="--dtype"):
        validate_options(BenchOptions(dtype="float8"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--input-spec is required"),
        (["--input-spec", "missing.json"], "no such spec file: missing.json"),
        (["nope.py", "--input-spec", "fixtures/demo/spec.json"], "no such file or folder: nope.py"),
        (["--input-spec", "fixtures/demo/spec.json", "--modes", "turbo"], "unknown mode 'turbo'"),
        (
            ["--input-spec", "fixtures/demo/spec.json", "--steps", "0"],
            "--steps: expected at least 1",
        ),
        (["--input-spec", "fixtures/demo/spec.json", "--timeout", "0"], "--timeout"),
        (
            ["--input-spec", "fixtures/demo/spec.json", "--compare", "missing.json"],
            "no such spec file: missing.json",
        ),
    ],
)
def test_cli_usage_errors(args: list[str], message: str) -> None:
    code, out, err = invoke(["bench", *args])
    assert code == 2 and out == ""
    assert err.startswith("compilelint: error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_cli_bad_spec_names_the_json_path(tmp_path: Path) -> None:
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps({"model": "m.py:M", "inputs": [{"tensor": [2], "dtype": "flaot32"}]})
    )
    code, _, err = invoke(["bench", "--input-spec", str(spec)])
    assert code == 2
    assert 'inputs[0].dtype: unknown dtype "flaot32"' in err and "compilelint: error:" in err


def test_exit_codes() -> None:
    ok = {"runs": [{"error": None, "modes": [{"status": "ok"}]}]}
    assert exit_code(ok) == 0
    assert exit_code({"runs": [{"error": None, "modes": [{"status": "error"}]}]}) == 1
    assert exit_code({"runs": [{"error": {"step": "init"}, "modes": []}]}) == 2
    assert exit_code({"runs": []}) == 2


# --------------------------------------------------------------------------- rendering


def test_recorded_h100_results_render() -> None:
    data = json.loads(RECORDED.read_text(encoding="utf-8"))
    demo = data["results"]["demo"]
    assert demo["environment"]["gpu"].startswith("NVIDIA H100")
    assert demo["environment"]["torch"].startswith("2.11")
    text = render(demo)
    assert (
        "fixing these 2 lines (fixtures/demo/transformer.py:40, fixtures/demo/transformer.py:41)"
        in text
    )
    assert "the break at fixtures/demo/transformer.py:41 costs about" in text
    html = render_bench_section(demo)
    assert html.startswith('<section class="cl-bench">') and html.endswith("</section>")
    assert "transformer.py:40" in html
    for name in ("cnn", "gnn"):
        assert data["results"][name]["comparison"][0]["summary"].startswith("fixing ")


def test_html_section_escapes_and_loads_nothing() -> None:
    data = json.loads(RECORDED.read_text(encoding="utf-8"))["results"]["demo"]
    data = json.loads(json.dumps(data))
    data["runs"][0]["model"] = '<script>alert("x")</script>'
    data["runs"][0]["modes"][0]["breaks"][0]["gb_type"] = "<b>&"
    for p in data["runs"][0]["modes"][0]["time"]["parts"]:
        p["gb_type"] = "<iframe onload=x>"
    html = render_bench_section(data)
    assert "<script>" not in html and "<iframe" not in html
    assert "&lt;script&gt;" in html and "&lt;iframe onload=x&gt;" in html
    for external in ("http://", "https://", "src=", "href=", "url(", "@import"):
        assert external not in html


def test_bars() -> None:
    assert bar(1.0, 1.0, 8) == "█" * 8
    assert bar(0.5, 1.0, 8) == "████"
    assert bar(0.0, 1.0) == "" and bar(1.0, 0.0) == ""
    assert len(bar(2.0, 1.0, 8)) == 8


# --------------------------------------------------------------------------- live, CPU


@pytest.mark.torch
def test_cpu_smoke_demo_vs_fixed(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "bench.json"
    code, _, err = invoke(
        [
            "bench",
            DEMO,
            "--input-spec",
            "fixtures/demo/spec.json",
            "--compare",
            "fixtures/bench/transformer_fixed.json",
            "--device",
            "cpu",
            "--backend",
            "aot_eager",
            "--steps",
            "3",
            "--warmup",
            "1",
            "--attribution-steps",
            "2",
            "--format",
            "json",
            "-o",
            str(out),
        ]
    )
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert list(data) == [
        "bench_version",
        "version",
        "command",
        "settings",
        "environment",
        "runs",
        "comparison",
        "fix",
        "warnings",
        "seconds",
    ]
    assert data["command"].startswith(
        f"compilelint bench {DEMO} --input-spec fixtures/demo/spec.json"
    )
    assert data["fix"] is None
    base, fixed = data["runs"]
    assert base["device"] == "cpu" and base["same_weights_and_inputs"] is True
    assert base["eager"]["step"]["n"] == 3
    [mode] = base["modes"]
    assert mode["mode"] == "default" and mode["status"] == "ok"
    assert mode["step"]["n"] == 3 and mode["back_to_back"]["n"] == 3
    assert mode["output"]["max_abs_diff"] < 1e-4
    lines = {(b["path"], b["line"]): b for b in mode["breaks"]}
    assert set(lines) == {(DEMO, 40), (DEMO, 41)}
    assert lines[(DEMO, 40)]["rules"] == ["CL103"] and lines[(DEMO, 41)]["rules"] == ["CL101"]
    ts = mode["time"]
    assert ts["steps"] == 2 and ts["graph_calls_per_step"] == 24  # 8 blocks x 3 graphs
    charged = {(p["path"], p["line"]): p["per_step"] for p in ts["parts"] if p["kind"] == "break"}
    assert charged == {(DEMO, 40): 8, (DEMO, 41): 8}
    assert 0 < ts["in_graphs_share"] <= 1
    assert fixed["modes"][0]["break_count"] == 0 and fixed["modes"][0]["graphs"] == 1
    assert fixed["output_vs_baseline"]["max_abs_diff"] < 1e-5  # the fix keeps the function
    [comp] = data["comparison"]
    assert comp["modes"][0]["fixed_break_lines"] == [f"{DEMO}:40", f"{DEMO}:41"]
    assert comp["summary"].startswith(f"fixing these 2 lines ({DEMO}:40, {DEMO}:41): default ")


@pytest.mark.torch
def test_cpu_smoke_gnn_text() -> None:
    pytest.importorskip("torch")
    code, out, err = invoke(
        [
            "bench",
            "--input-spec",
            "fixtures/bench/gnn.json",
            "--device",
            "cpu",
            "--backend",
            "aot_eager",
            "--steps",
            "2",
            "--warmup",
            "0",
            "--attribution-steps",
            "1",
            "--no-color",
        ]
    )
    assert code == 0, err
    assert "model: fixtures/bench/gnn.py:GNN" in out
    # 2 layers: the bincount break once per layer; the node count and the mask once each
    assert "the break at fixtures/bench/gnn.py:27 costs about" in out and "(2x per step)" in out
    assert "fixtures/bench/gnn.py:41 (CL102)" in out and "fixtures/bench/gnn.py:43 (CL111)" in out


@pytest.mark.torch
def test_failures_are_reported_not_raised(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    code, _, err = invoke(
        ["bench", "--input-spec", "fixtures/dynamic/errors/RaisesInInit.json", "--steps", "1"]
    )
    assert code == 2
    assert "compilelint: error: model eager failed at init: ValueError: bad config" in err
    strict = tmp_path / "strict.json"
    spec = json.loads((ROOT / "fixtures/demo/spec.json").read_text(encoding="utf-8"))
    spec["model"] = str(ROOT / DEMO) + ":BlockStack"
    spec["compile"]["fullgraph"] = True
    strict.write_text(json.dumps(spec), encoding="utf-8")
    out = tmp_path / "r.json"
    args = ["bench", "--input-spec", str(strict), "--backend", "eager", "--steps", "1"]
    code, _, err = invoke([*args, "--warmup", "0", "--format", "json", "-o", str(out)])
    assert code == 1  # eager measured, the fullgraph compile failed
    data = json.loads(out.read_text(encoding="utf-8"))
    [mode] = data["runs"][0]["modes"]
    assert mode["status"] == "error" and mode["error"]["step"] == "compile and first call"
    assert "default failed at compile and first call" in err


@pytest.mark.torch
@pytest.mark.skipif(
    not (shutil.which("g++") or shutil.which("c++")), reason="inductor on CPU needs a C++ compiler"
)
def test_cpu_smoke_inductor(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "r.json"
    code, _, err = invoke(
        [
            "bench",
            "--input-spec",
            "fixtures/bench/transformer_fixed.json",
            "--device",
            "cpu",
            "--steps",
            "2",
            "--warmup",
            "0",
            "--attribution-steps",
            "1",
            "--format",
            "json",
            "-o",
            str(out),
        ]
    )
    assert code == 0, err
    [mode] = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["modes"]
    assert mode["graphs"] == 1 and mode["break_count"] == 0 and mode["compile_s"] > 0
    assert mode["output"]["max_abs_diff"] < 1e-3


@pytest.mark.torch
def test_cpu_smoke_fix_benches_a_verified_copy(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    before = (ROOT / DEMO).read_bytes()
    out = tmp_path / "fix.json"
    code, _, err = invoke(
        [
            "bench",
            DEMO,
            "--input-spec",
            "fixtures/demo/spec.json",
            "--fix",
            "--device",
            "cpu",
            "--backend",
            "aot_eager",
            "--steps",
            "2",
            "--warmup",
            "0",
            "--attribution-steps",
            "1",
            "--format",
            "json",
            "-o",
            str(out),
        ]
    )
    assert code == 0, err
    assert (ROOT / DEMO).read_bytes() == before  # only the temporary copy is fixed
    data = json.loads(out.read_text(encoding="utf-8"))
    fixed = {(a["rule"], a["path"], a["line"]) for a in data["fix"]["applied"]}
    assert fixed == {("CL103", DEMO, 40), ("CL101", DEMO, 41)} and data["fix"]["verified"]
    base, copy = data["runs"]
    assert copy["label"] == "fixed" and copy["modes"][0]["break_count"] == 0
    assert copy["output_vs_baseline"]["max_abs_diff"] < 1e-5
    assert data["comparison"][0]["summary"].startswith(
        f"fixing these 2 lines ({DEMO}:40, {DEMO}:41)"
    )


def test_bench_fixtures_carry_their_static_findings() -> None:
    """The bench models' inline `# error:` markers are exactly what the static stage finds
    (and the fixed copies have none)."""
    from compilelint.api import check
    from compilelint.config import Config

    from .conftest import expected_markers

    folder = ROOT / "fixtures" / "bench"
    want = sorted(
        (py.relative_to(ROOT).as_posix(), line, code)
        for py in folder.glob("*.py")
        for line, code in expected_markers(py.read_text(encoding="utf-8"))
    )
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        report = check(["fixtures/bench"], Config(cache=False))
    finally:
        os.chdir(old)
    assert sorted((f.path, f.line, f.rule) for f in report.findings) == want
    assert not [w for w in want if "_fixed" in w[0]]


def test_cpulist_parsing_and_gpu_local_cores(tmp_path: Path) -> None:
    """Bench children pin themselves to the GPU's NUMA-local cores, read from sysfs."""
    from compilelint.bench.runner import _cpulist, gpu_local_cpus, parse_cpulist

    assert parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert parse_cpulist("") == set()
    dev = tmp_path / "0000:1b:00.0"
    dev.mkdir()
    (dev / "local_cpulist").write_text("0-15,32-47\n")
    cpus = gpu_local_cpus("00000000:1B:00.0", str(tmp_path))
    assert cpus == set(range(16)) | set(range(32, 48))
    assert gpu_local_cpus("00000000:AA:00.0", str(tmp_path)) == set()
    assert _cpulist(sorted(cpus)) == "0-15,32-47"
    assert _cpulist([3]) == "3"


def test_a_mode_that_fails_with_the_config_remedy_is_measured_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """H100, torch 2.11: a fixed copy verified with `capture_scalar_outputs` failed at warm-up
    under reduce-overhead (an AssertionError in the model's forward); the mode is then measured
    with the copy's source fixes alone, and a warning says so."""
    from compilelint.bench import api

    (tmp_path / "m.py").write_text("import torch\nclass M(torch.nn.Module):\n    pass\n")
    with_cfg = tmp_path / "with.json"
    with_cfg.write_text(
        json.dumps(
            {
                "model": "m.py:M",
                "inputs": [{"tensor": [2]}],
                "config": {"capture_scalar_outputs": True},
            }
        )
    )
    calls: list[tuple[str, str]] = []

    def fake_child(ctx, spec, mode, extra, label, root, pythonpath=()):  # type: ignore[no-untyped-def]
        calls.append((os.path.basename(spec), mode))
        if mode == "reduce-overhead" and spec == str(with_cfg):
            return {"error": {"step": "warm-up", "type": "AssertionError", "message": "m.py:3"}}
        return {"device": "cpu", "step_ms": [1.0, 1.1, 0.9], "checksums": {}}

    monkeypatch.setattr(api, "_child", fake_child)
    cfg = type("C", (), {"settings": {"capture_scalar_outputs": True}, "compile": {}})()
    plain = api._spec_without_config(str(with_cfg), [cfg])
    assert "capture_scalar_outputs" not in json.loads(Path(plain).read_text())["config"]
    target = api.Target(
        "fixed",
        str(with_cfg),
        root=str(tmp_path),
        without_config=plain,
        config_names=("capture_scalar_outputs",),
    )
    opts = api.BenchOptions(modes=("default", "reduce-overhead"))
    ctx = api._Ctx(root=str(tmp_path), opts=opts, tmp=str(tmp_path), registry=load_registry())
    run, _, _ = api._run_target(ctx, target, None, 0)
    assert [m["error"] for m in run["modes"]] == [None, None]
    assert (os.path.basename(plain), "reduce-overhead") in calls
    assert [m["config"] for m in run["modes"]] == [["capture_scalar_outputs"], []]
    assert any(
        "reduce-overhead failed with the torch config capture_scalar_outputs" in w
        for w in ctx.warnings
    )


def test_a_mode_faster_without_the_config_remedy_is_measured_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """H100, torch 2.11, bf16: a fixed copy with `capture_dynamic_output_shape_ops` and
    `dynamic=True` had no break but ran reduce-overhead slower than with its source fixes
    alone; each mode is measured both ways and keeps the faster, saying which."""
    from compilelint.bench import api

    (tmp_path / "m.py").write_text("import torch\nclass M(torch.nn.Module):\n    pass\n")
    with_cfg = tmp_path / "with.json"
    with_cfg.write_text(
        json.dumps(
            {
                "model": "m.py:M",
                "inputs": [{"tensor": [2]}],
                "config": {"capture_dynamic_output_shape_ops": True},
            }
        )
    )
    plain = api._spec_without_config(
        str(with_cfg),
        [type("C", (), {"settings": {"capture_dynamic_output_shape_ops": True}, "compile": {}})()],
    )
    times = {("with.json", "default"): 1.0, ("with.json", "reduce-overhead"): 3.0}

    def fake_child(ctx, spec, mode, extra, label, root, pythonpath=()):  # type: ignore[no-untyped-def]
        t = times.get((os.path.basename(spec), mode), 2.0)
        return {"device": "cpu", "step_ms": [t, t, t], "checksums": {}}

    monkeypatch.setattr(api, "_child", fake_child)
    target = api.Target(
        "fixed",
        str(with_cfg),
        root=str(tmp_path),
        without_config=plain,
        config_names=("capture_dynamic_output_shape_ops",),
    )
    opts = api.BenchOptions(modes=("default", "reduce-overhead"), eager_runs=1)
    ctx = api._Ctx(root=str(tmp_path), opts=opts, tmp=str(tmp_path), registry=load_registry())
    run, _, _ = api._run_target(ctx, target, None, 0)
    default, ro = run["modes"]
    assert default["config"] == ["capture_dynamic_output_shape_ops"]
    assert default["step"]["median_ms"] == 1.0
    assert default["other_config"] == {"config": [], "step_median_ms": 2.0}
    assert ro["config"] == [] and ro["step"]["median_ms"] == 2.0
    assert ro["other_config"]["step_median_ms"] == 3.0
    assert any("reduce-overhead is faster without the torch config" in w for w in ctx.warnings)


def test_cli_text_to_a_terminal_renders_in_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text to a terminal is coloured and as wide as the terminal (click 8.1 removed
    ``click.get_terminal_size``, which this path called: every run to a terminal raised)."""
    import io
    import sys
    import types

    from click.testing import CliRunner

    from compilelint.bench import cli as bench_cli
    from compilelint.cli import main

    demo = json.loads(RECORDED.read_text(encoding="utf-8"))["results"]["demo"]
    monkeypatch.setattr(bench_cli, "run_bench", lambda *a, **k: demo)
    monkeypatch.setattr(bench_cli, "_annotate", lambda result, paths: None)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((150, 40)))

    class _Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    # the command asks its module's ``sys`` whether stdout is a terminal; it writes through
    # click.echo, which the runner captures (keeping the colour codes with ``color=True``)
    monkeypatch.setattr(
        bench_cli, "sys", types.SimpleNamespace(stdout=_Tty(), stderr=_Tty(), exit=sys.exit)
    )
    monkeypatch.delenv("NO_COLOR", raising=False)
    res = CliRunner().invoke(main, ["bench", "--input-spec", "fixtures/demo/spec.json"], color=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 0 and res.stderr == ""
    out = res.stdout
    assert "\x1b[" in out  # coloured
    assert "costs about" in out
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", ln) for ln in out.splitlines()]
    assert 120 < max(len(ln) for ln in plain) <= 150  # the terminal's width, not the default
