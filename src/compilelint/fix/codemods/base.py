"""The base class of a codemod and the helpers several codemods share.

A codemod is one small class pointing at one catalogue code, like a check. Given a finding of
that rule (the static stage's own, by position) it returns a :class:`Rewrite` — original nodes
and their libcst replacements —, a :class:`Proposal` (the same, but never applied: shown as a
diff with why it is not safe by itself), or a :class:`NoFix` that says why the code cannot be
rewritten mechanically. It never re-decides whether the finding is right: that is the check's job.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import libcst as cst

from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Proposal, Rewrite
from compilelint.model import Finding


class Codemod:
    CODE: ClassVar[str] = ""

    def fix(self, ctx: FixContext, finding: Finding) -> Rewrite | Proposal | NoFix:
        """A rewrite to apply, a proposal to show but never apply, or why there is none."""
        raise NotImplementedError


# ---------------------------------------------------------------------------- expressions
_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.DictComp,
    cst.SetComp,
)


def atom(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` itself when it can take ``.attr`` or be an operand as is, else parenthesized."""
    if isinstance(e, _ATOMS) or e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def paren(e: cst.BaseExpression) -> cst.BaseExpression:
    if e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _Fill(cst.CSTTransformer):
    def __init__(self, nodes: dict[str, cst.CSTNode]) -> None:
        self.nodes = nodes

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        got = self.nodes.get(original.value)
        return got if got is not None else updated  # type: ignore[return-value]


def template(text: str, **nodes: cst.CSTNode) -> cst.BaseExpression:
    """Parse ``text`` and put ``nodes`` in place of the names ``__<key>__``."""
    expr = cst.parse_expression(text)
    return expr.visit(_Fill({f"__{k}__": v for k, v in nodes.items()}))  # type: ignore[return-value]


def is_number(e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        e = e.expression
    return isinstance(e, (cst.Integer, cst.Float))


# math function -> torch function of the same meaning on a tensor (one argument)
TORCH_OF: dict[str, str] = {
    "sqrt": "sqrt",
    "exp": "exp",
    "expm1": "expm1",
    "log": "log",
    "log2": "log2",
    "log10": "log10",
    "log1p": "log1p",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "asin",
    "acos": "acos",
    "atan": "atan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "erf": "erf",
    "erfc": "erfc",
    "lgamma": "lgamma",
    "fabs": "abs",
    "floor": "floor",
    "ceil": "ceil",
    "trunc": "trunc",
}

_MATH_CONSTANTS = frozenset({"pi", "e", "tau", "inf"})


def number_expr(e: cst.BaseExpression) -> bool:
    """A Python number whatever the tensors: a literal, ``math.pi``/``math.e``, ``math.f(...)``
    of such numbers, and arithmetic of them."""
    if is_number(e):
        return True
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        return number_expr(e.expression)
    if isinstance(e, cst.BinaryOperation) and not isinstance(e.operator, cst.MatrixMultiply):
        return number_expr(e.left) and number_expr(e.right)
    if is_math(e) and isinstance(e, cst.Attribute):
        return e.attr.value in _MATH_CONSTANTS
    if isinstance(e, cst.Call) and is_math(e.func):
        return all(not a.star and number_expr(a.value) for a in e.args)
    return False


def is_math(e: cst.BaseExpression) -> bool:
    """``math.<name>``."""
    return (
        isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "math"
    )


_MUTATORS = frozenset({"print", "next", "setattr", "delattr", "exec", "eval", "input"})


def not_compiling(test: cst.BaseExpression) -> bool:
    """``not torch.compiler.is_compiling()`` (any alias, ``is_dynamo_compiling`` too): the
    eager-only guard the codemods write and recognise."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    call = test.expression
    return (
        isinstance(call, cst.Call)
        and not call.args
        and isinstance(call.func, (cst.Attribute, cst.Name))
        and (call.func.attr if isinstance(call.func, cst.Attribute) else call.func).value
        in ("is_compiling", "is_dynamo_compiling")
    )


def mutating_call(node: cst.Call) -> bool:
    """An in-place tensor method, ``append``/``extend``/``insert``/``pop``/``update``,
    ``backward``, ``set_rng_state`` (the generator's next draws), or
    ``print``/``next``/``setattr``/... ."""
    f = node.func
    if isinstance(f, cst.Attribute):
        a = f.attr.value
        return (a.endswith("_") and not a.startswith("_")) or a in (
            "append",
            "extend",
            "insert",
            "pop",
            "update",
            "backward",
            "set_rng_state",
        )
    return isinstance(f, cst.Name) and f.value in _MUTATORS


def side_effect(e: cst.CSTNode) -> cst.CSTNode | None:
    """A sub-node of ``e`` that visibly changes state (an in-place method, ``print``, a walrus,
    ``yield``/``await``), or None."""
    found: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if mutating_call(node):
                found.append(node)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            found.append(node)

        def visit_Yield(self, node: cst.Yield) -> None:
            found.append(node)

        def visit_Await(self, node: cst.Await) -> None:
            found.append(node)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    e.visit(V())
    return found[0] if found else None


def leading_lines(node: cst.CSTNode) -> Sequence[cst.EmptyLine]:
    """The comment and blank lines above a statement (none above another node)."""
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return node.leading_lines
    return ()


def name_nodes(
    node: cst.CSTNode, name: str | None = None, *, reads_only: bool = False
) -> list[cst.Name]:
    """The ``Name`` nodes under ``node`` (all, or those of ``name``), not attribute names or
    keyword names; ``reads_only``: not the targets of plain assignments either."""
    out: list[cst.Name] = []
    targets: set[int] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> bool:
            if reads_only:
                targets.add(id(n.target))
            return True

        def visit_Name(self, n: cst.Name) -> None:
            if (name is None or n.value == name) and id(n) not in targets:
                out.append(n)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(V())
    return out


def names_in(e: cst.CSTNode) -> set[str]:
    """Names an expression reads (not attribute names or keyword names)."""
    return {n.value for n in name_nodes(e)}


def bound_names(node: cst.CSTNode) -> dict[str, list[cst.CSTNode]]:
    """Names bound anywhere inside ``node`` (targets of assignments, loops, with, walrus,
    imports, definitions, except handlers, del), each with the nodes that bind it."""
    out: dict[str, list[cst.CSTNode]] = {}

    def add_target(t: cst.CSTNode, by: cst.CSTNode) -> None:
        if isinstance(t, cst.Name):
            out.setdefault(t.value, []).append(by)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                add_target(el.value, by)
        elif isinstance(t, cst.StarredElement):
            add_target(t.value, by)

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            add_target(n.target, n)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            add_target(n.target, n)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            add_target(n.target, n)

        def visit_For(self, n: cst.For) -> None:
            add_target(n.target, n)

        def visit_CompFor(self, n: cst.CompFor) -> None:
            add_target(n.target, n)

        def visit_WithItem(self, n: cst.WithItem) -> None:
            if n.asname is not None:
                add_target(n.asname.name, n)

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            add_target(n.target, n)

        def visit_ExceptHandler(self, n: cst.ExceptHandler) -> None:
            if n.name is not None:
                add_target(n.name.name, n)

        def visit_Del(self, n: cst.Del) -> None:
            add_target(n.target, n)

        def visit_ImportAlias(self, n: cst.ImportAlias) -> None:
            if n.asname is not None:
                add_target(n.asname.name, n)
            else:
                head = cst.Module([]).code_for_node(n.name).split(".", 1)[0]
                out.setdefault(head, []).append(n)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> None:
            out.setdefault(n.name.value, []).append(n)

        def visit_ClassDef(self, n: cst.ClassDef) -> None:
            out.setdefault(n.name.value, []).append(n)

        def visit_Global(self, n: cst.Global) -> None:
            for g in n.names:
                out.setdefault(g.name.value, []).append(n)

        def visit_Nonlocal(self, n: cst.Nonlocal) -> None:
            for g in n.names:
                out.setdefault(g.name.value, []).append(n)

    node.visit(V())
    return out


# binary operators of Python arithmetic that a 0-d tensor supports as well
ARITH_OPERATORS = (
    cst.Add,
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Modulo,
    cst.Power,
)


def arithmetic_top(ctx: FixContext, node: cst.CSTNode) -> cst.CSTNode:
    """The outermost expression that ``node`` is an operand of through arithmetic
    (``ARITH_OPERATORS``, unary ``-``/``+``): ``node`` itself when its parent is anything else."""
    cur = node
    while True:
        p = ctx.parent(cur)
        if (isinstance(p, cst.BinaryOperation) and isinstance(p.operator, ARITH_OPERATORS)) or (
            isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Minus, cst.Plus))
        ):
            cur = p
            continue
        return cur


def last_name(e: cst.CSTNode | None) -> str:
    """``f`` of ``f`` and of ``a.b.f`` (what a call's function is named), else ``""``."""
    if isinstance(e, cst.Attribute):
        return e.attr.value
    return e.value if isinstance(e, cst.Name) else ""


def all_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """``node`` and every node inside it, in visiting order."""
    out: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            out.append(n)
            return True

    node.visit(V())
    return out


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node inside it, in visiting order, one at a time (for a search
    that stops at the first hit)."""
    yield node
    for c in node.children:
        yield from iter_nodes(c)


def comments_in(node: cst.CSTNode) -> list[cst.Comment]:
    """Every comment inside ``node`` (in source order)."""
    out: list[cst.Comment] = []

    class V(cst.CSTVisitor):
        def visit_Comment(self, n: cst.Comment) -> None:
            out.append(n)

    node.visit(V())
    return out


def suite_statements(suite: cst.BaseSuite) -> list[cst.BaseSmallStatement] | None:
    """The small statements of a suite made only of simple statement lines, else None."""
    out: list[cst.BaseSmallStatement] = []
    if isinstance(suite, cst.SimpleStatementSuite):
        return list(suite.body)
    for st in suite.body:  # type: ignore[union-attr]
        if not isinstance(st, cst.SimpleStatementLine):
            return None
        out.extend(st.body)
    return out


def with_comments(
    stmts: list[cst.SimpleStatementLine],
    leading: Sequence[cst.EmptyLine],
    comments: list[cst.Comment],
    header: cst.Comment | None = None,
) -> list[cst.SimpleStatementLine]:
    """Keep the comments of a replaced compound statement: ``header`` (the comment on its
    first line) trails the last new statement, the others lead the first one."""
    if not stmts:
        return stmts
    kept = {id(line.comment) for line in leading if line.comment is not None}
    rest = [c for c in comments if c is not header and id(c) not in kept]
    extra = [cst.EmptyLine(indent=True, comment=c) for c in rest]
    out = [stmts[0].with_changes(leading_lines=[*leading, *extra]), *stmts[1:]]
    if header is not None:
        out[-1] = out[-1].with_changes(
            trailing_whitespace=cst.TrailingWhitespace(
                whitespace=cst.SimpleWhitespace("  "), comment=header
            )
        )
    return out


def header_comment(node: cst.BaseCompoundStatement) -> cst.Comment | None:
    """The comment after the colon of a compound statement's first line."""
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        return body.header.comment
    return None
