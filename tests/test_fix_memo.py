"""Caches on ``self`` filled in forward become locals of their method (fix/codemods/memo.py).

VALID: memos (a dict keyed by a length, by a shape tuple through ``.get``, tables rebuilt for a
longer sequence) -> the rewrite; INVALID: state that is not a memo (a KV-cache list appended on
every call, a dict read by another method, a counter stepped in forward) -> no memo, no rewrite.
The ``torch`` tests compile the original and the rewritten class over calls of several lengths:
the original recompiles on the memo, the rewrite recompiles less, and the outputs are equal.
"""

from __future__ import annotations

import textwrap
from typing import Any

import libcst as cst
import pytest

from compilelint.fix.codemods.memo import find_memos, memo_rewrite
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite

ALIBI = """
import torch
from torch import nn


class Bias(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.register_buffer("slopes", torch.linspace(0.1, 1.0, heads))
        self.bias_cache = {}

    def get_bias(self, n):
        if n not in self.bias_cache:
            pos = torch.arange(n)
            rel = (pos[None, :] - pos[:, None]).abs().neg().float()
            self.bias_cache[n] = self.slopes[:, None, None] * rel[None]
        return self.bias_cache[n]

    def forward(self, scores):
        return (scores + self.get_bias(scores.shape[-1])).softmax(-1)
"""

MASK_GET = """
import torch
from torch import nn


class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self._masks = dict()

    def forward(self, x):
        key = (x.shape[-2], x.shape[-1])
        mask = self._masks.get(key)
        if mask is None:
            mask = torch.ones(key).triu(1).bool()
            self._masks[key] = mask
        return x.masked_fill(mask, 0.0).sum(-1)
"""

ROTARY = """
import torch
from torch import nn


class Rotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (100 ** (torch.arange(0, dim, 2).float() / dim)))
        self.len_cached = 0
        self.cos_cached = None

    def forward(self, x):
        n = x.shape[1]
        if n > self.len_cached:
            self.len_cached = n
            f = torch.outer(torch.arange(n, dtype=torch.float32), self.inv_freq)
            self.cos_cached = torch.cat((f, f), -1).cos()
        return x * self.cos_cached[:n]
"""

KV_LIST = """
import torch
from torch import nn


class KV(nn.Module):
    def __init__(self):
        super().__init__()
        self.past = []

    def forward(self, k):
        self.past.append(k)
        return torch.cat(self.past, 1).sum(1)
"""

DICT_TWO_METHODS = """
import torch
from torch import nn


class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def reset(self):
        self.cache.clear()

    def forward(self, x):
        n = x.shape[1]
        if n not in self.cache:
            self.cache[n] = torch.arange(n).float()
        return x + self.cache[n]
"""

COUNTER = """
import torch
from torch import nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.it = 0

    def forward(self, x):
        self.it += 1
        if self.it % 2 == 0:
            x = x * 2
        return x
"""

VALID = {"alibi": (ALIBI, "Bias"), "mask_get": (MASK_GET, "Masked"), "rotary": (ROTARY, "Rotary")}
INVALID = {"kv_list": KV_LIST, "two_methods": DICT_TWO_METHODS, "counter": COUNTER}


def _rewrite(code: str) -> str | NoFix:
    mod = cst.parse_module(textwrap.dedent(code))
    ctx = FixContext(mod, path="m.py", module_name="m", is_package=False, project=None, observed={})
    cls = next(s for s in ctx.module.body if isinstance(s, cst.ClassDef))
    res = memo_rewrite(ctx, cls)
    if isinstance(res, NoFix):
        return res
    assert isinstance(res, Rewrite)
    new = ctx.module
    for old, rep in res.changes:
        new = new.deep_replace(old, rep)  # type: ignore[arg-type]
    assert isinstance(new, cst.Module)
    return new.code


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_memo_is_rewritten(name: str) -> None:
    code, _ = VALID[name]
    out = _rewrite(code)
    assert isinstance(out, str), out
    for used in (
        "self.bias_cache[",
        "self._masks.get",
        "self._masks[",
        "self.cos_cached[",
        "> self.",
    ):
        assert used not in out
    if name == "alibi":  # the lookup that always misses is folded away
        assert "if n not in" not in out and "return bias" in out
    if name == "mask_get":
        assert "mask = None" not in out and "if mask is None" not in out


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_state_is_not_a_memo(name: str) -> None:
    mod = cst.parse_module(textwrap.dedent(INVALID[name]))
    cls = next(s for s in mod.body if isinstance(s, cst.ClassDef))
    memos, _ = find_memos(cls)
    assert memos == []
    out = _rewrite(INVALID[name])
    assert isinstance(out, NoFix)
    assert "no cache on `self`" in out.reason


def _load(code: str, cls: str) -> Any:
    ns: dict[str, Any] = {}
    exec(compile(textwrap.dedent(code), "<memo>", "exec"), ns)
    return ns[cls]


def _compiles(model: Any, inputs: list[Any]) -> tuple[int, list[Any]]:
    import torch
    from torch._dynamo.testing import CompileCounter

    torch._dynamo.reset()
    cnt = CompileCounter()
    fn = torch.compile(model, backend=cnt)
    outs = [fn(x) for x in inputs]
    return cnt.frame_count, outs


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(VALID))
def test_memo_rewrite_against_torch(name: str) -> None:
    import torch

    code, cls = VALID[name]
    torch.manual_seed(0)
    if name == "alibi":
        inputs = [torch.randn(2, 4, n, n) for n in (5, 7, 5, 9)]
        args: tuple[Any, ...] = (4,)
    elif name == "mask_get":
        inputs = [torch.randn(2, n, n) for n in (5, 7, 5, 9)]
        args = ()
    else:
        inputs = [torch.randn(2, n, 8) for n in (5, 7, 5, 9)]
        args = (8,)
    before = _load(code, cls)(*args)
    fixed_code = _rewrite(code)
    assert isinstance(fixed_code, str)
    after = _load(fixed_code, cls)(*args)
    after.load_state_dict(before.state_dict())
    eager = [before(x) for x in inputs]
    before = _load(code, cls)(*args)
    after = _load(fixed_code, cls)(*args)
    after.load_state_dict(before.state_dict())
    n_before, out_before = _compiles(before, inputs)
    n_after, out_after = _compiles(after, inputs)
    # the original compiles once per length (the memo's keys or size are guarded, and the
    # length read into the key is specialized); the rewrite once plus one dynamic recompile
    assert n_before >= 3, n_before
    assert n_after <= 2 and n_after < n_before, (n_before, n_after)
    for a, b, e in zip(out_before, out_after, eager, strict=True):
        torch.testing.assert_close(a, e)
        torch.testing.assert_close(b, e)
