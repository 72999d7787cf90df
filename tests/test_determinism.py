"""Identical JSON (timings aside) across runs, hash seeds, -j1 and -jN (the forked worker pool),
the order of paths on the command line, and a cold or warm cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from compilelint.api import check
from compilelint.config import Config
from compilelint.static import engine
from tests.fuzz_programs import torch_programs

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def strip_timings(o: Any) -> Any:
    if isinstance(o, dict):
        return {
            k: strip_timings(v)
            for k, v in o.items()
            if k != "seconds" and not k.endswith("_seconds")
        }
    if isinstance(o, list):
        return [strip_timings(x) for x in o]
    return o


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixtures plus 40 generated torch programs: more than the 24 files that make the
    engine fork its worker pool."""
    root = tmp_path_factory.mktemp("det")
    for name in ("models", "project", "demo"):
        shutil.copytree(ROOT / "fixtures" / name, root / name)
    gen = root / "gen"
    gen.mkdir()
    progs: list[str] = []

    @settings(
        max_examples=40,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(torch_programs())
    def collect(src: str) -> None:
        progs.append(src)

    collect()
    for i, src in enumerate(progs):
        (gen / f"g{i:03d}.py").write_text(src)
    return root


def run(tree: Path, *args: str, seed: str = "0") -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONHASHSEED": seed}
    p = subprocess.run(
        [sys.executable, "-m", "compilelint.cli", "check", *args, "--format", "json"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode in (0, 1), p.stderr
    return strip_timings(json.loads(p.stdout))


def test_same_json_across_runs_seeds_jobs_path_orders_and_cache(tree: Path) -> None:
    base = run(tree, ".", "--no-cache", "-j1", seed="0")
    assert base["summary"]["files"] >= 45 and base["summary"]["findings"] > 50
    variants = {
        "another run, another hash seed": run(tree, ".", "--no-cache", "-j1", seed="12345"),
        "-j2 (worker pool)": run(tree, ".", "--no-cache", "-j2", seed="7"),
        "paths in one order": run(tree, "gen", "models", "project", "demo", "--no-cache", "-j2"),
        "paths reversed": run(tree, "demo", "project", "models", "gen", "--no-cache", "-j2"),
        "a path twice": run(tree, "models/recompile_model.py", ".", "models", "--no-cache"),
    }
    shutil.rmtree(tree / ".compilelint_cache", ignore_errors=True)
    variants["cache cold"] = run(tree, ".", "-j2", seed="1")
    variants["cache warm"] = run(tree, ".", "-j2", seed="2")
    # Another config misses the stored results but reuses every file's cached facts.
    variants["cache warm, per-file facts"] = run(tree, ".", "-j1", "--fail-on", "never", seed="3")
    shutil.rmtree(tree / ".compilelint_cache", ignore_errors=True)
    for name, got in variants.items():
        assert got == base, name


def test_parallel_path_is_really_taken_and_agrees(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pools: list[int] = []
    real = engine._quiet_pool

    def recording() -> type[Any]:
        base = real()

        class Recording(base):  # type: ignore[misc,valid-type]
            def __init__(self, processes: int, *a: Any, **k: Any) -> None:
                pools.append(processes)
                super().__init__(processes, *a, **k)

        return Recording

    monkeypatch.setattr(engine, "_quiet_pool", recording)
    monkeypatch.chdir(tree)
    serial = check(["."], Config(cache=False, jobs=1))
    assert pools == []
    parallel = check(["."], Config(cache=False, jobs=2))
    assert pools == [2]
    assert serial.findings == parallel.findings


@pytest.mark.torch
def test_dynamic_report_is_the_same_across_runs() -> None:
    pytest.importorskip("torch")
    args = ["fixtures/demo", "--input-spec", "fixtures/demo/spec.json", "--no-cache"]
    first = run(ROOT, *args, seed="0")
    second = run(ROOT, *args, "-j1", seed="99")
    assert first["dynamic"]["error"] is None
    assert first == second
