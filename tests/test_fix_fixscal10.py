"""Numbers read from tensors used as an index among other indices, as a table position in a
tensor the static stage does not type, and as the data of ``torch.tensor`` without ``dtype=``
(issue 22, branch fixscal10): uses of a read value modelled one by one in the climb of
CL102/CL103 (``cl103_tensor_item._tensor_index``, ``operands.new_tensor``).

Each VALID case is rewritten (static, fast) and, marked ``torch``, checked against the
original on the installed torch: the original breaks, the fixed model is one graph without a
break (``explain`` first, :mod:`tests.torch_checks`), outputs and parameter gradients equal,
compiled (``fullgraph=True``) and uncompiled, over inputs where the read index is negative,
zero and positive. Each INVALID case is refused with its reason.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from .fix_modules import fix_text, load_pair
from .torch_checks import assert_same_as_original

HEAD = "import torch\nfrom torch import nn\n\n\n"
SELECT = ("CL102", "CL103", "CL105")


def _model(body: str, init: str = "") -> str:
    return HEAD + textwrap.dedent(
        """\
            class Table:
                def __init__(self):
                    self.alphas = torch.linspace(0.99, 0.01, 10)


            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lin = nn.Linear(8, 8)
                    self.sched = Table()
            {init}
                def forward(self, x):
            {body}
            """
    ).format(
        body=textwrap.indent(textwrap.dedent(body), " " * 8),
        init=textwrap.indent(textwrap.dedent(init), " " * 8),
    )


VALID: dict[str, tuple[str, str]] = {
    # an int before the index, a loop over a static length (an extractive-QA span read)
    "int_before": (
        _model(
            """\
            h = self.lin(x)
            rows = []
            for b in range(h.shape[0]):
                e = int(h[b].argmax())
                rows.append(h[b, e] * 2)
            return torch.stack(rows)
            """
        ),
        "h[b, :].index_select(0, e.long().view(1)).squeeze(0)",
    ),
    # a slice with number bounds before, an int after: the selected dimension is the slice's
    "slice_then_int": (
        _model(
            """\
            h = self.lin(x)
            j = int(h[0].argmin())
            return h[1:, j] + h[:, 0].sum()
            """
        ),
        "h[1:, :].index_select(1, j.long().view(1)).squeeze(1)",
    ),
    # a position that may be negative counts from the end (x.shape[k] added)
    "negative_position": (
        _model(
            """\
            h = self.lin(x)
            k = int(h.mean() * 4)
            return h[:, k] * h.sum()
            """
        ),
        "< 0) * h.shape[1]",
    ),
    # a table on a helper object the static stage does not type; the result meets `.sqrt()`
    "untyped_table": (
        _model(
            """\
            h = self.lin(x)
            t = (h.mean() * 6).abs()
            a = self.sched.alphas[int(t)]
            return (1 - a).sqrt() * h + a.sqrt()
            """
        ),
        "self.sched.alphas.index_select(0,",
    ),
    # torch.tensor of a Python float (a true division): the default dtype, detached
    "tensor_of_float": (
        _model(
            """\
            h = self.lin(x)
            n_pos = float((h > 0).sum())
            n_neg = h.numel() - n_pos
            w = torch.tensor(n_neg / max(n_pos, 1.0))
            return h * w
            """
        ),
        ".detach().to(torch.get_default_dtype()).clone()",
    ),
    # torch.tensor of a Python int, with device=
    "tensor_of_int": (
        _model(
            """\
            h = self.lin(x)
            n = int((h > 0).sum())
            c = torch.tensor(n + 1, device=h.device)
            return h * c + c.float()
            """
        ),
        ".detach().to(h.device, torch.int64).clone()",
    ),
    # an argmax over a window of static length from an argmax (extractive-QA span decoding);
    # windows that run past the end are clamped to the last position
    "argmax_window": (
        _model(
            """\
            h = self.lin(x)
            rows = []
            for b in range(h.shape[0]):
                s = int(h[b].argmax())
                e = int(h[b, s : s + 3].argmax()) + s
                rows.append(torch.stack([h[b, s], h[b, e]]))
            return torch.stack(rows)
            """
        ),
        ".clamp(max=h.shape[1] - 1)).argmax().detach()) + s",
    ),
    # a CTRL-style repetition penalty: each distinct id's logit scaled by its sign
    "id_loop_penalty": (
        _model(
            """\
            h = self.lin(x).clone()
            gen = (x.abs() * 3).long() % 8
            for b in range(h.shape[0]):
                for tok in set(gen[b].tolist()):
                    if h[b, tok] < 0:
                        h[b, tok] *= 1.3
                    else:
                        h[b, tok] /= 1.3
            return h
            """
        ),
        "upd = torch.where(upd < 0, upd * 1.3, upd / 1.3)",
    ),
    # an `if` without `else`, then an assignment from the element, ids of one row
    "id_loop_unique": (
        _model(
            """\
            h = self.lin(x).clone()
            ids = (x[0].abs() * 4).long() % 8
            for c in set(ids.tolist()):
                if h[1, c] > 0.2:
                    h[1, c] -= 0.5
                h[1, c] = h[1, c] * 2 - 1
            return h
            """
        ),
        "h[1] = torch.where(hit, upd, h[1])",
    ),
}

INVALID: dict[str, tuple[str, str]] = {
    # a plain `.tolist()`: a repeated id would be updated twice
    "id_loop_repeats": (
        _model(
            """\
            h = self.lin(x).clone()
            gen = (x.abs() * 3).long() % 8
            for tok in gen[0].tolist():
                h[0, tok] *= 1.3
            return h
            """
        ),
        "the `.tolist()` is not in a simple statement",
    ),
    # the new value reads another element: the iterations are not independent
    "id_loop_other_element": (
        _model(
            """\
            h = self.lin(x).clone()
            gen = (x.abs() * 3).long() % 8
            for tok in set(gen[0].tolist()):
                h[0, tok] += h[1, tok]
            return h
            """
        ),
        "the loop over the ids computes `h[1, tok]`",
    ),
    # the body also keeps the id
    "id_loop_keeps_id": (
        _model(
            """\
            h = self.lin(x).clone()
            gen = (x.abs() * 3).long() % 8
            seen = []
            for tok in set(gen[0].tolist()):
                h[0, tok] *= 2
                seen.append(tok)
            return h
            """
        ),
        "the loop over the ids holds `seen.append(tok)`",
    ),
    # a window read by a reduction whose gradient would see the clamped copies (ties)
    "window_max": (
        _model(
            """\
            h = self.lin(x)
            s = int(h[0].argmax())
            return h[0, s : s + 3].max() * h
            """
        ),
        "is not `x[:, ..., lo:hi]`",
    ),
    # a window whose start may be negative (a negative start counts from the end)
    "window_signed_start": (
        _model(
            """\
            h = self.lin(x)
            s = int(h.mean() * 4)
            return h[0, s : s + 3].argmax() + h
            """
        ),
        "is not `x[:, ..., lo:hi]`",
    ),
    # another index is a tensor: advanced indexing would broadcast the two
    "tensor_beside": (
        _model(
            """\
            h = self.lin(x)
            idx = h.argmax(1)
            j = int(h[0].argmax())
            return h[idx, j]
            """
        ),
        "not only in arithmetic with tensors",
    ),
    # the table is not typed and nothing shows the result is a tensor (a list would raise)
    "untyped_table_unknown_result": (
        _model(
            """\
            h = self.lin(x)
            t = (h.mean() * 6).abs()
            a = self.sched.alphas[int(t)]
            return h * a
            """
        ),
        "not only in arithmetic with tensors",
    ),
    # a negative position into a table that is not a name or attribute chain (read twice)
    "negative_into_call": (
        _model(
            """\
            h = self.lin(x)
            k = int(h.mean() * 4)
            return self.lin(h)[:, k] * h.sum()
            """
        ),
        "not only in arithmetic with tensors",
    ),
    # torch.tensor of a number whose Python kind is not known (`.item()` of any dtype)
    "tensor_of_unknown_kind": (
        _model(
            """\
            h = self.lin(x)
            v = h.sum().item()
            return h * torch.tensor(v)
            """
        ),
        "whether it is a Python int or float is not known",
    ),
    # torch.tensor(..., requires_grad=True): a leaf that requires grad
    "tensor_requires_grad": (
        _model(
            """\
            h = self.lin(x)
            v = float(h.mean())
            return h * torch.tensor(v / 2, requires_grad=True)
            """
        ),
        "is also passed to `torch.tensor(v / 2, requires_grad=True)`",
    ),
}


@pytest.mark.parametrize("case", sorted(VALID))
def test_valid_case_is_rewritten(tmp_path: Path, case: str) -> None:
    code, want = VALID[case]
    fixed, _ = fix_text(tmp_path, code, SELECT)
    assert want in fixed, fixed
    assert ".item()" not in fixed and "float((" not in fixed and "int(" not in fixed, fixed


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_case_is_refused_with_its_reason(tmp_path: Path, case: str) -> None:
    code, why = INVALID[case]
    fixed, reasons = fix_text(tmp_path, code, SELECT)
    assert fixed == code, fixed
    assert any(why in r for r in reasons), reasons


def _breaks(torch: Any, model: Any, x: Any) -> bool:
    """Does the original fail to compile as one graph? ``explain`` counts a break, or (a break
    inside a loop whose body holds a tensor ``if``, where torch 2.13 skips the frame and
    ``explain`` shows only the inner module's graph) ``fullgraph=True`` raises."""
    torch._dynamo.reset()
    ex = torch._dynamo.explain(model)(x)
    torch._dynamo.reset()
    if ex.graph_break_count > 0 or ex.graph_count != 1:
        return True
    try:
        torch.compile(model, backend="eager", fullgraph=True)(x)
    except Exception:  # any failure to capture one graph
        return True
    finally:
        torch._dynamo.reset()
    return False


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(VALID))
def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
    torch = pytest.importorskip("torch")
    code = VALID[case][0]
    fixed, _ = fix_text(tmp_path, code, SELECT)
    assert fixed != code
    a, b = load_pair(tmp_path, code, fixed, "fs10")
    torch.manual_seed(0)
    x0 = torch.randn(4, 8)
    assert _breaks(torch, a.Model(), x0)  # the original breaks
    # scales and shifts so that the read positions are negative, zero and positive
    for seed, shift in ((1, -1.0), (2, 0.0), (3, 0.6)):
        torch.manual_seed(100 + seed)
        x = torch.randn(4, 8) * 0.3 + shift
        assert_same_as_original(a, b, (x,))  # dtypes too


@pytest.mark.torch
def test_the_rewrites_rest_on_torch() -> None:
    """A 0-d int index among ints and slices is read with ``.item()`` by dynamo (a break);
    ``index_select`` plus ``squeeze`` is the same element and compiles whole; a position below
    ``-size`` or at ``size`` still raises after the wrap; ``torch.tensor`` of a float and an int
    give the default dtype and int64, as the rewrite's ``.to``."""
    torch = pytest.importorskip("torch")
    x = torch.randn(3, 5, 4)

    def plain(x: Any, t: Any) -> Any:
        return x[1, (t * 1).long(), 1:] * 2

    def selected(x: Any, t: Any) -> Any:
        j = (t * 1).long().view(1)
        return x[1, :, 1:].index_select(0, j + (j < 0) * x.shape[1]).squeeze(0) * 2

    t = torch.tensor(-2)
    torch._dynamo.reset()
    assert torch._dynamo.explain(plain)(x, t).graph_break_count == 1
    torch._dynamo.reset()
    ex = torch._dynamo.explain(selected)(x, t)
    assert ex.graph_break_count == 0 and ex.graph_count == 1 and not ex.break_reasons
    for v in range(-5, 5):
        torch.testing.assert_close(selected(x, torch.tensor(v)), x[1, v, 1:] * 2)
    for v in (-6, 5):
        with pytest.raises(IndexError):
            x[1, v, 1:]
        with pytest.raises((IndexError, RuntimeError)):
            selected(x, torch.tensor(v))
    assert torch.tensor(3 / 2).dtype == torch.get_default_dtype()
    assert torch.tensor(3).dtype == torch.int64
    with pytest.raises(AttributeError):
        [0.5, 0.25].index_select(0, torch.tensor([0]))  # type: ignore[attr-defined]
