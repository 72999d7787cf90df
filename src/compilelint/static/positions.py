"""Line/column positions for a handful of nodes, without libcst's full metadata pass.

libcst's ``PositionProvider`` records a range for every node of the module, which costs more
than parsing. ``spans`` runs one code generation pass that only records the nodes we ask for,
counting lines lazily from the emitted tokens, and stops as soon as the last requested node has
been generated. ``spans_in_statements`` does better when the statement holding each node is
known: CPython's ``ast`` of the same text says where each statement starts, so only those
statements are generated.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

from compilelint.static.analysis.walker import _NODE_TYPES, _NOT_NODES, child_fields

Span = tuple[int, int, int, int]  # line, col, end_line, end_col (1-based, end col exclusive+1)

_NULL = nullcontext()


class _Done(Exception):
    pass


class _PosState(CodegenState):
    def __init__(self, module: cst.Module, targets: dict[int, cst.CSTNode]) -> None:
        super().__init__(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        self.targets = targets
        self.remaining = len(targets)
        self.out: dict[int, Span] = {}
        self._counted = 0
        self._line = 1
        self._col = 0

    def _pos(self) -> tuple[int, int]:
        toks = self.tokens
        for i in range(self._counted, len(toks)):
            t = toks[i]
            n = t.count("\n") + t.count("\r") - t.count("\r\n")  # \n, \r\n and old-Mac \r
            if n:
                self._line += n
                self._col = len(t) - max(t.rfind("\n"), t.rfind("\r")) - 1
            else:
                self._col += len(t)
        self._counted = len(toks)
        return self._line, self._col

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Any:
        if id(node) in self.targets:
            return self._record(node)
        return _NULL

    @contextmanager
    def _record(self, node: cst.CSTNode) -> Iterator[None]:
        line, col = self._pos()
        yield
        eline, ecol = self._pos()
        if id(node) not in self.out:
            self.out[id(node)] = (line, col + 1, eline, ecol + 1)
            self.remaining -= 1
            if self.remaining <= 0:
                raise _Done


def spans(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Span]:
    """Map ``id(node)`` to its 1-based (line, col, end_line, end_col) span."""
    targets = {id(n): n for n in nodes}
    if not targets:
        return {}
    state = _PosState(module, targets)
    try:
        module._codegen(state)
    except _Done:
        pass
    return state.out


# ---------------------------------------------------------------------------- per statement
# A whole-module codegen pass to place a few nodes costs about a fifth of the parse. CPython's
# ``ast`` (which the engine runs before libcst anyway) knows where every statement starts, so
# only the statements that hold a target are generated: each from the line and indentation
# where it starts, until its last target has been placed.

Starts = dict[int, tuple[int, int]]  # id(statement) -> (line where its codegen starts, indent)
# id(statement) -> CPython's statements in it (a simple statement line: one per small statement;
# a compound statement: itself)
Asts = dict[int, list[ast.stmt]]


def _compound_start(s: cst.CSTNode, a: ast.stmt) -> int:
    leading = len(getattr(s, "leading_lines", ()))
    decorators = getattr(s, "decorators", ())
    if decorators and getattr(a, "decorator_list", None):
        first = a.decorator_list[0]  # type: ignore[attr-defined]
        return first.lineno - len(decorators[0].leading_lines) - leading
    return a.lineno - leading - len(getattr(s, "lines_after_decorators", ()))


_PAIRS: dict[type, tuple[type, ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.Match: (ast.Match,),
}
if hasattr(cst, "TryStar") and hasattr(ast, "TryStar"):
    _PAIRS[cst.TryStar] = (ast.TryStar,)


def _suite(
    suite: cst.CSTNode | None, stmts: list[ast.stmt], out: Starts, asts: Asts | None = None
) -> bool:
    """Pair a block's statements; a one-line suite (``if a: b; c``) holds no statement the
    walker visits on its own, it only has to have as many."""
    if isinstance(suite, cst.IndentedBlock):
        return _pair(suite.body, stmts, out, asts)
    if isinstance(suite, cst.SimpleStatementSuite):
        return len(suite.body) == len(stmts)
    return not stmts


def _pair(
    body: Sequence[cst.CSTNode], stmts: list[ast.stmt], out: Starts, asts: Asts | None = None
) -> bool:
    """Pair libcst statements with CPython's; False when their shapes differ."""
    i = 0
    for s in body:
        if isinstance(s, cst.SimpleStatementLine):
            if i >= len(stmts):
                return False
            out[id(s)] = (stmts[i].lineno - len(s.leading_lines), stmts[i].col_offset)
            if asts is not None:
                asts[id(s)] = stmts[i : i + len(s.body)]
            i += len(s.body)
            continue
        kinds = _PAIRS.get(type(s))
        if kinds is None or i >= len(stmts) or not isinstance(stmts[i], kinds):
            return False
        a: Any = stmts[i]
        i += 1
        out[id(s)] = (_compound_start(s, a), a.col_offset)
        if asts is not None:
            asts[id(s)] = [a]
        n: Any = s
        ok = True
        if isinstance(s, cst.If):
            while True:  # an elif chain is one statement to CPython's `orelse`
                ok = ok and _suite(n.body, a.body, out, asts)
                if isinstance(n.orelse, cst.If) and len(a.orelse) == 1:
                    n, a = n.orelse, a.orelse[0]
                    continue
                if n.orelse is not None:
                    ok = ok and _suite(n.orelse.body, a.orelse, out, asts)
                break
        elif isinstance(s, cst.Match):
            ok = len(n.cases) == len(a.cases) and all(
                _suite(c.body, ac.body, out, asts) for c, ac in zip(n.cases, a.cases)
            )
        else:
            ok = _suite(n.body, a.body, out, asts)
            if isinstance(s, (cst.Try, getattr(cst, "TryStar", cst.Try))):
                ok = ok and len(n.handlers) == len(a.handlers)
                ok = ok and all(
                    _suite(h.body, ah.body, out, asts) for h, ah in zip(n.handlers, a.handlers)
                )
                if n.finalbody is not None:
                    ok = ok and _suite(n.finalbody.body, a.finalbody, out, asts)
            if getattr(n, "orelse", None) is not None:
                ok = ok and _suite(n.orelse.body, a.orelse, out, asts)
        if not ok:
            return False
    return i == len(stmts)


# id(top-level statement) -> (the statement, CPython's statements paired with it, the
# statements' starts relative to the first of those, their CPython statements): a top-level
# statement's pairing is a function of the two trees' objects, which an edit elsewhere leaves
# as they were (CPython's moved by whole lines)
PairMemo = dict[
    int,
    tuple[cst.CSTNode, tuple[ast.stmt, ...], dict[int, tuple[int, int]], Asts],
]


def statement_starts(
    module: cst.Module,
    tree: ast.Module,
    asts: Asts | None = None,
    memo: PairMemo | None = None,
) -> Starts | None:
    """Where each statement of ``module`` starts (``tree`` is CPython's parse of the same
    text); None when the two trees do not pair up (then a whole-module pass is used). ``asts``
    receives CPython's statements of each simple statement line. ``memo``: the pairing of the
    previous call's top-level statements (the editor server's, kept by ``SpanMemo``): a
    top-level statement that is the same object, paired with the same CPython statements, gets
    its remembered starts moved by the lines those moved; the memo is refilled with this
    call's."""
    out: Starts = {}
    if memo is None:
        return out if _pair(module.body, tree.body, out, asts) else None
    stmts = tree.body
    kept: PairMemo = {}
    i = 0
    for s in module.body:
        k = len(s.body) if isinstance(s, cst.SimpleStatementLine) else 1
        mine = tuple(stmts[i : i + k])
        if len(mine) < k or not mine:
            return None
        i += k
        base = mine[0].lineno
        got = memo.get(id(s))
        if (
            got is not None
            and got[0] is s
            and len(got[1]) == k
            and all(a is b for a, b in zip(got[1], mine))
        ):
            for sid, (dl, col) in got[2].items():
                out[sid] = (base + dl, col)
            if asts is not None:
                asts.update(got[3])
            kept[id(s)] = got
            continue
        part: Starts = {}
        part_asts: Asts = {}
        if not _pair([s], list(mine), part, part_asts):
            return None
        out.update(part)
        if asts is not None:
            asts.update(part_asts)
        kept[id(s)] = (
            s,
            mine,
            {sid: (ln - base, col) for sid, (ln, col) in part.items()},
            part_asts,
        )
    if i != len(stmts):
        return None
    memo.clear()
    memo.update(kept)
    return out


# ---------------------------------------------------------------------------- from CPython
# CPython's tree places most nodes without any codegen: an expression's libcst node and CPython's
# node for it span the same text (both leave out the expression's own parentheses and include
# those of its first and last parts). Within one statement, libcst's nodes of one kind (calls,
# attributes, subscripts, comparisons, binary and unary operations, the uses of one name) in
# source order pair with CPython's nodes of the same kind sorted by where they start (the outer
# of two that start together first), when there are as many of each. A statement's parts that
# are one expression to both trees (an ``if``'s test, a parameter's default, a decorator) pair
# directly. A node these do not place (an f-string, whose inner positions CPython reports
# differently across versions, a lambda, a count that differs) falls back to its statement's
# codegen.


class _Unsure(Exception):
    pass


# libcst's node kind -> CPython's
_KINDS: dict[type, type] = {
    cst.Call: ast.Call,
    cst.Attribute: ast.Attribute,
    cst.Subscript: ast.Subscript,
    cst.Comparison: ast.Compare,
    cst.BinaryOperation: ast.BinOp,
    cst.UnaryOperation: ast.UnaryOp,
    cst.Name: ast.Name,
}
_AST_KINDS: dict[type, type] = {a: c for c, a in _KINDS.items()}
# small statements whose names are not expressions (``import a.b``, ``global x``): skipped by
# both sides (CPython's have no expression nodes)
_NO_EXPRS: tuple[type, ...] = (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)
_CONSTANT_NAMES = frozenset({"None", "True", "False"})  # constants to CPython
# positions CPython reports differently across versions (inside f-strings), parameters that are
# no expressions (a lambda's), type parameters (``type X[T] = ...``)
_UNSURE: frozenset[type] = frozenset(
    t for t in (cst.FormattedString, cst.Lambda, getattr(cst, "TypeAlias", None)) if t
)

# a part's root of these kinds spans what CPython's does (not a tuple or a generator: CPython's
# spans include their parentheses)
_DIRECT: frozenset[type] = frozenset(
    {
        *_KINDS,
        cst.BooleanOperation,
        cst.IfExp,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.SimpleString,
        cst.Ellipsis,
    }
)

Key = Any  # a node kind, or ("name", identifier) for the uses of one name


def _key(node: cst.CSTNode) -> Key:
    t = type(node)
    if t is cst.Name:
        v = node.value  # type: ignore[attr-defined]
        return None if v in _CONSTANT_NAMES else ("name", v)
    return t if t in _KINDS else None


def _cst_nodes(node: cst.CSTNode, want: set[Key], out: dict[Key, list[cst.CSTNode]]) -> None:
    """The nodes of the kinds in ``want`` under ``node``, in source order."""
    t = type(node)
    if t in _UNSURE:
        raise _Unsure
    if t in _NO_EXPRS:
        return
    n: Any = node
    if t is cst.Name:
        k: Key = ("name", n.value)
        if k in want:
            out.setdefault(k, []).append(node)
        return
    if t in want:
        out.setdefault(t, []).append(node)
    if t is cst.Attribute:  # `.attr` is no expression
        _cst_nodes(n.value, want, out)
        return
    if t is cst.Arg:  # nor is a keyword argument's name
        _cst_nodes(n.value, want, out)
        return
    if t is cst.IfExp:  # `body if test else orelse`: fields are (test, body, orelse)
        for c in (n.body, n.test, n.orelse):
            _cst_nodes(c, want, out)
        return
    for name in child_fields(t):
        v = getattr(n, name)
        vt = type(v)
        if vt in _NODE_TYPES:
            _cst_nodes(v, want, out)
        elif vt is tuple or vt is list:
            for item in v:
                if type(item) in _NODE_TYPES:
                    _cst_nodes(item, want, out)
        elif vt not in _NOT_NODES and isinstance(v, cst.CSTNode):
            _cst_nodes(v, want, out)


def _ast_nodes(node: ast.AST, want: set[Key], out: dict[Key, list[Any]]) -> None:
    """CPython's nodes of the kinds in ``want`` under ``node`` (in any order)."""
    t = type(node)
    if t is ast.Name:
        k: Key = ("name", node.id)  # type: ignore[attr-defined]
        if k in want:
            out.setdefault(k, []).append(node)
        return
    kind = _AST_KINDS.get(t)
    if kind is not None and kind in want:
        out.setdefault(kind, []).append(node)
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, ast.AST):
            _ast_nodes(v, want, out)
        elif type(v) is list:
            for item in v:
                if isinstance(item, ast.AST):
                    _ast_nodes(item, want, out)


def _col(text: list[bytes], line: int, offset: int) -> int:
    """CPython's byte offset in a line as a 1-based column in characters."""
    raw = text[line - 1] if 0 < line <= len(text) else b""
    head = raw[:offset]
    return (len(head) if head.isascii() else len(head.decode("utf-8", errors="replace"))) + 1


def _span_of(a: Any, text: list[bytes]) -> Span:
    return (
        a.lineno,
        _col(text, a.lineno, a.col_offset),
        a.end_lineno,
        _col(text, a.end_lineno, a.end_col_offset),
    )


Roots = tuple[Sequence[Any], Sequence[Any]]  # libcst's roots of a part, CPython's


def _parts(stmt: cst.CSTNode, a: list[Any]) -> tuple[list[tuple[Any, Any]], list[Roots]]:
    """The parts of a statement that are expressions to both trees: (libcst's, CPython's)
    pairs of one expression each, and the regions to search for the others (a simple statement
    line: its small statements)."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(stmt, cst.SimpleStatementLine):
        for small, sa in zip(stmt.body, a):
            value = getattr(small, "value", None)
            if value is not None and isinstance(value, cst.BaseExpression):
                av = getattr(sa, "value", None)
                if isinstance(av, ast.expr):
                    pairs.append((value, av))
        return pairs, [(stmt.body, a)]
    n: Any = stmt
    x: Any = a[0]
    if isinstance(stmt, (cst.If, cst.While)):
        while True:  # an elif chain is one statement to CPython's `orelse`
            pairs.append((n.test, x.test))
            if not (isinstance(n.orelse, cst.If) and len(x.orelse) == 1):
                break
            n, x = n.orelse, x.orelse[0]
    elif isinstance(stmt, cst.For):
        pairs += [(n.target, x.target), (n.iter, x.iter)]
    elif isinstance(stmt, cst.With) and len(n.items) == len(x.items):
        for item, ai in zip(n.items, x.items):
            pairs.append((item.item, ai.context_expr))
            if item.asname is not None and ai.optional_vars is not None:
                pairs.append((item.asname.name, ai.optional_vars))
    elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        if len(n.decorators) == len(x.decorator_list):
            pairs += [(d.decorator, ad) for d, ad in zip(n.decorators, x.decorator_list)]
        if isinstance(stmt, cst.FunctionDef):
            p = n.params
            positional = [q.default for q in (*p.posonly_params, *p.params) if q.default]
            if len(positional) == len(x.args.defaults):
                pairs += list(zip(positional, x.args.defaults))
            kw = [q.default for q in p.kwonly_params if q.default]
            akw = [d for d in x.args.kw_defaults if d is not None]
            if len(kw) == len(akw):
                pairs += list(zip(kw, akw))
            if n.returns is not None and x.returns is not None:
                pairs.append((n.returns.annotation, x.returns))
        else:
            bases = [b.value for b in n.bases]
            if len(bases) == len(x.bases):
                pairs += list(zip(bases, x.bases))
    elif isinstance(stmt, cst.Match):
        pairs.append((n.subject, x.subject))
    return pairs, [([c], [ax]) for c, ax in pairs]


def _utf8_lines(source: bytes, encoding: str) -> list[bytes]:
    """The lines of ``source`` as CPython's offsets count them: UTF-8, without a byte-order
    mark (a file in another encoding is converted); none when it cannot be."""
    if source.startswith(b"\xef\xbb\xbf"):
        source = source[3:]
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
        try:
            source = source.decode(encoding).encode("utf-8")
        except (LookupError, UnicodeError):
            return []
    return source.splitlines(keepends=True)


def _def_name(stmt: cst.FunctionDef, a: Any, text: list[bytes]) -> Span | None:
    """A function's name: after ``def`` (and ``async``) on the line CPython starts it."""
    gaps = [stmt.whitespace_after_def.value]
    col = _col(text, a.lineno, a.col_offset) + len("def")
    if stmt.asynchronous is not None:
        gaps.append(stmt.asynchronous.whitespace_after.value)
        col += len("async")
    if any("\\" in g for g in gaps):  # a line continuation between the keywords and the name
        return None
    col += sum(len(g) for g in gaps)
    return (a.lineno, col, a.lineno, col + len(stmt.name.value))


def _from_cpython(
    stmt: cst.CSTNode,
    a: list[ast.stmt],
    nodes: dict[int, cst.CSTNode],
    text: list[bytes],
    lines_only: set[int] | None = None,
) -> tuple[dict[int, Span], dict[int, Span]]:
    """The spans of those of ``nodes`` (in ``stmt``, which CPython's ``a`` is) that CPython's
    tree places, and the lines of those in ``lines_only`` (as ``(line, 0, line, 0)``) in a
    statement on one line; the others are left out."""
    out: dict[int, Span] = {}
    lines: dict[int, Span] = {}
    todo = dict(nodes)
    if lines_only and isinstance(stmt, cst.SimpleStatementLine):
        if all(x.lineno == x.end_lineno == a[0].lineno for x in a):
            ln = a[0].lineno
            for i in [i for i in todo if i in lines_only]:
                lines[i] = (ln, 0, ln, 0)
                del todo[i]
    if isinstance(stmt, cst.FunctionDef) and id(stmt.name) in todo:
        got = _def_name(stmt, a[0], text)
        if got is not None:
            out[id(stmt.name)] = got
            del todo[id(stmt.name)]
    if not todo:
        return out, lines
    pairs, regions = _parts(stmt, a)
    for c, ax in pairs:
        if id(c) in todo and type(c) in _DIRECT:
            out[id(c)] = _span_of(ax, text)
            del todo[id(c)]
    want = {k for n in todo.values() if (k := _key(n)) is not None}
    if not want:
        return out, lines
    for roots, aroots in regions:
        found: dict[Key, list[cst.CSTNode]] = {}
        try:
            for r in roots:
                _cst_nodes(r, want, found)
        except _Unsure:
            continue
        if not found:
            continue
        theirs: dict[Key, list[Any]] = {}
        for ar in aroots:
            _ast_nodes(ar, set(found), theirs)
        for k, mine in found.items():
            other = theirs.get(k, [])
            if len(other) != len(mine):
                continue
            other.sort(key=lambda c: (c.lineno, c.col_offset, -c.end_lineno, -c.end_col_offset))
            for node, c in zip(mine, other):
                if id(node) in todo:
                    out[id(node)] = _span_of(c, text)
    return out, lines


class SpanMemo:
    """The spans found in each statement of one file's previous analysis, relative to where
    the statement starts, for the editor server: a statement an edit did not touch is the same
    object in the next parse (``static/incremental.py``), so its targets' spans are the
    remembered ones moved by the lines the statement moved. Holds the statements it remembers
    (their ids stay theirs) and forgets those the next analysis does not ask about."""

    def __init__(self) -> None:
        # id(statement) -> (statement, indent, {id(node): span relative to the statement})
        self.entries: dict[int, tuple[cst.CSTNode, int, dict[int, Span]]] = {}
        # the pairing of libcst's top-level statements with CPython's (``statement_starts``)
        self.pairs: PairMemo = {}


# libcst's codegen of these calls no ``record_syntactic_position`` for the node itself
_NEVER_PLACED = (cst.FormattedStringExpression,)


def spans_in_statements(
    module: cst.Module,
    targets: Iterable[tuple[cst.CSTNode, cst.CSTNode | None]],
    tree: ast.Module | None,
    *,
    source: bytes | None = None,
    memo: SpanMemo | None = None,
    lines_only: set[int] | None = None,
) -> dict[int, Span]:
    """``spans`` for (node, the statement that holds it) pairs, from CPython's ``tree`` of
    ``source`` where it places them (``_from_cpython``), else from the codegen of the statement
    that holds them on its own, from where it starts; a node whose statement is unknown, or that
    its statement's codegen does not reach, falls back to the whole-module pass. Gives the same
    spans as ``spans``. Nodes in ``lines_only`` (ids) need only their line: in a statement on
    one line they get ``(line, 0, line, 0)``."""
    groups: dict[int, tuple[cst.CSTNode, dict[int, cst.CSTNode]]] = {}
    rest: dict[int, cst.CSTNode] = {}
    asts: Asts = {}
    starts = (
        statement_starts(module, tree, asts, memo.pairs if memo is not None else None)
        if tree is not None
        else None
    )
    for node, stmt in targets:
        if starts is None or stmt is None or id(stmt) not in starts:
            rest[id(node)] = node
        else:
            groups.setdefault(id(stmt), (stmt, {}))[1][id(node)] = node
    out: dict[int, Span] = {}
    kept: dict[int, tuple[cst.CSTNode, int, dict[int, Span]]] = {}
    if memo is not None and starts is not None:
        for sid, (stmt, nodes) in list(groups.items()):
            line, indent = starts[sid]
            got = memo.entries.get(sid)
            if got is None or got[0] is not stmt or got[1] != indent:
                continue
            rel = got[2]
            if not all(i in rel for i in nodes):
                continue
            for i in nodes:
                dl, c, de, ec = rel[i]
                out[i] = (line + dl, c, line + de, ec)
            kept[sid] = got
            del groups[sid]
    text = _utf8_lines(source, module.encoding) if source is not None else []
    for sid, (stmt, nodes) in list(groups.items()):
        found: dict[int, Span] = {}
        lines: dict[int, Span] = {}
        if text and sid in asts:
            found, lines = _from_cpython(stmt, asts[sid], nodes, text, lines_only)
            out.update(lines)
        if len(found) + len(lines) < len(nodes):  # the rest from the statement's codegen
            line, indent = starts[sid]  # type: ignore[index]
            left = {i: n for i, n in nodes.items() if i not in found and i not in lines}
            state = _PosState(module, left)
            state._line = line
            state.indent_tokens = [" " * indent]
            try:
                stmt._codegen(state)
            except _Done:
                pass
            found.update(state.out)
            rest.update((i, n) for i, n in left.items() if i not in found)
        out.update(found)
        if memo is not None:
            line, indent = starts[sid]  # type: ignore[index]
            rel = {i: (a - line, c, e - line, ec) for i, (a, c, e, ec) in found.items()}
            kept[sid] = (stmt, indent, rel)
    # nodes whose codegen records no position (an f-string's ``{...}`` part): the whole-module
    # pass would not place them either
    rest = {i: n for i, n in rest.items() if not isinstance(n, _NEVER_PLACED)}
    if rest:
        out.update(spans(module, rest.values()))
    if memo is not None:
        memo.entries = kept
    return out
