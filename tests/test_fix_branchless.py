"""Tensor-dependent branches of any body, early exits of bounded loops, and ``while`` loops
with a bound (issue 22, branch fixbranch; ``fix/codemods/branchless.py``).

Each rewrite is checked twice: the text the codemod writes (static, fast), and, marked
``torch``, the fixed model against the original on the installed torch, with inputs that take
the branch (or fire the exit) and inputs that do not: no graph break with ``fullgraph``,
outputs and gradients equal, compiled and uncompiled. What is declined or only proposed is
checked for its reason, and on torch for the difference that makes it unsafe.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import EngineResult

from .fix_modules import fix_result, fixed_text, load_module

HEAD = "import logging\nimport warnings\n\nimport torch\nfrom torch import nn\n\n"
HEAD += "logger = logging.getLogger(__name__)\n\n\n"

COMPOUND = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, clip=0.5):
            super().__init__()
            self.head = nn.Linear(4, 4)
            self.clip = clip
            self.n_clipped = 0

        def forward(self, x):
            loss = self.head(x).pow(2)
            if (loss > self.clip).any():
                logger.info("clipping %d values", int((loss > self.clip).sum()))
                self.n_clipped += 1
                loss = loss.clamp(max=self.clip)
            return loss.mean()
    """
)

ELSE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, max_norm=2.0):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.max_norm = max_norm
            self.shift = True

        def forward(self, x):
            h = self.fc(x)
            norm = h.norm(dim=-1, keepdim=True)
            if norm.mean() > self.max_norm:
                scale = self.max_norm / norm.clamp_min(1e-6)
                h = h * scale
                h += 0.1
                if self.shift:
                    h = h - 0.05
                if h.sum() > 0:
                    h = h * 0.5
                warnings.warn("rescaled")
                temperature = norm.mean() / self.max_norm
            else:
                scale = torch.ones_like(norm)
                temperature = torch.ones((), dtype=h.dtype)
            return h / temperature, scale
    """
)

EXIT = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, tol=1e-4, max_iter=30):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.tol = tol
            self.max_iter = max_iter

        def forward(self, x):
            z = torch.zeros_like(x)
            for _ in range(self.max_iter):
                z_next = torch.tanh(self.lin(z) * 0.3 + x)
                delta = z_next - z
                z = z_next
                if (delta.abs() < self.tol).all():
                    break
            return z
    """
)

EXIT_RETURN = HEAD + textwrap.dedent(
    """\
    def newton(v, iters, eps):
        y = torch.ones_like(v)
        for i in range(iters):
            y_new = y * (1.5 - 0.5 * v * y * y)
            err = (y_new - y).abs().max()
            y = y_new
            if err < eps:
                return y
        return y


    class Model(nn.Module):
        def __init__(self, eps=1e-3):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.eps = eps

        def forward(self, x):
            h = self.fc(x)
            return h * newton(h.pow(2).mean(-1, keepdim=True) * 0.5 + 0.5, 8, self.eps)
    """
)

GROWS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, eos_bias=3.0):
            super().__init__()
            self.embed = nn.Embedding(10, 8)
            self.head = nn.Linear(8, 10)
            with torch.no_grad():
                self.head.bias[0] = eos_bias

        def forward(self, ids):
            for _ in range(5):
                nxt = self.head(self.embed(ids).mean(1)).argmax(-1, keepdim=True)
                ids = torch.cat([ids, nxt], dim=1)
                if (nxt == 0).all():
                    break
            return ids
    """
)

WHILE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(4, 1)

        def forward(self, x):
            t = self.score(x).squeeze(-1)
            total = torch.zeros(())
            i = 0
            while i < t.size(0) and t[i] > 0:
                total = total + t[i]
                i += 1
            return total
    """
)

CHAIN = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            if h.mean() > 0.2:
                h = h + 1
            elif h.mean() < -0.2:
                logger.debug("negative")
                h = h - 1
            else:
                h = h * 2
            return h
    """
)

MIXED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, force=False):
            super().__init__()
            self.gate = nn.Linear(4, 1)
            self.branch = nn.Linear(4, 4)
            self.force = force

        def forward(self, x):
            g = torch.sigmoid(self.gate(x))
            y = x
            if self.force or g.mean() > 0.5:
                y = x + self.branch(x) * g
            return y
    """
)


def _fix(tmp_path: Path, src: str) -> tuple[EngineResult, str]:
    res = fix_result(tmp_path, src, ("CL101",), name="m.py")
    return res, fixed_text(res, src)


def _patched(tmp_path: Path, src: str) -> str:
    """The source with the first proposal applied (as a user applies its diff by hand)."""
    from compilelint.api import check
    from compilelint.catalog import load_catalog
    from compilelint.fix.engine import Proposal, _transform, plan_file

    path = tmp_path / "p.py"
    path.write_text(src, encoding="utf-8")
    report = check([str(path)], Config(select=("CL101",), cache=False))
    found = [f for f in report.findings if f.rule == "CL101"]
    plan = plan_file(str(path), str(path), src.encode(), found, load_catalog(), None)
    assert plan is not None
    props = [p.result for p in plan.planned if isinstance(p.result, Proposal)]
    return _transform(plan.module, props[:1], plan.torch_bound).code


# ------------------------------------------------------------------------------ text
def test_compound_body_reports_counter_and_repair(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, COMPOUND)
    assert [r.status for r in res.records] == ["applied"]
    assert "loss = loss.clamp(max=self.clip)\n" in after  # idempotent: applied always
    assert "if not torch.compiler.is_compiling():\n            if cond:\n" in after
    assert "self.n_clipped += 1" in after
    assert "counts eager calls only" in res.records[0].title


def test_else_nested_flag_and_tensor_if(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, ELSE)
    assert {r.status for r in res.records} == {"applied"}, [r.reason for r in res.records]
    assert "h = torch.where(cond, h * scale, h)" in after
    assert "if self.shift:\n            h = torch.where(cond, h - 0.05, h)" in after
    assert "torch.logical_and(cond, cond_2)" in after
    assert "scale = torch.where(cond_4, torch.ones_like(norm), scale)" in after


def test_counter_the_model_reads_is_declined(tmp_path: Path) -> None:
    src = COMPOUND.replace("return loss.mean()", "return loss.mean() * self.n_clipped")
    res, after = _fix(tmp_path, src)
    assert after == src
    assert "holds a Python value the model reads" in res.records[0].reason


def test_in_place_call_in_body_is_named(tmp_path: Path) -> None:
    src = COMPOUND.replace("loss = loss.clamp(max=self.clip)", "loss.clamp_(max=self.clip)")
    res, after = _fix(tmp_path, src)
    assert after == src
    assert "`loss.clamp_(max=self.clip)` has no branchless form" in res.records[0].reason


def test_early_exit_becomes_stop_flag(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, EXIT)
    assert [r.status for r in res.records] == ["applied"]
    assert "break" not in after
    assert "stopped = torch.zeros((), dtype=torch.bool)" in after
    assert "z = torch.where(active, z_next, z)" in after
    assert "always runs all its iterations (`range(self.max_iter)`)" in res.records[0].title


def test_early_return_becomes_stop_flag(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, EXIT_RETURN)
    assert [r.status for r in res.records] == ["applied"]
    assert after.count("return y") == 1


def test_growing_state_is_only_proposed(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, GROWS)
    assert after == GROWS
    assert [r.status for r in res.records] == ["proposed"]
    assert "grows the state every iteration" in res.records[0].reason


def test_while_with_size_bound(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, WHILE)
    assert [r.status for r in res.records] == ["applied"]
    assert "for i in range(t.size(0)):" in after
    assert "active = torch.logical_and(active, t[i] > 0)" in after


def test_while_without_bound_gives_the_recipe(tmp_path: Path) -> None:
    src = WHILE.replace("i < t.size(0) and t[i] > 0", "t[i] > 0")
    res, after = _fix(tmp_path, src)
    assert after == src
    assert "by hand: give the loop a bound" in res.records[0].reason


def test_mixed_flag_keeps_the_flag_and_proposes_for_gradients(tmp_path: Path) -> None:
    res, _ = _fix(tmp_path, MIXED)
    assert [r.status for r in res.records] == ["proposed"]
    assert "if self.force:" in res.records[0].patch
    assert "zero gradients where eager gives them none (`None`)" in res.records[0].reason


# ------------------------------------------------------------------------------ torch
def _check(
    tmp_path: Path,
    src: str,
    after: str,
    make: Callable[[Any], list[Any]],
    kwargs: dict[str, Any] | None = None,
    prep: Callable[[Any], None] | None = None,
) -> None:
    torch = pytest.importorskip("torch")
    (tmp_path / "orig.py").write_text(src, encoding="utf-8")
    (tmp_path / "fixed.py").write_text(after, encoding="utf-8")
    orig_mod = load_module(tmp_path / "orig.py", "orig")
    fixed_mod = load_module(tmp_path / "fixed.py")
    torch.manual_seed(0)
    orig = orig_mod.Model(**(kwargs or {}))
    fixed = fixed_mod.Model(**(kwargs or {}))
    if prep is not None:
        prep(orig)
    fixed.load_state_dict(orig.state_dict())
    args = make(torch)
    with warnings_off():
        a, b = orig(*args), fixed(*args)
    torch.testing.assert_close(a, b)
    outs_a = a if isinstance(a, tuple) else (a,)
    outs_b = b if isinstance(b, tuple) else (b,)
    if any(o.requires_grad for o in outs_a):
        la = sum(o.float().square().sum() for o in outs_a)
        lb = sum(o.float().square().sum() for o in outs_b)
        ga = torch.autograd.grad(la, list(orig.parameters()), allow_unused=True)
        gb = torch.autograd.grad(lb, list(fixed.parameters()), allow_unused=True)
        for u, v in zip(ga, gb, strict=True):
            if u is None:
                assert v is None or not v.any()
            else:
                torch.testing.assert_close(u, v)
    torch._dynamo.reset()
    ex = torch._dynamo.explain(fixed)(*args)
    assert ex.graph_break_count == 0 and not ex.break_reasons  # see tests/torch_checks.py
    with warnings_off():
        c = torch.compile(fixed, backend="eager", fullgraph=True)(*args)
    torch.testing.assert_close(c, a)
    torch._dynamo.reset()


def warnings_off() -> Any:
    import warnings

    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter("ignore")

    class _Ctx:
        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: Any) -> None:
            w.__exit__(*exc)

    return _Ctx()


@pytest.mark.torch
@pytest.mark.parametrize("clip", [0.05, 100.0], ids=["taken", "not-taken"])
def test_valid_compound_body_on_torch(tmp_path: Path, clip: float) -> None:
    _, after = _fix(tmp_path, COMPOUND)
    _check(tmp_path, COMPOUND, after, lambda t: [t.randn(5, 4)], {"clip": clip})


@pytest.mark.torch
@pytest.mark.parametrize("max_norm", [0.01, 100.0], ids=["if", "else"])
def test_valid_else_and_nested_on_torch(tmp_path: Path, max_norm: float) -> None:
    _, after = _fix(tmp_path, ELSE)
    _check(tmp_path, ELSE, after, lambda t: [t.randn(5, 4)], {"max_norm": max_norm})


@pytest.mark.torch
@pytest.mark.parametrize("tol", [1e-3, 0.0], ids=["exit-fires", "runs-to-bound"])
def test_valid_stop_flag_on_torch(tmp_path: Path, tol: float) -> None:
    _, after = _fix(tmp_path, EXIT)
    _check(tmp_path, EXIT, after, lambda t: [t.randn(3, 4)], {"tol": tol})


@pytest.mark.torch
@pytest.mark.parametrize("eps", [1e-3, 0.0], ids=["exit-fires", "runs-to-bound"])
def test_valid_early_return_on_torch(tmp_path: Path, eps: float) -> None:
    _, after = _fix(tmp_path, EXIT_RETURN)
    _check(tmp_path, EXIT_RETURN, after, lambda t: [t.randn(3, 4)], {"eps": eps})


@pytest.mark.torch
@pytest.mark.parametrize("row", [2, 6], ids=["stops-early", "runs-through"])
def test_valid_while_with_bound_on_torch(tmp_path: Path, row: int) -> None:
    _, after = _fix(tmp_path, WHILE)

    def prep(m: Any) -> None:
        m.score.weight.data.fill_(1.0)
        m.score.bias.data.fill_(0.0)

    def make(t: Any) -> list[Any]:
        x = t.rand(6, 4) + 0.1
        if row < 6:
            x[row] = -x[row]  # the leading run of positive scores ends at `row`
        return [x]

    _check(tmp_path, WHILE, after, make, prep=prep)


@pytest.mark.torch
@pytest.mark.parametrize("shift", [3.0, -3.0, 0.0], ids=["if", "elif", "else"])
def test_valid_elif_chain_on_torch(tmp_path: Path, shift: float) -> None:
    res, after = _fix(tmp_path, CHAIN)
    assert "elif" not in after

    def prep(m: Any) -> None:
        m.fc.weight.data.mul_(0.01)
        m.fc.bias.data.fill_(shift)

    _check(tmp_path, CHAIN, after, lambda t: [t.randn(5, 4)], prep=prep)


@pytest.mark.torch
def test_invalid_dropping_a_growing_exit_changes_the_output(tmp_path: Path) -> None:
    """What is only proposed: without the exit the loop appends tokens eager never produced."""
    torch = pytest.importorskip("torch")
    patched = _patched(tmp_path, GROWS)
    (tmp_path / "orig.py").write_text(GROWS, encoding="utf-8")
    (tmp_path / "dropped.py").write_text(patched, encoding="utf-8")
    torch.manual_seed(0)
    orig = load_module(tmp_path / "orig.py", "orig").Model()
    dropped = load_module(tmp_path / "dropped.py").Model()
    dropped.load_state_dict(orig.state_dict())
    ids = torch.randint(1, 10, (2, 3))
    a, b = orig(ids), dropped(ids)
    assert a.shape[1] < b.shape[1]  # the exit fired in eager; the proposal runs all 5 steps


@pytest.mark.torch
def test_invalid_mixed_flag_gives_zero_not_none_gradients(tmp_path: Path) -> None:
    """The proposal's reason on torch: outputs equal, but the branch's parameters get a zero
    gradient where eager gives them none."""
    torch = pytest.importorskip("torch")
    patched = _patched(tmp_path, MIXED)
    (tmp_path / "orig.py").write_text(MIXED, encoding="utf-8")
    (tmp_path / "sel.py").write_text(patched, encoding="utf-8")
    torch.manual_seed(0)
    orig = load_module(tmp_path / "orig.py", "orig").Model()
    sel = load_module(tmp_path / "sel.py").Model()
    sel.load_state_dict(orig.state_dict())
    with torch.no_grad():
        orig.gate.bias.fill_(-10.0)  # the gate stays closed: eager skips `self.branch`
        sel.gate.bias.fill_(-10.0)
    x = torch.randn(4, 4, requires_grad=True)
    a, b = orig(x), sel(x)
    torch.testing.assert_close(a, b)
    a.sum().backward()
    b.sum().backward()
    assert orig.branch.weight.grad is None
    assert sel.branch.weight.grad is not None and not sel.branch.weight.grad.any()
