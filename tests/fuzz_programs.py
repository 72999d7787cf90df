"""Inputs for the static stage's robustness tests and ``benchmarks/fuzz_static.py``.

- :func:`torch_programs`: a hypothesis strategy for small torch models whose ``forward`` and
  helpers are built from random statements and expressions around the patterns the checks look
  for (``.item()``, tensor ``if``, ``print``, helpers, closures, comprehensions, ...), so the
  walker, tensor inference, reachability and every check see odd combinations.
- :func:`programs`: those, plus hypothesmith's grammar-generated modules (wrapped so they reach
  the walker: prefixed with ``import torch`` or pasted into a ``forward``) when it is installed.
- :func:`write_odd_files`: garbage bytes, encodings and cookies, BOMs, CRLF/CR, tabs, a
  100,000-line file, an empty file, a folder named ``x.py``, symlink loops, a dangling link, a
  fifo, a device, deep nesting, a non-UTF-8 file name; with what the scan must say about each.
"""

from __future__ import annotations

import os
import random
import textwrap
from pathlib import Path

from hypothesis import strategies as st

NAMES = ("x", "y", "h", "mask", "n", "i", "self.w", "self.scale", "self.items", "out")
ATOMS = (
    *NAMES,
    "1",
    "2.0",
    "True",
    "None",
    "'s'",
    "x.shape[0]",
    "torch.ones(3)",
    "self.training",
    "np.random.rand()",
    "time.time()",
)
CALL_TEMPLATES = (
    "{0}.item()",
    "{0}.sum()",
    "{0}.tolist()",
    "{0}.numpy()",
    "{0}.abs().max()",
    "{0}.data_ptr()",
    "{0}.nonzero()",
    "{0}.size(0)",
    "float({0})",
    "int({0})",
    "bool({0})",
    "len({0})",
    "str({0})",
    "id({0})",
    "print({0})",
    "torch.where({0}, {1}, {0})",
    "torch.nonzero({0})",
    "torch.relu({0})",
    "F.softmax({0}, dim=-1)",
    "self.helper({0})",
    "helper({0}, {1})",
    "self.layer({0})",
    "{0}[{1}]",
    "{0}[{0} > 0]",
    "{0}[0:2]",
    "copy.deepcopy({0})",
    "logging.info({0})",
    "logger.warning('%s', {0})",
    "warnings.warn(str({0}))",
    "(lambda v: v * 2)({0})",
    "[{0} for _ in range(2)]",
    "{{'k': {0}}}",
    "({0} if {1} else {0})",
    "f'{{{0}}}'",
    "f'{{{0}!r}}'",
    "np.array({0})",
    "{0}.to({1})",
    "getattr(self, 'w')",
    "super().forward({0})",
)
OPS = ("+", "-", "*", "/", "@", ">", "<", "==", "!=", "and", "or", "is", "is not", "in", "%")


def _expr() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(ATOMS)

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(st.sampled_from(CALL_TEMPLATES), inner, inner).map(
                lambda t: t[0].format(t[1], t[2])
            ),
            st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(st.sampled_from(("-", "not ", "~")), inner).map(lambda t: f"({t[0]}{t[1]})"),
        )

    return st.recursive(leaves, extend, max_leaves=6)


TARGETS = ("x", "y", "h", "n", "out", "self.w", "self.count", "x, y", "h[0]", "COUNTER")


def _block(depth: int) -> st.SearchStrategy[list[str]]:
    expr = _expr()
    simple = st.one_of(
        st.tuples(st.sampled_from(TARGETS), expr).map(lambda t: f"{t[0]} = {t[1]}"),
        st.tuples(st.sampled_from(TARGETS), st.sampled_from(("+=", "-=", "*=")), expr).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}"
        ),
        expr.map(lambda e: e),
        expr.map(lambda e: f"assert {e}, f'bad {{{e}}}'"),
        expr.map(lambda e: f"return {e}"),
        st.sampled_from(
            (
                "pass",
                "self.count += 1",
                "self.items.append(x)",
                "global COUNTER",
                "COUNTER += 1",
                "breakpoint()",
                "pdb.set_trace()",
                "x.requires_grad_()",
                "h.data = x",
                "x.backward()",
                "torch.manual_seed(0)",
                "self.register_forward_hook(hook)",
                "del y",
                "raise ValueError('no')",
                "torch.compile(self.layer)",
                "yield x",
                "continue",
                "break",
            )
        ),
    )
    if depth <= 0:
        return st.lists(simple, min_size=1, max_size=4)
    inner = _block(depth - 1)

    def indent(lines: list[str]) -> str:
        return textwrap.indent("\n".join(lines), "    ")

    compound = st.one_of(
        st.tuples(expr, inner, inner).map(
            lambda t: f"if {t[0]}:\n{indent(t[1])}\nelse:\n{indent(t[2])}"
        ),
        st.tuples(expr, inner).map(lambda t: f"while {t[0]}:\n{indent(t[1])}"),
        st.tuples(expr, inner).map(lambda t: f"for i in {t[0]}:\n{indent(t[1])}"),
        inner.map(lambda b: f"with torch.no_grad():\n{indent(b)}"),
        st.tuples(inner, inner).map(
            lambda t: f"try:\n{indent(t[0])}\nexcept Exception as e:\n{indent(t[1])}"
        ),
        inner.map(lambda b: f"def inner(v):\n{indent(b)}\nx = inner(x)"),
        inner.map(lambda b: f"if not torch.compiler.is_compiling():\n{indent(b)}"),
    )
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=4)


HEADER = """\
import copy, logging, pdb, time, warnings
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

logger = logging.getLogger(__name__)
COUNTER = 0

"""


@st.composite
def torch_programs(draw: st.DrawFn) -> str:
    """A module with a helper, an ``nn.Module`` (maybe a subclass of another) and a compile."""
    body = _block(2)
    params = draw(st.sampled_from(("x", "x, y", "x: torch.Tensor, n: int = 2", "x, mask=None")))
    helper = draw(body)
    fwd = draw(body)
    meth = draw(body)
    decorator = draw(st.sampled_from(("", "@torch.compile\n", "@torch.compiler.disable\n")))
    base = draw(st.sampled_from(("nn.Module", "torch.nn.Module", "Base")))
    tail = draw(
        st.sampled_from(
            (
                "",
                "model = torch.compile(Net())",
                "for b in range(3):\n    torch.compile(Net())",
                "compiled = torch.compile(helper)",
            )
        )
    )

    def ind(lines: list[str], n: int) -> str:
        return textwrap.indent("\n".join(lines), " " * n)

    return (
        HEADER
        + f"{decorator}def helper(x, y=None):\n{ind(helper, 4)}\n\n\n"
        + "class Base(nn.Module):\n    pass\n\n\n"
        + f"class Net({base}):\n"
        + "    def __init__(self):\n        super().__init__()\n"
        + "        self.layer = nn.Linear(3, 3)\n        self.w = nn.Parameter(torch.ones(3))\n"
        + "        self.count = 0\n        self.items = []\n        self.scale = 2.0\n\n"
        + f"    def helper(self, x):\n{ind(meth, 8)}\n\n"
        + f"    def forward(self, {params}):\n{ind(fwd, 8)}\n\n\n"
        + tail
        + "\n"
    )


def _wrap_grammar(src: str, how: str) -> str:
    if how == "module":
        return "import torch\n" + src
    return (
        "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
        + textwrap.indent(src or "pass", "        ")
        + "\n        return x\n"
    )


def programs() -> st.SearchStrategy[str]:
    """Torch-shaped programs, plus hypothesmith's grammar programs when it is installed."""
    try:
        import hypothesmith
    except ImportError:
        return torch_programs()
    grammar = st.tuples(hypothesmith.from_grammar(), st.sampled_from(("module", "forward"))).map(
        lambda t: _wrap_grammar(*t)
    )
    return st.one_of(torch_programs(), grammar)


# --------------------------------------------------------------------------- odd files

MODEL = (
    "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        return x.item()\n"
)


def write_odd_files(root: Path) -> dict[str, str | None]:
    """Create the odd inputs under ``root``. Returns display path -> the CL000 message part the
    scan must report for it, or ``None`` when the file must scan cleanly (CL000-free); files
    named ``*model*`` must also yield their CL103 at line 6 (the ``.item()``), and
    ``big_100k_lines.py`` its CL103 at line 100,000."""
    rnd = random.Random(0)
    expect: dict[str, str | None] = {}

    def put(name: str | bytes, data: bytes, want: str | None) -> None:
        path = os.path.join(os.fsencode(root), os.fsencode(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
        if want != "skip":
            expect[os.fsdecode(name) if isinstance(name, str) else ""] = want

    put("garbage.py", bytes(rnd.randrange(256) for _ in range(4000)), "cannot")
    text = bytes(rnd.choice(b"abc(){}[]:=+-*'\"\\#@!. \t\n") for _ in range(4000))
    put("garbage_text.py", b"import torch\n)" + text, "cannot parse")
    put("nul.py", b"import torch\nx = 1\0\n", "null bytes")
    put(
        "latin1_cookie.py",
        "# -*- coding: latin-1 -*-\nimport torch\ns = 'caf\xe9'\n".encode("latin-1"),
        None,
    )
    put(
        "cp1252_cookie.py",
        "# vim: set fileencoding=cp1252 :\ns = '\u20ac'\n".encode("cp1252"),
        None,
    )
    put("unknown_cookie.py", b"# coding: klingon\nimport torch\n", "unknown encoding")
    put("bad_utf8.py", b"import torch\ns = '\xff\xfe'\n", "cannot decode")
    put("bad_utf8_cookie.py", b"# coding: utf-8\nimport torch\ns = '\xc3'\n", "cannot decode")
    put("utf16.py", "import torch\n".encode("utf-16"), "UTF-16")
    put("bom_model.py", b"\xef\xbb\xbf" + MODEL.encode(), None)
    put("bom_cookie_mismatch.py", b"\xef\xbb\xbf# coding: latin-1\nimport torch\n", "encoding")
    put("crlf_model.py", MODEL.replace("\n", "\r\n").encode(), None)
    put("cr_model.py", MODEL.replace("\n", "\r").encode(), None)
    put("tabs_model.py", MODEL.replace("    ", "\t").encode(), None)
    put("mixed_tabs.py", b"import torch\nif True:\n        x = 1\n\ty = 2\n", "tabs")
    put("empty.py", b"", None)
    put("only_comment.py", b"# nothing here", None)
    put("formfeed.py", b"import torch\n\x0c\nx = 1\n", None)
    put("long_line.py", b"import torch\nx = '" + b"a" * 2_000_000 + b"'\n", None)
    put(
        "deep_parens.py", b"import torch\nx = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "nested"
    )
    put("deep_unary.py", b"import torch\nx = " + b"-" * 100_000 + b"1\n", "nesting too deep")
    put("deep_binop.py", b"import torch\nx = " + b"+".join([b"1"] * 20_000) + b"\n", "nesting")
    put(
        "long_and_chain.py",
        b"import torch\nx = " + b" and ".join([b"1"] * 30_000) + b"\n",
        "nesting",
    )
    put(
        "deep_unary_syntax_error.py",
        b"import torch\nx = = 1\ny = " + b"not " * 200_000 + b"1\n",
        "invalid syntax",
    )
    put(
        "indent_deep.py",
        b"import torch\n" + b"".join(b" " * i + b"if x:\n" for i in range(120)),
        "indent",
    )
    put("newer_syntax.py", b"import torch\ntype Alias = list[int]\n", "skip")
    big = ["import torch", "", "", "class M(torch.nn.Module):", "    def forward(self, x):"]
    big += [f"        x = x + {i}" for i in range(100_000 - 6)]
    big.append("        return x.item()")
    put("big_100k_lines.py", ("\n".join(big) + "\n").encode(), None)
    os.makedirs(root / "folder.py", exist_ok=True)  # a folder named like a module
    put("folder.py/inside_model.py", MODEL.encode(), None)
    put(b"name_\xff_model.py", MODEL.encode(), "skip")
    expect["name_\\xff_model.py"] = None
    os.symlink("loop.py", root / "loop.py")
    expect["loop.py"] = "cannot read"
    os.symlink("b_loop.py", root / "a_loop.py")
    os.symlink("a_loop.py", root / "b_loop.py")
    expect["a_loop.py"] = expect["b_loop.py"] = "cannot read"
    os.symlink("nowhere.py", root / "dangling.py")
    expect["dangling.py"] = "cannot read"
    os.makedirs(root / "sub", exist_ok=True)
    os.symlink("..", root / "sub" / "up")  # a folder loop
    os.mkfifo(root / "fifo.py")
    expect["fifo.py"] = "fifo"
    if os.path.exists("/dev/zero"):
        os.symlink("/dev/zero", root / "zero.py")
        expect["zero.py"] = "device"
    return expect
