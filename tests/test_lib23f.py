"""Issue 23, round lib23f: asserts on containers, generators passed to breaking calls, functions
as parameter defaults, arguments that are never ``None``.

- ``assert args`` on a ``*args`` tuple (or a tuple, list or dict holding tensors) breaks: torch
  2.13 rewrites the assert into ``torch._assert_async(torch.scalar_tensor(args))`` (CL117;
  zuko's ``ComposedTransform.__init__``).
- A call given a generator expression whose callee breaks breaks at the call too: the frame
  cannot be resumed with the generator (CL118; zuko's ``LazyComposedTransform.forward``).
- A function named as a parameter's default runs only where a call leaves the parameter out
  (torchmetrics' ``reduce_fn=_recall_at_precision``).
- An argument computed by arithmetic is never ``None`` (torchmetrics' ``_bincount(x,
  minlength=4 * num_labels)``: ``if minlength is None:`` does not run).

Each static verdict comes with torch's own (``tests/torch_checks.py``, marked ``torch``).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path

import pytest

from tests.cli_invoke import invoke
from tests.test_follow import make_env
from tests.torch_checks import assert_no_graph_break, logged_break_lines


def _findings(tmp_path: Path, src: str, *extra: str) -> set[tuple[int, str]]:
    (tmp_path / "model.py").write_text(src)
    code, out, err = invoke(
        ["check", "model.py", "--format", "json", "--no-cache", "--select", "ALL", *extra],
        cwd=tmp_path,
    )
    assert code in (0, 1), err
    return {(f["line"], f["rule"]) for f in json.loads(out)["findings"]}


def _module(name: str, src: str, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    return mod


# --------------------------------------------------------------------------- CL117
ASSERTS = """\
import torch


class Compose:
    def __init__(self, *parts):
        assert {test}, "no parts"
        self.parts = parts


class Model(torch.nn.Module):
    def forward(self, x):
        c = Compose({args})
        d = {{"a": x}}
        assert {dict_test}
        return c.parts[0] + x
"""


def test_assert_on_a_star_args_tuple_and_a_dict_of_tensors(tmp_path: Path) -> None:
    # INVALID: the `*args` tuple (objects, tensors) and a dict holding a tensor
    src = ASSERTS.format(test="parts", args="x, x * 2", dict_test="d")
    assert _findings(tmp_path, src) >= {(6, "CL117"), (14, "CL117")}


def test_assert_on_a_length_is_no_container_test(tmp_path: Path) -> None:
    # VALID: `len(parts) > 0` and `"a" in d` are Python values dynamo folds
    src = ASSERTS.format(test="len(parts) > 0", args="x, x * 2", dict_test='"a" in d')
    assert not {f for f in _findings(tmp_path, src) if f[1] == "CL117"}


def test_assert_with_a_computed_message_is_not_rewritten(tmp_path: Path) -> None:
    # VALID: an f-string message: dynamo does not rewrite the assert and folds the tuple's truth
    src = ASSERTS.format(test="parts", args="x, x * 2", dict_test="d").replace(
        'assert parts, "no parts"', 'assert parts, f"no parts {len(parts)}"'
    )
    assert (6, "CL117") not in _findings(tmp_path, src)


@pytest.mark.torch
def test_torch_agrees_on_asserts(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4)
    good = _module(
        "lib23f_assert_ok",
        ASSERTS.format(test="len(parts) > 0", args="x, x * 2", dict_test='"a" in d'),
        monkeypatch,
    )
    assert_no_graph_break(good.Model(), (x,))
    for name, test, dict_test in (("a", "parts", '"a" in d'), ("b", "len(parts) > 0", "d")):
        bad = _module(
            f"lib23f_assert_bad_{name}",
            ASSERTS.format(test=test, args="x, x * 2", dict_test=dict_test),
            monkeypatch,
        )
        with pytest.raises(AssertionError):
            assert_no_graph_break(bad.Model(), (x,))
    message = _module(
        "lib23f_assert_msg",
        ASSERTS.format(test="parts", args="x, x * 2", dict_test='"a" in d').replace(
            'assert parts, "no parts"', 'assert parts, f"no parts {len(parts)}"'
        ),
        monkeypatch,
    )
    assert_no_graph_break(message.Model(), (x,))


# --------------------------------------------------------------------------- CL118
GENERATORS = """\
import torch


class Parts:
    def __init__(self, *parts):
        {body}
        self.parts = parts


class Model(torch.nn.Module):
    def forward(self, x):
        p = Parts(*{arg})
        return p.parts[0] + p.parts[1]
"""


def test_a_generator_passed_to_a_breaking_constructor_breaks_the_call(tmp_path: Path) -> None:
    # INVALID: `print` in `__init__`, the generator cannot be rebuilt to resume `forward`
    src = GENERATORS.format(body='print("built")', arg="(x * k for k in (1, 2))")
    assert _findings(tmp_path, src) == {(6, "CL201"), (12, "CL118")}


def test_a_generator_passed_to_a_clean_constructor_or_a_list_to_a_breaking_one(
    tmp_path: Path,
) -> None:
    # VALID: nothing breaks in `__init__`
    src = GENERATORS.format(body="pass", arg="(x * k for k in (1, 2))")
    assert _findings(tmp_path, src) == set()
    # VALID for CL118: a list comprehension is built before the call (the print still breaks)
    src = GENERATORS.format(body='print("built")', arg="[x * k for k in (1, 2)]")
    assert _findings(tmp_path, src) == {(6, "CL201")}


@pytest.mark.torch
def test_torch_agrees_on_generators(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4)
    clean = _module(
        "lib23f_gen_ok",
        GENERATORS.format(body="pass", arg="(x * k for k in (1, 2))"),
        monkeypatch,
    )
    assert_no_graph_break(clean.Model(), (x,))
    # the call line itself breaks (the frame is skipped), not only the print in `__init__`:
    # torch's own records of the break
    bad = _module(
        "lib23f_gen_bad",
        GENERATORS.format(body='print("built")', arg="(x * k for k in (1, 2))"),
        monkeypatch,
    )
    lst = _module(
        "lib23f_gen_list",
        GENERATORS.format(body='print("built")', arg="[x * k for k in (1, 2)]"),
        monkeypatch,
    )

    assert 12 in _break_lines(torch, bad.Model(), x)  # INVALID: the call line breaks too
    assert 12 not in _break_lines(torch, lst.Model(), x)  # VALID: the list's call does not


def _break_lines(torch: types.ModuleType, model: object, x: object) -> set[int]:
    """The lines of the test modules (``<lib23f_...>``) where torch logs a graph break."""
    return logged_break_lines(model, x, "lib23f_")


# --------------------------------------------------------------------------- defaults
DEFAULTS = """\
import torch


def _breaks(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum().item()


def _fine(x: torch.Tensor) -> torch.Tensor:
    return x * 2


def compute(x, reduce_fn=_breaks):
    return reduce_fn(x)


class Model(torch.nn.Module):
    def forward(self, x):
        return compute(x{arg})
"""


def test_a_default_function_a_caller_replaces_is_not_reached(tmp_path: Path) -> None:
    # VALID: the only call passes `_fine`
    assert _findings(tmp_path, DEFAULTS.format(arg=", reduce_fn=_fine")) == set()
    assert _findings(tmp_path, DEFAULTS.format(arg=", _fine")) == set()


def test_a_default_function_a_caller_leaves_is_reached(tmp_path: Path) -> None:
    # INVALID: the call leaves `reduce_fn` to its default
    assert _findings(tmp_path, DEFAULTS.format(arg="")) == {(5, "CL103")}


@pytest.mark.torch
def test_torch_agrees_on_default_functions(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4)
    ok = _module("lib23f_default_ok", DEFAULTS.format(arg=", reduce_fn=_fine"), monkeypatch)
    assert_no_graph_break(ok.Model(), (x,))
    bad = _module("lib23f_default_bad", DEFAULTS.format(arg=""), monkeypatch)
    with pytest.raises(AssertionError):
        assert_no_graph_break(bad.Model(), (x,))


# --------------------------------------------------------------------------- never None
NEVER_NONE = """\
import torch


def _bincount(x: torch.Tensor, minlength=None) -> torch.Tensor:
    if minlength is None:
        minlength = int(x.max().item()) + 1
    return x + minlength


def helper(x: torch.Tensor, n: int) -> torch.Tensor:
    return _bincount(x, minlength={arg})


class Model(torch.nn.Module):
    def __init__(self, n: int = 3) -> None:
        super().__init__()
        self.n = n

    def forward(self, x):
        return helper(x, self.n)
"""


def test_an_argument_computed_by_arithmetic_is_never_none(tmp_path: Path) -> None:
    # VALID: `4 * n` is a number whatever `n` holds, so `if minlength is None:` never runs
    assert _findings(tmp_path, NEVER_NONE.format(arg="4 * n")) == set()


def test_an_argument_passed_on_may_be_none(tmp_path: Path) -> None:
    # INVALID (for the static stage: not known): `n or None` may be None
    assert (6, "CL103") in _findings(tmp_path, NEVER_NONE.format(arg="n or None"))


@pytest.mark.torch
def test_torch_agrees_on_never_none(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randint(0, 4, (5,))
    ok = _module("lib23f_none_ok", NEVER_NONE.format(arg="4 * n"), monkeypatch)
    assert_no_graph_break(ok.Model(), (x,))
    bad = _module("lib23f_none_bad", NEVER_NONE.format(arg="None"), monkeypatch)
    with pytest.raises(AssertionError):
        assert_no_graph_break(bad.Model(), (x,))


# --------------------------------------------------------------------------- from user files
ZUKO_LIKE = """\
import torch


class Transform:
    def __init__(self, w):
        self.w = w


class ComposedTransform:
    def __init__(self, *transforms):
        assert transforms, "'transforms' cannot be empty"
        self.transforms = transforms


class Lazy(torch.nn.Module):
    def forward(self, c=None):
        return Transform(c)


class LazyComposed(torch.nn.Module):
    def __init__(self, *parts):
        super().__init__()
        self.parts = torch.nn.ModuleList(parts)

    def forward(self, c=None):
        return ComposedTransform(*(t(c) for t in self.parts))
"""


def test_following_finds_the_assert_and_the_generator_call(tmp_path: Path) -> None:
    venv = make_env(tmp_path, tmp_path / "imported.txt")
    site = venv / "lib" / "python3.11" / "site-packages" / "fakelib"
    (site / "lazy.py").write_text(ZUKO_LIKE)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "model.py").write_text(
        "import torch\nfrom fakelib.lazy import Lazy, LazyComposed\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.flow = LazyComposed(Lazy(), Lazy())\n\n"
        "    def forward(self, x):\n"
        "        t = self.flow()\n"
        "        return x * 2\n"
    )
    code, out, err = invoke(
        ["check", ".", "--format", "json", "--no-cache", "--python", str(venv)], cwd=proj
    )
    assert code in (0, 1), err
    got = {(f["rule"], f["frames"][-1]["line"]) for f in json.loads(out)["findings"] if f["frames"]}
    assert got == {("CL117", 11), ("CL118", 26)}


@pytest.mark.torch
def test_torch_agrees_on_the_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    import torch

    mod = _module("lib23f_flow", ZUKO_LIKE, monkeypatch)

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.flow = mod.LazyComposed(mod.Lazy(), mod.Lazy())

        def forward(self, x: object) -> object:
            self.flow()
            return x * 2  # type: ignore[operator]

    # the assert in `ComposedTransform.__init__` and the generator's call line
    assert _break_lines(torch, Model(), torch.randn(3)) == {11, 26}


# --------------------------------------------------------------------------- CL119
HELD = """\
import torch


class Holder:
    def __init__(self, y):
        self.y = y
        {store}

    def zero(self, x):
        return x * 0


def noisy(x):
    print("step")
    return x + 1


class Model(torch.nn.Module):
    def forward(self, x):
        h = Holder(x)
        y = noisy(x)
        return {ret}
"""


def test_a_breaking_call_while_holding_an_object_with_its_own_method(tmp_path: Path) -> None:
    # INVALID: `Holder` stores `self.zero`, and `h` is read after the breaking call
    src = HELD.format(store="self.g = self.zero", ret="h.g(y)")
    assert _findings(tmp_path, src) == {(14, "CL201"), (21, "CL119")}


def test_no_own_method_or_no_later_use_is_resumable(tmp_path: Path) -> None:
    # VALID: no bound method stored; or `h` not read after the call
    assert _findings(tmp_path, HELD.format(store="pass", ret="h.zero(y)")) == {(14, "CL201")}
    src = HELD.format(store="self.g = self.zero", ret="y")
    assert _findings(tmp_path, src) == {(14, "CL201")}


@pytest.mark.torch
def test_torch_agrees_on_held_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    x = torch.randn(4)
    cases = {
        "bound": (HELD.format(store="self.g = self.zero", ret="h.g(y)"), True),
        "plain": (HELD.format(store="pass", ret="h.zero(y)"), False),
        "dead": (HELD.format(store="self.g = self.zero", ret="y"), False),
    }
    for name, (src, breaks_at_call) in cases.items():
        mod = _module(f"lib23f_held_{name}", src, monkeypatch)
        lines = _break_lines(torch, mod.Model(), x)
        assert 14 in lines  # the print itself, every case
        assert (21 in lines) is breaks_at_call, (name, lines)
