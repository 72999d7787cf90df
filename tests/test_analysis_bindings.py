"""analysis/bindings.py (seam25, issue 23): what a statement of CPython's tree binds and reads,
and the Python numbers it stores, as the prediction's number and loop recompiles read them."""

from __future__ import annotations

import ast

from compilelint.static.analysis.bindings import (
    bound_keys,
    comprehension_reads,
    is_read_out,
    key_of,
    reads_any,
    stored_numbers,
)


def _stmt(src: str) -> ast.stmt:
    return ast.parse(src).body[0]


def _expr(src: str) -> ast.expr:
    st = _stmt(src)
    assert isinstance(st, ast.Expr)
    return st.value


def test_key_of_names_and_self_attributes() -> None:
    assert key_of(_expr("x")) == "x"
    assert key_of(_expr("self.cache")) == "self.cache"
    assert key_of(_expr("other.cache")) == ""
    assert key_of(_expr("self.cache.k")) == ""
    assert key_of(_expr("x[0]")) == ""


def test_bound_keys_unpacks_targets_and_in_place_receivers() -> None:
    assert bound_keys(_stmt("b, (t, *rest) = x.shape")) == {"b", "t", "rest"}
    assert bound_keys(_stmt("self.step += 1")) == {"self.step"}
    assert bound_keys(_stmt("n: int = 3")) == {"n"}
    assert bound_keys(_stmt("x.mul_(mask)")) == {"x"}
    assert bound_keys(_stmt("x.mul(mask)")) == set()  # not in place: binds nothing
    assert bound_keys(_stmt("self.cache[k] = v")) == set()  # a store into, not a binding
    assert bound_keys(_stmt("a = b = f()")) == {"a", "b"}


def test_reads_any_sees_loads_only() -> None:
    assert reads_any(_stmt("y = n * 2"), {"n"})
    assert reads_any(_stmt("y = self.scale * x"), {"self.scale"})
    assert not reads_any(_stmt("n = 2"), {"n"})  # a store
    assert not reads_any(_stmt("y = m * 2"), {"n"})
    assert not reads_any(_stmt("y = n"), set())


def test_stored_numbers_only_bare_read_outs() -> None:
    assert stored_numbers(_stmt("n = x.item()")) == {"n"}
    assert stored_numbers(_stmt("lo, hi = lo.item(), hi.tolist()")) == {"lo", "hi"}
    # the statement goes on with the number: not only a store
    assert stored_numbers(_stmt("n = int(x.item()) + 1")) == set()
    assert stored_numbers(_stmt("if x.item() > 0:\n    pass")) == set()
    assert stored_numbers(_stmt("lo, hi = lo.item(), 3")) == set()
    # a draw (any call) counts only with ``draw``
    assert stored_numbers(_stmt("r = random.random()")) == set()
    assert stored_numbers(_stmt("r = random.random()"), draw=True) == {"r"}
    assert is_read_out(_expr("t.item()")) and not is_read_out(_expr("t.sum()"))


def test_comprehension_reads_inside_and_first_iterable() -> None:
    comp = _expr("[h[i] for i in range(n)]")
    assert comprehension_reads(comp, {"n", "h"}) == [(1, "h"), (1, "n")]
    # the comprehension's own target is not read from outside
    assert comprehension_reads(_expr("[x[i] for i in xs]"), {"i"}) == []
    # no index and no call inside: the frame does no work dynamo traces
    assert comprehension_reads(_expr("[i for i in range(n)]"), {"n"}) == []
    src = "ys = [\n    f(y, k)\n    for y in ys\n]"
    st = _stmt(src)
    assert isinstance(st, ast.Assign)
    assert comprehension_reads(st.value, {"k", "ys"}) == [(2, "k"), (1, "ys")]
