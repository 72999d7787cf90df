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
Asts = dict[int, list[ast.stmt]]  # id(simple statement line) -> CPython's statements in it


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


def statement_starts(
    module: cst.Module, tree: ast.Module, asts: Asts | None = None
) -> Starts | None:
    """Where each statement of ``module`` starts (``tree`` is CPython's parse of the same
    text); None when the two trees do not pair up (then a whole-module pass is used). ``asts``
    receives CPython's statements of each simple statement line."""
    out: Starts = {}
    return out if _pair(module.body, tree.body, out, asts) else None


# ---------------------------------------------------------------------------- call starts
# A call site needs only where the call starts. In a simple statement line, libcst's calls in
# source order pair with CPython's calls sorted by where they start (the outer of two calls
# that start together first): no codegen at all. Lines whose shapes could differ (f-strings,
# whose inner positions CPython reports differently across versions) and any count mismatch
# fall back to the statement's codegen.


class _Unsure(Exception):
    pass


def _cst_calls(node: cst.CSTNode, out: list[cst.CSTNode]) -> None:
    from compilelint.static.analysis.walker import iter_children

    t = type(node)
    if t is cst.Call:
        out.append(node)
    elif t in (cst.FormattedString, cst.Lambda):
        raise _Unsure
    if t is cst.IfExp:  # `body if test else orelse`: fields are (test, body, orelse)
        n: Any = node
        children: Iterable[cst.CSTNode] = (n.body, n.test, n.orelse)
    else:
        children = iter_children(node)
    for c in children:
        _cst_calls(c, out)


def _call_starts(
    line: cst.SimpleStatementLine, stmts: list[ast.stmt], text: list[bytes]
) -> dict[int, Span] | None:
    found: list[cst.CSTNode] = []
    try:
        for small in line.body:
            _cst_calls(small, found)
    except _Unsure:
        return None
    calls = [n for st in stmts for n in ast.walk(st) if isinstance(n, ast.Call)]
    if len(calls) != len(found):
        return None
    calls.sort(
        key=lambda c: (c.lineno, c.col_offset, -(c.end_lineno or 0), -(c.end_col_offset or 0))
    )
    out: dict[int, Span] = {}
    for node, c in zip(found, calls):
        raw = text[c.lineno - 1] if 0 < c.lineno <= len(text) else b""
        head = raw[: c.col_offset]
        col = len(head) if head.isascii() else len(head.decode("utf-8", errors="replace"))
        out[id(node)] = (c.lineno, col + 1, 0, 0)
    return out


class SpanMemo:
    """The spans found in each statement of one file's previous analysis, relative to where
    the statement starts, for the editor server: a statement an edit did not touch is the same
    object in the next parse (``static/incremental.py``), so its targets' spans are the
    remembered ones moved by the lines the statement moved. Holds the statements it remembers
    (their ids stay theirs) and forgets those the next analysis does not ask about."""

    def __init__(self) -> None:
        # id(statement) -> (statement, indent, starts only?, {id(node): relative span})
        self.entries: dict[int, tuple[cst.CSTNode, int, bool, dict[int, Span]]] = {}


def spans_in_statements(
    module: cst.Module,
    targets: Iterable[tuple[cst.CSTNode, cst.CSTNode | None]],
    tree: ast.Module | None,
    *,
    starts_only: set[int] | None = None,
    source: bytes | None = None,
    memo: SpanMemo | None = None,
) -> dict[int, Span]:
    """``spans`` for (node, the statement that holds it) pairs: each statement that holds a
    target is generated on its own from where it starts; a node whose statement is unknown, or
    that its statement's codegen does not reach, falls back to the whole-module pass. Gives the
    same spans as ``spans``. Nodes in ``starts_only`` (ids of calls) need only their start
    (the end is 0, 0): in simple statements those come from CPython's tree of ``source``."""
    groups: dict[int, tuple[cst.CSTNode, dict[int, cst.CSTNode]]] = {}
    rest: dict[int, cst.CSTNode] = {}
    asts: Asts = {}
    starts = statement_starts(module, tree, asts) if tree is not None else None
    for node, stmt in targets:
        if starts is None or stmt is None or id(stmt) not in starts:
            rest[id(node)] = node
        else:
            groups.setdefault(id(stmt), (stmt, {}))[1][id(node)] = node
    out: dict[int, Span] = {}
    kept: dict[int, tuple[cst.CSTNode, int, bool, dict[int, Span]]] = {}
    if memo is not None and starts is not None:
        for sid, (stmt, nodes) in list(groups.items()):
            line, indent = starts[sid]
            only = all(i in starts_only for i in nodes) if starts_only else False
            got = memo.entries.get(sid)
            if got is None or got[0] is not stmt or got[1] != indent or got[2] != only:
                continue
            rel = got[3]
            if not all(i in rel for i in nodes):
                continue
            for i in nodes:
                dl, c, de, ec = rel[i]
                out[i] = (line + dl, c, line + de if de >= 0 else 0, ec)
            kept[sid] = got
            del groups[sid]
    text = source.splitlines(keepends=True) if source is not None and starts_only else []
    for sid, (stmt, nodes) in list(groups.items()):
        if not text or sid not in asts or not all(i in starts_only for i in nodes):  # type: ignore[operator]
            continue
        got = _call_starts(stmt, asts[sid], text)  # type: ignore[arg-type]
        if got is not None and all(i in got for i in nodes):
            out.update((i, got[i]) for i in nodes)
            del groups[sid]
            if memo is not None:
                _remember(kept, sid, stmt, starts, True, {i: got[i] for i in nodes})
    for sid, (stmt, nodes) in groups.items():
        line, indent = starts[sid]  # type: ignore[index]
        state = _PosState(module, nodes)
        state._line = line
        state.indent_tokens = [" " * indent]
        try:
            stmt._codegen(state)
        except _Done:
            pass
        out.update(state.out)
        rest.update((i, n) for i, n in nodes.items() if i not in state.out)
        if memo is not None:
            only = all(i in starts_only for i in nodes) if starts_only else False
            _remember(kept, sid, stmt, starts, only, state.out)  # type: ignore[arg-type]
    if rest:
        out.update(spans(module, rest.values()))
    if memo is not None:
        memo.entries = kept
    return out


def _remember(
    kept: dict[int, tuple[cst.CSTNode, int, bool, dict[int, Span]]],
    sid: int,
    stmt: cst.CSTNode,
    starts: Starts,
    only: bool,
    found: dict[int, Span],
) -> None:
    line, indent = starts[sid]
    rel = {i: (a - line, c, (e - line) if e else -1, ec) for i, (a, c, e, ec) in found.items()}
    kept[sid] = (stmt, indent, only, rel)
