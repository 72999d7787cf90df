"""Bench names the frame torch runs eagerly after the recompile limit, since which call, the
guard that failed last at its line, and the time it costs per step (issue 14, item 4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compilelint.bench.api import eager_fallbacks

from .cli_invoke import invoke

ROOT = Path(__file__).resolve().parent.parent
FIX = "fixtures/bench/recompile_limit"
HIT = (
    "torch._dynamo hit config.recompile_limit (8)\n"
    "   function: 'forward' (/proj/vit.py:30)\n"
    "   last reason: 0/7: L['self'].step == 7  # self.step += 1  # vit.py:31 in forward\n"
    'To log all recompilation reasons, use TORCH_LOGS="recompiles".'
)


def test_fallback_names_function_call_guard_line_and_cost() -> None:
    recompiles = [
        {
            "function": "forward",
            "guard": "L['self'].step == 6",
            "guard_readable": "self.step == 6",
            "path": "vit.py",
            "line": 31,
            "explanation": "`self.step` is a Python int attribute",
        }
    ]
    time_split = {
        "parts": [
            {"kind": "after-last-graph", "ms_per_step": 8.05, "share": 1.0},
            {"kind": "break", "ms_per_step": 0.5, "share": 0.05},
        ]
    }
    [fb] = eager_fallbacks(
        [{"message": HIT, "phase": "warmup", "call": 9}], recompiles, time_split, "/proj"
    )
    assert (fb["function"], fb["path"], fb["line"]) == ("forward", "vit.py", 30)
    assert (fb["limit"], fb["limit_value"], fb["since_call"]) == ("recompile_limit", 8, 9)
    assert (fb["guard_readable"], fb["guard_line"]) == ("self.step == 6", 31)
    assert fb["ms_per_step"] == 8.05 and fb["share"] == 1.0  # break time is not the fallback's


@pytest.mark.torch
def test_bench_under_the_recompile_limit_says_what_runs_eagerly(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / "bench.json"
    args = ["bench", f"{FIX}.py", "--input-spec", f"{FIX}.json", "--device", "cpu"]
    args += ["--backend", "eager", "--steps", "3", "--warmup", "1", "--attribution-steps", "2"]
    code, _, err = invoke([*args, "--format", "json", "-o", str(out)])
    assert code in (0, 1), err
    [mode] = json.loads(out.read_text(encoding="utf-8"))["runs"][0]["modes"]
    assert mode["hit_recompile_limit"]
    [fb] = mode["eager_fallback"]
    assert fb["function"] == "forward" and fb["path"] == f"{FIX}.py"
    assert fb["since_call"] == 3 and fb["since_phase"] == "timed"
    assert "self.step" in fb["guard_readable"] and fb["guard_line"] == 15
    assert "runs eagerly since call 3" in fb["text"]
    assert any(p.get("eager_fallback") == ["forward"] for p in mode["time"]["parts"])
    code, text, err = invoke([*args, "--format", "text"])
    assert "`forward` (fixtures/bench/recompile_limit.py:14) runs eagerly since call 3" in text


def test_every_variant_is_compared_with_one_eager_baseline() -> None:
    """Issue 14, item 6: three eager runs of the same computation measured 4.24, 5.47 and
    7.80 ms; each variant was divided by its own. Now all are divided by the first."""
    from compilelint.bench import stats
    from compilelint.bench.api import compare_runs, comparison_summary, one_baseline

    def run(label: str, eager: list[float], step: list[float]) -> dict:
        s = stats.summarize(step)
        return {
            "label": label,
            "eager": {"step": stats.summarize(eager), "back_to_back": stats.summarize(eager)},
            "modes": [
                {
                    "mode": "default",
                    "status": "ok",
                    "step": s,
                    "back_to_back": s,
                    "breaks": [],
                    "break_count": 0,
                    **stats.speedup(stats.summarize(eager), s),
                }
            ],
        }

    base = run("model", [4.2, 4.24, 4.3], [6.1, 6.11, 6.2])
    fixed = run("fixed", [7.7, 7.8, 7.9], [6.4, 6.43, 6.5])
    warnings: list[str] = []
    assert fixed["modes"][0]["speedup"] > 1.2  # against its own slow eager run: a false gain
    one_baseline([base, fixed], warnings)
    m = fixed["modes"][0]
    assert m["speedup"] == round(4.24 / 6.43, 3) and m["baseline"] == "model eager"
    assert m["speedup_vs_own_eager"] > 1.2
    assert warnings and warnings[0].startswith("eager runs disagree: model 4.24 ms and fixed 7.8")
    summary = comparison_summary("fixed", compare_runs(base, fixed))
    assert summary is not None and "0.69x -> 0.66x" in summary


def test_repeated_eager_runs_show_their_spread_and_disagreement() -> None:
    from compilelint.bench import stats
    from compilelint.bench.api import BenchError, BenchOptions, eager_spread, validate_options

    same = eager_spread([stats.summarize([4.2, 4.24, 4.3]), stats.summarize([4.22, 4.25, 4.31])])
    assert same is not None and same["consistent"] and same["runs"] == 2
    apart = eager_spread([stats.summarize([4.2, 4.24, 4.3]), stats.summarize([5.4, 5.47, 5.5])])
    assert apart is not None and not apart["consistent"]
    assert apart["medians_ms"] == [4.24, 5.47] and apart["spread"] == round(1.23 / 4.24, 4)
    assert eager_spread([stats.summarize([1.0])]) is None
    with pytest.raises(BenchError, match="--eager-runs"):
        validate_options(BenchOptions(eager_runs=0))


def test_three_eager_runs_take_the_median_run_as_baseline() -> None:
    """One eager process that ran slow (seen on an H100: 2.53, 2.53, 4.10 ms) moves no speedup."""
    from compilelint.bench import stats
    from compilelint.bench.api import median_run, use_eager_run

    runs = [stats.summarize(x) for x in ([4.1, 4.12, 4.15], [2.5, 2.53, 2.55], [2.52, 2.54, 2.6])]
    assert median_run(runs) == 2
    assert median_run(runs[:2]) == 0  # two runs: no median to pick, the first stays
    run: dict[str, Any] = {
        "eager": {"step": runs[0]},
        "modes": [{"status": "ok", "step": stats.summarize([2.0, 2.02, 2.04])}],
    }
    use_eager_run(run, runs[2])
    assert run["eager"]["step"]["median_ms"] == 2.54
    assert run["modes"][0]["speedup"] == round(2.54 / 2.02, 3)
