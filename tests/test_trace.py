"""``check --trace``: torch structured traces of real runs (committed, trimmed fixtures recorded by
``torchrun --nproc-per-node 2`` on the CPU with gloo, and on GPUs with NCCL), joined with the
static findings; rank divergence (CL005); path mapping; the reader's limits."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compilelint.trace.api import read_traces
from compilelint.trace.paths import PathMapper, TraceRootError, parse_roots
from compilelint.trace.reader import PAYLOAD_CAP, RankTrace, TraceError, read_file

from .cli_invoke import invoke

ROOT = Path(__file__).resolve().parent.parent
TR = "fixtures/trace"
MODEL = f"{TR}/model/ddp_model.py"


def run_json(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code, out, err = invoke(["check", *args, "--format", "json", "--no-cache"])
    assert code in (0, 1), err
    return code, json.loads(out)


def rows(data: dict) -> list[tuple[str, int, str]]:  # type: ignore[type-arg]
    return sorted((f["rule"], f["line"], f["stage"]) for f in data["findings"])


def check_ddp_model(data: dict, torch_prefix: str) -> None:  # type: ignore[type-arg]
    """What the DDP model (fixtures/trace/model/ddp_model.py) must show on 2 ranks."""
    dyn = data["dynamic"]
    assert dyn["source"] == "trace" and dyn["torch"].startswith(torch_prefix)
    assert set(dyn["ranks"]) == {"0", "1"}
    got = rows(data)
    # .item() on every rank (predicted and observed), print on rank 1 only
    assert ("CL103", 23, "both") in got
    assert ("CL201", 25, "both") in got
    # the rank-dependent scale recompiles rank 1 only
    assert ("CL003", 26, "dynamic") in got
    # the two divergences, at the user's lines
    assert ("CL005", 25, "dynamic") in got and ("CL005", 26, "dynamic") in got
    breaks = {(b["path"], b["line"]): b for b in dyn["breaks"]}
    assert breaks[(MODEL, 23)]["ranks"] == {"0": 1, "1": 1}
    assert breaks[(MODEL, 25)]["ranks"] == {"0": 0, "1": 1}
    assert breaks[(MODEL, 23)]["compile_seconds"] > 0
    (rec,) = [r for r in dyn["recompiles"] if r["line"] == 26]
    assert rec["ranks"] == {"0": 0, "1": 1} and rec["guard"].startswith("scale == ")
    assert dyn["ranks"]["1"]["recompiles"] == 1 and dyn["ranks"]["0"]["recompiles"] == 0
    assert dyn["ranks"]["1"]["graphs"] > dyn["ranks"]["0"]["graphs"]
    kinds = {(d["kind"], d["line"]) for d in dyn["divergence"]}
    assert {("graph_break", 25), ("recompile", 26)} <= kinds
    div = next(f for f in data["findings"] if f["rule"] == "CL005" and f["line"] == 25)
    assert "on rank 1 but not on rank 0" in div["message"]
    assert dyn["summary"]["ranks"] == 2 and dyn["summary"]["divergences"] >= 2


def test_torch_2_13_two_ranks_gloo() -> None:
    code, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.13")
    assert code == 1
    check_ddp_model(data, "2.13")
    # the rank 1 file is gzip-compressed; both were read
    assert any(p.endswith(".gz") for p in data["dynamic"]["traces"])


def test_torch_2_11_two_ranks_on_a_gpu() -> None:
    """Recorded on an H100 (torch 2.11, inductor, DDP): no 2-GPU machine could be had, so the
    two ranks share the GPU and use gloo instead of NCCL."""
    code, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.11-gpu")
    check_ddp_model(data, "2.11")
    # inductor compile time is recorded per rank and ranks the findings
    assert data["dynamic"]["ranks"]["1"]["compile_seconds"] > 1.0


def test_torch_2_11_two_gpus_nccl() -> None:
    """Recorded on two H100s (torch 2.11, inductor, DDP over NCCL, one GPU per rank)."""
    code, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.11-nccl")
    assert code == 1
    check_ddp_model(data, "2.11")
    dyn = data["dynamic"]
    assert dyn["summary"]["graphs"] == 5 and dyn["summary"]["breaks"] == 4
    # under NCCL, DDP's own logger call in the compiled step breaks on every rank (GB0156);
    # the break is inside DDP (torch's hint names `Logger.set_runtime_stats_and_log`), so no
    # rule about the line's own code (its `.backward()`) labels it
    step = [f for f in data["findings"] if "GB0156" in f["message"] and f["line"] == 48]
    assert step and step[0]["rule"] == "CL002"


def test_torch_2_11_recompile_limit() -> None:
    _, data = run_json(f"{TR}/model/recompile_limit.py", "--trace", f"{TR}/torch2.11-limit")
    (rec,) = data["dynamic"]["recompiles"]
    assert (rec["function"], rec["line"], rec["hit_limit"], rec["count"]) == ("scaled", 14, True, 2)


def test_one_rank_file_alone_has_no_divergence() -> None:
    _, data = run_json(
        f"{TR}/model", "--trace", f"{TR}/torch2.13/dedicated_log_torch_trace_rank_1.log.gz"
    )
    assert set(data["dynamic"]["ranks"]) == {"1"}
    assert not [f for f in data["findings"] if f["rule"] == "CL005"]
    assert data["dynamic"]["divergence"] == []


def test_recompile_limit_single_process() -> None:
    _, data = run_json(f"{TR}/model/recompile_limit.py", "--trace", f"{TR}/torch2.13-limit")
    dyn = data["dynamic"]
    assert set(dyn["ranks"]) == {"0"} and dyn["hit_recompile_limit"] is True
    (rec,) = dyn["recompiles"]
    assert (rec["function"], rec["line"], rec["hit_limit"], rec["count"]) == ("scaled", 14, True, 2)
    (f,) = data["findings"]
    assert f["rule"] == "CL003" and "recompile limit" in f["message"]


def test_static_finding_not_reached_by_trace(tmp_path: Path) -> None:
    """A static finding in a function the traced run never compiled is 'not reached'."""
    shutil.copytree(ROOT / TR / "model", tmp_path / "model")
    src = tmp_path / "model" / "ddp_model.py"
    src.write_text(
        src.read_text()
        + "\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n"
        + "        return x.item()\n",
        encoding="utf-8",
    )
    code, out, err = invoke(
        [
            "check",
            "model",
            "--trace",
            str(ROOT / TR / "torch2.13"),
            "--format",
            "json",
            "--no-cache",
        ],
        cwd=tmp_path,
    )
    data = json.loads(out)
    other = [f for f in data["findings"] if f["line"] > 52]
    assert other and all("not reached" in f["message"] for f in other)
    assert ("CL103", 23, "both") in rows(data)


def test_budgets_apply_to_traces() -> None:
    code, out, err = invoke(
        [
            "check",
            f"{TR}/model",
            "--trace",
            f"{TR}/torch2.13",
            "--max-graph-breaks",
            "0",
            "--fail-on",
            "never",
            "--no-cache",
        ]
    )
    assert code == 1 and "graph-break budget exceeded" in out + err
    code, _, _ = invoke(
        [
            "check",
            f"{TR}/model",
            "--trace",
            f"{TR}/torch2.13",
            "--max-graph-breaks",
            "10",
            "--max-recompiles",
            "5",
            "--fail-on",
            "never",
            "--no-cache",
        ]
    )
    assert code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--trace", "no/such/dir"], "--trace no/such/dir: no such file or folder"),
        (["--trace", "fixtures/trace/model"], "no trace files"),
        (["--trace", "README.md"], "no structured-trace records"),
        (["--trace", "fixtures/trace/torch2.13", "--trace-root", "nonsense"], "expected OLD=NEW"),
        (["--trace-root", "/a=b"], "--trace-root needs --trace"),
    ],
)
def test_bad_trace_arguments_are_one_line(args: list[str], message: str) -> None:
    code, out, err = invoke(["check", f"{TR}/model", *args, "--no-cache"])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_gzip_and_plain_read_the_same(tmp_path: Path) -> None:
    src = ROOT / TR / "torch2.13" / "dedicated_log_torch_trace_rank_1.log.gz"
    plain = tmp_path / "x.log"
    plain.write_bytes(gzip.decompress(src.read_bytes()))
    a, b = read_file(str(src), RankTrace(1)), read_file(str(plain), RankTrace(1))
    assert (a.breaks, a.recompiles, a.metrics, a.graphs, a.lines, a.torch) == (
        b.breaks,
        b.recompiles,
        b.metrics,
        b.graphs,
        b.lines,
        b.torch,
    )
    assert len(a.breaks) >= 4 and a.records == b.records


def test_reader_caps_payloads_and_skips_unknown_kinds(tmp_path: Path) -> None:
    head = "V1124 22:54:23.059000 1 torch/x.py:1] "
    huge = "\tGraph break in user code at /x/m.py:3\n" + ("\t" + "y" * 1000 + "\n") * 3000
    text = (
        head
        + '{"chromium_event": {}, "has_payload": "x"}\n'
        + "\tignored\n" * 10
        + head
        + '{"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, '
        '"frame_id": 0, "frame_compile_id": 0}\n'
        + huge
        + head
        + '{"future_kind": {"a": 1}}\n'
        + "garbage line\n"
    )
    p = tmp_path / "dedicated_log_torch_trace_rank_3_x.log"
    p.write_text(text)
    rt = read_file(str(p), RankTrace(3))
    (b,) = rt.breaks
    assert PAYLOAD_CAP - 2000 <= len(b["message"]) <= PAYLOAD_CAP + 2000
    assert rt.records == 3 and rt.bad_lines == 1
    assert read_traces([str(tmp_path)])[3].breaks


def test_path_mapping_by_longest_suffix(tmp_path: Path) -> None:
    a = tmp_path / "src" / "models" / "net.py"
    b = tmp_path / "other" / "net.py"
    c = tmp_path / "x" / "models" / "block.py"
    d = tmp_path / "y" / "models" / "block.py"
    for f in (a, b, c, d):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("")
    m = PathMapper([str(a), str(b), str(c), str(d)])
    assert m.map("/home/ci/job/src/models/net.py") == str(a.resolve())
    assert m.map("/home/ci/job/other/net.py") == str(b.resolve())
    assert m.map("/home/ci/job/models/block.py") is None  # x/ and y/ tie: ambiguous
    assert m.map("/usr/lib/python3/site-packages/models/net.py") is None
    assert m.map("/home/ci/job/unknown.py") is None
    roots = parse_roots([f"/home/ci/job/models={tmp_path / 'y' / 'models'}"])
    assert PathMapper([str(c), str(d)], roots).map("/home/ci/job/models/block.py") == str(
        d.resolve()
    )
    text = 'File "/home/ci/job/src/models/net.py", line 3, in f\nGraph break in user code at /home/ci/job/other/net.py:7\n'
    out = m.text(text)
    assert str(a.resolve()) in out and f"at {b.resolve()}:7" in out
    with pytest.raises(TraceRootError):
        parse_roots(["=x"])


def test_trace_errors_are_data() -> None:
    with pytest.raises(TraceError):
        read_traces(["no/such/place"])


@pytest.mark.slow
@pytest.mark.torch
def test_fresh_torchrun_trace_two_ranks_gloo(tmp_path: Path) -> None:
    """Record a trace now with ``torchrun --nproc-per-node 2`` (gloo, CPU) and read it back."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch.distributed")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    env = {**os.environ, "TORCH_TRACE": str(tmp_path / "trace"), "OMP_NUM_THREADS": "1"}
    env.pop("TORCH_LOGS", None)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            str(ROOT / MODEL),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    _, data = run_json(f"{TR}/model", "--trace", str(tmp_path / "trace"))
    check_ddp_model(data, torch.__version__.split("+")[0])


def test_every_format_carries_ranks_and_divergence(tmp_path: Path) -> None:
    args = ["check", f"{TR}/model", "--trace", f"{TR}/torch2.13", "--no-cache"]
    outs = {f: tmp_path / f"r.{f}" for f in ("sarif", "markdown", "html", "github", "table")}
    for fmt, path in outs.items():
        args += ["--format", fmt, "-o", str(path)]
    code, text, err = invoke([*args, "--format", "text"])
    assert code == 1, err
    assert "(trace of 2 ranks)" in text and "CL005" in text
    sarif = json.loads(outs["sarif"].read_text())
    run = sarif["runs"][0]
    assert run["properties"]["dynamic"]["source"] == "trace"
    assert run["properties"]["dynamic"]["ranks"]["1"]["recompiles"] == 1
    assert {d["kind"] for d in run["properties"]["divergence"]} >= {"graph_break", "recompile"}
    assert any(r["ruleId"] == "CL005" for r in run["results"])
    md = outs["markdown"].read_text()
    assert "| rank" in md and "CL005" in md and "the ranks diverge in 2 places" in md
    html = outs["html"].read_text()
    assert '<table class="ranks">' in html and "CL005" in html
    assert "CL005" in outs["github"].read_text() and "CL005" in outs["table"].read_text()


# --------------------------------------------------------------------------- issue 25

COLL = f"{TR}/model/collective_model.py"


def check_collectives(data: dict, torch_prefix: str) -> None:  # type: ignore[type-arg]
    """collective_model.py on 2 ranks: rank 1's `step` runs an extra all_reduce (group 2) before
    the all_gather, and rank 1 alone compiles `extra` (one all_reduce)."""
    dyn = data["dynamic"]
    assert dyn["torch"].startswith(torch_prefix)
    colls = [d for d in dyn["divergence"] if d["kind"] == "collectives"]
    step = next(d for d in colls if d["function"] == "step")
    assert (step["path"], step["line"], step["position"], step["compile_id"]) == (
        COLL,
        23,
        2,
        "0/0",
    )
    assert step["ops"] == {"0": "all_gather_into_tensor (group 0)", "1": "all_reduce (group 2)"}
    assert step["ranks"] == {"0": 2, "1": 3}
    extra = next(d for d in colls if d["function"] == "extra")
    assert (extra["path"], extra["line"], extra["ranks"]) == (COLL, 28, {"0": 0, "1": 1})
    assert "rank 0 never compiles it" in extra["message"]
    found = {(f["rule"], f["path"], f["line"]) for f in data["findings"]}
    assert ("CL005", COLL, 23) in found and ("CL005", COLL, 28) in found
    assert dyn["ranks"]["0"]["collectives"] == 2 and dyn["ranks"]["1"]["collectives"] == 4
    assert dyn["ranks"]["0"]["schedules"] == 1 and dyn["ranks"]["1"]["schedules"] == 2
    (same, odd) = dyn["rank_groups"]
    assert same["ranks"] == "0" and odd["ranks"] == "1" and len(odd["differences"]) == 2


def test_collective_schedules_torch_2_13_gloo() -> None:
    """Recorded with torchrun on the CPU (gloo, Inductor): Inductor records the schedule."""
    _, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.13-collectives")
    check_collectives(data, "2.13")


def test_collective_schedules_torch_2_11_two_gpus_nccl() -> None:
    """Recorded on two H200s (torch 2.11, NCCL, one GPU per rank) under another checkout's
    paths (/work/main/.devx/traces/...): mapped by suffix onto the scanned model."""
    _, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.11-nccl-collectives")
    check_collectives(data, "2.11")


def test_collective_ops_and_rank_ranges() -> None:
    from compilelint.trace.divergence import op_name
    from compilelint.trace.ranges import expand_ranges, rank_ranges

    assert op_name("torch.ops._c10d_functional.all_reduce_.default") == "all_reduce"
    assert op_name("torch.ops._c10d_functional.all_gather_into_tensor.default") == (
        "all_gather_into_tensor"
    )
    labels = [str(i) for i in range(1024) if i != 512]
    assert rank_ranges(labels) == "0-511, 513-1023"
    assert rank_ranges(["3", "1", "2", "7"]) == "1-3, 7"
    assert expand_ranges("0-2, 5") == ["0", "1", "2", "5"]


def _foreign_copy(src: Path, dst: Path, gz: bool) -> None:
    """The committed trace with the training machine's paths made foreign."""
    dst.mkdir(parents=True)
    for f in sorted(src.iterdir()):
        raw = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        text = raw.decode().replace("/work/wt/trace/fixtures/trace/model", "/home/ci/job/model")
        name = f.name.removesuffix(".gz")
        if gz:
            (dst / (name + ".gz")).write_bytes(gzip.compress(text.encode()))
        else:
            (dst / name).write_text(text)


@pytest.mark.parametrize("gz", [False, True])
def test_divergence_at_foreign_paths_in_every_format(tmp_path: Path, gz: bool) -> None:
    """Sources not on this machine: each divergence is still a CL005 finding at the trace's
    path and line, marked as such, in text, JSON, SARIF, markdown and HTML."""
    _foreign_copy(ROOT / TR / "torch2.13", tmp_path / "tr", gz)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "other.py").write_text("x = 1\n")
    outs = {f: tmp_path / f"r.{f}" for f in ("json", "sarif", "markdown", "html")}
    args = ["check", "other.py", "--trace", str(tmp_path / "tr"), "--no-cache"]
    for fmt, path in outs.items():
        args += ["--format", fmt, "-o", str(path)]
    code, text, err = invoke([*args, "--format", "text"], cwd=proj)
    assert code == 1, err
    model = "/home/ci/job/model/ddp_model.py"
    data = json.loads(outs["json"].read_text())
    div = {(f["path"], f["line"]): f for f in data["findings"] if f["rule"] == "CL005"}
    assert set(div) == {(model, 25), (model, 26)}
    assert all("not on this machine" in f["message"] for f in div.values())
    assert "the ranks diverge in 2 places" in text and f"{model}:25" in text
    assert text.count("CL005") >= 2
    sarif = json.loads(outs["sarif"].read_text())
    locs = [
        r["locations"][0]["physicalLocation"]
        for r in sarif["runs"][0]["results"]
        if r["ruleId"] == "CL005"
    ]
    assert {(loc["artifactLocation"]["uri"], loc["region"]["startLine"]) for loc in locs} == {
        (f"file://{model}", 25),
        (f"file://{model}", 26),
    }
    for fmt in ("markdown", "html"):
        body = outs[fmt].read_text()
        assert body.count("CL005") >= 2 and "ddp_model.py" in body
    # ranked with the rest: the findings carry their rank
    assert all(f["rank"] for f in div.values())


def test_older_format_breaks_from_resume_functions() -> None:
    """fixtures/trace/torch2.13-no-break-records: the 2.13 trace with its break records removed
    (an older format): the resume functions imply the breaks, reason unknown."""
    _, data = run_json(f"{TR}/model", "--trace", f"{TR}/torch2.13-no-break-records")
    dyn = data["dynamic"]
    assert dyn["graph_break_count"] == 3
    breaks = {(b["path"], b["line"]): b for b in dyn["breaks"]}
    assert breaks[(MODEL, 23)]["ranks"] == {"0": 1, "1": 1}
    assert breaks[(MODEL, 25)]["ranks"] == {"0": 0, "1": 1}
    assert all(b.get("implied") for b in dyn["breaks"])
    assert all(b["gb_type"].startswith("Unknown graph break") for b in dyn["breaks"])
    got = rows(data)
    # the static predictions at those lines are confirmed; rank 1's extra break diverges
    assert ("CL103", 23, "both") in got and ("CL201", 25, "both") in got
    assert ("CL005", 25, "dynamic") in got and ("CL005", 26, "dynamic") in got


def test_implied_breaks_only_where_no_record_names_the_line() -> None:
    from compilelint.trace.api import implied_breaks

    metrics = [
        {"co_name": "torch_dynamo_resume_in_forward_at_23", "co_filename": "/x/m.py"},
        {"co_name": "torch_dynamo_resume_in_forward_at_23", "co_filename": "/x/m.py"},
        {"co_name": "torch_dynamo_resume_in_forward_at_30", "co_filename": "/x/m.py"},
        {"co_name": "forward", "co_filename": "/x/m.py"},
    ]
    named = [{"message": 'Graph break in user code at /x/m.py:30\n  File "/x/m.py", line 30'}]
    (b,) = implied_breaks(metrics, named)
    assert "/x/m.py:23" in b["message"] and "Unknown graph break" in b["message"]
    assert len(implied_breaks(metrics, [])) == 2


def _synth_ranks(src: Path, dst: Path, n: int, odd: set[int]) -> None:
    import re

    dst.mkdir()
    base = {}
    for r in (0, 1):
        f = sorted(src.glob(f"*rank_{r}*"))[0]
        base[r] = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
    for r in range(n):
        data = re.sub(rb'"rank": \d+', b'"rank": %d' % r, base[1 if r in odd else 0])
        (dst / f"dedicated_log_torch_trace_rank_{r}_x.log").write_bytes(data)


def test_identical_ranks_are_grouped(tmp_path: Path) -> None:
    """40 ranks, rank 20 the odd one out: two groups, one line each; the findings name the
    ranks as ranges."""
    _synth_ranks(ROOT / TR / "torch2.13-collectives", tmp_path / "tr", 40, {20})
    args = ["check", f"{TR}/model", "--trace", str(tmp_path / "tr"), "--no-cache"]
    code, text, err = invoke(args)
    assert "  ranks 0-19, 21-39: same" in text
    assert "  rank 20: collective #2 of `step` is all_reduce (group 2)" in text
    _, data = run_json(f"{TR}/model", "--trace", str(tmp_path / "tr"))
    groups = data["dynamic"]["rank_groups"]
    assert [(g["ranks"], g["same"]) for g in groups] == [("0-19, 21-39", True), ("20", False)]
    step = next(f for f in data["findings"] if f["rule"] == "CL005" and f["line"] == 23)
    assert "on ranks 0-19, 21-39" in step["message"] and "on rank 20" in step["message"]
    assert len(data["dynamic"]["divergence"]) == 2
    code, out, err = invoke([*args, "--format", "html"])
    summary = out.split('<section id="summary">')[1].split("</section>")[0]
    assert summary.count('<tr class="odd">') == 1 and '<td class="diff">' in summary
    assert "<td>0-19, 21-39</td>" in summary
    # the schedules side by side: one column per group, the odd cell marked
    coll = out.split('<section id="collectives">')[1].split("</section>")[0]
    assert "<th>ranks 0-19, 21-39</th><th>rank 20</th>" in coll
    assert '<td class="diff">all_reduce (group 2)</td>' in coll


def test_compile_failure_on_some_ranks_diverges(tmp_path: Path) -> None:
    head = "V1124 22:54:23.059000 1 torch/x.py:1] "

    def metrics(rank: int, fail: bool) -> str:
        m = {
            "co_name": "forward",
            "co_filename": "/home/ci/job/model/net.py",
            "co_firstlineno": 10,
            "graph_op_count": 3,
            "fail_type": "BackendCompilerFailed" if fail else None,
            "fail_reason": "backend='inductor' raised: out of memory" if fail else None,
            "fail_user_frame_filename": "/home/ci/job/model/net.py" if fail else None,
            "fail_user_frame_lineno": 12 if fail else None,
        }
        return head + json.dumps(
            {"compilation_metrics": m, "rank": rank, "frame_id": 0, "frame_compile_id": 0}
        )

    tr = tmp_path / "tr"
    tr.mkdir()
    for r in range(4):
        (tr / f"dedicated_log_torch_trace_rank_{r}_x.log").write_text(metrics(r, r == 3) + "\n")
    code, out, err = invoke(
        ["check", f"{TR}/model", "--trace", str(tr), "--format", "json", "--no-cache"]
    )
    data = json.loads(out)
    (d,) = data["dynamic"]["divergence"]
    assert d["kind"] == "compile_failure" and d["ranks"] == {"0": 0, "1": 0, "2": 0, "3": 1}
    assert (d["path"], d["line"]) == ("/home/ci/job/model/net.py", 12)
    assert (
        "BackendCompilerFailed" in d["message"] and "on rank 3 but not on ranks 0-2" in d["message"]
    )
    (f,) = [f for f in data["findings"] if f["rule"] == "CL005"]
    assert f["line"] == 12 and "not on this machine" in f["message"]
    groups = data["dynamic"]["rank_groups"]
    assert [g["ranks"] for g in groups] == ["0-2", "3"]


def test_divergence_module_does_not_import_the_api() -> None:
    """One-way dependency: trace.api imports trace.divergence, never the reverse."""
    import ast

    src = (ROOT / "src" / "compilelint" / "trace" / "divergence.py").read_text()
    mods = {
        n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom) and n.module
    }
    assert "compilelint.trace.api" not in mods
    assert not any("trace.api" in m for m in mods)


def test_schedules_without_output_graphs_are_compared_per_compile(tmp_path: Path) -> None:
    """Only ``inductor_collective_schedule`` records (no graphs, no metrics): compared per
    compile id; with no line, the divergence is listed under the summary, not dropped."""
    head = "V1124 22:54:23.059000 1 torch/_inductor/debug.py:764] "

    def rec(rank: int, fid: int, ops: list[str]) -> str:
        meta = {
            "artifact": {"name": "inductor_collective_schedule", "encoding": "json"},
            "rank": rank,
            "frame_id": fid,
            "frame_compile_id": 0,
            "attempt": 0,
            "has_payload": "x",
        }
        body = "".join("\t" + ln + "\n" for ln in json.dumps(ops, indent=0).splitlines())
        return head + json.dumps(meta) + "\n" + body

    ar, rs = (
        "torch.ops._c10d_functional.all_reduce_.default",
        ("torch.ops._c10d_functional.reduce_scatter_tensor.default"),
    )
    wait = "torch.ops._c10d_functional.wait_tensor.default"
    tr = tmp_path / "tr"
    tr.mkdir()
    for r in range(3):
        second = [ar, wait, rs] if r != 2 else [rs, ar]
        (tr / f"dedicated_log_torch_trace_rank_{r}_x.log").write_text(
            rec(r, 0, [ar, wait, rs]) + rec(r, 1, second)
        )
    code, out, err = invoke(["check", f"{TR}/model", "--trace", str(tr), "--no-cache"])
    assert "ranks 0-1: same" in out
    assert "rank 2: collective #1 of `graph 1/0` is reduce_scatter_tensor" in out
    assert "CL005 (no source line in the trace): `graph 1/0` issues different collectives" in out


@pytest.mark.slow
@pytest.mark.torch
def test_fresh_torchrun_collective_schedules_gloo(tmp_path: Path) -> None:
    """Record collective_model.py now (torchrun, 2 ranks, gloo, Inductor on the CPU): the
    trace has ``inductor_collective_schedule`` records and the schedules diverge."""
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    env = {**os.environ, "TORCH_TRACE": str(tmp_path / "trace"), "OMP_NUM_THREADS": "1"}
    env.pop("TORCH_LOGS", None)
    # a warm FX graph cache loads the compiled graph and records no schedule: compile afresh
    env.update(TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            str(ROOT / COLL),
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    logs = b"".join(p.read_bytes() for p in (tmp_path / "trace").iterdir())
    assert b'"inductor_collective_schedule"' in logs
    _, data = run_json(f"{TR}/model", "--trace", str(tmp_path / "trace"))
    check_collectives(data, torch.__version__.split("+")[0])


def test_oldest_format_dynamo_start_only(tmp_path: Path) -> None:
    """No compilation metrics and no break records: the compiled frames are known only from
    ``dynamo_start`` stacks (file names interned in ``str`` records); resume frames there imply
    the breaks."""
    head = "V1124 22:54:23.059000 1 torch/_dynamo/convert_frame.py:303] "
    path = "/data/users/ci/job/model.py"

    def start(fid: int, name: str, line: int) -> str:
        stack = [
            {"line": 1, "name": "<module>", "filename": 1},
            {"line": line, "name": name, "filename": 1},
        ]
        meta = {"dynamo_start": {"stack": stack}, "frame_id": fid, "frame_compile_id": 0}
        graph = {"dynamo_output_graph": {"sizes": {}}, "frame_id": fid, "frame_compile_id": 0}
        return (
            f"{head}{json.dumps(meta)}\n{head}{json.dumps(graph)}\n"
            f"\tclass GraphModule(torch.nn.Module):\n\t    # File: {path}:9 in fn, code: y = x\n"
        )

    text = head + json.dumps({"str": [path, 1]}) + "\n"
    text += start(0, "fn", 9549)
    text += start(1, "torch_dynamo_resume_in_fn_at_9551", 9551)
    text += start(2, "torch_dynamo_resume_in_fn_at_9553", 9553)
    (tmp_path / "dedicated_log_torch_trace_x.log").write_text(text)
    _, data = run_json(f"{TR}/model/recompile_limit.py", "--trace", str(tmp_path))
    dyn = data["dynamic"]
    assert (dyn["graph_count"], dyn["graph_break_count"]) == (3, 2)
    assert sorted(b["torch_location"] for b in dyn["breaks"]) == [f"{path}:9551", f"{path}:9553"]
    assert {(f["path"], f["line"]) for f in data["findings"]} == {(path, 9551), (path, 9553)}


def test_warm_cache_traces_compare_output_graphs(tmp_path: Path) -> None:
    """A run with a warm Inductor cache records no ``inductor_collective_schedule`` (the compiled
    graph is loaded, not scheduled): the output graphs' collectives are compared instead."""
    src = ROOT / TR / "torch2.13-collectives"
    dst = tmp_path / "tr"
    dst.mkdir()
    for f in src.glob("*.log*"):
        raw = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        out, skip = [], False
        for line in raw.decode().splitlines(keepends=True):
            if not line.startswith("\t"):
                skip = '"inductor_collective_schedule"' in line
            if not skip:
                out.append(line)
        (dst / f.name.removesuffix(".gz")).write_text("".join(out))
    _, data = run_json(f"{TR}/model", "--trace", str(dst))
    dyn = data["dynamic"]
    assert dyn["ranks"]["0"]["schedules"] == 0 and dyn["ranks"]["1"]["schedules"] == 0
    step = next(d for d in dyn["divergence"] if d.get("function") == "step")
    assert (step["line"], step["position"]) == (23, 2)
    assert step["ops"] == {"0": "all_gather_into_tensor (group 0)", "1": "all_reduce (group 2)"}
    assert any(d.get("function") == "extra" for d in dyn["divergence"])
