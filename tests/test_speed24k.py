"""speed24k: round 15's walk work made cheap where it finds nothing, with the same answers."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path
from typing import Any

import libcst as cst

from compilelint.api import check
from compilelint.config import Config
from compilelint.static.analysis import values as V
from compilelint.static.analysis.walker import FileWalker


def _line(src: str, text: str) -> int:
    return next(i for i, ln in enumerate(textwrap.dedent(src).splitlines(), 1) if text in ln)


def _cl121_lines(tmp_path: Path, src: str) -> list[int]:
    (tmp_path / "m.py").write_text(textwrap.dedent(src), encoding="utf-8")
    rep = check([str(tmp_path)], Config(select=("CL121",), cache=False, root=str(tmp_path)))
    return sorted(f.line for f in rep.findings)


def test_cl121_sees_an_import_of_random_made_after_its_first_hooks(tmp_path: Path) -> None:
    """The check asks again after each import statement: `import random` inside forward,
    after arithmetic the check has already looked at (and found no `random` for)."""
    src = """
    import torch
    from torch import nn

    SCALE = 2 * 3

    class M(nn.Module):
        def forward(self, x):
            import random
            g = random.uniform(-6.0, 6.0)
            gain = 10 ** (g / 20)
            return x * gain
    """
    assert _cl121_lines(tmp_path, src) == [_line(src, "g / 20")]


def test_cl121_forgets_random_when_the_name_is_imported_from_elsewhere(tmp_path: Path) -> None:
    """`uniform` re-imported from numpy: the file no longer imports a function of `random`."""
    src = """
    import torch
    from torch import nn
    from random import uniform
    from numpy.random import uniform

    class M(nn.Module):
        def forward(self, x):
            g = uniform(-6.0, 6.0)
            gain = 10 ** (g / 20)
            return x * gain
    """
    assert _cl121_lines(tmp_path, src) == []


def _join_round15(*vals: V.Value) -> V.Value:
    """``values.join`` as round 15 wrote it (before its counting pass)."""
    out: set[V.Value] = set()
    for v in vals:
        if v[0] == "J":
            out.update(v[1])
        else:
            out.add(v)
    if not out:
        return V.UNKNOWN
    if len(out) == 1:
        return next(iter(out))
    out.discard(V.UNKNOWN)
    scalars = [m for m in out if m[0] == "S" and len(m) == 3]
    if len(scalars) > 1:
        for m in scalars:
            out.discard(m)
            out.add(("S", m[1]))
    if len(out) > 1:
        tensors = [m for m in out if (m[0] == "T" and len(m) == 4) or m == V.TENSOR]
        if len(tensors) > 1:
            metas = [V.tensor_meta(m) for m in tensors]
            r0, d0 = metas[0]
            r = r0 if all(mr == r0 for mr, _ in metas) else -1
            d = d0 if all(md == d0 for _, md in metas) else ""
            out.difference_update(tensors)
            out.add(V.tensor(r, d))
    if len(out) > V.MAX_JOIN:
        out = {m for m in out if m[0] in "TY"} or {V.UNKNOWN}
        if len(out) > V.MAX_JOIN:
            out = set(sorted(out)[: V.MAX_JOIN])
    if len(out) == 1:
        return next(iter(out))
    return ("J", frozenset(out))


POOL: list[V.Value] = [
    V.UNKNOWN,
    V.NONE,
    V.TENSOR,
    V.CONST_TENSOR,
    V.tensor(2, "int"),
    V.tensor(2, "float"),
    V.tensor(("x1", 0), "bool"),
    V.tensor(0, ""),
    V.INT,
    V.scalar("int", 1),
    V.scalar("int", 2),
    V.scalar("float", 0.5),
    V.scalar("str", "a"),
    V.DRAWN,
    V.sym("P|f|x"),
    V.sym("P|f|y"),
    V.SIZE,
]


def test_join_answers_as_round_15_did() -> None:
    for n in (0, 1, 2, 3):
        for vals in itertools.product(POOL, repeat=n):
            assert V.join(*vals) == _join_round15(*vals), vals
    many = [V.scalar("str", s) for s in "abcdefghijklmnop"] + [V.sym(f"P|f|{i}") for i in range(12)]
    assert V.join(*many) == _join_round15(*many)
    nested = V.join(V.tensor(2, "int"), V.scalar("int", 1))
    assert V.join(nested, V.tensor(2, "int"), V.scalar("int", 3)) == _join_round15(
        nested, V.tensor(2, "int"), V.scalar("int", 3)
    )


def test_qualify_of_a_node_that_is_no_dotted_chain() -> None:
    module = cst.parse_module("import numpy as np\nf(x)[0]\nnp.linalg.norm\n")
    w = FileWalker(module, "m.py", "m", False, {})
    w.imports["np"] = "numpy"
    body: list[Any] = list(module.body)
    call = body[1].body[0].value
    attr = body[2].body[0].value
    for _ in range(2):  # the second answer comes from the cache
        assert w.qualify(call) is None
        assert w.qualify(call.value) is None
        assert w.qualify(call.value.func) == "f"
        assert w.qualify(attr) == "numpy.linalg.norm"
