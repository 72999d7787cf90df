"""assert_compiles on live models with the installed torch, and the pytest plugin (pytester)."""

from __future__ import annotations

import importlib.metadata
import logging
import sys
import textwrap
from pathlib import Path

import pytest

import compilelint

from .report_blocks import extra_block

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.torch
HERE = Path(__file__).resolve()


@pytest.fixture(autouse=True)
def _need_torch() -> None:
    pytest.importorskip("torch")


def line_of(text: str) -> int:
    return next(i for i, ln in enumerate(HERE.read_text().splitlines(), 1) if text in ln)


def models():  # type: ignore[no-untyped-def]
    import torch

    class Branchy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(8, 8)

        def forward(self, x):  # type: ignore[no-untyped-def]
            x = self.lin(x)
            if x.sum() > 0:  # the break under test
                x = x * 2
            return x.relu()

    class Clean(torch.nn.Module):
        def forward(self, x, scale=None):  # type: ignore[no-untyped-def]
            out = torch.where(x.sum() > 0, x * 2, x).relu()
            return out if scale is None else out * scale

    return Branchy(), Clean()


def scaled(x, scale):  # type: ignore[no-untyped-def]
    return x * scale  # the recompile under test


def test_graph_break_raises_with_the_ranked_report() -> None:
    import torch

    branchy, _ = models()
    with pytest.raises(AssertionError) as info:
        compilelint.assert_compiles(branchy, torch.randn(2, 8))
    msg = str(info.value)
    first = msg.splitlines()[0]
    assert first == (
        "assert_compiles(Branchy): graph-break budget exceeded: the dynamic run observed 1 "
        "graph break, max-graph-breaks allows 0"
    )
    rel = HERE.relative_to(Path.cwd()).as_posix() if HERE.is_relative_to(Path.cwd()) else ""
    assert f"{rel}:{line_of('# the break under test')}:" in msg
    assert "CL101" in msg and "GB0170 Data-dependent branching" in msg
    assert "= hint: " in msg and "torch.cond" in msg
    # within budget: the report comes back
    report = compilelint.assert_compiles(branchy, torch.randn(2, 8), max_graph_breaks=1)
    assert extra_block(report, "dynamic")["graph_break_count"] == 1
    assert [f.gb_id for f in report.findings] == ["GB0170"]


def test_clean_model_passes_and_dynamo_is_restored() -> None:
    import torch
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.utils import counters

    _, clean = models()
    counters["compilelint-test"]["mine"] = 3
    before = {k: dict(v) for k, v in counters.items()}
    handlers = list(logging.getLogger("torch.__trace").handlers)
    level = logging.getLogger("torch.__trace").level
    report = compilelint.assert_compiles(clean, torch.randn(2, 8), scale=torch.tensor(2.0))
    assert report.findings == ()
    assert extra_block(report, "dynamic")["graph_count"] == 1
    assert extra_block(report, "dynamic")["graph_break_count"] == 0
    assert logging.getLogger("torch.__trace").handlers == handlers
    assert logging.getLogger("torch.__trace").level == level
    assert {k: dict(v) for k, v in counters.items()} == before  # the caller's counters are kept
    assert _debug_get_cache_entry_list(type(clean).forward.__code__) == []  # reset() ran
    # the model still compiles normally afterwards (no leftover cache entries or backends)
    out = torch.compile(clean, backend="eager")(torch.ones(2, 8))
    assert torch.equal(out, torch.ones(2, 8) * 2)


def test_recompile_through_variants() -> None:
    import torch

    x = torch.randn(2, 8)
    with pytest.raises(AssertionError) as info:
        compilelint.assert_compiles(scaled, x, 2.0, variants=[(x, 3.0)])
    msg = str(info.value)
    assert "recompile budget exceeded: the dynamic run observed 1 recompile" in msg
    assert f":{line_of('# the recompile under test')}:" in msg
    assert "CL003" in msg and "guard `scale == 2.0` failed" in msg
    report = compilelint.assert_compiles(
        scaled, x, 2.0, variants=[((x,), {"scale": 3.0})], max_recompiles=1
    )
    assert extra_block(report, "dynamic")["recompile_count"] == 1
    # no variants: one call, nothing to recompile
    assert compilelint.assert_compiles(scaled, x, 2.0).findings == ()


def test_model_errors_propagate() -> None:
    import torch

    def broken(x):  # type: ignore[no-untyped-def]
        raise ValueError("bad input shape")

    trace_log = logging.getLogger("torch.__trace")
    before = list(trace_log.handlers)
    with pytest.raises(ValueError, match="bad input shape"):
        compilelint.assert_compiles(broken, torch.randn(2))
    assert trace_log.handlers == before  # our capture handler is gone, nothing else touched


def _plugin_args() -> list[str]:
    eps = importlib.metadata.entry_points(group="pytest11")
    installed = any(ep.value == "compilelint.pytest_plugin" for ep in eps)
    return [] if installed else ["-p", "compilelint.pytest_plugin"]


def test_entry_point_is_declared() -> None:
    text = (HERE.parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points.pytest11]\ncompilelint = "compilelint.pytest_plugin"' in text


def test_pytest_plugin_fixture(pytester: pytest.Pytester) -> None:
    source = textwrap.dedent(
        """
            import sys

            import torch


            class Net(torch.nn.Module):
                def forward(self, x):
                    print("side effect")
                    return x + 1


            def test_plugin_is_registered(request):
                assert request.config.pluginmanager.has_plugin("compilelint") or \\
                    request.config.pluginmanager.has_plugin("compilelint.pytest_plugin")


            def test_breaks(compilelint):
                compilelint.assert_compiles(Net(), torch.randn(2))


            def test_budget(compilelint):
                report = compilelint.assert_compiles(Net(), torch.randn(2), max_graph_breaks=1)
                assert report.extra["dynamic"]["graph_break_count"] == 1


            def test_clean(compilelint):
                compilelint.assert_compiles(torch.nn.Linear(2, 2), torch.randn(3, 2),
                                            variants=[(torch.randn(3, 2),)])
            """
    )
    pytester.makepyfile(test_models=source)
    pytester.makeconftest(
        "import sys\n"
        "def pytest_configure(config):\n"
        "    assert 'torch' not in sys.modules, 'plugin load imported torch'\n"
    )
    result = pytester.runpytest_subprocess(*_plugin_args(), "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    out = result.stdout.str()
    written = (pytester.path / "test_models.py").read_text(encoding="utf-8")
    line = next(i for i, ln in enumerate(written.splitlines(), 1) if "print(" in ln)
    assert "assert_compiles(Net): graph-break budget exceeded" in out
    assert f"test_models.py:{line}:9: CL201 [error, confirmed]" in out
    assert "GB0059" in out


def test_plugin_module_does_not_import_torch() -> None:
    import subprocess

    code = "import sys, compilelint.pytest_plugin; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
