"""Recorded dynamic runs (fixtures/dynamic/recorded/torch-<version>/): parsed without torch.

Each recording holds the runner's raw output, torch's own ``TORCH_LOGS=graph_breaks`` breaks for
the same calls (deduplicated by (gb_type, file, line)), and the expected parsed result.
Re-record on a machine with torch: ``pytest tests/test_dynamic_recorded.py --update-goldens``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compilelint.dynamic.api import build_result
from compilelint.dynamic.capture import parse_graph_breaks_log, relpath
from compilelint.dynamic.registry import load_registry

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "dynamic"
RECORDED = FIXTURES / "recorded"
SPECS = sorted(p.stem for p in FIXTURES.glob("*.json"))


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("TORCH_LOGS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env.update(extra)
    return env


def torch_logs_breaks(spec: str) -> list[list[Any]]:
    """What TORCH_LOGS=graph_breaks reports for the same calls, deduplicated, root-relative."""
    proc = subprocess.run(
        [sys.executable, "-m", "compilelint.dynamic.runner", spec, "--bare", "--root", str(ROOT)],
        env=_env(TORCH_LOGS="graph_breaks"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    reg = load_registry()
    keys = {
        (b.gb_type, relpath(b.loc_path, str(ROOT)), b.loc_line)
        for b in parse_graph_breaks_log(proc.stderr, reg)
    }
    return sorted([list(k) for k in keys])


def summarise(raw: dict[str, Any]) -> dict[str, Any]:
    res = build_result(raw, str(ROOT))
    b = res.block
    return {
        "graph_count": b["graph_count"],
        "graph_break_count": b["graph_break_count"],
        "ops_per_graph": b["ops_per_graph"],
        "graphs": [
            [
                g["ops"],
                g["compile_id"],
                g["function"],
                g["path"],
                g["first_line"],
                g["last_line"],
                g["break"] and [g["break"]["gb_id"], g["break"]["path"], g["break"]["line"]],
            ]
            for g in b["graphs"]
        ],
        "breaks": sorted(
            [x["gb_type"], x["gb_id"], x["path"], x["line"], x["count"], x["package"], x["in_loop"]]
            for x in b["breaks"]
        ),
        "break_keys": sorted(
            [list((k[0], relpath(k[1], str(ROOT)), k[2])) for k in (br.key for br in res.breaks)]
        ),
        "recompiles": sorted(
            [x["function"], x["path"], x["line"], x["guard"], x["count"], x["hit_limit"]]
            for x in b["recompiles"]
        ),
        "error": (b["error"] or {}).get("step"),
    }


def recordings() -> list[Path]:
    return sorted(RECORDED.glob("torch-*/*.json"))


@pytest.mark.parametrize("path", recordings(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_recorded_run_parses_as_recorded(path: Path) -> None:
    rec = json.loads(path.read_text())
    got = summarise(rec["raw"])
    assert got == rec["expected"]


@pytest.mark.parametrize("path", recordings(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_break_count_equals_torch_logs(path: Path) -> None:
    rec = json.loads(path.read_text())
    if rec.get("torch_logs") is None:
        pytest.skip("fullgraph runs stop at the first break; torch logs the exception instead")
    got = summarise(rec["raw"])
    assert got["break_keys"] == rec["torch_logs"]
    assert got["graph_break_count"] == len(rec["torch_logs"])


def test_recordings_exist() -> None:
    assert recordings(), "no recorded dynamic runs under fixtures/dynamic/recorded/"


@pytest.mark.torch
def test_record(update_goldens: bool) -> None:
    """With --update-goldens: run every fixture spec on the installed torch and record it."""
    torch = pytest.importorskip("torch")
    if not update_goldens:
        pytest.skip("pass --update-goldens to re-record")
    out_dir = RECORDED / f"torch-{torch.__version__.split('+')[0]}"
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in SPECS:
        spec = str(FIXTURES / f"{name}.json")
        proc = subprocess.run(
            [sys.executable, "-m", "compilelint.dynamic.runner", spec, "--root", str(ROOT)],
            env=_env(),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        raw = json.loads(proc.stdout)
        fullgraph = (
            json.loads((FIXTURES / f"{name}.json").read_text()).get("compile", {}).get("fullgraph")
        )
        rec = {
            "spec": f"fixtures/dynamic/{name}.json",
            "torch": raw.get("torch"),
            "raw": raw,
            "torch_logs": None if fullgraph else torch_logs_breaks(spec),
            "expected": summarise(raw),
        }
        (out_dir / f"{name}.json").write_text(json.dumps(rec, indent=1, sort_keys=True) + "\n")
