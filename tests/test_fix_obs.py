"""Observed evidence in the fix's value model, and Python values picked by a tensor test
(issue 22, branch fixobs).

- When torch observed a data-dependent branch (GB0170) at a line whose condition the static
  inference cannot type (a submodule or buffer read with ``getattr(self, name)``,
  ``checkpoint(...)``), that condition is a tensor for every codemod
  (:mod:`compilelint.fix.evidence`): the branch rewrites apply. When several conditions share
  the line and none is known, no fact is added and the reason says so.
- A Python value picked by a tensor test and read as the flag of a later ``if`` becomes a
  0-dim bool tensor (the later branch is rewritten in the next round); one returned to the
  caller or kept on ``self`` is proposed, with the reason.

Each rewrite is an INVALID/VALID pair: the text is checked without torch; marked ``torch``,
the original breaks the graph on the installed torch and the fixed text compiles with
``fullgraph=True``, with outputs and parameter gradients equal to the original's.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes

from .fix_modules import fix_result, fixed_text, load_module

HEAD = "import torch\nfrom torch import nn\n\n\n"

GATE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, name="mix", threshold=0.4):
            super().__init__()
            self.proj_name = f"to_{name}"
            setattr(self, self.proj_name, nn.Linear(8, 8))
            self.threshold = threshold

        def forward(self, x):
            h = getattr(self, self.proj_name)(x)
            energy = h.pow(2).mean()
            if energy > self.threshold:
                h = h * 0.5
            return x + h
    """
)
GATE_FIXED = "        h = torch.where(energy > self.threshold, h * 0.5, h)\n"

BUFFER = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, stat="rms"):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.stat = stat
            self.register_buffer(f"running_{stat}", torch.full((), 0.75))

        def forward(self, x):
            running = getattr(self, f"running_{self.stat}")
            if running < 1e-3:
                scale = 1.0
            else:
                scale = 1.0 / running
            return self.proj(x) * scale
    """
)
BUFFER_FIXED = "        scale = torch.where(running < 1e-3, 1.0, 1.0 / running)\n"

AMBIGUOUS = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)
            self.cfg = {"gate": True, "thresh": 0.5}
            self.cache = {}

        def forward(self, x):
            y = self.proj(x)
            self.cache.update(score=y.sigmoid().mean())
            score = self.cache["score"]
            if self.cfg["gate"] and score > self.cfg["thresh"]:
                y = y * 2
            return y
    """
)

FLAG = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, free_bits=0.05):
            super().__init__()
            self.enc = nn.Linear(8, 8)
            self.free_bits = free_bits

        def forward(self, x):
            h = self.enc(x)
            kl = h.pow(2).mean()
            if kl > self.free_bits:
                use_kl = True
            else:
                use_kl = False
            loss = h.abs().mean()
            if use_kl:
                loss = loss + 0.5 * kl
            return loss
    """
)
FLAG_FIXED = (
    "        use_kl = torch.where(kl > self.free_bits, True, False)\n",
    "        loss = torch.where(use_kl != 0, loss + 0.5 * kl, loss)\n",
)

RETURNED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(8, 8)

        def forward(self, x):
            loss = self.head(x).pow(2).mean()
            if not torch.isfinite(loss) or loss > 1e4:
                overflow = True
            else:
                overflow = False
            return loss, overflow
    """
)

STORED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(8, 4)
            self.last_imbalanced = False

        def forward(self, x):
            load = self.gate(x).softmax(-1).mean(0)
            if (load.max() - load.min()) > 0.5:
                self.last_imbalanced = True
            else:
                self.last_imbalanced = False
            return load
    """
)


def _fix(tmp_path: Path, code: str, observed: str | None) -> tuple[str, EngineResult]:
    """Fix ``code`` (CL101 only); ``observed``: the text of the line where torch observed a
    data-dependent branch (GB0170), offered as the verifier's later passes do."""
    seen = [] if observed is None else [(observed, "GB0170")]
    res = fix_result(tmp_path, code, ("CL101",), observed=seen, name="m.py")
    return fixed_text(res, code), res


def test_an_observed_branch_on_an_untyped_value_is_rewritten(tmp_path: Path) -> None:
    text, _ = _fix(tmp_path, GATE, None)
    assert text == GATE  # the static stage alone does not know `energy` is a tensor
    text, _ = _fix(tmp_path, GATE, "if energy >")
    assert GATE_FIXED in text


# the same gate and score read through an f-string name and an item stored into an attribute:
# the value model knows both are tensors (pred23m), so no observation is needed
GATE_FSTRING = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, name="mix", threshold=0.4):
            super().__init__()
            setattr(self, f"to_{name}", nn.Linear(8, 8))
            self.name = name
            self.threshold = threshold

        def forward(self, x):
            h = getattr(self, f"to_{self.name}")(x)
            energy = h.pow(2).mean()
            if energy > self.threshold:
                h = h * 0.5
            return x + h
    """
)
ITEM_STORED = AMBIGUOUS.replace(
    "self.cache.update(score=y.sigmoid().mean())", 'self.cache["score"] = y.sigmoid().mean()'
)


def test_a_branch_on_a_value_read_by_an_f_string_name_or_stored_item_is_rewritten(
    tmp_path: Path,
) -> None:
    text, _ = _fix(tmp_path, GATE_FSTRING, None)
    assert GATE_FIXED in text
    text, _ = _fix(tmp_path, ITEM_STORED, None)
    assert '        if self.cfg["gate"]:\n' in text
    assert '            y = torch.where(score > self.cfg["thresh"], y * 2, y)\n' in text


def test_the_observed_name_is_a_tensor_where_it_is_read_again(tmp_path: Path) -> None:
    text, _ = _fix(tmp_path, BUFFER, "if running <")
    assert BUFFER_FIXED in text


def test_several_unknown_conditions_on_the_observed_line_add_no_fact(tmp_path: Path) -> None:
    text, res = _fix(tmp_path, AMBIGUOUS, "if self.cfg")
    assert text == AMBIGUOUS
    reasons = " ".join(r.reason for r in res.records)
    assert "2 conditions there could each be the tensor" in reasons, reasons


def test_a_python_flag_read_by_a_later_branch_becomes_a_bool_tensor(tmp_path: Path) -> None:
    text, _ = _fix(tmp_path, FLAG, None)
    for line in FLAG_FIXED:
        assert line in text, text


@pytest.mark.parametrize(
    ("code", "why"),
    [(RETURNED, "is returned to the model's caller"), (STORED, "is kept on the module")],
)
def test_a_python_value_returned_or_kept_on_self_is_proposed(
    tmp_path: Path, code: str, why: str
) -> None:
    text, res = _fix(tmp_path, code, None)
    assert text == code
    props = [r for r in res.records if r.status == "proposed"]
    assert props and why in props[0].reason, res.records
    assert "torch.where(" in props[0].patch


# ---------------------------------------------------------------------------- against torch
def _load(path: Path) -> Any:
    return load_module(path, "fixobs").Model


def _breaks(model: Any, *args: Any) -> int:
    """The graph breaks torch reports for one call (``torch._dynamo.explain``)."""
    import torch

    torch._dynamo.reset()
    n = int(torch._dynamo.explain(model)(*args).graph_break_count)
    torch._dynamo.reset()
    return n


def _breaks_or_raises(model: Any, *args: Any) -> bool:
    """Torch breaks the graph: ``explain`` counts a break, or ``fullgraph=True`` raises."""
    import torch

    if _breaks(model, *args) > 0:
        return True
    try:
        torch.compile(model, fullgraph=True, backend="eager")(*args)
    except Exception:
        return True
    finally:
        torch._dynamo.reset()
    return False


def _proposed(tmp_path: Path, code: str) -> str:
    """The proposal's patch applied (the fix a user accepts by hand)."""
    _, res = _fix(tmp_path, code, None)
    patch = next(r.patch for r in res.records if r.status == "proposed")
    old = [ln[1:] for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    new = [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert "\n".join(old) in code
    return code.replace("\n".join(old), "\n".join(new))


PAIRS = {
    "gate": (GATE, "if energy >"),
    "buffer": (BUFFER, "if running <"),
    "flag": (FLAG, None),
    "returned": (RETURNED, "proposal"),
    "stored": (STORED, "proposal"),
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(PAIRS))
def test_invalid_breaks_and_valid_compiles_whole_with_the_same_results(
    tmp_path: Path, case: str
) -> None:
    torch = pytest.importorskip("torch")
    code, observed = PAIRS[case]
    fixed = (
        _proposed(tmp_path, code) if observed == "proposal" else _fix(tmp_path, code, observed)[0]
    )
    assert fixed != code
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    Bad, Good = _load(tmp_path / "invalid.py"), _load(tmp_path / "valid.py")
    for seed, scale in ((0, 1.0), (1, 0.01), (2, 30.0)):
        torch.manual_seed(seed)
        bad = Bad()
        good = Good()
        good.load_state_dict(bad.state_dict())
        x = torch.randn(4, 8) * scale
        assert _breaks_or_raises(Bad(), x) and _breaks(good, x) == 0
        compiled = torch.compile(good, fullgraph=True, backend="eager")
        for run in (compiled, good):
            want, got = bad(x), run(x)
            want_t = want if isinstance(want, tuple) else (want,)
            got_t = got if isinstance(got, tuple) else (got,)
            for w, g in zip(want_t, got_t, strict=True):
                torch.testing.assert_close(torch.as_tensor(g), torch.as_tensor(w))
            first = want_t[0].sum()
            gw = torch.autograd.grad(first, list(bad.parameters()), allow_unused=True)
            gg = torch.autograd.grad(got_t[0].sum(), list(good.parameters()), allow_unused=True)
            for a, b in zip(gw, gg, strict=True):
                if a is None:
                    assert b is None or not b.any()
                else:
                    torch.testing.assert_close(b, a)
        if case == "stored":
            assert bool(good.last_imbalanced) == bad.last_imbalanced


# ---------------------------------------------------------------------------- lazy heads
ADD_MODULE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, tasks=("depth", "normals")):
            super().__init__()
            self.tasks = tasks

        def forward(self, x):
            preds = []
            for task in self.tasks:
                if f"probe_{task}" not in self._modules:
                    self.add_module(f"probe_{task}", nn.Linear(x.shape[-1], 3))
                preds.append(getattr(self, f"probe_{task}")(x))
            return torch.stack(preds, 1)
    """
)
GETATTR_NONE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, domains=("photo", "sketch")):
            super().__init__()
            self.domains = domains

        def forward(self, x):
            total = 0
            for d in self.domains:
                head = getattr(self, f"cls_{d}", None)
                if head is None:
                    head = nn.Linear(8, 2)
                    setattr(self, f"cls_{d}", head)
                total = total + head(x)
            return total
    """
)


def _fix_heads(tmp_path: Path, code: str) -> str:
    f = tmp_path / "m.py"
    f.write_text(code, encoding="utf-8")
    res = run_fixes([str(f)], Config(select=("CL508",), cache=False), unsafe=True)
    return res.changes[0].after.decode() if res.changes else code


def test_heads_added_with_add_module_are_built_in_init(tmp_path: Path) -> None:
    text = _fix_heads(tmp_path, ADD_MODULE)
    assert 'setattr(self, f"probe_{task}", nn.LazyLinear(3))' in text
    assert "add_module" not in text and "_modules" not in text


def test_heads_looked_up_with_getattr_none_are_built_in_init(tmp_path: Path) -> None:
    text = _fix_heads(tmp_path, GETATTR_NONE)
    assert 'setattr(self, f"cls_{d}", nn.LazyLinear(2))' in text
    assert 'head = getattr(self, f"cls_{d}")\n' in text and "is None" not in text


def test_heads_set_elsewhere_too_are_not_rewritten(tmp_path: Path) -> None:
    code = ADD_MODULE.replace(
        "        return torch.stack(preds, 1)\n",
        "        return torch.stack(preds, 1)\n\n"
        "    def reset(self):\n"
        '        self.add_module("probe_depth", nn.Linear(8, 3))\n',
    )
    assert "def reset" in code
    assert _fix_heads(tmp_path, code) == code


@pytest.mark.torch
@pytest.mark.parametrize("code", [ADD_MODULE, GETATTR_NONE], ids=["add_module", "getattr_none"])
def test_lazy_heads_compile_whole_with_the_same_results(tmp_path: Path, code: str) -> None:
    torch = pytest.importorskip("torch")
    fixed = _fix_heads(tmp_path, code)
    assert fixed != code
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    Bad, Good = _load(tmp_path / "invalid.py"), _load(tmp_path / "valid.py")
    x = torch.randn(4, 8)
    torch._dynamo.reset()
    with pytest.raises(Exception):  # noqa: B017 - a layer built in forward breaks fullgraph
        torch.compile(Bad(), fullgraph=True, backend="eager")(x)
    for compiled in (True, False):
        torch.manual_seed(0)
        bad = Bad()
        want = bad(x)
        torch.manual_seed(0)
        good = Good()
        torch._dynamo.reset()
        run = torch.compile(good, fullgraph=True, backend="eager") if compiled else good
        got = run(x)
        torch.testing.assert_close(got, want)
        gw = torch.autograd.grad(want.sum(), [p for _, p in sorted(bad.named_parameters())])
        gg = torch.autograd.grad(got.sum(), [p for _, p in sorted(good.named_parameters())])
        for a, b in zip(gw, gg, strict=True):
            torch.testing.assert_close(b, a)


# ---------------------------------------------------------------------------- index selections
INDEX_SELECTED = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.msg = nn.Linear(8, 8)

        def forward(self, x, edge_index, weight):
            h = self.msg(x)
            src = edge_index[0]
            keep = weight > 0.3
            kept_src = src[keep]
            return h[kept_src].sum(0)
    """
)
INDEX_SELECT_CALL = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x, edge_index, weight):
            h = self.proj(x)[: weight.shape[0]]
            idx = torch.nonzero(weight > 0.3).squeeze(1)
            pooled = h.index_select(0, idx).sum(0)
            return pooled
    """
)


def _fix_masks(tmp_path: Path, code: str) -> str:
    f = tmp_path / "m.py"
    f.write_text(code, encoding="utf-8")
    res = run_fixes([str(f)], Config(select=("CL110", "CL111"), cache=False), unsafe=True)
    return res.changes[0].after.decode() if res.changes else code


def test_a_selection_of_an_index_tensor_gathers_first_then_masks(tmp_path: Path) -> None:
    text = _fix_masks(tmp_path, INDEX_SELECTED)
    assert "h_gathered = h[src]\n" in text
    assert "kept_src" not in text and "torch.where(keep" in text


def test_a_selection_of_an_index_tensor_stored_through_is_not_moved(tmp_path: Path) -> None:
    code = INDEX_SELECTED.replace("return h[kept_src].sum(0)", "h[kept_src] = 0\n        return h")
    text = _fix_masks(tmp_path, code)
    assert "h_gathered" not in text


def test_index_select_of_nonzero_indices_reads_like_the_mask(tmp_path: Path) -> None:
    text = _fix_masks(tmp_path, INDEX_SELECT_CALL)
    assert "nonzero" not in text and "index_select" not in text
    assert "idx_mask = weight > 0.3" in text


@pytest.mark.torch
@pytest.mark.parametrize(
    "code", [INDEX_SELECTED, INDEX_SELECT_CALL], ids=["index_selected", "index_select"]
)
def test_index_rewrites_compile_whole_with_the_same_results(tmp_path: Path, code: str) -> None:
    torch = pytest.importorskip("torch")
    fixed = _fix_masks(tmp_path, code)
    assert fixed != code
    (tmp_path / "invalid.py").write_text(code, encoding="utf-8")
    (tmp_path / "valid.py").write_text(fixed, encoding="utf-8")
    Bad, Good = _load(tmp_path / "invalid.py"), _load(tmp_path / "valid.py")
    torch.manual_seed(0)
    x, ei, w = torch.randn(6, 8), torch.randint(0, 6, (2, 6)), torch.rand(6)
    assert _breaks_or_raises(Bad(), x, ei, w) and _breaks(Good(), x, ei, w) == 0
    bad = Bad()
    good = Good()
    good.load_state_dict(bad.state_dict())
    torch._dynamo.reset()
    for run in (torch.compile(good, fullgraph=True, backend="eager"), good):
        want, got = bad(x, ei, w), run(x, ei, w)
        torch.testing.assert_close(got, want)
        gw = torch.autograd.grad(want.sum(), list(bad.parameters()))
        gg = torch.autograd.grad(got.sum(), list(good.parameters()))
        for a, b in zip(gw, gg, strict=True):
            torch.testing.assert_close(b, a)


def test_a_python_number_traced_as_a_tensor_adds_no_fact(tmp_path: Path) -> None:
    code = HEAD + textwrap.dedent(
        """\
        import numpy as np


        class Model(nn.Module):
            def forward(self, x):
                spread = np.asarray(x.detach()).std()
                if spread > 1.0:
                    x = x / 2
                return x
        """
    )
    text, res = _fix(tmp_path, code, "if spread >")
    assert text == code
    reasons = " ".join(r.reason for r in res.records)
    assert "is a NumPy value" in reasons, reasons


HELPER = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, min_entropy=0.4):
            super().__init__()
            self.policy = nn.Linear(8, 4)
            self.min_entropy = min_entropy

        def entropy_scale(self, entropy):
            if entropy.mean() > self.min_entropy:
                return 1.0
            return 0.5

        def forward(self, x):
            probs = self.policy(x).softmax(-1)
            entropy = -(probs * probs.log()).sum(-1)
            return probs.max(-1).values.mean() - 0.01 * self.entropy_scale(entropy) * entropy.mean()
    """
)
HELPER_FIXED = "        return torch.where(entropy.mean() > self.min_entropy, 1.0, 0.5)\n"


def test_a_number_returned_to_tensor_arithmetic_becomes_a_tensor(tmp_path: Path) -> None:
    text, _ = _fix(tmp_path, HELPER, "if entropy.mean() >")
    assert HELPER_FIXED in text, text


def test_a_number_returned_from_forward_is_not_rewritten(tmp_path: Path) -> None:
    code = HELPER.replace(
        "return probs.max(-1).values.mean() - 0.01 * self.entropy_scale(entropy) * entropy.mean()",
        "return self.entropy_scale(entropy)",
    )
    text, _ = _fix(tmp_path, code, "if entropy.mean() >")
    assert text == code


PAIRS["helper"] = (HELPER, "if entropy.mean() >")
