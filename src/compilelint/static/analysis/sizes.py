"""Tensors whose size varies from one iteration of a loop to the next (issue 23, pred23g).

dynamo guards every size of a tensor a frame receives; when a frame of its own (a function that
breaks, or one a skipped frame calls: :func:`~compilelint.static.analysis.breakpoints.own_frames`)
is called in a loop with a tensor whose size differs between the calls, the second call fails
the guard (``tensor 'x' size mismatch at index 1``, reported at the frame's ``def``) and
recompiles once; automatic dynamic then makes the dim symbolic (torch 2.13).

Across iterations of a loop only names the loop (re)binds can differ: everything else holds the
same value each time. A value's size *varies* when it is, or is computed from:

- a **selection by a mask** (``x[m]`` with ``m`` a comparison, or a name bound to one, or a
  combination of them by ``&``/``|``/``~``), or **by an index tensor whose length varies**
  (``boxes[order[1:]]``), or a data-dependent shape op (``nonzero``, ``unique``,
  ``masked_select``, ``argwhere``);
- a **slice with a bound the iteration changes**: a number read from a tensor (``seq[:
  int(n)]``, ``.item()``), or a name the loop binds (``x[:, :t]`` in ``for t in range(...)``);
- a **loop-carried tensor that grows or shrinks**: ``ids = torch.cat([ids, tok], 1)``, ``order =
  order[1:]`` (a name bound from a concatenation or a slice of itself in the loop);
- a size-keeping operation on such a value (arithmetic, ``x[None]``, a method other than a
  reduction).

A module call on a varying value (``x = blk(x)``) is not followed: a layer loop keeps sizes,
and a block that changes them is the model's, not the iteration's. An integer index (``x[0]``)
drops a dim the value model cannot name, so its result is not known to vary (no finding rather
than a false one). The model reads CPython's tree of the caller's file; it runs only for calls
of a frame of its own in a loop (the prediction, with a spec).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

_DATA_SHAPE = frozenset({"nonzero", "unique", "masked_select", "argwhere", "unique_consecutive"})
# reductions over a dim keep a mask a mask (``(idx == i).any(dim=-1)``)
_MASK_REDUCE = frozenset({"any", "all"})


def _index_tuple(e: ast.expr) -> bool:
    """A call returning a tuple of index tensors whose lengths follow the data: ``torch.where(c)``
    with one argument, ``c.nonzero(as_tuple=True)`` (torch 2.13: both are ``nonzero``)."""
    if not isinstance(e, ast.Call) or not isinstance(e.func, ast.Attribute):
        return False
    if e.func.attr == "where":
        return len(e.args) == 1 and not e.keywords and not isinstance(e.args[0], ast.Starred)
    return e.func.attr == "nonzero" and any(
        k.arg == "as_tuple" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in e.keywords
    )


_REDUCE = frozenset(
    {
        "sum", "mean", "max", "min", "prod", "all", "any", "item", "numel", "size", "dim",
        "tolist", "norm", "std", "var", "argmax", "argmin", "logsumexp", "amax", "amin",
        "count_nonzero", "median", "mode", "nansum", "nanmean",
    }
)  # fmt: skip
_CONCAT = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "column_stack"})
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body``, not entering nested functions or classes."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _FUNCS):
                stack.append(child)


def _targets(node: ast.AST) -> list[tuple[ast.expr, ast.expr | None]]:
    """``(target, value)`` pairs a binding statement makes (elementwise for ``a, b = x, y``;
    a target without a known value gets None)."""
    if isinstance(node, ast.Assign):
        out: list[tuple[ast.expr, ast.expr | None]] = []
        for t in node.targets:
            if isinstance(t, (ast.Tuple, ast.List)) and isinstance(
                node.value, (ast.Tuple, ast.List)
            ):
                if len(t.elts) == len(node.value.elts):
                    out.extend(zip(t.elts, node.value.elts))
                    continue
            out.append((t, node.value))
        return out
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
        return [(node.target, node.value)]
    if isinstance(node, ast.AugAssign):
        return [(node.target, ast.BinOp(left=node.target, op=node.op, right=node.value))]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [(node.target, None)]
    return []


def _names(t: ast.expr) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _names(e)]
    if isinstance(t, ast.Starred):
        return _names(t.value)
    return []


class _Loop:
    """The size facts of one loop's body: which names it binds, which hold a mask, which
    vary between its iterations (a fixpoint over its bindings, flow-insensitive within the
    loop: a name rebound anywhere in the body differs from one iteration to the next)."""

    def __init__(self, loop: ast.For | ast.AsyncFor | ast.While) -> None:
        nodes = list(_own_nodes(loop.body))
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            nodes.append(loop)
        self.pairs = [p for n in nodes for p in _targets(n)]
        # the names a ``for`` of the loop binds anew each iteration
        self.bound = {n for t, v in self.pairs if v is None for n in _names(t)}
        self.masks: set[str] = set()
        self.vary: set[str] = set()
        changed = True
        while changed:
            changed = False
            for t, v in self.pairs:
                if isinstance(t, ast.Tuple) and v is not None and _index_tuple(v):
                    # `idx, top = torch.where(indices == i)`: each element's length varies
                    fresh = set(_names(t)) - self.vary
                    self.vary |= fresh
                    changed = changed or bool(fresh)
                    continue
                if v is None or not isinstance(t, ast.Name):
                    continue
                if t.id not in self.masks and self._mask(v):
                    self.masks.add(t.id)
                    changed = True
                if t.id not in self.vary and self.varies(v, t.id):
                    self.vary.add(t.id)
                    changed = True

    def _mask(self, e: ast.expr) -> bool:
        if isinstance(e, ast.Compare):
            return True
        if isinstance(e, ast.Name):
            return e.id in self.masks
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.Invert, ast.Not)):
            return self._mask(e.operand)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self._mask(e.left) or self._mask(e.right)
        if (
            isinstance(e, ast.Call)
            and isinstance(e.func, ast.Attribute)
            and e.func.attr in _MASK_REDUCE
            and (e.args or e.keywords)
        ):
            return self._mask(e.func.value)  # `(top_idx == i).any(dim=-1)`: a mask of rows
        return False

    def _changing_bound(self, e: ast.expr | None) -> bool:
        """A slice bound that differs between iterations: a name a ``for`` of the loop binds,
        or a number read from a tensor (``n.item()``, ``.tolist()``)."""
        if e is None or isinstance(e, ast.Constant):
            return False
        for sub in ast.walk(e):
            if isinstance(sub, ast.Name) and sub.id in self.bound:
                return True
            if isinstance(sub, ast.Call):
                f = sub.func
                if isinstance(f, ast.Attribute) and f.attr in ("item", "tolist"):
                    return True
        return False

    def _index_varies(self, s: ast.expr, target: str) -> bool:
        if self._mask(s):
            return True
        if isinstance(s, ast.Slice):
            return any(self._changing_bound(b) for b in (s.lower, s.upper, s.step))
        if isinstance(s, ast.Tuple):
            return any(self._index_varies(e, target) for e in s.elts)
        if isinstance(s, (ast.Constant, ast.UnaryOp)):
            return False
        return self.varies(s, target)  # an index tensor whose length varies

    def varies(self, e: ast.expr, target: str = "") -> bool:
        """Whether the size of ``e`` differs between iterations (``target``: the name ``e`` is
        bound to, for a value computed from that name's previous iteration)."""
        if isinstance(e, ast.Name):
            return e.id in self.vary
        if isinstance(e, ast.Subscript):
            s = e.slice
            if isinstance(s, ast.Constant) and isinstance(s.value, int):
                # an element of `nonzero(as_tuple=True)` / `torch.where(m)`; else it drops a
                # dim the model cannot name
                return _index_tuple(e.value)
            if self._index_varies(s, target):
                return True
            if (
                target
                and isinstance(e.value, ast.Name)
                and e.value.id == target
                and isinstance(s, ast.Slice)
                and any(isinstance(b, ast.Constant) and b.value for b in (s.lower, s.upper))
            ):
                return True  # `order = order[1:]`: shrinks every iteration
            return self.varies(e.value, target)
        if isinstance(e, ast.BinOp):
            return self.varies(e.left, target) or self.varies(e.right, target)
        if isinstance(e, ast.UnaryOp):
            return self.varies(e.operand, target)
        if isinstance(e, ast.IfExp):
            return self.varies(e.body, target) or self.varies(e.orelse, target)
        if isinstance(e, ast.Call):
            f = e.func
            if not isinstance(f, ast.Attribute):
                return False  # a module or a function: not followed
            if f.attr in _DATA_SHAPE or _index_tuple(e):
                return True
            if f.attr in _CONCAT and e.args and isinstance(e.args[0], (ast.List, ast.Tuple)):
                elts = e.args[0].elts
                return any(
                    (isinstance(x, ast.Name) and x.id == target) or self.varies(x, target)
                    for x in elts
                )
            if f.attr in _REDUCE or (
                isinstance(f.value, ast.Name) and f.value.id in ("torch", "F")
            ):
                return False
            return self.varies(f.value, target)
        return False


def varying_arguments(tree: ast.Module, line: int, col: int, name: str) -> list[int | str] | None:
    """The arguments (position, or keyword) of the call of ``name`` (the last part of the
    called name) at ``line``/``col`` whose size varies between the iterations of a loop around
    the call in its function (see the module docstring); None when no such call is found or
    it is in no loop of its function."""
    found = _locate(tree, line, col, name)
    if found is None:
        return None
    call, loops = found
    if not loops:
        return None
    out: list[int | str] = []
    facts = [_Loop(lp) for lp in loops]
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            break
        if any(f.varies(a) for f in facts):
            out.append(i)
    for kw in call.keywords:
        if kw.arg is not None and any(f.varies(kw.value) for f in facts):
            out.append(kw.arg)
    return out


def aliased_arguments(tree: ast.Module, line: int, col: int, name: str) -> list[int]:
    """Positions of the call's arguments that are two names bound to the same object before
    the loop around the call (``x0 = x = emb``), one of which the loop binds anew (``x =
    layer(x0, x)``): the first iteration passes one tensor twice, the next ones two, so the
    frame's guard on its first call (that the two are one object) fails on the second
    iteration and it recompiles once (torch 2.13, reported at the ``def``)."""
    found = _locate(tree, line, col, name)
    if found is None or not found[1]:
        return []
    call, loops = found
    outer = loops[-1]
    rebound = {n for t, _v in _Loop(outer).pairs for n in _names(t)}
    args = [a.id if isinstance(a, ast.Name) else "" for a in call.args]
    fn = _enclosing_function(tree, outer)
    if fn is None:
        return []
    groups: list[set[str]] = []  # names bound together before the loop
    for node in _own_nodes(fn.body):
        if isinstance(node, ast.Assign) and node.lineno < outer.lineno:
            names = {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node.value, ast.Name):
                names.add(node.value.id)
            if len(names) > 1:
                groups.append(names)
    out: list[int] = []
    for i, a in enumerate(args):
        for j, b in enumerate(args):
            if i < j and a and b and a != b and (a in rebound) != (b in rebound):
                if any(a in g and b in g for g in groups):
                    out.extend((i, j))
    return sorted(set(out))


def _enclosing_function(
    tree: ast.Module, node: ast.AST
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function holding ``node``'s line (``state.holder_of``)."""
    from compilelint.static.analysis.state import holder_of

    return holder_of(tree, getattr(node, "lineno", 0))


def _called(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _locate(
    tree: ast.Module, line: int, col: int, name: str
) -> tuple[ast.Call, list[ast.For | ast.AsyncFor | ast.While]] | None:
    """The call of ``name`` at ``line`` (the one starting at ``col`` when several do) and the
    loops of its own function around it, innermost first (a loop's ``else`` and a ``for``'s
    iterable are not in it)."""
    best: tuple[ast.Call, list[ast.For | ast.AsyncFor | ast.While]] | None = None
    best_rank = 0

    def visit(node: ast.AST, loops: list[ast.For | ast.AsyncFor | ast.While]) -> None:
        nonlocal best, best_rank
        if isinstance(node, _FUNCS):
            loops = []
        if isinstance(node, ast.Call) and node.lineno == line:
            # the called name, else (a module held in a variable, whose `forward` the
            # project resolved) the call starting at the column (the walker's is 1-based)
            rank = 2 if _called(node) == name else 1 if node.col_offset + 1 == col else 0
            if rank and (best is None or rank > best_rank):
                best, best_rank = (node, list(reversed(loops))), rank
        for field, value in ast.iter_fields(node):
            inner = loops
            if isinstance(node, _LOOPS) and field == "body":
                inner = [*loops, node]
            items = value if isinstance(value, list) else [value]
            for child in items:
                if isinstance(child, ast.AST):
                    lo = getattr(child, "lineno", None)
                    hi = getattr(child, "end_lineno", None)
                    if lo is not None and hi is not None and not lo <= line <= hi:
                        continue
                    visit(child, inner)

    visit(tree, [])
    return best
