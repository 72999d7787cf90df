"""What torch observed, as facts of the fix's value model.

The static tensor inference cannot type every value (a result of ``einops.reduce``, of
``checkpoint(...)``, a buffer read through ``getattr``, a loss taken out of a dict). When the
dynamic stage observed a data-dependent branch (GB0170, GB0035) at a line, torch called
``bool()`` on a tensor there: one of the line's conditions is a tensor. This module names
which one, soundly, so that every codemod asking :meth:`FixContext.is_tensor` sees it (the
branch rewrites to ``torch.where``, the eager-only guards, the 0-dim tensors for Python values
that reach tensor arithmetic) rather than one special case per codemod:

- the line's *leaf conditions* are the tests of its ``if``/``while``/ternaries and the operands
  of its ``and``/``or``/``not`` (flattened);
- when a leaf is already a tensor by the static inference, the observation is explained and
  adds nothing;
- else, the leaves that are certainly Python values (numbers, ``True``/``None``, ``is``
  comparisons, ``isinstance``/``hasattr``/``len`` calls, ``self.training``) are set aside; when
  exactly one leaf is left, it is a tensor (a fact). When several are left (``cfg["gate"] and
  score > cfg["thresh"]``), torch's observation does not say which, and no fact is added: the
  reason names the candidates.

From a fact, more follow: a comparison whose other side is certainly a number makes its
operand a tensor (``energy > self.threshold``); a tensor method's result makes its receiver one
(``hidden.abs().max()`` -> ``hidden``); a name read as a tensor makes the reads that see the
same binding tensors (every read when the function binds the name once; inside the branch,
the reads up to the branch's own rebinding). :meth:`FixContext.is_tensor` then also holds
arithmetic with such a tensor, and tensor methods called on it, for tensors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import libcst as cst

from compilelint.static.analysis.names import (
    DATA_BOOL_READS,
    META_METHODS,
    SCALAR_METHODS,
    TENSOR_METHODS,
)

# GB ids of torch's "data-dependent branching": bool() of a tensor at that line
BRANCH_GB = frozenset({"GB0170", "GB0035"})

# tensor methods whose result is one tensor whatever their arguments
_NOT_ONE_TENSOR = frozenset(
    {
        "split",
        "chunk",
        "unbind",
        "tensor_split",
        "hsplit",
        "vsplit",
        "dsplit",
        "split_with_sizes",
        "unsafe_split",
        "unsafe_chunk",
        "unsafe_split_with_sizes",
        "nonzero",
        "shape",
        "dtype",
        "device",
        "ndim",
        "backward",
        "register_hook",
        "register_post_accumulate_grad_hook",
        "storage",
        "storage_type",
        "data_ptr",
        "const_data_ptr",
        "frexp",
        "slogdet",
        "qr",
        "svd",
        "eig",
        "symeig",
        "lstsq",
        "geqrf",
        "lu",
        "histogram",
        "aminmax",
        "requires_grad",
        "grad_fn",
        "is_leaf",
        "names",
    }
)
# ... and those whose result is a tuple when given a dimension (`x.max(dim=1)`)
_TUPLE_WITH_DIM = frozenset(
    {"max", "min", "median", "nanmedian", "mode", "sort", "topk", "kthvalue", "cummax", "cummin"}
)
ONE_TENSOR_METHODS = (
    TENSOR_METHODS - META_METHODS - SCALAR_METHODS - DATA_BOOL_READS - _NOT_ONE_TENSOR
) - {m for m in TENSOR_METHODS if m.startswith("is_")}

_PY_BUILTINS = frozenset(
    {"isinstance", "hasattr", "callable", "issubclass", "len", "bool", "str", "id", "getattr"}
)
_PY_ATTRS = frozenset({"training"})


def tensor_method(e: cst.BaseExpression) -> tuple[cst.BaseExpression, str] | None:
    """``recv.m(...)`` with ``m`` a tensor method returning one tensor: (``recv``, ``m``)."""
    if not (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute)):
        return None
    m = e.func.attr.value
    if m not in ONE_TENSOR_METHODS or (m in _TUPLE_WITH_DIM and e.args):
        return None
    return e.func.value, m


class Evidence:
    """Tensor facts of one parsed file, from the lines where torch observed ``bool()`` of a
    tensor. ``known`` is the static inference (``FixContext.is_tensor`` without facts) and
    ``number`` its "certainly a Python number"."""

    def __init__(self, ctx: object, lines: Iterable[int]) -> None:
        from compilelint.fix.context import FixContext

        assert isinstance(ctx, FixContext)
        self.ctx = ctx
        self.tensors: set[int] = set()
        self.notes: dict[int, str] = {}  # line -> why no fact was added there
        self.lines = set(lines)
        self._abort = ""
        for line in sorted(self.lines):
            self._line(line)

    # ------------------------------------------------------------------ one observed line
    def _line(self, line: int) -> None:
        ctx = self.ctx
        leaves: list[cst.BaseExpression] = []
        seen: set[int] = set()

        def add(e: cst.BaseExpression) -> None:
            for leaf in _leaves(e):
                if id(leaf) not in seen:
                    seen.add(id(leaf))
                    leaves.append(leaf)

        for node in ctx.on_line(line, cst.CSTNode):  # type: ignore[type-abstract]
            if isinstance(node, (cst.If, cst.While, cst.IfExp)):
                add(node.test)
            elif isinstance(node, cst.BooleanOperation):
                add(node)
            elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
                add(node)
        # a multi-line `if (...)`: dynamo names the line of the jump, inside the condition
        for node in ctx.on_line_within(line, (cst.If, cst.While, cst.IfExp)):
            add(node.test)  # type: ignore[attr-defined]
        if not leaves:
            return
        if any(ctx.static_tensor(leaf) for leaf in leaves):
            return  # the static inference already explains the break
        open_ = [leaf for leaf in leaves if not self._python(leaf)]
        if len(open_) == 1:
            before = set(self.tensors)
            self._abort = ""
            self._fact(open_[0])
            if self._abort:
                # a Python number or a NumPy value in eager, that dynamo traced as a tensor:
                # rewriting it with torch functions would break the uncompiled model
                self.tensors = before
                self.notes[line] = (
                    f"torch observed a data-dependent branch at line {line} on `"
                    f"{ctx.code(open_[0]).strip()}`, but {self._abort}: it is a tensor only "
                    "while torch traces it"
                )
        elif open_:
            names = ", ".join(f"`{ctx.code(x).strip()}`" for x in open_[:4])
            self.notes[line] = (
                f"torch observed a data-dependent branch at line {line}, but {len(open_)} "
                f"conditions there could each be the tensor ({names}): the observation does "
                "not say which"
            )

    def _python(self, e: cst.BaseExpression) -> bool:
        """Certainly a Python value, never a tensor."""
        ctx = self.ctx
        if isinstance(e, (cst.Integer, cst.Float, cst.SimpleString, cst.FormattedString)):
            return True
        if isinstance(e, cst.Name) and e.value in ("True", "False", "None"):
            return True
        if isinstance(e, cst.Attribute) and e.attr.value in _PY_ATTRS:
            return True
        if isinstance(e, cst.Comparison) and all(
            isinstance(c.operator, (cst.Is, cst.IsNot)) for c in e.comparisons
        ):
            return True
        if (
            isinstance(e, cst.Call)
            and isinstance(e.func, cst.Name)
            and e.func.value in _PY_BUILTINS
        ):
            return True
        if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            return ctx.is_number(e.left) and ctx.is_number(e.comparisons[0].comparator)
        return ctx.is_number(e)

    # ------------------------------------------------------------------ facts and what follows
    def _fact(self, e: cst.BaseExpression) -> None:
        if id(e) in self.tensors:
            return
        self.tensors.add(id(e))
        if isinstance(e, cst.Comparison) and len(e.comparisons) == 1:
            if isinstance(e.comparisons[0].operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)):
                return
            left, right = e.left, e.comparisons[0].comparator
            if self._python(right) and not self._python(left):
                self._fact(left)
            elif self._python(left) and not self._python(right):
                self._fact(right)
            elif tensor_only_chain(left) and not tensor_only_chain(right):
                self._fact(left)  # `v.abs().max() > limit`: no Python value has `.abs()`
            elif tensor_only_chain(right) and not tensor_only_chain(left):
                self._fact(right)
            return
        got = tensor_method(e)
        if got is not None:
            self._fact(got[0])
            return
        if isinstance(e, cst.Name):
            self._reads(e)

    def _reads(self, name: cst.Name) -> None:
        """The reads of ``name`` that see the binding ``name`` read."""
        from compilelint.fix.codemods.base import bound_names, name_nodes

        ctx = self.ctx
        fn = ctx.function(name)
        if fn is None:
            return
        n = name.value
        bound = bound_names(fn).get(n, [])
        params = {p.name.value for p in fn.params.params}
        if len(bound) + (n in params) == 1:
            for r in name_nodes(fn.body, n, reads_only=True):
                self.tensors.add(id(r))
            # `energy = h.pow(2).mean()`, bound once: its value is the tensor read
            by = ctx.parent(bound[0]) if bound else None
            if isinstance(by, cst.Assign) and len(by.targets) == 1:
                why = _python_source(by.value)
                if why:
                    self._abort = f"`{n}` is {why}"
                    return
                self._fact(by.value)
            return
        # straight-line code after the read, in its block, sees the same binding up to the
        # next one (into branches up to their own rebinding; loops only when they bind none)
        stmt: cst.CSTNode | None = name
        while stmt is not None and not isinstance(ctx.parent(stmt), cst.IndentedBlock):
            stmt = ctx.parent(stmt)
        block = ctx.parent(stmt) if stmt is not None else None
        if not isinstance(block, cst.IndentedBlock) or stmt is None:
            return
        body = list(block.body)
        i = next(k for k, b in enumerate(body) if b is stmt)
        if isinstance(stmt, (cst.For, cst.While)):
            return
        if isinstance(stmt, cst.If) and not _within(ctx, name, stmt.test):
            return
        self._forward(body[i:], n)

    def _forward(self, stmts: list[cst.BaseStatement], n: str) -> bool:
        """Mark the reads of ``n`` in ``stmts`` up to its next binding; whether one binds it."""
        from compilelint.fix.codemods.base import bound_names, name_nodes

        for s in stmts:
            if isinstance(s, cst.SimpleStatementLine):
                for small in s.body:
                    for r in name_nodes(small, n, reads_only=True):
                        self.tensors.add(id(r))
                    if n in bound_names(small):
                        return True
            elif isinstance(s, cst.If):
                for r in name_nodes(s.test, n, reads_only=True):
                    self.tensors.add(id(r))
                rebound = False
                suites: list[cst.BaseSuite] = [s.body]
                if isinstance(s.orelse, cst.Else):
                    suites.append(s.orelse.body)
                elif s.orelse is not None:
                    return True  # an `elif` chain: not followed
                for suite in suites:
                    if isinstance(suite, cst.IndentedBlock):
                        rebound |= self._forward(list(suite.body), n)
                    else:
                        return True
                if rebound:
                    return True
            else:
                if n in bound_names(s):
                    return True
                for r in name_nodes(s, n, reads_only=True):
                    self.tensors.add(id(r))
        return False


# methods of Python's own values: a call of one says nothing about a tensor
_PY_METHODS = frozenset(
    m for t in (int, float, complex, bool, str, bytes, list, tuple, dict, set) for m in dir(t)
)


def tensor_only_chain(e: cst.BaseExpression) -> bool:
    """``v.abs().max()``, ``entropy.mean()``: calls of tensor methods that no Python value has,
    on a name (a tensor, or a NumPy array, which the verifier's uncompiled run tells apart)."""
    got = tensor_method(e)
    if got is None or got[1] in _PY_METHODS:
        return False
    recv = got[0]
    return isinstance(recv, cst.Name) or tensor_only_chain(recv)


_NUMBER_CALLS = frozenset({"float", "int", "bool", "round", "len", "sum", "max", "min", "abs"})
_NUMPY = frozenset({"np", "numpy"})


def _python_source(e: cst.BaseExpression) -> str:
    """Why ``e`` is a Python number or a NumPy value in eager ("" when it need not be)."""
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Name) and f.value in _NUMBER_CALLS:
            return f"a Python number (`{f.value}(...)`)"
        if isinstance(f, cst.Attribute):
            if f.attr.value in ("item", "tolist", "numpy"):
                return f"a Python value (`.{f.attr.value}()`)"
            root: cst.BaseExpression = f.value
            while isinstance(root, (cst.Attribute, cst.Call, cst.Subscript)):
                root = root.func if isinstance(root, cst.Call) else root.value
            if isinstance(root, cst.Name) and root.value in _NUMPY:
                return "a NumPy value"
            if isinstance(root, cst.Name) and root.value == "math":
                return "a Python number (`math`)"
    return ""


def _within(ctx: object, node: cst.CSTNode, root: cst.CSTNode) -> bool:
    return node is root or any(a is root for a in ctx.ancestors(node))  # type: ignore[attr-defined]


def _leaves(e: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands ``bool()`` is called on: through ``and``/``or``/``not`` and parentheses."""
    if isinstance(e, cst.BooleanOperation):
        return [*_leaves(e.left), *_leaves(e.right)]
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        return _leaves(e.expression)
    return [e]


def observed_lines(findings: Iterable[object]) -> dict[int, tuple[str, ...]]:
    """Line -> GB ids of data-dependent branches, from a file's observed findings."""
    out: dict[int, list[str]] = {}
    for f in findings:
        gb = getattr(f, "gb_id", None)
        if getattr(f, "observed", False) and gb in BRANCH_GB:
            out.setdefault(int(f.line), []).append(str(gb))  # type: ignore[attr-defined]
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def arithmetic(e: cst.BaseExpression) -> Iterable[cst.BaseExpression]:
    """The operands of arithmetic ``e`` whose tensor-ness makes ``e`` a tensor."""
    from compilelint.fix.codemods.base import ARITH_OPERATORS

    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, ARITH_OPERATORS):
        return (e.left, e.right)
    if isinstance(e, cst.UnaryOperation) and isinstance(
        e.operator, (cst.Minus, cst.Plus, cst.BitInvert)
    ):
        return (e.expression,)
    return ()


Lines = Mapping[int, tuple[str, ...]]
