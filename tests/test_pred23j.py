"""Rank and dtype of tensors in the value model, and CL120 (issue 23, pred23j).

Indexing with a 0-d integer (or bool) tensor is basic indexing: torch reads the index's value
(``aten._local_scalar_dense``) and torch 2.13 breaks the graph there; a 1-d index tensor is
advanced indexing and stays in the graph. The value model now carries what is known of a
tensor's rank and dtype kind (``values.tensor``), and CL120 reports an index that is a 0-d
integer or bool tensor. Each VALID case (a break predicted) and INVALID case (none) is checked
against the break lines torch reports (``run_dynamic``, ``-m torch``)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.static.analysis import values as V
from tests.pred_helpers import line_of, predicted_break_lines, torch_break_lines

TORCH = "import torch\nfrom torch import nn\n"

# VALID: the first of an argsort (an entry's 1-d tensor, by the spec) indexes the boxes
ARGSORT_FIRST = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, boxes, scores):
            order = scores.argsort(descending=True)
            i = order[0]
            return boxes[i] * 2
    """)
BOXES = {"inputs": [{"tensor": [5, 4]}, {"tensor": [5]}]}
# VALID: a column picked by an argmax without a dim (0-d whatever the input's rank: no spec
# needed)
ARGMAX_COLUMN = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            j = x.sum(0).argmax()
            return x[:, j] + 1
    """)
X34 = {"inputs": [{"tensor": [3, 4]}]}
# VALID: an element of a 1-d int64 input, one index of a pair (speculative decoding's `p[i,
# tok]`)
TOKEN_PAIR = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, p, tokens):
            out = p.new_zeros(())
            for i in range(tokens.shape[0]):
                tok = tokens[i]
                out = out + p[i, tok]
            return out
    """)
TOKENS_1D = {
    "inputs": [
        {"tensor": [4, 6]},
        {"tensor": [4], "dtype": "int64", "init": "randint", "low": 0, "high": 6},
    ]
}
# INVALID: the same with a 2-d token tensor: `tokens[i]` is 1-d, `p[i, tok]` advanced indexing
TOKENS_2D = {
    "inputs": [
        {"tensor": [4, 6]},
        {"tensor": [4, 2], "dtype": "int64", "init": "randint", "low": 0, "high": 6},
    ]
}
# VALID: a helper's argument is a boolean-mask selection of a module's output (1-d: the mask
# has the rank of what it selects from), the helper indexes with its argsort's first element
HELPER_MASKED = TORCH + textwrap.dedent("""
    def first_box(boxes, scores):
        order = scores.argsort(descending=True)
        i = order[0]
        return boxes[i][None]


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(4, 3)

        def forward(self, boxes):
            probs = self.head(boxes).softmax(-1)
            s = probs[:, 1]
            m = s > 0.0
            return first_box(boxes[m], s[m])
    """)
# VALID: an element of a `torch.arange` (a folded constant's element still breaks)
ARANGE_ELEMENT = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            t = torch.arange(3)
            return x[t[1]] * 2
    """)
# INVALID: a 1-d index tensor (the whole argsort, a slice of it): advanced indexing
ONE_D_INDEX = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, boxes, scores):
            order = scores.argsort(descending=True)
            top = order[:2]
            return boxes[order] * 2, boxes[top]
    """)
# INVALID: a Python int index, and the argmax of each row (a dim: 1-d)
INT_INDEX = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            i = 2
            j = x.argmax(dim=0)
            return x[i] + 1, x[j]
    """)
# INVALID for CL120: a float 0-d index (eager raises IndexError: not a break to predict)
FLOAT_INDEX = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            s = x.sum()
            return x[s]
    """)

# INVALID: a view of the 1-d token tensor with one more dim: its first row is 1-d (a
# parameter's rank does not hold through a reshape)
RESHAPED_TOKENS = TORCH + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, p, tokens):
            rows = tokens.unsqueeze(0)
            return p[0, rows[0]] * 2
    """)

CASES: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "argsort_first": (ARGSORT_FIRST, BOXES, "boxes[i]"),
    "argmax_column": (ARGMAX_COLUMN, X34, "x[:, j]"),
    "token_pair": (TOKEN_PAIR, TOKENS_1D, "p[i, tok]"),
    "helper_masked": (HELPER_MASKED, {"inputs": [{"tensor": [6, 4]}]}, "boxes[i][None]"),
    "arange_element": (ARANGE_ELEMENT, X34, "x[t[1]]"),
    "token_pair_2d": (TOKEN_PAIR, TOKENS_2D, None),
    "one_d_index": (ONE_D_INDEX, BOXES, None),
    "int_index": (INT_INDEX, X34, None),
    "reshaped_tokens": (RESHAPED_TOKENS, TOKENS_1D, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_0d_integer_index_is_a_predicted_break(tmp_path: Path, name: str) -> None:
    src, spec, at = CASES[name]
    want = {line_of(src, at)} if at else set()
    assert predicted_break_lines(tmp_path, src, spec, rule="CL120") == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_predicted_index_breaks_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec, at = CASES[name]
    got = torch_break_lines(tmp_path, src, {**spec, "calls": 1})
    if at:
        assert line_of(src, at) in got
    else:
        assert got == set()
    # every break line torch reports is predicted, and no other (`helper_masked` also breaks
    # at its boolean-mask selections, CL111)
    assert predicted_break_lines(tmp_path, src, spec) == got


def test_without_a_spec_an_entrys_tensor_has_no_known_rank(tmp_path: Path) -> None:
    """An entry's parameter is a tensor of unknown rank without a spec: `order[0]` may be
    1-d (a 2-d `scores`), so no break is predicted; what an op decides whatever the input
    (`x.sum(0).argmax()` is 0-d) and what callers pass still are."""
    assert predicted_break_lines(tmp_path, ARGSORT_FIRST, None, rule="CL120") == set()
    assert predicted_break_lines(tmp_path, TOKEN_PAIR, None, rule="CL120") == set()
    assert predicted_break_lines(tmp_path, ARGMAX_COLUMN, None, rule="CL120") == {
        line_of(ARGMAX_COLUMN, "x[:, j]")
    }
    assert predicted_break_lines(tmp_path, HELPER_MASKED, None, rule="CL120") == {
        line_of(HELPER_MASKED, "boxes[i][None]")
    }


def test_a_float_index_is_not_cl120(tmp_path: Path) -> None:
    """INVALID: a 0-d float tensor is no index torch reads (eager raises IndexError)."""
    assert predicted_break_lines(tmp_path, FLOAT_INDEX, X34, rule="CL120") == set()


@pytest.mark.torch
def test_a_float_index_raises_in_eager() -> None:
    torch = pytest.importorskip("torch")
    x = torch.rand(3, 4)
    with pytest.raises(IndexError):
        x[x.sum()]


def test_the_value_model_of_rank_and_dtype() -> None:
    """The lattice: element drops a dim, steps change dtype and rank, a join keeps what its
    tensors share, a rank relative to a binding survives elementwise ops and is dropped where
    a function returns it."""
    v = V.tensor(1, "int")
    assert V.element(v, 0) == V.tensor(0, "int")
    assert V.scalar_index(V.element(v, 0)) == V.tensor(0, "int")
    assert V.scalar_index(v) == V.UNKNOWN  # 1-d
    assert V.scalar_index(V.tensor(0, "float")) == V.UNKNOWN
    assert V.scalar_index(V.tensor(0, "bool")) == V.tensor(0, "bool")
    assert V.scalar_index(V.TENSOR) == V.UNKNOWN  # nothing known
    assert V.apply_steps(V.tensor(2, "float"), ["#int", "~r", "0", "!idx"]) == V.tensor(0, "int")
    assert V.apply_steps(V.TENSOR, ["~0", "#int", "!idx"]) == V.tensor(0, "int")
    assert V.join(V.tensor(1, "int"), V.tensor(1, "int")) == V.tensor(1, "int")
    assert V.join(V.tensor(1, "int"), V.tensor(2, "int")) == V.tensor(-1, "int")
    assert V.join(V.tensor(1, "int"), V.TENSOR) == V.TENSOR
    tok = V.tensor(("s1", -1), "")
    assert V.rank_diff(tok[2], ("s1", -1)) == 0
    assert V.untokened(tok) == V.TENSOR
    assert V.meta_step(V.sym("P|f|x"), "#int") == V.sym("P|f|x@#int")
    assert V.sources(V.scalar_index(V.sym("P|f|x@#int@0"))) == {"P|f|x@#int@0@!idx"}


def test_the_spec_gives_the_entrys_tensor_inputs() -> None:
    from compilelint.api import spec_tensor_inputs
    from compilelint.dynamic.spec import validate

    s = validate(
        {"model": "m.py:M", **TOKENS_1D, "kwargs": {"mask": {"tensor": [4], "dtype": "bool"}}}
    )
    assert spec_tensor_inputs(s) == (("0", 2, "float"), ("1", 1, "int"), ("mask", 1, "bool"))
    # a variant with another rank: that input's rank is not known
    s = validate({"model": "m.py:M", **TOKENS_1D, "variants": [{"inputs": TOKENS_2D["inputs"]}]})
    assert spec_tensor_inputs(s) == (("0", 2, "float"),)


# ---------------------------------------------------------------------------- drawn numbers
# dynamo traces `random.randint`/`uniform`/`randrange` itself and holds the drawn number as a
# graph value: with a tensor it stays in the graph, but Python arithmetic with another Python
# number, a comparison, a slice bound, an index or another draw's bound breaks (GB0213), and
# torch 2.13 does not resume: the rest of the function runs eagerly (CL121)
DRAW = "import random\n\n" + TORCH
# VALID: SpecAugment's second draw bounded by the first (the later lines, under the same
# condition, run eagerly: neither the slice bounds nor the LSTM break)
SPECAUG = DRAW + textwrap.dedent("""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(20, 8, batch_first=True)

        def forward(self, feats):
            if self.training:
                feats = feats.clone()
                f = random.randint(0, 4)
                f0 = random.randint(0, feats.shape[2] - f)
                feats[:, :, f0 : f0 + f] = 0
            out, _ = self.rnn(feats)
            return out
    """)
# VALID: a drawn float scaled by a Python number, then a print that runs eagerly
DRAW_SCALED = DRAW + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            g = random.uniform(-6.0, 6.0)
            gain = 10 ** (g / 20)
            print("gain", gain)
            return x * gain
    """)
# VALID: a draw bounded by another
DRAW_BOUND = DRAW + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            f = random.randint(1, 3)
            g = random.uniform(0, f)
            return x * g
    """)
# VALID: a drawn start as a slice bound
DRAW_SLICE = DRAW + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            f = random.randint(0, 2)
            return x[:, f:] * 2
    """)
# INVALID: drawn numbers only meet tensors, and a draw with constant bounds
DRAW_WITH_TENSORS = DRAW + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            g = random.uniform(0.5, 1.5)
            k = random.randint(1, 3)
            return x * g + k
    """)
TRAIN = {"inputs": [{"tensor": [2, 5, 20]}], "mode": "train"}
DRAW_CASES: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "specaug": (SPECAUG, TRAIN, "feats.shape[2] - f"),
    "draw_scaled": (DRAW_SCALED, X34, "g / 20"),
    "draw_bound": (DRAW_BOUND, X34, "random.uniform(0, f)"),
    "draw_slice": (DRAW_SLICE, X34, "x[:, f:]"),
    "draw_with_tensors": (DRAW_WITH_TENSORS, X34, None),
}


@pytest.mark.parametrize("name", sorted(DRAW_CASES))
def test_arithmetic_on_a_drawn_number_is_a_predicted_break(tmp_path: Path, name: str) -> None:
    src, spec, at = DRAW_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert predicted_break_lines(tmp_path, src, spec) == want


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(DRAW_CASES))
def test_the_drawn_number_breaks_match_torch(tmp_path: Path, name: str) -> None:
    pytest.importorskip("torch")
    src, spec, at = DRAW_CASES[name]
    want = {line_of(src, at)} if at else set()
    assert torch_break_lines(tmp_path, src, {**spec, "calls": 1}) == want


def test_without_a_mode_the_lstm_after_a_training_only_break_stays(tmp_path: Path) -> None:
    """Without a spec the mode is open: in eval mode the training block does not run and the
    LSTM breaks (CL510); the draws' later lines under the same condition stay hidden."""
    got = predicted_break_lines(tmp_path, SPECAUG, None)
    assert got == {line_of(SPECAUG, "feats.shape[2] - f"), line_of(SPECAUG, "self.rnn(feats)")}
