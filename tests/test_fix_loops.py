"""``while`` loops whose Python exits bound a counter, in any arrangement: the tensor exits
become a cumulative flag, the Python exits stay (issue 22, branch fixloop;
``fix/codemods/loops.py``).

Checked as the other branch rewrites are (``test_fix_branchless.py``): the text the codemod
writes, and, marked ``torch``, the fixed model against the original on the installed torch
with inputs where a tensor exit fires and inputs where the loop runs to its Python bound (no
graph break with ``fullgraph``, outputs and gradients equal, compiled and uncompiled). A loop
without a bound gets a proposal with a cap, checked on torch for the difference that makes it
unsafe.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import load_module
from .test_fix_branchless import _check, _fix, _patched

HEAD = "import torch\nfrom torch import nn\n\n\n"

# the cap second in the condition, the counter stepped first (a config object holds both)
COND_SECOND = HEAD + textwrap.dedent(
    """\
    class Cfg:
        max_iter = 12


    class Model(nn.Module):
        def __init__(self, tol=1e-5):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.cfg = Cfg()
            self.tol = tol

        def forward(self, x):
            z = torch.zeros_like(x)
            delta = torch.ones(())
            n = 0
            while delta > self.tol and n < self.cfg.max_iter:
                n += 1
                z_next = 0.5 * z + 0.5 * torch.tanh(self.lin(z) + x)
                delta = (z_next - z).abs().max()
                z = z_next
            return z
    """
)

# `while True` with a mixed exit at the end of the body
TRUE_BREAK = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, tol=1e-4, max_iter=8):
            super().__init__()
            self.proj = nn.Linear(4, 4)
            self.tol = tol
            self.max_iter = max_iter

        def forward(self, x):
            z = self.proj(x)
            c = z[:3]
            it = 0
            while True:
                a = torch.cdist(z, c).argmin(dim=1)
                oh = torch.nn.functional.one_hot(a, 3).to(z.dtype)
                new_c = (oh.t() @ z + c) / (oh.sum(0)[:, None] + 1.0)
                shift = (new_c - c).norm(dim=1).max()
                c = new_c
                it += 1
                if shift < self.tol or it >= self.max_iter:
                    break
            return c
    """
)

# a tensor condition, the cap in a Python `break` (an argument's default), a buffer written
# at the counter
EOS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, eos=1):
            super().__init__()
            self.emb = nn.Embedding(6, 4)
            self.cell = nn.GRUCell(4, 4)
            self.out = nn.Linear(4, 6)
            self.eos = eos

        def forward(self, h, max_len=5):
            tok = torch.zeros(h.shape[0], dtype=torch.long)
            tokens = torch.zeros(h.shape[0], max_len, dtype=torch.long)
            score = h.new_zeros(h.shape[0])
            done = torch.zeros(h.shape[0], dtype=torch.bool)
            step = 0
            while not done.all():
                h = self.cell(self.emb(tok), h)
                best, tok = self.out(h).log_softmax(-1).max(-1)
                tok = torch.where(done, torch.zeros_like(tok), tok)
                score = score + torch.where(done, torch.zeros_like(best), best)
                tokens[:, step] = tok
                done = done | (tok == self.eos)
                step += 1
                if step == max_len:
                    break
            return tokens, score
    """
)

# no bound at all: a proposal with a cap
UNBOUNDED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, tol=1e-6):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.tol = tol

        def forward(self, x):
            h = torch.sigmoid(self.lin(x))
            err = torch.ones(())
            while err > self.tol:
                h = h * 0.9
                err = h.abs().max()
            return h
    """
)


def test_counter_second_in_the_condition(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, COND_SECOND)
    assert [r.status for r in res.records] == ["applied"]
    assert "while n < self.cfg.max_iter:" in after
    assert "active = torch.logical_and(active, delta > self.tol)" in after
    assert "z = torch.where(active, z_next, z)" in after


def test_while_true_with_mixed_break(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, TRUE_BREAK)
    assert [r.status for r in res.records] == ["applied"]
    assert "if it >= self.max_iter:" in after
    assert "torch.logical_not(shift < self.tol)" in after


def test_tensor_condition_with_python_break(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, EOS)
    assert [r.status for r in res.records] == ["applied"]
    assert "while True:" in after and "if step == max_len:" in after
    assert "tokens[:, step] = torch.where(active, tok, tokens[:, step])" in after


def test_counter_read_after_the_loop_is_declined(tmp_path: Path) -> None:
    src = TRUE_BREAK.replace("return c", "return c, it")
    res, after = _fix(tmp_path, src)
    assert after == src
    assert "`it` is read after the loop" in res.records[0].reason


def test_unbounded_loop_is_proposed_with_a_cap(tmp_path: Path) -> None:
    res, after = _fix(tmp_path, UNBOUNDED)
    assert after == UNBOUNDED
    assert [r.status for r in res.records] == ["proposed"]
    assert "while it < 100:" in res.records[0].patch
    assert "only when eager stops within 100 iterations" in res.records[0].reason


@pytest.mark.torch
@pytest.mark.parametrize("tol", [1e-2, 0.0], ids=["exit-fires", "runs-to-bound"])
def test_valid_counter_second_on_torch(tmp_path: Path, tol: float) -> None:
    _, after = _fix(tmp_path, COND_SECOND)
    _check(tmp_path, COND_SECOND, after, lambda t: [t.randn(3, 4)], {"tol": tol})


@pytest.mark.torch
@pytest.mark.parametrize("tol", [1e9, 0.0], ids=["exit-fires", "runs-to-bound"])
def test_valid_while_true_break_on_torch(tmp_path: Path, tol: float) -> None:
    _, after = _fix(tmp_path, TRUE_BREAK)
    _check(tmp_path, TRUE_BREAK, after, lambda t: [t.randn(10, 4)], {"tol": tol})


@pytest.mark.torch
@pytest.mark.parametrize("eos", [1, 99], ids=["all-finish-early", "runs-to-max-len"])
def test_valid_eos_loop_on_torch(tmp_path: Path, eos: int) -> None:
    _, after = _fix(tmp_path, EOS)

    def prep(m: Any) -> None:
        if eos == 1:  # every row emits token 1 at the second step
            m.out.bias.data.fill_(0.0)
            m.out.weight.data.fill_(0.0)
            m.out.bias.data[1] = 5.0

    _check(tmp_path, EOS, after, lambda t: [t.randn(3, 4)], {"eos": eos}, prep=prep)


@pytest.mark.torch
def test_invalid_cap_changes_a_loop_that_needs_more_iterations(tmp_path: Path) -> None:
    """What is only proposed: eager needs ~130 iterations at this tolerance, the cap stops at
    100 and returns another value (with a loose tolerance both agree)."""
    torch = pytest.importorskip("torch")
    patched = _patched(tmp_path, UNBOUNDED)
    assert "while it < 100:" in patched
    (tmp_path / "orig.py").write_text(UNBOUNDED, encoding="utf-8")
    (tmp_path / "capped.py").write_text(patched, encoding="utf-8")
    x = torch.randn(3, 4)
    for tol, same in ((1e-6, False), (1e-2, True)):
        torch.manual_seed(0)
        orig = load_module(tmp_path / "orig.py", "orig").Model(tol=tol)
        capped = load_module(tmp_path / "capped.py").Model(tol=tol)
        capped.load_state_dict(orig.state_dict())
        a, b = orig(x), capped(x)
        assert torch.allclose(a, b) is same


# a loop over `range(int(n))` whose body indexes a tensor at the loop variable
COUNTED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, ratio=3):
            super().__init__()
            self.cls = nn.Linear(4, 1)
            self.ratio = ratio

        def forward(self, x, pos):
            loss = self.cls(x).squeeze(-1).abs()
            ranked, _ = loss.sort(descending=True)
            n = torch.clamp(self.ratio * pos.sum(), max=x.shape[0])
            hard = loss.new_zeros(())
            for i in range(int(n)):
                hard = hard + ranked[i]
            return hard
    """
)


def _fix_all(tmp_path: Path, src: str) -> tuple[Any, str]:
    from compilelint.config import Config
    from compilelint.fix.engine import run_fixes

    work = tmp_path / "m.py"
    work.write_text(src, encoding="utf-8")
    res = run_fixes([str(work)], Config(select=("CL102",), cache=False), unsafe=True)
    return res, res.changes[0].after.decode() if res.changes else src


def test_range_of_int_loops_over_the_indexed_length(tmp_path: Path) -> None:
    res, after = _fix_all(tmp_path, COUNTED)
    assert [r.status for r in res.records] == ["applied"]
    assert "n_iter = n.long()" in after
    assert "for i in range(ranked.shape[0]):" in after
    assert "hard = torch.where(active, hard + ranked[i], hard)" in after


def test_range_of_int_without_an_indexed_tensor_is_declined(tmp_path: Path) -> None:
    src = COUNTED.replace("hard = hard + ranked[i]", "hard = hard + loss.mean() * i")
    res, after = _fix_all(tmp_path, src)
    assert after == src
    assert "indexes no tensor at `i`" in res.records[0].reason


@pytest.mark.torch
@pytest.mark.parametrize("npos", [0, 1, 2, 6], ids=["none", "one", "some", "clamped"])
def test_valid_range_of_int_on_torch(tmp_path: Path, npos: int) -> None:
    _, after = _fix_all(tmp_path, COUNTED)

    def make(t: Any) -> list[Any]:
        pos = t.zeros(6, dtype=t.long)
        pos[:npos] = 1
        return [t.randn(6, 4), pos]

    _check(tmp_path, COUNTED, after, make)


@pytest.mark.torch
def test_invalid_count_past_the_length_raised_in_eager(tmp_path: Path) -> None:
    """The one difference: a count beyond the indexed length raised `IndexError` in eager;
    the rewrite, bounded by that length, sums what there is."""
    torch = pytest.importorskip("torch")
    src = COUNTED.replace(", max=x.shape[0])", ", max=100)")
    _, after = _fix_all(tmp_path, src)
    (tmp_path / "orig.py").write_text(src, encoding="utf-8")
    (tmp_path / "fixed.py").write_text(after, encoding="utf-8")
    torch.manual_seed(0)
    orig = load_module(tmp_path / "orig.py", "orig").Model()
    fixed = load_module(tmp_path / "fixed.py").Model()
    fixed.load_state_dict(orig.state_dict())
    x, pos = torch.randn(6, 4), torch.ones(6, dtype=torch.long)
    with pytest.raises(IndexError):
        orig(x, pos)
    torch.testing.assert_close(fixed(x, pos), orig.cls(x).squeeze(-1).abs().sum())


def test_counter_stepped_by_assignment(tmp_path: Path) -> None:
    src = COND_SECOND.replace("n += 1", "n = n + 1")
    res, after = _fix(tmp_path, src)
    assert [r.status for r in res.records] == ["applied"]
    assert "while n < self.cfg.max_iter:" in after and "n = n + 1" in after
