"""Masks combined with static indices, and Python indices ordered by tensor keys (issue 22,
branch fixsel).

``x[:, m]``, ``x[..., m]``, ``x[m, :4]``, ``x[m, 0]``, ``x[m][:, :2]`` are normalized to one
form, the selection of a statically indexed tensor by a mask over its leading dims
(``x[:, :4][m]``; ``x.movedim(1, 0)[m]`` for a mask of an inner dim, whose elements are the
same in another order), and the masked rewrites prove their equivalence on that form.
``sorted(range(len(t)), key=lambda i: t[i])`` orders indices, never stacks them: it becomes
``torch.argsort(t, stable=True)``. Each case is checked as text and, marked ``torch``, against
the original on the installed torch (no graph break with ``fullgraph=True``; outputs and
parameter gradients equal, compiled and uncompiled), the original failing to compile as one
graph (the INVALID/VALID pair of each rewrite).
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from compilelint.config import Config
from compilelint.fix.engine import run_fixes
from compilelint.model import Finding

from .fix_modules import load_module
from .torch_checks import compile_without_break

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def _model(body: str) -> str:
    return (
        HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x, y, score):
        """
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


# name -> (source, (x shape, score shape), text the fix must hold)
MASKS: dict[str, tuple[str, tuple[tuple[int, ...], tuple[int, ...]], str]] = {
    "inner_dim_mean": (
        _model(
            """\
            keep = score > 0.4
            h = self.lin(x)
            kept = h[:, keep]
            return h, kept.pow(2).mean()
            """
        ),
        ((2, 6, 4), (6,)),
        "kept = torch.where(keep_b, h.movedim(1, 0), 0)",
    ),
    "ellipsis_sum": (
        _model(
            """\
            band = score > 0.4
            h = self.lin(x)
            return h, h[..., band].pow(2).sum()
            """
        ),
        ((2, 3, 4), (4,)),
        "torch.where(band_b, h.movedim(-1, 0), 0).pow(2).sum()",
    ),
    "leading_then_slice": (
        _model(
            """\
            pos = score > 0.4
            pred = self.lin(x)
            return pred, (pred[pos, :2] - y[pos, :2]).abs().sum()
            """
        ),
        ((6, 4), (6,)),
        "torch.where(pos_b, pred[:, :2] - y[:, :2], 0).abs().sum()",
    ),
    "leading_then_int_sigmoid": (
        _model(
            """\
            pos = score > 0.4
            pred = self.lin(x)
            return pred, pred[pos, 3].sigmoid().sum()
            """
        ),
        ((6, 4), (6,)),
        "torch.where(pos_b, pred[:, 3].sigmoid(), 0).sum()",
    ),
    "selected_then_sliced": (
        _model(
            """\
            keep = score > 0.4
            boxes = self.lin(x)
            centers = boxes[keep][:, :2]
            return boxes, centers.abs().sum()
            """
        ),
        ((6, 4), (6,)),
        "centers = torch.where(keep_b, boxes[:, :2], 0)",
    ),
}


def _fix(tmp_path: Path, code: str, select: tuple[str, ...], extra: list[Finding]) -> str:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    extra = [
        Finding(**{**f.__dict__, "path": str(path)})
        for f in extra  # type: ignore[arg-type]
    ]
    res = run_fixes([str(path)], Config(select=select, cache=False), unsafe=True, extra=extra)
    for c in res.changes:
        return c.after.decode()
    return code


def _observed(code: str, rule: str, pick: Any) -> list[Finding]:
    """What torch's break at the node ``pick`` selects becomes (fix/observed.py)."""
    w = MetadataWrapper(cst.parse_module(code))
    pos = w.resolve(PositionProvider)
    node = next(n for n in pos if pick(n))
    r = pos[node]
    return [
        Finding(
            rule=rule,
            name="observed",
            path="",
            line=r.start.line,
            col=r.start.column + 1,
            end_line=r.end.line,
            end_col=r.end.column + 1,
            severity="error",
            message="torch observed a graph break here",
            fix="",
        )
    ]


def _mask_index(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Subscript) and any(
        isinstance(e.slice, cst.Index)
        and isinstance(e.slice.value, cst.Name)
        and e.slice.value.value in ("keep", "band", "pos")
        for e in n.slice
    )


def _fix_mask(tmp_path: Path, code: str) -> str:
    return _fix(tmp_path, code, ("CL110", "CL111"), _observed(code, "CL111", _mask_index))


@pytest.mark.parametrize("case", sorted(MASKS))
def test_a_mask_with_static_indices_is_normalized_and_masked(tmp_path: Path, case: str) -> None:
    code, _, want = MASKS[case]
    out = _fix_mask(tmp_path, code)
    assert want in out, out


def test_an_inner_dim_mask_is_not_counted_as_rows(tmp_path: Path) -> None:
    """``len(h[:, keep])`` is the batch size, not the mask's count: not rewritten."""
    code = _model(
        """\
        keep = score > 0.4
        h = self.lin(x)
        kept = h[:, keep]
        return h, kept.sum() / len(kept)
        """
    )
    assert "len(kept)" in _fix_mask(tmp_path, code)


def test_a_mask_between_other_indices_is_declined(tmp_path: Path) -> None:
    code = _model(
        """\
        keep = score > 0.4
        h = self.lin(x)
        return h, h[:, keep, 0].sum()
        """
    )
    assert "h[:, keep, 0]" in _fix_mask(tmp_path, code)


SORTS: dict[str, tuple[str, str]] = {
    "sorted_range_len_reverse": (
        """\
        scores = self.lin(x).sum(-1)
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        return x[order[:3]] * scores[order[:3], None]
        """,
        "order = torch.argsort(scores, stable=True, descending=True)",
    ),
    "sorted_getitem_loop": (
        """\
        costs = self.lin(x).sum(-1)
        ranked = sorted(range(x.shape[0]), key=costs.__getitem__)
        kept = []
        for i in ranked[:2]:
            kept.append(x[i] * costs[i])
        return torch.stack(kept)
        """,
        "ranked = torch.argsort(costs, stable=True)",
    ),
    "max_range_lambda": (
        """\
        sims = self.lin(x).sum(-1)
        best = max(range(x.shape[0]), key=lambda j: sims[j])
        return x[best] * sims[best]
        """,
        "best = torch.argmax(sims)",
    ),
    "sorted_negated_key_comprehension": (
        """\
        conf = self.lin(x).sum(-1).sigmoid()
        idx = sorted(range(conf.shape[0]), key=lambda k: -conf[k])
        return torch.stack([x[k] * conf[k] for k in idx])
        """,
        "idx = torch.argsort(-conf, stable=True)",
    ),
    "min_range_two_tensors": (
        """\
        a = self.lin(x).sum(-1)
        b = x.sum(-1)
        worst = min(range(len(a)), key=lambda i: a[i] - 0.5 * b[i])
        return x[worst] * a[worst]
        """,
        "worst = torch.argmin(a - 0.5 * b)",
    ),
}


def _sort_model(body: str) -> str:
    return (
        HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
        """
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


def _is_ordering(n: cst.CSTNode) -> bool:
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Name)
        and n.func.value in ("sorted", "max", "min")
        and any(a.keyword is not None for a in n.args)
    )


def _fix_sort(tmp_path: Path, code: str) -> str:
    return _fix(tmp_path, code, ("CL114",), _observed(code, "CL114", _is_ordering))


@pytest.mark.parametrize("case", sorted(SORTS))
def test_indices_ordered_by_a_tensor_key_become_argsort(tmp_path: Path, case: str) -> None:
    body, want = SORTS[case]
    out = _fix_sort(tmp_path, _sort_model(body))
    assert want in out, out
    assert "torch.stack(list(range" not in out  # indices are never stacked


# ---------------------------------------------------------------------------- with torch
def _load(path: Path) -> Any:
    return load_module(path, "selection")


def _same(
    tmp_path: Path, code: str, fixed: str, inputs: list[tuple[Any, ...]], inputs_src: str
) -> None:
    torch = pytest.importorskip("torch")
    assert fixed != code
    (tmp_path / "a.py").write_text(code, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    a, b = _load(tmp_path / "a.py"), _load(tmp_path / "b.py")

    def run(mod: Any, compiled: bool, xs: tuple[Any, ...]) -> tuple[list[Any], list[Any]]:
        torch.manual_seed(0)
        model = mod.Model()
        torch._dynamo.reset()
        fn = compile_without_break(model, xs) if compiled else model
        out = fn(*xs)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        sum(o.float().sum() for o in outs).backward()
        return [o.detach() for o in outs], [p.grad for p in model.parameters()]

    # the original breaks under torch.compile (what torch reports), the fixed model does not
    from .torch_oracle import observe

    head = f"# inputs: {inputs_src}\n"
    before = observe(head + code, tmp_path)
    after = observe(head + fixed, tmp_path)
    assert before is not None and after is not None
    assert before.breaks or before.counter_breaks, "the original does not break"
    assert not after.breaks and not after.counter_breaks, after.breaks
    for xs in inputs:
        want = run(a, False, xs)
        for compiled in (False, True):
            got = run(b, compiled, xs)
            torch.testing.assert_close(got[0], want[0])
            torch.testing.assert_close(got[1], want[1])


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(MASKS))
def test_normalized_mask_fix_compiles_whole_and_computes_the_same(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    code, (xs, ms), _ = MASKS[case]
    inputs = []
    for seed in range(3):
        torch.manual_seed(100 + seed)
        inputs.append((torch.randn(xs), torch.rand(xs), torch.rand(ms)))
    src = f"(torch.randn{xs}, torch.rand{xs}, torch.rand({ms[0]},))"
    _same(tmp_path, code, _fix_mask(tmp_path, code), inputs, src)


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(SORTS))
def test_index_sort_fix_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = _sort_model(SORTS[case][0])
    inputs = []
    for seed in range(3):
        torch.manual_seed(200 + seed)
        inputs.append((torch.randn(6, 4),))
    _same(tmp_path, code, _fix_sort(tmp_path, code), inputs, "(torch.randn(6, 4),)")


# ------------------------------------------------------------ positions of True and flows
def _pos_model(body: str) -> str:
    return (
        HEAD
        + textwrap.dedent(
            """\
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(6, 6)

            def forward(self, x):
                h = self.lin(x)
        """
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


POSITIONS: dict[str, tuple[str, str]] = {
    "column_min": (
        """\
        first = (x > 0.5).nonzero()[:, 1].min()
        return h[:, first]
        """,
        "first = (x > 0.5).movedim(1, 0).unsqueeze(-1).flatten(1).any(1).long().argmax()",
    ),
    "argwhere_row_max": (
        """\
        hot = x > 0.5
        last_row = torch.argwhere(hot)[:, 0].max()
        return h[last_row]
        """,
        "last_row = hot.movedim(0, 0).unsqueeze(-1).flatten(1).any(1).long().cumsum(0).argmax()",
    ),
    "last_then_coordinate": (
        """\
        row = x[0] > 0.5
        last = row.nonzero()[-1, 0]
        return h[0, last] * 2
        """,
        "last = torch.stack(torch.unravel_index(row.flatten().bool().long().cumsum(0).argmax(), "
        "row.shape))[0]",
    ),
}


def _fix_positions(tmp_path: Path, code: str) -> str:
    def is_nonzero(n: cst.CSTNode) -> bool:
        return (
            isinstance(n, cst.Call)
            and isinstance(n.func, cst.Attribute)
            and n.func.attr.value in ("nonzero", "argwhere")
        )

    return _fix(tmp_path, code, ("CL110",), _observed(code, "CL110", is_nonzero))


@pytest.mark.parametrize("case", sorted(POSITIONS))
def test_a_position_of_a_true_becomes_argmax(tmp_path: Path, case: str) -> None:
    body, want = POSITIONS[case]
    out = _fix_positions(tmp_path, _pos_model(body))
    assert want in out, out
    assert "nonzero" not in out and "argwhere" not in out


FLOWS: dict[str, tuple[str, str]] = {
    "hinge_mask_expression_scalar_name": (
        """\
        same = x > 0.3
        pos_mean = h.diagonal().mean()
        neg = h[~same]
        return F.relu(neg - pos_mean + 0.2).mean()
        """,
        "torch.where(~same, F.relu(neg - pos_mean + 0.2), 0).sum() / (~same).sum()",
    ),
    "logsumexp": (
        """\
        valid = x > 0.3
        return torch.logsumexp(h[valid], dim=0)
        """,
        'torch.logsumexp(torch.where(valid_b, h, -float("inf")).flatten(), 0)',
    ),
}


@pytest.mark.parametrize("case", sorted(FLOWS))
def test_a_selection_through_broadcast_steps_is_reduced_with_the_mask(
    tmp_path: Path, case: str
) -> None:
    body, want = FLOWS[case]
    code = _pos_model(body)
    out = _fix(tmp_path, code, ("CL110", "CL111"), _observed(code, "CL111", _h_selection))
    assert want in out, out


def _h_selection(n: cst.CSTNode) -> bool:
    return (
        isinstance(n, cst.Subscript)
        and isinstance(n.value, cst.Name)
        and n.value.value == "h"
        and len(n.slice) == 1
        and not isinstance(n.slice[0].slice, cst.Slice)
    )


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(POSITIONS))
def test_position_fix_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = _pos_model(POSITIONS[case][0])
    inputs = []
    for seed in range(3):
        torch.manual_seed(300 + seed)
        inputs.append((torch.rand(6, 6),))
    _same(tmp_path, code, _fix_positions(tmp_path, code), inputs, "(torch.rand(6, 6),)")


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(FLOWS))
def test_flow_fix_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = _pos_model(FLOWS[case][0])
    fixed = _fix(tmp_path, code, ("CL110", "CL111"), _observed(code, "CL111", _h_selection))
    inputs = []
    for seed in range(3):
        torch.manual_seed(400 + seed)
        inputs.append((torch.rand(6, 6),))
    _same(tmp_path, code, fixed, inputs, "(torch.rand(6, 6),)")
