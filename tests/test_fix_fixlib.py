"""Issue 22, branch fixlib: library modules reached through attributes and calls, NumPy in
forward, standard-library calls on constants.

Text checks (VALID: the rewrite; INVALID: what must stay as it is) and, marked ``torch``, the
fixed models against the originals on the installed torch: fewer observed breaks, the same
outputs and parameter gradients, compiled and uncompiled.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from compilelint.config import Config
from compilelint.fix.codemods import all_codemods
from compilelint.fix.context import FixContext
from compilelint.fix.engine import _transform, run_fixes
from compilelint.fix.foreign import foreign_attrs_added
from compilelint.fix.library_calls import library_call_fix
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding

from .fix_modules import load_module


def _finding(ctx: FixContext, call: cst.Call, rule: str, package: str | None = None) -> Finding:
    line, col, end_line, end_col = ctx.span(call)
    return Finding(
        rule=rule,
        name="t",
        path="m.py",
        line=line,
        col=col,
        end_line=end_line,
        end_col=end_col,
        severity="error",
        message="",
        fix="",
        package=package,
    )


def _call(ctx: FixContext, starts: str) -> cst.Call:
    for node in ctx._positions:
        if isinstance(node, cst.Call) and ctx.code(node).strip().startswith(starts):
            return node
    raise AssertionError(starts)


def _apply(code: str, starts: str, rule: str, package: str | None = None) -> tuple[Any, str]:
    module = cst.parse_module(code)
    ctx = FixContext(module, path="m.py")
    f = _finding(ctx, _call(ctx, starts), rule, package)
    res = library_call_fix(ctx, f) if package else all_codemods()[rule].fix(ctx, f)
    if isinstance(res, (Rewrite, Proposal)):
        assert foreign_attrs_added(ctx, res) is None
        return res, _transform(module, [res], True).code
    return res, code


# ---------------------------------------------------------------- library calls
FLOW = textwrap.dedent(
    """\
    import torch
    import zuko
    from torch import nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(5, 5)
            self.flow = zuko.flows.MAF(3, 5, transforms=2, hidden_features=[16, 16])

        def forward(self, theta, x):
            c = self.embed(x)
            log_p = self.flow(c).log_prob(theta)
            return -log_p.mean()
    """
)
# INVALID: a lambda cannot read `super()`
SUPER = FLOW.replace(
    "self.flow(c).log_prob(theta)", "super().__getattr__('flow')(c).log_prob(theta)"
)


def test_a_library_call_through_a_call_chain_runs_eagerly_as_a_whole() -> None:
    res, out = _apply(FLOW, "self.flow(c).log_prob", "CL101", "zuko==1.6.0")
    assert isinstance(res, Rewrite)
    assert "log_p = _run_eager(lambda: self.flow(c).log_prob(theta))" in out
    assert out.count("def _run_eager") == 1


def test_a_chain_that_reads_super_is_not_put_in_a_lambda() -> None:
    res, out = _apply(SUPER, "super().__getattr__('flow')(c).log_prob", "CL101", "zuko==1.6.0")
    assert isinstance(res, NoFix) and "super()" in res.reason and out == SUPER


AUG = textwrap.dedent(
    """\
    import kornia.augmentation as K
    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.aug = K.AugmentationSequential(K.ColorJiggle(0.1, 0.1, 0.1, 0.05, p=1.0))
            self.stem = nn.Conv2d(3, 4, 3)

        def forward(self, images):
            images = self.aug(images)
            return self.stem(images).mean()
    """
)


def test_a_library_module_on_self_goes_through_the_helper() -> None:
    res, out = _apply(AUG, "self.aug(", "CL102", "kornia==0.9.0")
    assert isinstance(res, Rewrite)
    assert "images = _run_eager(self.aug, images)" in out
    assert "capture_scalar_outputs" in res.title  # the config remedy is named


@pytest.mark.torch
def test_library_chain_fixed_breaks_less_and_keeps_the_flow_gradients(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("zuko")
    from torch._dynamo.utils import counters

    _, fixed = _apply(FLOW, "self.flow(c).log_prob", "CL101", "zuko==1.6.0")
    (tmp_path / "a.py").write_text(FLOW, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "lib"), load_module(tmp_path / "b.py", "lib")
    g = torch.Generator().manual_seed(0)
    theta, x = torch.randn(8, 3, generator=g), torch.randn(8, 5, generator=g)

    def run(mod: Any, compiled: bool) -> tuple[Any, list[Any], int]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        counters.clear()
        fn = torch.compile(model, backend="eager") if compiled else model
        out = fn(theta, x)
        out.backward()
        grads = [p.grad for p in model.parameters()]
        return out.detach(), grads, sum(counters["graph_break"].values())

    want = run(a, False)
    _, _, before = run(a, True)
    for compiled in (False, True):
        out, grads, n = run(b, compiled)
        torch.testing.assert_close(out, want[0])
        assert all(gr is not None for gr in grads)  # the flow's own parameters still train
        torch.testing.assert_close(grads, want[1])
    assert n == 1 < before  # one break at the disabled helper's call


# ---------------------------------------------------------------- NumPy in forward
GCN = textwrap.dedent(
    """\
    import numpy as np
    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, edge_index):
            n = x.shape[0]
            src, dst = edge_index
            deg = np.bincount(dst.cpu().numpy(), minlength=n)
            deg = torch.from_numpy(deg).to(x.dtype).clamp(min=1)
            msg = self.lin(x)[src] * (deg[src] * deg[dst]).rsqrt()[:, None]
            return torch.zeros_like(x).index_add(0, dst, msg)
    """
)
# INVALID: the counts are used as a NumPy array (`.astype`): no tensor means the same
GCN_NUMPY_USE = GCN.replace(
    "deg = torch.from_numpy(deg).to(x.dtype)", "deg = torch.from_numpy(deg.astype(np.float32))"
)
# INVALID: no `minlength`: the size is the data's
GCN_NO_MINLENGTH = GCN.replace(", minlength=n)", ")")


def test_np_bincount_becomes_a_static_size_torch_count_without_numpy_names() -> None:
    res, out = _apply(GCN, "np.bincount", "CL110")
    assert isinstance(res, Rewrite)
    assert "np.bincount" not in out and "np." not in out.split("def forward")[1]
    assert "torch.zeros(n, dtype=torch.long, device=dst.cpu().device).index_add_(" in out
    assert "deg = deg.to(x.dtype).clamp(min=1)" in out


@pytest.mark.parametrize(
    ("code", "why"), [(GCN_NUMPY_USE, "astype"), (GCN_NO_MINLENGTH, "minlength")]
)
def test_np_bincount_left_alone_when_a_tensor_would_not_mean_the_same(code: str, why: str) -> None:
    res, out = _apply(code, "np.bincount", "CL110")
    assert isinstance(res, NoFix) and why in res.reason and out == code


def test_np_unique_is_only_proposed_since_torch_unique_breaks_too() -> None:
    code = GCN.replace(
        "deg = np.bincount(dst.cpu().numpy(), minlength=n)",
        "_, deg = np.unique(dst.cpu().numpy(), return_counts=True)",
    )
    res, _ = _apply(code, "np.unique", "CL110")
    assert isinstance(res, Proposal) and "capture_dynamic_output_shape_ops" in res.reason


def test_a_rewrite_that_reads_a_missing_numpy_attribute_is_refused() -> None:
    """The class of bug behind "module 'numpy' has no attribute ...": any rewrite that would
    add ``np.<attr>`` NumPy lacks is refused, whatever codemod made it."""
    module = cst.parse_module("import numpy as np\nimport contextlib\n\ndef f(x):\n    return x\n")
    ctx = FixContext(module, path="m.py")
    ret = next(n for n in ctx._positions if isinstance(n, cst.Return))
    bad = Rewrite("t", [(ret, _small("return np.device"))])
    ok = Rewrite("t", [(ret, _small("return np.zeros(3)"))])
    cm = Rewrite(
        "t",
        [(ret, _small("return contextlib.nullcontext()"))],
        imports=("contextlib",),
    )
    assert foreign_attrs_added(ctx, bad) == "np.device"
    assert foreign_attrs_added(ctx, ok) is None
    assert foreign_attrs_added(ctx, cm) is None


@pytest.mark.torch
def test_np_bincount_fixed_has_no_break_and_the_same_outputs(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch._dynamo.utils import counters

    _, fixed = _apply(GCN, "np.bincount", "CL110")
    (tmp_path / "a.py").write_text(GCN, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "np"), load_module(tmp_path / "b.py", "np")
    g = torch.Generator().manual_seed(0)
    x, ei = torch.randn(6, 8, generator=g), torch.randint(0, 6, (2, 14), generator=g)

    def run(mod: Any, compiled: bool) -> tuple[Any, list[Any], int]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        counters.clear()
        fn = torch.compile(model, backend="eager") if compiled else model
        out = fn(x, ei)
        out.sum().backward()
        return (
            out.detach(),
            [p.grad for p in model.parameters()],
            sum(counters["graph_break"].values()),
        )

    want = run(a, False)
    assert run(a, True)[2] >= 1
    for compiled in (False, True):
        out, grads, n = run(b, compiled)
        torch.testing.assert_close(out, want[0])
        torch.testing.assert_close(grads, want[1])
    assert n == 0


# ---------------------------------------------------------------- stdlib on constants
CRC = textwrap.dedent(
    """\
    import zlib

    import torch
    from torch import nn


    class Model(nn.Module):
        def __init__(self, name="user_id", buckets=64):
            super().__init__()
            self.name = name
            self.buckets = buckets
            self.emb = nn.Embedding(buckets + 50, 8)

        def forward(self, ids):
            offset = zlib.crc32(self.name.encode()) % self.buckets
            return self.emb(ids + offset).sum(1)
    """
)
# INVALID: the hashed attribute changes after __init__: not a constant
CRC_MUTATED = CRC.replace(
    "        offset = zlib", "        self.name = self.name + '_'\n        offset = zlib"
)
assert CRC_MUTATED != CRC
# INVALID: a seeded generator alone has state (its draws advance): never stored
RNG = CRC.replace("import zlib", "import random").replace(
    "offset = zlib.crc32(self.name.encode()) % self.buckets",
    "rng = random.Random(self.buckets)\n        offset = rng.randint(0, 9)",
)
assert "random.Random" in RNG


def _small(code: str) -> cst.BaseSmallStatement:
    """The one small statement of the line ``code``."""
    stmt = cst.parse_statement(code)
    assert isinstance(stmt, cst.SimpleStatementLine)
    return stmt.body[0]


def _fix_file(tmp_path: Path, code: str) -> str:
    path = tmp_path / "crc.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL205",), cache=False), unsafe=True)
    return next((c.after.decode() for c in res.changes), code)


def test_a_stdlib_call_on_constants_is_computed_once_in_init(tmp_path: Path) -> None:
    out = _fix_file(tmp_path, CRC)
    assert "self._const_crc32 = zlib.crc32(self.name.encode()) % self.buckets" in out
    assert "offset = self._const_crc32" in out
    assert out.index("self._const_crc32 =") < out.index("def forward")


@pytest.mark.parametrize("code", [CRC_MUTATED, RNG])
def test_a_stdlib_call_on_changing_values_is_not_hoisted(tmp_path: Path, code: str) -> None:
    assert "_const_" not in _fix_file(tmp_path, code)


@pytest.mark.torch
def test_hoisted_stdlib_call_removes_the_break_and_keeps_an_int(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from torch._dynamo.utils import counters

    fixed = _fix_file(tmp_path, CRC)
    (tmp_path / "a.py").write_text(CRC, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "crc"), load_module(tmp_path / "b.py", "crc")
    ids = torch.randint(0, 50, (4, 6), generator=torch.Generator().manual_seed(0))

    def run(mod: Any, compiled: bool) -> tuple[Any, int, Any]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        counters.clear()
        fn = torch.compile(model, backend="eager") if compiled else model
        return fn(ids).detach(), sum(counters["graph_break"].values()), model

    want, _, _ = run(a, False)
    assert run(a, True)[1] >= 1
    for compiled in (False, True):
        out, n, model = run(b, compiled)
        torch.testing.assert_close(out, want)
        assert type(model._const_crc32) is int
    assert n == 0
