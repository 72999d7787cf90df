"""The static prediction: graphs, breaks and recompiles over a spec's calls, without torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.predict import Prediction

from .cli_invoke import invoke
from .pred_helpers import prediction

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / "predict_corpus" / "dev"


def _predict(tmp_path: Path, src: str, spec: dict[str, Any]) -> Prediction:
    return prediction(tmp_path, textwrap.dedent(src), spec)


def _t(*shape: int) -> dict[str, Any]:
    return {"tensor": list(shape)}


HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n"


def test_int_used_by_range_recompiles_per_value(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x, steps: int = 2):
                for _ in range(steps):
                    x = x * 2
                return x
        """)
    spec = {
        "model": "m.py:M",
        "inputs": [_t(2, 4), 2],
        "variants": [{"inputs": [_t(2, 4), n]} for n in (3, 4, 5)],
    }
    p = _predict(tmp_path, src, spec)
    assert (p.graph_count, p.graph_breaks, p.recompiles) == (1, 0, 3)
    (site,) = p.recompile_sites
    assert site.guard == "steps == 2" and site.subject == "steps" and site.count == 3
    assert "tensor" in site.fix


def test_number_in_arithmetic_recompiles_once_then_symbolic(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x, scale: float = 1.0):
                return x * scale
        """)
    spec = {
        "model": "m.py:M",
        "inputs": [_t(2, 4), 1.0],
        "variants": [{"inputs": [_t(2, 4), v]} for v in (0.5, 0.25, 2.0)],
    }
    p = _predict(tmp_path, src, spec)
    assert p.recompiles == 1
    assert p.recompile_sites[0].guard == "scale == 1.0"


def test_strings_none_and_shapes(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x, mode: str = "mean", mask=None):
                if mask is not None:
                    x = x * mask
                if mode == "max":
                    return x.max(1).values
                return x.mean(1)
        """)
    spec = {
        "model": "m.py:M",
        "inputs": [_t(2, 4)],
        "variants": [
            {"inputs": [_t(2, 4), "max"]},
            {"inputs": [_t(2, 4), "sum"]},
            {"inputs": [_t(2, 4), "sum", _t(2, 4)]},
            {"inputs": [_t(3, 4), "sum", _t(3, 4)]},
            {"inputs": [_t(5, 4), "sum", _t(5, 4)]},
        ],
    }
    p = _predict(tmp_path, src, spec)
    guards = sorted(r.guard for r in p.recompile_sites)
    # each new string recompiles; None -> tensor once; the batch size once (then dynamic)
    assert guards == [
        "mask is None",
        "mode == 'max'",
        "mode == 'mean'",
        "tensor 'x' size mismatch at index 0. expected 2, actual 3",
    ]
    assert p.recompiles == 4


def test_size_read_as_int_in_range_stays_specialised(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x):
                n = x.size(0)
                return sum(x[i] for i in range(n))
        """)
    spec = {
        "model": "m.py:M",
        "inputs": [_t(2, 4)],
        "variants": [{"inputs": [_t(b, 4)]} for b in (3, 4, 5)],
    }
    p = _predict(tmp_path, src, spec)
    assert p.recompiles == 3


def test_counter_on_self_and_the_recompile_limit(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.step = 0

            def forward(self, x):
                self.step += 1
                return x * 2
        """)
    p = _predict(tmp_path, src, {"model": "m.py:M", "inputs": [_t(2, 4)], "calls": 12})
    assert p.recompiles == 8 and p.hit_recompile_limit
    assert p.recompile_sites[0].subject == "self.step"
    assert "recompile limit" in p.summary()


def test_graph_count_breaks_in_loops_and_helpers(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

            def forward(self, x):
                for layer in self.layers:
                    x = layer(x)
                    print("layer")
                return x
        """)
    p = _predict(tmp_path, src, {"model": "m.py:M", "inputs": [_t(2, 4)]})
    # a break in a for loop: dynamo runs the frame eagerly (torch 2.13), no graph of it
    assert (p.graph_count, p.graph_breaks) == (0, 1)
    p = _predict(
        tmp_path,
        src.replace('print("layer")', "pass").replace(
            "return x\n", 'x = x * 2\n        print("done")\n        return x + 1\n'
        ),
        {"model": "m.py:M", "inputs": [_t(2, 4)]},
    )
    assert (p.graph_count, p.graph_breaks) == (2, 1)


def test_factory_entry_and_unknown_model(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x):
                return x.item()

        def make():
            return M(), (torch.randn(2),)
        """)
    p = _predict(tmp_path, src, {"model": "m.py:make"})
    assert p.function.endswith("M.forward") and p.graph_breaks == 1
    assert any("factory" in n for n in p.notes)
    p = _predict(tmp_path, src, {"model": "m.py:Nope", "inputs": [_t(2)]})
    assert p.function == "" and "not found" in p.notes[0]


def test_cli_static_only_json_text_and_budgets() -> None:
    args = ["check", "chunk_range.py", "--input-spec", "chunk_range.json", "--static-only"]
    args += ["--fail-on", "never"]
    code, out, _err = invoke([*args, "--format", "json", "--no-cache"], cwd=CORPUS)
    pred = json.loads(out)["prediction"]
    assert pred["entry"] == "chunk_range.py:Chunker"
    assert pred["function"].endswith("Chunker.forward")
    assert (pred["graph_count"], pred["graph_breaks"], pred["recompiles"]) == (1, 0, 3)
    assert "dynamic" not in json.loads(out)
    code, out, _err = invoke([*args, "--no-cache"], cwd=CORPUS)
    assert "predicted for chunk_range.py:Chunker: 1 graph, 0 breaks, 3 recompiles" in out
    code, out, _err = invoke([*args, "--no-cache", "--max-recompiles", "2"], cwd=CORPUS)
    assert code == 1
    assert "recompile budget exceeded: the static prediction says 3 recompiles" in out
    code, _out, _err = invoke([*args, "--no-cache", "--max-recompiles", "3"], cwd=CORPUS)
    assert code == 0


def test_static_only_never_imports_torch(tmp_path: Path) -> None:
    """A child process where importing torch fails: the prediction still comes out."""
    blocker = textwrap.dedent("""
        import sys

        class _NoTorch:
            def find_spec(self, name, path=None, target=None):
                if name == "torch" or name.startswith("torch."):
                    raise ImportError("torch is blocked in this test")
                return None

        sys.meta_path.insert(0, _NoTorch())
        from compilelint.cli import main

        try:
            main([
                "check", "grad_scale_item.py", "--input-spec", "grad_scale_item.json",
                "--static-only", "--format", "json", "--no-cache", "--fail-on", "never",
            ])
        finally:
            assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    heldout = ROOT / "benchmarks" / "predict_corpus" / "heldout"
    p = subprocess.run(
        [sys.executable, "-c", blocker], cwd=heldout, capture_output=True, text=True, env=env
    )
    assert p.returncode == 0, p.stderr[-2000:]
    pred = json.loads(p.stdout)["prediction"]
    assert (pred["graph_count"], pred["graph_breaks"], pred["recompiles"]) == (2, 1, 1)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["chunk_range", "helper_print", "optional_bias"])
def test_prediction_matches_torch(name: str) -> None:
    """The prediction against the dynamic stage on torch itself (the oracle)."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    code, out, _err = invoke(
        [
            "check",
            f"{name}.py",
            "--input-spec",
            f"{name}.json",
            "--static-only",
            "--format",
            "json",
            "--no-cache",
            "--fail-on",
            "never",
        ],
        cwd=CORPUS,
    )
    pred = json.loads(out)["prediction"]
    block = run_dynamic(str(CORPUS / f"{name}.json"), cwd=str(CORPUS), cover=()).block
    assert block["error"] is None
    assert pred["graph_count"] == block["graph_count"]
    assert pred["graph_breaks"] == block["graph_break_count"]
    assert pred["recompiles"] == block["recompile_count"]


@pytest.mark.torch
def test_normal_run_reports_prediction_and_observation() -> None:
    pytest.importorskip("torch")
    base = ["check", "helper_print.py", "--input-spec", "helper_print.json", "--no-cache"]
    base += ["--fail-on", "never", "--no-coverage"]
    code, out, _err = invoke([*base, "--format", "json"], cwd=CORPUS)
    data = json.loads(out)
    assert data["prediction"]["graph_count"] == data["dynamic"]["graph_count"] == 4
    code, out, _err = invoke(base, cwd=CORPUS)
    assert "predicted for helper_print.py:Net: 4 graphs, 1 break, 0 recompiles" in out
    assert "prediction matches the run" in out


def test_spec_config_limit_dynamic_false_and_marked_dims(tmp_path: Path) -> None:
    src = HEAD + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x):
                return x * 2
        """)
    variants = [{"inputs": [_t(b, 4)]} for b in (3, 4, 5, 6)]
    spec: dict[str, Any] = {"model": "m.py:M", "inputs": [_t(2, 4)], "variants": variants}
    assert _predict(tmp_path, src, spec).recompiles == 1  # automatic dynamic
    spec["compile"] = {"dynamic": False}
    assert _predict(tmp_path, src, spec).recompiles == 4  # every batch size
    spec["config"] = {"recompile_limit": 2}
    p = _predict(tmp_path, src, spec)
    assert p.recompiles == 2 and p.hit_recompile_limit
    del spec["compile"], spec["config"]
    spec["dynamic"] = [{"input": 0, "dims": [0]}]
    assert _predict(tmp_path, src, spec).recompiles == 0  # marked dynamic from the start


def _cl303_examples() -> list[Any]:
    from compilelint.catalog import load_catalog

    return [
        pytest.param(ex, id=f"CL303-{ex.kind}-{i}")
        for i, ex in enumerate(load_catalog().rules["CL303"].examples)
    ]


def _example_project(tmp_path: Path, code: str) -> None:
    (tmp_path / "example.py").write_text(code, encoding="utf-8")
    spec = next(ln[len("# spec: ") :] for ln in code.splitlines() if ln.startswith("# spec: "))
    (tmp_path / "spec.json").write_text(spec, encoding="utf-8")


@pytest.mark.parametrize("example", _cl303_examples())
def test_predicted_recompiles_are_findings_under_static_only(tmp_path: Path, example) -> None:  # type: ignore[no-untyped-def]
    """CL303: with --static-only each predicted recompile is a finding at the guard's line."""
    _example_project(tmp_path, example.code)
    args = ["check", "example.py", "--input-spec", "spec.json", "--static-only"]
    code, out, _err = invoke([*args, "--format", "json", "--no-cache"], cwd=tmp_path)
    data = json.loads(out)
    lines = [f["line"] for f in data["findings"] if f["rule"] == "CL303"]
    want = [i for i, ln in enumerate(example.code.splitlines(), 1) if "error: CL303" in ln]
    assert lines == want
    assert data["prediction"]["recompiles"] == len(want)


@pytest.mark.torch
@pytest.mark.parametrize("example", _cl303_examples())
def test_cl303_examples_match_torch(tmp_path: Path, example) -> None:  # type: ignore[no-untyped-def]
    """The CL303 examples' verdicts against torch: the dynamic stage observes a recompile
    exactly where the invalid example predicts one; in the normal run the observation (CL003,
    confirmed) replaces the prediction."""
    pytest.importorskip("torch")
    _example_project(tmp_path, example.code)
    args = ["check", "example.py", "--input-spec", "spec.json", "--no-cache", "--no-coverage"]
    code, out, _err = invoke([*args, "--format", "json", "--fail-on", "never"], cwd=tmp_path)
    data = json.loads(out)
    want = [i for i, ln in enumerate(example.code.splitlines(), 1) if "error: CL303" in ln]
    assert data["dynamic"]["recompile_count"] == len(want)
    assert not [f for f in data["findings"] if f["rule"] == "CL303" and f["stage"] == "static"]
    observed = sorted(f["line"] for f in data["findings"] if f["rule"] in ("CL003", "CL303"))
    assert observed == want


def test_call_sites_that_differ_on_none_recompile_a_frame_of_its_own(tmp_path: Path) -> None:
    """A block compiled as a frame of its own (its caller breaks in a loop, so dynamo skips the
    caller's frame) called without a cache by one site and with one by another: guarded on
    ``cache is None`` where it is first read (torch 2.13: one recompile over two calls). The
    same class inlined into one frame (no break) does not recompile."""
    body = """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 8)

            def forward(self, x, cache=None):
                h = self.lin(x)
                if cache is not None:
                    h = h + cache
                return h

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.ModuleList([Block() for _ in range(2)])
                self.dec = nn.ModuleList([Block() for _ in range(2)])

            def forward(self, x):
                for blk in self.enc:
                    BREAK
                    x = blk(x)
                mem = x * 2
                for blk in self.dec:
                    x = blk(x, cache=mem)
                return x
        """
    spec = {"model": "m.py:M", "inputs": [_t(2, 8)], "calls": 2}
    p = _predict(tmp_path, HEAD + textwrap.dedent(body).replace("BREAK", 'print("enc")'), spec)
    (site,) = p.recompile_sites
    assert (site.line, site.guard, site.count) == (12, "cache is None", 1)
    p = _predict(tmp_path, HEAD + textwrap.dedent(body).replace("BREAK", "x = x + 1"), spec)
    assert p.recompiles == 0 and not p.recompile_sites


def test_keywords_through_a_decorator_wrapper_and_a_flag_flipped_in_traced_code(
    tmp_path: Path,
) -> None:
    src = HEAD + textwrap.dedent("""
        import functools

        def checked(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper

        class State:
            def __init__(self):
                self.ready = False

        class Mixer(nn.Module):
            @checked
            def forward(self, x, gate=None):
                return x if gate is None else x * gate

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.mixers = nn.ModuleList([Mixer() for _ in range(2)])
                self.state = State()

            def forward(self, x, g):
                if not self.state.ready:
                    x = x + 1
                    self.state.ready = True
                for i, m in enumerate(self.mixers):
                    print(i)
                    x = m(x, gate=g) if i == 0 else m(x)
                return x
        """)
    p = _predict(tmp_path, src, {"model": "m.py:M", "inputs": [_t(2, 8), _t(2, 8)], "calls": 3})
    got = {(s.line, s.guard, s.count) for s in p.recompile_sites}
    assert got == {(10, "len(kwargs) == N", 1), (29, "self.state.ready == False", 1)}
    # one call: nothing flips before a second call
    p = _predict(tmp_path, src, {"model": "m.py:M", "inputs": [_t(2, 8), _t(2, 8)], "calls": 1})
    assert {s.line for s in p.recompile_sites} == {10}


@pytest.mark.torch
@pytest.mark.parametrize("name", ["enc_dec_cache", "mask_sites_loop", "lazy_kv_cache"])
def test_call_site_and_state_guards_match_torch(name: str) -> None:
    """Recompile lines and counts of the call-site and object-state guards, against torch."""
    pytest.importorskip("torch")
    from compilelint.dynamic.api import run_dynamic

    code, out, _err = invoke(
        ["check", f"{name}.py", "--input-spec", f"{name}.json", "--static-only", "--format",
         "json", "--no-cache", "--fail-on", "never"],
        cwd=CORPUS,
    )  # fmt: skip
    pred = json.loads(out)["prediction"]
    block = run_dynamic(str(CORPUS / f"{name}.json"), cwd=str(CORPUS), cover=()).block
    assert block["error"] is None
    assert pred["recompiles"] == block["recompile_count"]
    seen = {r["line"] for r in block["recompiles"] if not r.get("invalidated")}
    assert {r["line"] for r in pred["recompile_sites"]} == seen
