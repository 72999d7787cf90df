"""A selection reduced beyond sums and means (issue 22, branch fixmask11): its extrema
(``max``/``min``/``amax``/``amin`` over all its elements) and its reductions over the first
dimension (the selected rows: ``sel.mean(0)``, ``sel.amax(0)``, ``sel.max(dim=0).values``,
``torch.amax(sel, 0)``), followed through names, elementwise steps, loops and the calls that
take the reduced values (``torch.cat``, ``list.append``).

Each VALID case is checked twice: the text the codemod writes, and, marked ``torch``, the fixed
model against the original (no graph break, by ``explain`` first; outputs and parameter
gradients equal, compiled and uncompiled). Each INVALID case (the indices of a ``max``, a
reduction over another dimension, a selection over an inner dimension, a selection returned)
is checked for what stays.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_case_tests, fix_result, fixed_text

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# per-graph pooling: mean and max over each graph's rows, in a loop, into a list
POOL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 6)
            self.n_graphs = 3

        def forward(self, x, batch):
            h = self.lin(x)
            pooled = []
            for g in range(self.n_graphs):
                m = batch == g
                hg = h[m]
                pooled.append(torch.cat([hg.mean(0), hg.max(0).values, hg.amin(dim=0)]))
            return torch.stack(pooled)
    """
)

# the mask an expression in the index, the reductions in function form
POOL_EXPR = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 6)

        def forward(self, x, batch):
            h = torch.relu(self.lin(x))
            out = []
            for g in range(3):
                hg = h[batch == g]
                out.append(torch.amax(hg, 0) + torch.min(hg, dim=0)[0] * 0.5)
            return torch.stack(out)
    """
)

# extrema over every selected element, after elementwise steps, with a mean beside them
EXTREMA = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, gt):
            pred = self.lin(x)
            valid = gt > 0.2
            err = pred[valid] - gt[valid]
            worst = err.abs().max()
            low = torch.min(err)
            size = err.norm() + torch.count_nonzero(err > 0.5)
            flag = (err.abs() < 3.0).all() & torch.any(err > -5.0)
            return worst - low + err.mean() + size * flag
    """
)

# a two-dimensional mask over the leading dims of a three-dimensional tensor: rows flattened
ROWS_2D = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x, gt):
            feats = self.lin(x)
            keep = gt > 0.3
            sel = feats[keep]
            return sel.amax(0), sel.sum(dim=0), sel.min(0)[0]
    """
)

# a loss module built in __init__ over two selections: its forward is the functional loss
MODULE_LOSS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.crit = nn.SmoothL1Loss(beta=0.5)
            self.bce = nn.BCEWithLogitsLoss(reduction="sum")

        def forward(self, x, gt):
            pred = self.lin(x)
            valid = gt > 0.2
            reg = self.crit(pred[valid], gt[valid])
            return reg + 0.1 * self.bce(pred[valid], (gt[valid] > 0.5).float())
    """
)

MODULE_CE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)
            self.ce = nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=-1)

        def forward(self, x, gt):
            logits = self.lin(x)
            labels = (gt * 5).long().clamp(max=4)
            keep = gt > 0.4
            return self.ce(logits[keep], labels[keep])
    """
)

CASES = {
    "pool": POOL,
    "pool_expr": POOL_EXPR,
    "extrema": EXTREMA,
    "rows_2d": ROWS_2D,
    "module_loss": MODULE_LOSS,
    "module_ce": MODULE_CE,
}


def _fix(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL110", "CL111")) -> str:
    return fixed_text(fix_result(tmp_path, code, select), code)


def _reasons(tmp_path: Path, code: str, select: tuple[str, ...] = ("CL111",)) -> str:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=select, cache=False), unsafe=True)
    return " | ".join(r.reason for r in res.records)


# ---------------------------------------------------------------------------- VALID (text)
def test_first_dim_reductions_in_a_loop_are_masked(tmp_path: Path) -> None:
    out = _fix(tmp_path, POOL)
    assert "hg = h\n" in out
    assert (
        "torch.where(m.flatten(), hg.flatten(0, m.dim() - 1).movedim(0, -1), 0).sum(-1) / m.sum()"
        in out
    )
    assert (
        'torch.where(m.flatten(), hg.flatten(0, m.dim() - 1).movedim(0, -1), -float("inf"))'
        ".max(-1).values" in out
    )
    assert (
        'torch.where(m.flatten(), hg.flatten(0, m.dim() - 1).movedim(0, -1), float("inf"))'
        ".amin(-1)" in out
    )


def test_function_forms_and_an_expression_mask(tmp_path: Path) -> None:
    out = _fix(tmp_path, POOL_EXPR)
    assert "h[batch == g]" not in out
    assert ".amax(-1) + torch.where(" in out
    assert ".min(-1)[0] * 0.5" in out


def test_extrema_over_all_elements(tmp_path: Path) -> None:
    out = _fix(tmp_path, EXTREMA)
    assert "err = pred - gt" in out
    assert 'worst = torch.where(valid, err.abs(), -float("inf")).max()' in out
    assert 'low = torch.where(valid, err, float("inf")).min()' in out
    assert "size = torch.where(valid, err, 0).norm() + torch.where(valid, err > 0.5, 0)" in out
    assert "flag = torch.where(valid, err.abs() < 3.0, True).all() & torch.where(" in out


def test_rows_of_a_two_dimensional_mask(tmp_path: Path) -> None:
    out = _fix(tmp_path, ROWS_2D)
    assert "sel = feats\n" in out
    assert "sel.flatten(0, keep.dim() - 1).movedim(0, -1)" in out


def test_loss_modules_are_their_functional_losses(tmp_path: Path) -> None:
    out = _fix(tmp_path, MODULE_LOSS)
    assert (
        "reg = torch.where(valid, torch.nn.functional.smooth_l1_loss(pred, gt, beta=0.5, "
        'reduction="none"), 0).sum() / valid.sum()' in out
    )
    assert "torch.nn.functional.binary_cross_entropy_with_logits(" in out
    out = _fix(tmp_path, MODULE_CE)
    assert "self.ce(logits.flatten(0, -2), torch.where(keep, labels, -1).flatten())" in out


# ---------------------------------------------------------------------------- INVALID
def test_a_loss_module_not_known_from_init_is_not_followed(tmp_path: Path) -> None:
    # built with a tensor option, bound again in forward, or not a loss module
    for old, new in (
        ("nn.SmoothL1Loss(beta=0.5)", "nn.SmoothL1Loss(beta=torch.tensor(0.5))"),
        ("pred = self.lin(x)", "pred = self.lin(x)\n        self.crit = nn.L1Loss()"),
        ("nn.SmoothL1Loss(beta=0.5)", "nn.Identity()"),
    ):
        code = MODULE_LOSS.replace(old, new).replace(
            "return reg + 0.1 * self.bce(pred[valid], (gt[valid] > 0.5).float())", "return reg"
        )
        assert code != MODULE_LOSS
        assert "self.crit(pred[valid], gt[valid])" in _fix(tmp_path, code), new
    code = MODULE_CE.replace("ignore_index=-1", "weight=torch.ones(5)")
    assert "self.ce(logits[keep], labels[keep])" in _fix(tmp_path, code)


def test_the_indices_of_a_max_are_not_rewritten(tmp_path: Path) -> None:
    code = POOL.replace("hg.max(0).values", "hg.max(0).indices.float()")
    assert code != POOL
    assert "h[m]" in _fix(tmp_path, code)
    assert "not only in elementwise steps" in _reasons(tmp_path, code)


def test_a_reduction_over_another_dim_is_not_rewritten(tmp_path: Path) -> None:
    code = POOL_EXPR.replace("torch.amax(hg, 0)", "torch.amax(hg, 1).sum()")
    assert code != POOL_EXPR
    assert "h[batch == g]" in _fix(tmp_path, code)
    code = ROWS_2D.replace("sel.min(0)[0]", "torch.max(sel, 1)[0]")
    assert code != ROWS_2D
    assert "feats[keep]" in _fix(tmp_path, code)


def test_a_selection_over_an_inner_dim_is_not_reduced_by_rows(tmp_path: Path) -> None:
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def forward(self, x, keep):
                sel = x[:, keep]
                return sel.amax(0)
        """
    )
    assert "x[:, keep]" in _fix(tmp_path, code)


def test_a_returned_selection_stays_a_proposal(tmp_path: Path) -> None:
    code = EXTREMA.replace(
        "return worst - low + err.mean() + size * flag", "return worst - low, err"
    )
    assert code != EXTREMA
    assert "pred[valid]" in _fix(tmp_path, code)
    assert "is returned" in _reasons(tmp_path, code) or "return" in _reasons(tmp_path, code)


# ------------------------------------------------------------- outputs: proposals as patches
DETS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 5)

        def forward(self, x):
            scores, labels = self.lin(x).sigmoid().max(-1)
            results = []
            for s, lab, b in zip(scores, labels, x):
                keep = s > 0.5
                results.append(
                    {
                        "scores": s[keep],
                        "labels": lab[keep],
                        "boxes": b[keep].exp() * 2,
                    }
                )
            return results
    """
)


def _patches(tmp_path: Path, code: str) -> list[str]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=("CL111",), cache=False), unsafe=True)
    return [r.patch or "" for r in res.records if r.status == "proposed"]


def test_appended_selections_become_values_with_their_mask(tmp_path: Path) -> None:
    patches = _patches(tmp_path, DETS)
    assert patches
    p = patches[0]
    assert '+                    "scores": s,' in p
    assert '+                    "labels": lab,' in p
    assert '+                    "boxes": b.exp() * 2,' in p
    assert '+                    "keep": keep,' in p
    assert "the patch returns the full-size values and the mask" in _reasons(tmp_path, DETS)


def test_returned_selections_become_values_with_their_mask(tmp_path: Path) -> None:
    code = HEAD + textwrap.dedent(
        """\
        class Model(nn.Module):
            def forward(self, boxes, scores):
                valid = scores > 0.3
                return boxes[valid], scores[valid].sigmoid()
        """
    )
    assert any(
        "+        return boxes, scores.sigmoid(), valid" in p for p in _patches(tmp_path, code)
    )
    code = code.replace("return boxes[valid], scores[valid].sigmoid()", "return scores[valid]")
    assert any("+        return scores, valid" in p for p in _patches(tmp_path, code))


def test_a_selection_not_elementwise_to_the_output_keeps_the_masking_proposal(
    tmp_path: Path,
) -> None:
    # through `torch.cat` (or a mask that is an expression, or a list used here) the values
    # are not the output's
    for old, new in (
        ('"scores": s[keep],', '"scores": torch.cat([s[keep], s[:1]]),'),
        ("[keep]", "[s > 0.5]"),
        # the list is concatenated here: the caller does not get the appended values
        ("return results", 'return torch.cat([r["scores"] for r in results])'),
    ):
        code = DETS.replace(old, new)
        assert code != DETS
        patches = _patches(tmp_path, code)
        assert patches, new
        assert not any("select after" in p or '"keep": keep' in p for p in patches), new


# ---------------------------------------------------------------------------- with torch
def _inputs(torch: Any, case: str, seed: int = 0) -> tuple[Any, ...]:
    torch.manual_seed(100 + seed)
    if case in ("pool", "pool_expr"):
        batch = torch.tensor([0, 0, 1, 1, 1, 2, 0, 2, 2, 1])
        return torch.randn(10, 8), batch
    if case == "module_ce":
        return torch.randn(4, 6, 8), torch.rand(4, 6)
    if case == "rows_2d":
        return torch.randn(3, 7, 8), torch.rand(3, 7)
    return torch.randn(4, 8), torch.rand(4, 8)


# the VALID cases break before the fix (what the rewrite removes is real); the fixed model
# compiles whole and computes the same
test_the_original_breaks, test_fixed_model_compiles_whole_and_computes_the_same = fix_case_tests(
    CASES,
    lambda tmp_path, case, code: _fix(tmp_path, code),
    _inputs,
    prefix="fixmask11",
)
