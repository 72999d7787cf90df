"""Masks of known structure and selections feeding counts (issue 22, branch fixstruct).

VALID: a mask whose definition reads only shapes (``~torch.eye``, ``triu`` of ones, an
``arange`` against itself transposed; through names, ``self`` buffers and helpers) selects
with a fixed-shape view or gather; a ``bincount`` of mask selections counts every position with
the mask as its weights. INVALID: the near misses (a data-dependent term in the mask, an
in-place write to it, an offset that is not a literal, ``bincount`` without ``minlength``) are
not given the structural form. Marked ``torch``: each VALID fix compiles whole
(``fullgraph=True``) and gives the original's outputs and parameter gradients.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest

from compilelint.fix.codemods import masks, structural
from compilelint.fix.codemods.selection import Selection, masked_select
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite

from .fix_modules import fix_result, fix_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def _model(body: str, extra: str = "", init: str = "") -> str:
    def block(text: str, pad: str) -> str:
        return textwrap.indent(textwrap.dedent(text), pad)

    return (
        HEAD
        + extra
        + "class Model(nn.Module):\n"
        + "    def __init__(self):\n"
        + "        super().__init__()\n"
        + "        self.lin = nn.Linear(6, 6)\n"
        + (block(init, "        ") if init and not init.lstrip().startswith("def") else "")
        + "\n"
        + "    def forward(self, x, y):\n"
        + "        z = self.lin(x)\n"
        + block(body, "        ")
        + (("\n" + block(init, "    ")) if init.lstrip().startswith("def") else "")
    )


VALID: dict[str, tuple[str, str]] = {
    # SimCLR: the self-similarities dropped, the rest viewed per row
    "offdiag_view": (
        _model(
            """\
            sim = z @ z.t()
            n = sim.shape[0]
            mask = torch.eye(n, dtype=torch.bool, device=z.device)
            neg = sim[~mask].view(n, -1)
            return neg.logsumexp(-1).mean(), neg
            """
        ),
        "neg = sim.flatten(0, 1)[1:].unflatten(0, (sim.shape[0] - 1, sim.shape[0] + 1))"
        "[:, :-1].flatten(0, 1).view(n, -1)",
    ),
    # a buffer set once in __init__ (`1 - eye`), used through `.bool()`
    "buffer": (
        _model(
            """\
            d = torch.cdist(z, z)
            return d[self.off.bool()], y
            """,
            init='self.register_buffer("off", 1 - torch.eye(5), persistent=False)\n',
        ),
        "return d.flatten(0, 1)[1:].unflatten(0, (d.shape[0] - 1, d.shape[0] + 1))[:, :-1]"
        ".flatten(0, 1), y",
    ),
    # distinct pairs from a helper function, the function form of masked_select
    "helper_triu": (
        _model(
            """\
            d = torch.cdist(z, z)
            pairs = torch.masked_select(d, upper(d.shape[0]))
            return pairs.sort().values, y
            """,
            extra="def upper(n):\n    return torch.ones(n, n).triu(diagonal=1).bool()\n\n\n",
        ),
        "pairs = d[torch.triu_indices(d.shape[0], d.shape[1], 1, device=d.device).unbind()]",
    ),
    # causal positions by an arange comparison, selected on inner dims
    "arange_inner": (
        _model(
            """\
            att = (z[:, None, :, None] * z[:, None, None, :]).softmax(-1)
            pos = torch.arange(att.shape[-1], device=z.device)
            allowed = pos[:, None] >= pos[None, :]
            kept = att[:, :, allowed]
            return kept.std(-1), y
            """
        ),
        "kept = att[(slice(None),) * 2 + torch.tril_indices(allowed.shape[0], "
        "allowed.shape[1], 0, device=att.device).unbind()]",
    ),
    # a method returning the mask, inline; the diagonal of pair features
    "method_eye": (
        _model(
            """\
            n = z.shape[0]
            pairs = z[:, None, :] * z[None, :, :]
            diag = pairs[self._diag(n)]
            return diag, y
            """,
            init="def _diag(self, n):\n    return torch.eye(n) > 0\n",
        ),
        "diag = pairs.diagonal(0, 0, 1).movedim(-1, 0)",
    ),
    # rebound in straight-line code; tril of ones_like compared with 0; method masked_select
    "rebound_tril": (
        _model(
            """\
            diff = z.sum(-1)[:, None] - z.sum(-1)[None, :]
            lower = torch.ones_like(diff)
            lower = torch.tril(lower, diagonal=-1) > 0
            d = diff.masked_select(lower)
            return F.softplus(-d).mean(), d
            """
        ),
        "d = diff[torch.tril_indices(lower.shape[0], lower.shape[1], -1, "
        "device=diff.device).unbind()]",
    ),
}

# near misses: the structural form must not be produced
INVALID: dict[str, str] = {
    # a data-dependent term in the mask
    "data_term": _model(
        """\
        sim = z @ z.t()
        mask = ~torch.eye(sim.shape[0], dtype=torch.bool) & (sim > 0)
        return sim[mask].sum(), y
        """
    ),
    # written in place after its definition
    "in_place": _model(
        """\
        sim = z @ z.t()
        mask = torch.ones(5, 5, dtype=torch.bool).triu(1)
        mask[0, 1] = False
        return sim[mask], y
        """
    ),
    # an offset that is not a literal
    "offset_param": _model(
        """\
        sim = z @ z.t()
        k = int(y.shape[0] > 3)
        return sim[torch.ones_like(sim).triu(k).bool()], y
        """
    ),
    # a buffer reassigned in forward
    "buffer_reassigned": _model(
        """\
        sim = z @ z.t()
        self.m = sim > 0
        return sim[self.m], y
        """,
        init='self.register_buffer("m", ~torch.eye(5, dtype=torch.bool))\n',
    ),
}


def _fix(tmp_path: Path, code: str) -> str:
    return fix_text(tmp_path, code, ("CL110", "CL111"))[0]


def _bands(code: str) -> list[structural.Band | None]:
    """The band of every subscript index and ``masked_select`` mask in ``forward``."""
    mod = cst.parse_module(code)
    ctx = FixContext(mod, path="m.py")
    out: list[structural.Band | None] = []

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            s = n.slice[-1].slice
            if isinstance(s, cst.Index) and ctx.function(n) is not None:
                if ctx.function(n).name.value == "forward":  # type: ignore[union-attr]
                    out.append(structural.band(ctx, s.value))

    mod.visit(V())
    return out


def _structural(code: str) -> str:
    """``code`` with the structural rewrite of every selection in ``forward`` applied, as the
    fix engine gets there for a break torch observed (the static stage does not type a mask
    built by ``torch.eye(..., dtype=torch.bool)`` or a helper as boolean)."""
    mod = cst.parse_module(code)
    ctx = FixContext(mod, path="m.py")
    changes: dict[int, cst.CSTNode] = {}

    class V(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            fn = ctx.function(n)
            if fn is None or fn.name.value != "forward" or id(n) in changes:
                return
            last = n.slice[-1].slice
            if not isinstance(last, cst.Index) or structural.band(ctx, last.value) is None:
                return
            sel = Selection(n, n.value, last.value)
            got = masks.fix_selection(ctx, sel, known_mask=False)
            if isinstance(got, Rewrite):
                changes.update({id(a): b for a, b in got.changes})  # type: ignore[misc]

        def visit_Call(self, n: cst.Call) -> None:
            sel = masked_select(ctx, n)
            if sel is not None:
                got = masks.fix_selection(ctx, sel)
                if isinstance(got, Rewrite):
                    changes.update({id(a): b for a, b in got.changes})  # type: ignore[misc]

    class T(cst.CSTTransformer):
        def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
            return changes.get(id(original), updated)

    mod.visit(V())
    return mod.visit(T()).code


@pytest.mark.parametrize("case", sorted(VALID))
def test_a_mask_of_known_structure_selects_with_a_static_shape(case: str) -> None:
    code, fixed = VALID[case]
    assert fixed in _structural(code)


@pytest.mark.parametrize("case", sorted(INVALID))
def test_a_near_miss_has_no_band(case: str) -> None:
    bands = [b for b in _bands(INVALID[case]) if b is not None and b.op not in ("all", "none")]
    assert bands == []


def test_the_band_algebra() -> None:
    B = structural.Band
    assert structural.invert(B("le", 0)) == B("ge", 1)
    assert structural.meet(B("le", 2), B("ge", 2)) == B("eq", 2)
    assert structural.meet(B("ne"), B("le", -1)) == B("le", -1)
    assert structural.meet(B("ne"), B("le", 0)) is None  # a band with a hole
    assert structural.join(B("le", -1), B("ge", 1)) == B("ne")
    assert structural.join(B("eq"), B("ne")) == structural.ALL


# ---------------------------------------------------------------------------- counts
CONFMAT = _model(
    """\
    pred = z.argmax(-1)
    valid = y >= 0
    pred = pred[valid]
    label = y[valid]
    c = self.num_classes
    hist = torch.bincount(c * label + pred, minlength=c**2).reshape(c, c)
    return z.sum() + hist.diag().sum(), hist
    """,
    init="self.num_classes = 6\n",
)
CONFMAT_FIXED = (
    "hist = torch.zeros(c**2, dtype=torch.long, device=(c * label + pred).device).index_add_("
    "0, torch.where(valid.flatten(), (c * label + pred).flatten(), 0), valid.flatten().long())"
)
WEIGHTED = _model(
    """\
    conf, pseudo = z.softmax(-1).detach().max(-1)
    keep = conf > 0.2
    counts = torch.bincount(pseudo[keep], conf[keep], 6)
    return (z * counts).sum(), counts
    """
)
NO_MINLENGTH = _model(
    """\
    pred = z.argmax(-1)
    keep = y >= 0
    return z.sum(), torch.bincount(pred[keep])
    """
)


def test_a_count_of_selections_counts_every_position_weighted_by_the_mask(
    tmp_path: Path,
) -> None:
    out = _fix(tmp_path, CONFMAT)
    assert CONFMAT_FIXED in out and "pred[valid]" not in out and "y[valid]" not in out


def test_a_count_without_minlength_keeps_its_reason(tmp_path: Path) -> None:
    _, reasons = fix_text(tmp_path, NO_MINLENGTH, ("CL110", "CL111"))
    assert any("minlength" in r for r in reasons)


# ---------------------------------------------------------------------------- with torch
TORCH_CASES = {
    **{k: v[0] for k, v in VALID.items()},
    "confmat": CONFMAT,
    "weighted": WEIGHTED,
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = TORCH_CASES[case]
    fixed = _structural(code) if case in VALID else _fix(tmp_path, code)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "st")
    for seed in range(2):
        torch.manual_seed(10 + seed)
        x, y = torch.randn(5, 6), torch.randint(-1, 6, (5,))
        assert_same_as_original(a, b, (x, y))


# ---------------------------------------------------------------------------- outputs
RETURNED = HEAD + textwrap.dedent(
    """\
    class Decode(nn.Module):
        def forward(self, scores, boxes):
            keep = scores > 0.5
            kept = boxes[keep]
            for s in scores[keep]:
                boxes = boxes * s
            return kept, boxes
    """
)


def test_a_selection_returned_or_iterated_names_the_manual_recipe(tmp_path: Path) -> None:
    res = fix_result(tmp_path, RETURNED, ("CL111",))
    reasons = {r.line: r.reason for r in res.records}
    assert "The selection is returned" in reasons[9]
    assert "The selection is iterated over" in reasons[10]
    assert all("capture_dynamic_output_shape_ops" in r for r in reasons.values())


BAND_FORMS = HEAD + textwrap.dedent(
    """\
    def f(x, n):
        labels = torch.arange(n)
        a = labels.unsqueeze(1) == labels
        b = torch.eq(labels.view(-1, 1), labels.view(1, -1))
        c = labels[:, None].lt(labels[None, :])
        mask = torch.ones(n, n, dtype=torch.bool)
        mask.fill_diagonal_(False)
        m2 = torch.ones(n, n, dtype=torch.bool)
        m2[0, 1] = False
        return x[a], x[b], x[c], x[mask], x[m2]
    """
)


def test_comparison_functions_and_in_place_band_steps() -> None:
    mod = cst.parse_module(BAND_FORMS)
    ctx = FixContext(mod, path="m.py")
    fn = next(n for n in mod.body if isinstance(n, cst.FunctionDef))
    assert isinstance(fn.body, cst.IndentedBlock)
    ret = fn.body.body[-1]
    assert isinstance(ret, cst.SimpleStatementLine)
    subs = ret.body[0].value.elements  # type: ignore[attr-defined]
    got = [structural.band(ctx, e.value.slice[0].slice.value) for e in subs]
    B = structural.Band
    assert got == [B("eq"), B("eq"), B("ge", 1), B("ne"), None]


# ---------------------------------------------------------------------------- counts of results
COUNTS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(6, 6)

        def forward(self, x, y):
            z = self.lin(x)
            pos = z > 0
            a = len(torch.nonzero(pos))
            b = pos.nonzero().size(0)
            c = torch.unique(y).numel()
            d = torch.count_nonzero(z[pos])
            e = z[pos].shape[0]
            pos_inds = (y > 0).nonzero().squeeze(1)
            num_pos = max(len(pos_inds), 1)
            classes = torch.unique(y)
            return z.sum() / num_pos + z * a * b * d * e + len(classes) * 2 + c
    """
)
COUNTS_FIXED = [
    "a = pos.count_nonzero()",
    "b = pos.count_nonzero()",
    "c = y.flatten().sort().values.diff().ne(0).sum() + (y.numel() > 0)",
    "d = torch.count_nonzero(torch.where(pos, z, 0))",
    "e = pos.count_nonzero()",
    "num_pos = (y > 0).count_nonzero().clamp(min=1)",
    "(y.flatten().sort().values.diff().ne(0).sum() + (y.numel() > 0)) * 2",
]
# the count is needed as a Python number (a loop bound, a branch, an output)
COUNT_AS_NUMBER = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def forward(self, x, y):
            nz = torch.nonzero(x > 0)
            n = len(nz)
            if n > 2:
                x = x * 2
            return x, torch.unique(y).numel()
    """
)


def test_counts_of_data_dependent_results_are_counted_without_them(tmp_path: Path) -> None:
    out = _fix(tmp_path, COUNTS)
    for line in COUNTS_FIXED:
        assert line in out
    assert ".nonzero(" not in out and "unique" not in out and "pos_inds" not in out


def test_a_count_used_as_a_python_number_is_left(tmp_path: Path) -> None:
    out = _fix(tmp_path, COUNT_AS_NUMBER)
    assert "len(nz)" in out and "torch.unique(y).numel()" in out


@pytest.mark.torch
def test_count_fix_compiles_whole_and_computes_the_same(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    fixed = _fix(tmp_path, COUNTS)
    a, b = load_pair(tmp_path, COUNTS, fixed, "ct")
    for seed, y in enumerate([torch.randint(0, 4, (7,)), torch.zeros(0, dtype=torch.long)]):
        torch.manual_seed(seed)
        x = torch.randn(5, 6)
        assert_same_as_original(a, b, (x, y), loss=lambda o: o.sum())
