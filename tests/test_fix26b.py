"""Vendored library code (issue 22, branch fix26b): forms taken from installed libraries' code
(``benchmarks/fix_corpus_vendb``) that the codemods now accept, and the ones they leave.

- CL104: an assert whose test joins tensor conditions with ``and``/``or``/``not``
  (torchdiffeq's ``_check_timelike``: ``assert diff.all() or (~diff).all(), "...".format(name)``)
  calls ``bool()`` on a tensor, a break even with a literal message: the test becomes one
  boolean tensor (``torch.logical_or(...)``), the message its literal text.
- CL101: ``if flag and t.all(): break`` in a generation loop (linear-attention-transformer's
  ``generate``) raised ``StopIteration`` inside the codemod (the tensor part's rewrite replaces
  the loop, not the ``if``); it is now a no-fix with its reason.

Each VALID case is checked as text and, marked ``torch``, against the original (the original
breaks; the fixed model compiles with ``fullgraph=True`` and gives the same outputs and
parameter gradients, compiled and uncompiled). Each INVALID case is checked for what stays.
"""

from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.fix.engine import run_fixes

from .fix_modules import fix_case_tests, load_module
from .torch_oracle import observe

HEAD = "import torch\nfrom torch import nn\n\n\n"

# torchdiffeq 0.2.5 _impl/misc.py `_check_timelike`, called on the solver's time grid
TIMELIKE = HEAD + textwrap.dedent(
    """\
    def _check_timelike(name, timelike):
        diff = timelike[1:] > timelike[:-1]
        assert diff.all() or (~diff).all(), "{} must be strictly increasing or decreasing".format(name)


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, t):
            _check_timelike("t", t)
            return self.lin(x) * (t[-1] - t[0])
    """
)

# a finite-values check in the style of linear_operator's NaN checks: `not (a or b)`
FINITE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)

        def forward(self, x, t):
            h = self.lin(x)
            assert not (torch.isnan(h).any() or torch.isinf(h).any()), f"non-finite values in {t.shape}"
            return h * t.sum()
    """
)

# linear-attention-transformer 0.19.1 autoregressive_wrapper.py `generate`: eos early stop
GENERATE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self, eos_token=0):
            super().__init__()
            self.lin = nn.Linear(4, 6)
            self.eos_token = eos_token

        def forward(self, x):
            eos_token = self.eos_token
            out = x.new_zeros(x.shape[0], 0, dtype=torch.long)
            for _ in range(3):
                sample = self.lin(x).argmax(-1, keepdim=True)
                out = torch.cat((out, sample), dim=-1)
                if eos_token is not None and (sample == eos_token).all():
                    break
            return out
    """
)


def _run(tmp_path: Path, code: str, select: tuple[str, ...]) -> tuple[str, str]:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    res = run_fixes([str(path)], Config(select=select, cache=False), unsafe=True)
    out = code
    for c in res.changes:
        out = c.after.decode()
    return out, " | ".join(r.reason for r in res.records if r.reason)


def _inputs(seed: int, bad: bool = False) -> tuple[object, ...]:
    import torch

    g = torch.Generator().manual_seed(seed)
    t = torch.linspace(0.0, 1.0, 5) if seed % 2 == 0 else torch.linspace(1.0, 0.0, 5)
    if bad:
        t = torch.tensor([0.0, 1.0, 0.5, 0.7, 0.9])
    return torch.randn(3, 4, generator=g), t


# ---------------------------------------------------------------------------- VALID (text)
def test_an_assert_joining_tensor_conditions_with_or_is_one_logical_or(tmp_path: Path) -> None:
    out, _ = _run(tmp_path, TIMELIKE, ("CL104",))
    assert (
        "assert torch.logical_or(diff.all(), (~diff).all()), "
        '"{} must be strictly increasing or decreasing"\n'
    ) in out


def test_a_negated_or_of_tensor_checks_is_logical_not_of_logical_or(tmp_path: Path) -> None:
    out, _ = _run(tmp_path, FINITE, ("CL104",))
    assert (
        "assert torch.logical_not(torch.logical_or(torch.isnan(h).any(), torch.isinf(h).any()))"
        ', "non-finite values in {t.shape}"\n'
    ) in out


# the originals break at the assert; the joined assert compiles whole and computes the same
test_the_originals_break, test_the_joined_assert_compiles_whole_and_matches = fix_case_tests(
    {"timelike": TIMELIKE, "finite": FINITE},
    lambda tmp_path, case, code: _run(tmp_path, code, ("CL104",))[0],
    lambda torch, case, seed: _inputs(seed),
    prefix="fix26b",
    seeds=(0, 1),
)


@pytest.mark.torch
def test_the_joined_assert_still_fails_compiled_on_a_bad_grid(tmp_path: Path) -> None:
    import torch

    out, _ = _run(tmp_path, TIMELIKE, ("CL104",))
    fixed = load_module(_write(tmp_path, out), "fixed")
    torch._dynamo.reset()
    model = torch.compile(fixed.Model(), fullgraph=True, backend="eager")
    model(*_inputs(0))
    # torch raises its in-graph assert as a RuntimeError (AssertionError uncompiled)
    with pytest.raises((AssertionError, RuntimeError), match="strictly increasing"):
        model(*_inputs(0, bad=True))


# ---------------------------------------------------------------------------- INVALID
def test_a_python_flag_in_the_assert_test_is_not_joined(tmp_path: Path) -> None:
    code = TIMELIKE.replace(
        "def _check_timelike(name, timelike):", "def _check_timelike(name, timelike, strict=False):"
    )
    code = code.replace("assert diff.all() or", "assert strict or diff.all() or")
    out, _ = _run(tmp_path, code, ("CL104",))
    assert "logical_or" not in out
    assert "assert strict or diff.all() or (~diff).all()" in out


def test_a_single_tensor_test_with_a_literal_message_is_left(tmp_path: Path) -> None:
    code = TIMELIKE.replace(
        'assert diff.all() or (~diff).all(), "{} must be strictly increasing or decreasing".format(name)',
        'assert diff.all(), "must be strictly increasing"',
    )
    out, _ = _run(tmp_path, code, ("CL104",))
    assert out == code


def test_a_flagged_break_in_a_generation_loop_is_a_no_fix_not_a_crash(tmp_path: Path) -> None:
    out, reasons = _run(tmp_path, GENERATE, ("CL101",))
    assert "internal error" not in reasons
    assert "changes the enclosing loop" in reasons
    assert "if eos_token is not None and (sample == eos_token).all():" in out


def _write(tmp_path: Path, code: str) -> Path:
    path = tmp_path / f"m_{uuid.uuid4().hex[:8]}.py"
    path.write_text(code, encoding="utf-8")
    return path


# zuko 1.6.0 transforms.py / lazy.py: `LazyComposedTransform.forward` builds a
# `ComposedTransform` (an nn.Module whose `__init__` asserts on the tuple: breaks) from a
# generator unpacked into its constructor
COMPOSE = HEAD + textwrap.dedent(
    """\
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

        def forward(self, x):
            return Composed(*(layer(x) for layer in self.layers)).total()


    class Composed(nn.Module):
        def __init__(self, *transforms):
            super().__init__()
            assert transforms, "'transforms' cannot be empty"
            self.transforms = transforms

        def total(self):
            out = self.transforms[0]
            for t in self.transforms[1:]:
                out = out + t
            return out
    # inputs: (torch.randn(2, 4),)
    """
)
CALL_LINE = 1 + COMPOSE.splitlines().index(
    "        return Composed(*(layer(x) for layer in self.layers)).total()"
)


def test_a_starred_generator_argument_is_a_list_comprehension(tmp_path: Path) -> None:
    out, _ = _run(tmp_path, COMPOSE, ("CL118",))
    assert "return Composed(*[layer(x) for layer in self.layers]).total()\n" in out


@pytest.mark.torch
def test_the_starred_list_removes_the_break_at_the_call_with_the_same_outputs(
    tmp_path: Path,
) -> None:
    import torch

    out, _ = _run(tmp_path, COMPOSE, ("CL118",))
    orig = load_module(_write(tmp_path, COMPOSE), "orig")
    fixed = load_module(_write(tmp_path, out), "fixed")
    x = torch.randn(2, 4)
    before = observe(COMPOSE, tmp_path)
    after = observe(out, tmp_path)
    assert before is not None and after is not None
    assert CALL_LINE in {line for _, f, line in before.breaks if "cl_example" in f}
    # the break at the call goes; the callee's own break stays
    assert CALL_LINE not in {line for _, f, line in after.breaks if "cl_example" in f}
    torch.manual_seed(0)
    ref = orig.Model()
    torch.manual_seed(0)
    got = fixed.Model()
    torch._dynamo.reset()
    torch.testing.assert_close(torch.compile(got, backend="eager")(x), ref(x))
    loss_ref, loss_got = ref(x).sum(), got(x).sum()
    loss_ref.backward()
    loss_got.backward()
    for a, b in zip(ref.parameters(), got.parameters()):
        torch.testing.assert_close(a.grad, b.grad)


def test_a_generator_passed_as_a_plain_argument_is_left(tmp_path: Path) -> None:
    code = COMPOSE.replace("def __init__(self, *transforms):", "def __init__(self, transforms):")
    code = code.replace("self.transforms = transforms", "self.transforms = list(transforms)")
    code = code.replace(
        "assert transforms, \"'transforms' cannot be empty\"", 'print("composing", transforms)'
    )
    code = code.replace(
        "Composed(*(layer(x) for layer in self.layers))",
        "Composed(layer(x) for layer in self.layers)",
    )
    out, reasons = _run(tmp_path, code, ("CL118",))
    assert "Composed(layer(x) for layer in self.layers)" in out
    assert "may consume it lazily" in reasons


ASSERT_LINE = 1 + COMPOSE.splitlines().index(
    "        assert transforms, \"'transforms' cannot be empty\""
)


def test_an_assert_on_a_star_args_tuple_asserts_its_length(tmp_path: Path) -> None:
    out, _ = _run(tmp_path, COMPOSE, ("CL117",))
    assert "assert len(transforms) > 0, \"'transforms' cannot be empty\"\n" in out


@pytest.mark.torch
def test_the_length_assert_removes_the_break_and_still_fails_on_an_empty_tuple(
    tmp_path: Path,
) -> None:
    import torch

    out, _ = _run(tmp_path, COMPOSE, ("CL117",))
    before = observe(COMPOSE, tmp_path)
    after = observe(out, tmp_path)
    assert before is not None and after is not None
    assert ASSERT_LINE in {line for _, f, line in before.breaks if "cl_example" in f}
    assert ASSERT_LINE not in {line for _, f, line in after.breaks if "cl_example" in f}
    fixed = load_module(_write(tmp_path, out), "fixed")
    with pytest.raises(AssertionError, match="cannot be empty"):
        fixed.Composed()
    assert fixed.Composed(torch.ones(1)).total().item() == 1.0


@pytest.mark.parametrize(
    ("src", "known"),
    [
        ("def f(*args):\n    assert args\n", True),
        ("def f(x):\n    parts = [x, x]\n    assert parts\n", True),
        ("def f(x):\n    parts = {'a': x}\n    assert parts\n", True),
        ("def f(*args):\n    args = args[1:]\n    assert args\n", False),
        ("def f(parts):\n    assert parts\n", False),
        ("def f(x):\n    parts = [x]\n    parts = x.split(1)\n    assert parts\n", False),
        ("def f(x):\n    parts = x.split(1)\n    assert parts\n", False),
        (
            "def f(x):\n    parts = [x]\n    for parts in x:\n        pass\n    assert parts\n",
            False,
        ),
    ],
)
def test_only_a_tuple_list_or_dict_gets_the_length_assert(src: str, known: bool) -> None:
    """The codemod's own check of the name (the rule decides which asserts it flags)."""
    import libcst as cst

    from compilelint.fix.codemods.cl117_assert_on_container import _is_container

    fn = cst.parse_module(src).body[0]
    assert isinstance(fn, cst.FunctionDef)
    assert _is_container(fn, "args" if "args" in src else "parts") is known
