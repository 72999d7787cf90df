"""Vendored library code (issue 22, branch fix26a): forms of torchmetrics' functional metrics,
as projects copy them into model files, that the codemods now accept.

- a write through a boolean mask whose value reads through the same mask
  (:mod:`compilelint.fix.codemods.masked_writes`): ``r2_score``'s
  ``raw_scores[cond] = 1 - (rss[cond] / tss[cond])``, ``pearson_corrcoef``'s
  ``corrcoef[valid] = (corr[valid] / (vx[valid] * vy[valid]).sqrt()).squeeze().to(dtype)``
  under ``if valid.any():``, ``retrieval_normalized_dcg``'s ``gain[~m] /= norm[~m]``;
- a branch that only reports through the libraries' own reporters (``rank_zero_warn``) and
  assigns, and an ``if (`` whose condition is wrapped over several lines in parentheses.

Each VALID case is checked as text and, marked ``torch``, against the original (the original
breaks; the fixed model compiles with ``fullgraph=True`` and gives the same outputs and
parameter gradients, compiled and uncompiled). Each INVALID case is checked for what stays.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_case_tests, load_module
from .torch_checks import assert_same_as_original

HEAD = textwrap.dedent(
    """\
    import math
    import warnings

    import torch
    from torch import nn


    def rank_zero_warn(message, category=UserWarning):
        warnings.warn(message, category)


    """
)

# torchmetrics r2_score's compute: near-constant targets kept out through the mask
R2 = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 3)

        def forward(self, x, target):
            preds = self.net(x)
            rss = ((target - preds) ** 2).sum(0)
            tss = ((target - target.mean(0)) ** 2).sum(0)
            cond_rss = ~torch.isclose(rss, torch.zeros_like(rss), atol=1e-4)
            cond_tss = ~torch.isclose(tss, torch.zeros_like(tss), atol=1e-4)
            cond = cond_rss & cond_tss
            raw_scores = torch.ones_like(rss)
            raw_scores[cond] = 1 - (rss[cond] / tss[cond])
            raw_scores[cond_rss & ~cond_tss] = 0.0
            return raw_scores.mean()
    """
)

# torchmetrics pearson_corrcoef's compute: the warning, then the valid outputs only
PEARSON = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 2)

        def forward(self, x, y):
            preds = self.net(x)
            var_x = preds.var(0)
            var_y = y.var(0)
            corr_xy = ((preds - preds.mean(0)) * (y - y.mean(0))).mean(0)
            bound = math.sqrt(torch.finfo(var_x.dtype).eps)
            if (
                (var_x < bound).any()
                or (var_y < bound).any()
                or ~torch.isfinite(corr_xy).any()
            ):
                rank_zero_warn("The variance of predictions or target is close to zero.", UserWarning)
            zero_var_mask = (var_x < bound) | (var_y < bound) | ~torch.isfinite(corr_xy)
            corrcoef = torch.full_like(corr_xy, float("nan"), device=corr_xy.device, dtype=corr_xy.dtype)
            valid_mask = ~zero_var_mask
            if valid_mask.any():
                corrcoef[valid_mask] = (
                    (corr_xy[valid_mask] / (var_x[valid_mask] * var_y[valid_mask]).sqrt()).squeeze().to(corrcoef.dtype)
                )
                corrcoef = torch.clamp(corrcoef, -1.0, 1.0)
            return corrcoef.squeeze()
    """
)

# torchmetrics' ROC compute: a warning and a fallback when a class is missing
ROC = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 1)

        def forward(self, x, target):
            preds = self.net(x).squeeze(-1).sigmoid()
            fps = torch.cumsum((1 - target) * preds, 0)
            thres = torch.ones_like(fps)
            if fps[-1] <= 0:
                rank_zero_warn("No negative samples in targets.", UserWarning)
                fpr = torch.zeros_like(thres)
            else:
                fpr = fps / fps[-1]
            return fpr
    """
)

# torchmetrics retrieval_normalized_dcg: the gains divided where the ideal gain is not 0
NDCG = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 3)

        def forward(self, x, relevance):
            gain = self.net(x).exp().sum(0)
            normalized_gain = (relevance * 2.0).sum(0)
            all_irrelevant = normalized_gain == 0
            gain = gain * 1.0
            gain[~all_irrelevant] /= normalized_gain[~all_irrelevant]
            return gain
    """
)

CASES = {"r2": R2, "pearson": PEARSON, "roc": ROC, "ndcg": NDCG}


def _inputs(torch: Any, case: str, seed: int = 0) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(seed)
    if case == "r2":
        t = torch.randn(6, 3, generator=g)
        t[:, 1] = 2.0  # a constant target: tss is 0 there, kept out by the mask
        return torch.randn(6, 4, generator=g), t
    if case == "pearson":
        return torch.randn(6, 4, generator=g), torch.randn(6, 2, generator=g)
    if case == "roc":
        return torch.randn(6, 4, generator=g), torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0, 0.0]).roll(
            seed
        )
    assert case == "ndcg"
    rel = torch.rand(5, 3, generator=g)
    rel[:, 2] = 0.0  # an all-irrelevant column: its gain is kept as it is
    return torch.randn(5, 4, generator=g), rel


def _fix(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL101", "CL111")) -> str:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=select, cache=False), unsafe=True)
    for c in res.changes:
        return c.after.decode()
    return code


# ---------------------------------------------------------------------------- VALID (text)
def test_a_masked_write_of_masked_reads_is_a_where_with_safe_reads(tmp_path: Path) -> None:
    out = _fix(tmp_path, R2)
    assert (
        "raw_scores = torch.where(cond, 1 - (torch.where(cond, rss, 1) / "
        "torch.where(cond, tss, 1)), raw_scores)"
    ) in out
    assert "rss[cond]" not in out


def test_pearsons_guarded_write_and_its_wrapped_warning_condition(tmp_path: Path) -> None:
    out = _fix(tmp_path, PEARSON)
    assert "corr_xy[valid_mask]" not in out and ".squeeze().to(" not in out
    assert "torch.where(valid_mask, (torch.where(valid_mask, corr_xy, 1) / " in out
    assert "if not torch.compiler.is_compiling():" in out
    assert "if valid_mask.any():" not in out
    assert "cond = valid_mask.any()" in out


def test_a_branch_reporting_through_rank_zero_warn_selects_its_assignment(tmp_path: Path) -> None:
    out = _fix(tmp_path, ROC, ("CL101",))
    assert "fpr = torch.where(fps[-1] <= 0, torch.zeros_like(thres), fps / fps[-1])" in out
    assert "if not torch.compiler.is_compiling():" in out


def test_an_augmented_write_of_a_masked_read_updates_through_where(tmp_path: Path) -> None:
    out = _fix(tmp_path, NDCG, ("CL111",))
    assert "gain /= torch.where(~all_irrelevant, normalized_gain, 1)" in out


# ---------------------------------------------------------------------------- INVALID
def test_a_write_into_a_parameter_is_not_rebound(tmp_path: Path) -> None:
    """``x`` came from the caller: rebinding it would leave the caller's tensor unchanged."""
    code = R2.replace("def forward(self, x, target):", "def forward(self, x, target, raw_scores):")
    code = code.replace("        raw_scores = torch.ones_like(rss)\n", "")
    out = _fix(tmp_path, code, ("CL111",))
    assert "raw_scores[cond] = 1 - (rss[cond] / tss[cond])" in out


def test_an_alias_read_before_the_write_keeps_the_write(tmp_path: Path) -> None:
    code = R2.replace(
        "        raw_scores = torch.ones_like(rss)\n",
        "        raw_scores = torch.ones_like(rss)\n        kept = raw_scores\n",
    )
    out = _fix(tmp_path, code, ("CL111",))
    assert "raw_scores[cond] = 1 - (rss[cond] / tss[cond])" in out


def test_a_value_not_elementwise_over_the_selection_is_not_rewritten(tmp_path: Path) -> None:
    code = R2.replace("1 - (rss[cond] / tss[cond])", "rss[cond].cumsum(0)")
    out = _fix(tmp_path, code, ("CL111",))
    assert "raw_scores = torch.where(cond" not in out


def test_a_value_read_through_another_mask_is_not_rewritten(tmp_path: Path) -> None:
    code = NDCG.replace(
        "gain[~all_irrelevant] /= normalized_gain[~all_irrelevant]",
        "gain[~all_irrelevant] /= normalized_gain[all_irrelevant]",
    )
    out = _fix(tmp_path, code, ("CL111",))
    assert "gain /= torch.where" not in out


# ---------------------------------------------------------------------------- torch
# the VALID cases break before the fix (what the rewrite removes is real); the fixed model
# compiles whole and computes the same
test_the_originals_break, test_fixed_model_compiles_whole_and_computes_the_same = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: _fix(tmp_path, code),
    _inputs,
    prefix="fix26a",
)


@pytest.mark.torch
def test_the_left_out_elements_give_no_nan_gradient(tmp_path: Path) -> None:
    """``tss`` is 0 in a constant target's column, which the mask leaves out: ``rss / tss``
    there is inf, whose gradient would be nan through ``torch.where``; the reads made 1 there
    keep the gradients equal to the original's (checked by the seeds above, and here that
    they are finite)."""
    torch = pytest.importorskip("torch")
    fixed = _fix(tmp_path, R2)
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    model = load_module(tmp_path / "b.py", "fix26a").Model()
    model(*_inputs(torch, "r2")).backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters())


# torchmetrics retrieval_normalized_dcg on one query: the gain is 0-d, and torch reads the mask's
# value to write through it ("Data dependent operator")
NDCG0 = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(4, 1)

        def forward(self, x, relevance):
            gain = self.net(x).exp().sum()
            normalized_gain = relevance.sum()
            all_irrelevant = normalized_gain == 0
            gain[all_irrelevant] = 0
            return gain
    """
)


def test_a_write_of_a_number_torch_observed_breaking_is_a_masked_fill(tmp_path: Path) -> None:
    from .fix_modules import fix_text

    out = fix_text(tmp_path, NDCG0, ("CL111",), observed=[("gain[all_irrelevant] = 0", "GB0033")])[
        0
    ]
    assert (
        "gain.masked_fill_(all_irrelevant.reshape(all_irrelevant.shape + (1,) * "
        "(gain.dim() - all_irrelevant.dim())), 0)"
    ) in out


@pytest.mark.torch
@pytest.mark.parametrize("rel", [0.0, 1.0])
def test_the_masked_fill_computes_the_same_and_compiles_whole(tmp_path: Path, rel: float) -> None:
    torch = pytest.importorskip("torch")
    from .fix_modules import fix_text

    fixed = fix_text(
        tmp_path, NDCG0, ("CL111",), observed=[("gain[all_irrelevant] = 0", "GB0033")]
    )[0]
    (tmp_path / "a.py").write_text(NDCG0, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = load_module(tmp_path / "a.py", "fix26a"), load_module(tmp_path / "b.py", "fix26a")
    inputs = (torch.randn(5, 4), torch.full((5,), rel))
    torch._dynamo.reset()
    got = torch._dynamo.explain(a.Model())(*inputs)
    assert got.graph_break_count > 0 or got.break_reasons
    torch._dynamo.reset()
    assert_same_as_original(a, b, inputs)
