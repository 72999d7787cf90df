"""Python scalars read from tensors that flow on as operands of torch calls and as trim bounds
(issue 22, branch fixscalar2).

Each VALID case is rewritten (the text, static and fast) and, marked ``torch``, the fixed
model is checked against the original on the installed torch: no graph break with
``fullgraph=True``; outputs and parameter gradients equal, compiled and uncompiled. Each
INVALID case is refused with its reason, and where the refusal rests on torch's behaviour
(a tensor fill value, a tensor bound beside a number bound) that behaviour is checked too.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .fix_modules import fix_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import math\n\nimport torch\nfrom torch import nn\n\n\n"
SELECT = ("CL102", "CL103", "CL105", "CL112", "CL113")


def _model(body: str, init: str = "") -> str:
    return HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(8, 8)
                self.top_db = 2.0
        {init}
            def forward(self, x, n):
        {body}
        """
    ).format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8),
        init=textwrap.indent(textwrap.dedent(init), " " * 4),
    )


# ---------------------------------------------------------------- operands of torch calls
CLAMP_KW = _model(
    """\
    h = self.lin(x)
    top = float(h.amax())
    return torch.clamp(h, min=top - self.top_db).sum(-1)
    """
)
MASKED_FILL = _model(
    """\
    s = self.lin(x).sigmoid()
    thr = s.mean().item() + 0.5 * s.std().item()
    floor = s.min().item()
    return s.masked_fill(s < thr, floor).amax(1)
    """
)
WHERE_SQRT = _model(
    """\
    r = (self.lin(x) - n.unsqueeze(-1)).abs()
    ref = r.detach().median().item()
    scale = math.sqrt(ref + 1e-6)
    w = torch.where(r > ref, scale / (r + 1e-6).sqrt(), torch.ones_like(r))
    return (w * r).sum() / max(ref, 1e-3)
    """
)
RETENSOR = _model(
    """\
    h = self.lin(x)
    scale = h.abs().max().item()
    s = torch.tensor(scale, dtype=h.dtype, device=h.device)
    return h / torch.clamp_min(s, 1e-6)
    """
)
UNPACKED = _model(
    """\
    h = self.lin(x)
    lo, hi = torch.quantile(h.detach().flatten(), torch.tensor([0.1, 0.9])).tolist()
    return torch.clamp(h, min=lo, max=10.0) / (hi - lo + 1e-6 + h.abs()) + h.clamp(lo, hi)
    """
)
SPLIT_CLAMP = _model(
    """\
    h = self.lin(x)
    lo = h.mean().item()
    return h.clamp(lo, 0.5) + torch.clamp(h, min=lo, max=1.0).pow(2) + h.abs().pow(lo)
    """
)
HELPER = HEAD + textwrap.dedent(
    """\
    def peak_of(w):
        return w.abs().max().item()


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.target = 0.9

        def forward(self, x, n):
            peak = peak_of(x)
            gain = min(self.target / (peak + 1e-8), 10.0)
            lim = peak * gain
            return self.lin((x * gain).clip(-lim, lim))
    """
)

# ---------------------------------------------------------------- trim bounds
TWO_SIDED = _model(
    """\
    start = int(n.min())
    end = int(n.max()) + 2
    x = x[:, start:end]
    return torch.tanh(self.lin(x)).sum(1)
    """
)
LOWER = _model(
    """\
    lag = n.min().item()
    tail = x[:, lag:]
    return self.lin(tail).pow(2).sum(1)
    """
)
MEAN = _model(
    """\
    longest = n.max().item()
    x = x[:, :longest]
    return self.lin(x).mean(1)
    """
)
NARROW = _model(
    """\
    k = n.max().item()
    h = x.narrow(1, 0, k)
    s = torch.sigmoid(self.lin(h))
    return (s * self.lin(h)).sum(dim=1)
    """
)

VALID = {
    "clamp_kw": (CLAMP_KW, "torch.clamp(h, min=top - self.top_db)"),
    "masked_fill": (MASKED_FILL, "floor = s.min().detach()"),
    "where_sqrt": (WHERE_SQRT, "scale = torch.sqrt(ref + 1e-6)"),
    "split_clamp": (SPLIT_CLAMP, "h.clamp(min=lo).clamp(max=0.5)"),
    "helper": (HELPER, "return w.abs().max().detach()"),
    "unpacked": (
        UNPACKED,
        "lo, hi = torch.quantile(h.detach().flatten(), torch.tensor([0.1, 0.9])).detach().unbind(0)",
    ),
    "retensor": (RETENSOR, "scale = h.abs().max().detach()"),
    "two_sided": (TWO_SIDED, ") & (torch.arange(x.shape[1], device=x.device) <"),
    "lower": (LOWER, ">= torch.where(lag < 0, lag + x.shape[1], lag)"),
    "mean": (MEAN, ".sum(-1) / keep.sum())"),
    "narrow": (NARROW, "h = x\n"),
}

# ---------------------------------------------------------------- refused
INVALID = {
    # `torch.full` without `dtype=` takes its dtype from the number's Python type (a tensor
    # fill given to `full_like`/`new_full` is rewritten: tests/test_fix_scal3.py)
    "full_no_dtype": (
        _model(
            """\
            h = self.lin(x)
            v = h.mean().item()
            return torch.full((4, 8), v) + h
            """
        ),
        "is also passed to `torch.full((4, 8), v)`",
    ),
    # without `dtype=`, a Python float becomes float32 where a 0-d tensor keeps its dtype
    "tensor_no_dtype": (
        _model(
            """\
            h = self.lin(x)
            v = h.double().mean().item()
            return h * torch.tensor(v)
            """
        ),
        "is also passed to `torch.tensor(v)`",
    ),
    # an element returned as a Python number
    "unpacked_returned": (
        _model(
            """\
            h = self.lin(x)
            lo, hi = torch.quantile(h.detach().flatten(), torch.tensor([0.1, 0.9])).tolist()
            return h.clamp(lo, hi), hi - lo
            """
        ),
        "flows into `return h.clamp(lo, hi), hi - lo`",
    ),
    # the comparison with a number would become a tensor of bools kept as a Python value
    # (one deciding an `if` is lowered: tests/test_fix_compare.py)
    "compared_with_number": (
        _model(
            """\
            h = self.lin(x)
            v = h.mean().item()
            big = v > 0.5
            return h * v, big
            """
        ),
        "is also compared with `0.5`",
    ),
    # the trimmed tensor is returned: its shape is the data's
    "trim_returned": (
        _model(
            """\
            start = int(n.min())
            y = x[:, start:]
            return y
            """
        ),
        "not only position-wise operations",
    ),
    # the bound is also a size
    "bound_also_size": (
        _model(
            """\
            lag = n.min().item()
            tail = x[:, lag:]
            return tail.sum(1) + torch.zeros(lag).sum()
            """
        ),
        "is also used in `return tail.sum(1) + torch.zeros(lag).sum()`",
    ),
    # a sum keeping the cut dimension
    "mean_keepdim": (
        _model(
            """\
            lag = n.min().item()
            tail = x[:, lag:]
            return self.lin(tail).sum(1, keepdim=True)
            """
        ),
        "keeps it (`keepdim=`)",
    ),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_is_rewritten(tmp_path: Path, case: str) -> None:
    code, want = VALID[case]
    fixed, _ = fix_text(tmp_path, code, SELECT)
    assert want in fixed, fixed


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    fixed, reasons = fix_text(tmp_path, code, SELECT)
    assert ".item()" in fixed or "int(" in fixed or ".tolist()" in fixed, fixed
    assert any(why in r for r in reasons), reasons


def test_both_clamp_bounds_the_value_are_kept_as_one_call(tmp_path: Path) -> None:
    fixed, _ = fix_text(tmp_path, HELPER, SELECT)
    assert "(x * gain).clip(-lim, lim)" in fixed
    assert "torch.clamp(self.target / (peak + 1e-8), max=10.0)" in fixed


def test_a_helper_called_elsewhere_as_a_number_is_not_rewritten(tmp_path: Path) -> None:
    code = HELPER.replace(
        "        return self.lin(", "        print(f'{peak_of(x):.3f}')\n        return self.lin("
    )
    assert code != HELPER
    fixed, reasons = fix_text(tmp_path, code, SELECT)
    assert "return w.abs().max().item()" in fixed
    assert any("`peak_of()` returns the value" in r for r in reasons), reasons


# ---------------------------------------------------------------------------- with torch
@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = VALID[case][0]
    fixed, _ = fix_text(tmp_path, code, SELECT)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "scalar2")
    for seed in range(3):
        torch.manual_seed(100 + seed)
        if case in ("two_sided", "lower", "mean", "narrow"):
            inputs = (torch.randn(3, 9, 8), torch.tensor([2, 5, 4]) + seed)
        else:
            inputs = (torch.randn(4, 8), torch.randn(4))
        assert_same_as_original(a, b, inputs)


@pytest.mark.torch
def test_refusals_rest_on_torch() -> None:
    """A 0-d tensor as a fill value, or as a clamp bound beside a number bound, does not
    compile on torch 2.13 (the reason the fill is refused and the clamp split); split, the
    clamp compiles and gives the same values, ``min > max`` included."""
    torch = pytest.importorskip("torch")
    x, t = torch.randn(5), torch.tensor(0.3)
    for f in (
        lambda x, t: torch.full_like(x, t),
        lambda x, t: torch.clamp(x, min=t, max=1.0),
    ):
        torch._dynamo.reset()
        with pytest.raises(Exception, match="unbacked"):
            torch.compile(f, backend="eager", fullgraph=True)(x, t)
    for hi in (1.0, -1.0):
        torch._dynamo.reset()
        split = torch.compile(
            lambda x, t, hi=hi: torch.clamp(torch.clamp(x, min=t), max=hi),
            backend="eager",
            fullgraph=True,
        )
        torch.testing.assert_close(split(x, t), torch.clamp(x, min=0.3, max=hi))
