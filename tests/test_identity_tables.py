"""Tables keyed by ``id()`` hold the objects they key (docs/development.md, "Tables keyed by
id()"): an id is an object's only while the object lives, and one kept after the object was
freed is taken by the next object made at its address."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import libcst as cst
import pytest

from compilelint.fix.engine import _Apply
from compilelint.fix.records import Rewrite

GUARD = "if not torch.compiler.is_compiling():\n    print({})\n"


def _block(stmt: cst.BaseStatement) -> Sequence[cst.BaseStatement]:
    """The statements of the indented block of the compound statement ``stmt``."""
    assert isinstance(stmt, cst.BaseCompoundStatement)
    assert isinstance(stmt.body, cst.IndentedBlock)
    return stmt.body.body


def _guard(i: int) -> cst.BaseStatement:
    return cst.parse_statement(GUARD.format(i))


@pytest.mark.parametrize("n_after", [5, 50, 200])
@pytest.mark.parametrize("n_merged", [1, 2, 5, 20])
def test_an_if_the_transform_rebuilds_is_never_merged_into_a_guard(
    n_merged: int, n_after: int
) -> None:
    """Five adjacent guards merge into one ``if`` (the four partial merges are freed on the
    way); later, each function's guard is followed by an ``if x:`` whose body a rewrite changes,
    so the transform builds it anew. Keyed by a bare id, the freed partial merges' ids made such
    a new ``if`` "a guard": its body went under the guard's test, ``if x:`` lost (how many
    depended on the allocator: 1 to all of them in runs before the fix)."""
    parts = [
        f"def f{k}(x):\n" + "".join(f"    a{i} = {i}\n" for i in range(5)) + "    return x\n\n"
        for k in range(n_merged)
    ]
    parts += [
        f"def g{k}(x):\n    a = 1\n    if x:\n        b = 2\n    return x\n\n"
        for k in range(n_after)
    ]
    mod = cst.parse_module("".join(parts))
    rewrites = [
        Rewrite("guard", [(st, _guard(0))], mergeable=True)
        for fn in mod.body[:n_merged]
        for st in _block(fn)[:5]
    ]
    for fn in mod.body[n_merged:]:
        first, cond = _block(fn)[:2]
        rewrites.append(Rewrite("guard", [(first, _guard(1))], mergeable=True))
        rewrites.append(Rewrite("inner", [(_block(cond)[0], cst.parse_statement("b = 3\n"))]))
    out = mod.visit(_Apply(rewrites)).code
    merged = GUARD.format(0).replace("    print(0)\n", "    print(0)\n" * 5)
    assert out.count(textwrap.indent(merged, "    ")) == n_merged
    kept = "\n".join(
        [
            "    if not torch.compiler.is_compiling():",
            "        print(1)",
            "    if x:",
            "        b = 3",
        ]
    )
    assert out.count(kept) == n_after, out
