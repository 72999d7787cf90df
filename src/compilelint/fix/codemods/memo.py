"""Caches on ``self`` that forward fills (memos) become locals of the method that fills them.

A memo is module state whose every write happens on a miss of a test that reads the memo
itself: a dict keyed by a length or a shape (``if n not in self.cache: self.cache[n] = ...``,
``b = self.cache.get(k); if b is None: ...; self.cache[k] = b``), or tables rebuilt when a longer
sequence comes (``if n > self.len_cached: self.len_cached = n; self.cos_cached = ...``).
dynamo guards on the memo (the dict's keys, the cached length, the cached tensor's size), so
every new key recompiles, and a shape read into a key is specialized, so the dimension never
becomes dynamic. The values a memo returns are what its miss computes from the key and the
module's state of that call; so is the memo, as a local of the method started from its
``__init__`` value on every call: every lookup misses once and computes, inside the graph.

One proof covers the forms: the memo's attributes are (1) set in ``__init__`` to an empty
container or a constant, (2) used outside ``__init__`` in one method each (never read by
another), (3) written only under a test that reads them (the miss), or stored into as a dict
(``self.m[k] = v``) after such a test; (4) used as a dict only by ``in``/``not in``,
``.get(k)``, ``[k]``, ``[k] = v``. The outputs are then those of a first call: the verifier
compares them call by call over the spec's calls and variants. A list on ``self`` appended to
on every call (a KV cache) is state, not a memo: it fails (3) and gets no fix here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from compilelint.fix.codemods.base import iter_nodes, last_name
from compilelint.fix.context import FixContext
from compilelint.fix.records import NoFix, Rewrite
from compilelint.model import Finding
from compilelint.static.analysis.walker import self_attr

_EMPTY_CALLS = {"dict", "OrderedDict"}


def _init_value(e: cst.BaseExpression) -> str | None:
    """``{}``, ``dict()``, ``OrderedDict()`` -> "dict"; ``None``/numbers -> "const"."""
    if isinstance(e, cst.Dict) and not e.elements:
        return "dict"
    if isinstance(e, cst.Call) and not e.args:
        if last_name(e.func) in _EMPTY_CALLS:
            return "dict"
    if isinstance(e, cst.Name) and e.value == "None":
        return "const"
    if isinstance(e, (cst.Integer, cst.Float)):
        return "const"
    if isinstance(e, cst.UnaryOperation) and isinstance(e.expression, (cst.Integer, cst.Float)):
        return "const"
    return None


class _Uses(cst.CSTVisitor):
    """Every ``self.<attr>`` in a function, with its parent chain."""

    def __init__(self) -> None:
        self.stack: list[cst.CSTNode] = []
        self.uses: dict[str, list[tuple[cst.Attribute, list[cst.CSTNode]]]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Attribute):
            a = self_attr(node)
            if a is not None:
                self.uses.setdefault(a, []).append((node, list(self.stack)))
        self.stack.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


@dataclass
class Memo:
    attrs: tuple[str, ...]
    method: cst.FunctionDef
    inits: dict[str, cst.BaseExpression]
    keyed: bool = False  # a dict looked up by one key per call: one local value


def _inits(cls: cst.ClassDef) -> dict[str, cst.BaseExpression]:
    out: dict[str, cst.BaseExpression] = {}
    for s in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
        if isinstance(s, cst.FunctionDef) and s.name.value == "__init__":
            for n in iter_nodes(s):
                if isinstance(n, cst.Assign) and len(n.targets) == 1:
                    a = self_attr(n.targets[0].target)
                    if a is not None:
                        out[a] = n.value  # the last assignment wins
                elif isinstance(n, cst.AnnAssign) and n.value is not None:
                    a = self_attr(n.target)
                    if a is not None:
                        out[a] = n.value
    return out


def _test_reads(test: cst.BaseExpression, attrs: set[str]) -> bool:
    return any(isinstance(n, cst.Attribute) and self_attr(n) in attrs for n in iter_nodes(test))


def _dict_use_ok(attr: cst.Attribute, parents: list[cst.CSTNode]) -> str | None:
    """The kind of a dict memo's use ("test", "get", "read", "store"), or None."""
    p = parents[-1] if parents else None
    if isinstance(p, cst.ComparisonTarget) and isinstance(p.operator, (cst.In, cst.NotIn)):
        return "test"
    if isinstance(p, cst.Attribute) and p.value is attr and len(parents) >= 2:
        call = parents[-2]
        if isinstance(call, cst.Call) and call.func is p and p.attr.value == "get":
            return "get"
        return None
    if isinstance(p, cst.Subscript) and p.value is attr:
        if len(parents) >= 2 and isinstance(parents[-2], cst.AssignTarget):
            return "store"
        return "read"
    return None


def _keys(uses: list[tuple[cst.Attribute, list[cst.CSTNode]]]) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for _n, ps in uses:
        p = ps[-1]
        if isinstance(p, cst.ComparisonTarget):
            cmp = ps[-2]
            assert isinstance(cmp, cst.Comparison)
            out.append(cmp.left)
        elif isinstance(p, cst.Attribute) and isinstance(ps[-2], cst.Call):
            call = ps[-2]
            assert isinstance(call, cst.Call)
            out.append(call.args[0].value if call.args else cst.Name("None"))
        elif isinstance(p, cst.Subscript):
            el = p.slice[0].slice if len(p.slice) == 1 else None
            out.append(el.value if isinstance(el, cst.Index) else p)
    return out


def _dict_not_memo(
    a: str, uses: list[tuple[cst.Attribute, list[cst.CSTNode]]], kinds: list[str | None]
) -> str | None:
    """Why the dict ``self.<a>`` is not a memo: a value stored that reads the dict (a count,
    ``self.d[k] = self.d.get(k, 0) + 1``), a ``.get`` with a default, or a store before any
    lookup (its keys are not a cache's misses)."""
    first_lookup: int | None = None
    for i, ((_n, ps), kind) in enumerate(zip(uses, kinds, strict=True)):
        if kind in ("test", "get") and first_lookup is None:
            first_lookup = i
        if kind == "get":
            call = ps[-2]
            if isinstance(call, cst.Call) and len(call.args) != 1:
                return f"`self.{a}.get` has a default: a count or an accumulation, not a cache"
        if kind == "store":
            assign = next((p for p in reversed(ps) if isinstance(p, cst.Assign)), None)
            if assign is not None and any(
                isinstance(x, cst.Attribute) and self_attr(x) == a for x in iter_nodes(assign.value)
            ):
                return f"what `self.{a}` stores reads it: an accumulation, not a cache"
            if first_lookup is None:
                return f"`self.{a}` is stored into before it is looked up"
    return None


def _builds_state(body: cst.CSTNode) -> str | None:
    """A constructor call (``nn.Linear(...)``, ``nn.Parameter(...)``: a capitalized name) in
    ``body``: a lazily built submodule or parameter is model state, not a memo."""
    for n in iter_nodes(body):
        if isinstance(n, cst.Call):
            name = last_name(n.func)
            if name[:1].isupper():
                return name
    return None


def find_memos(cls: cst.ClassDef) -> tuple[list[Memo], list[str]]:
    """The memos of ``cls`` and, for attributes that look like caches but are not memos, why."""
    if not isinstance(cls.body, cst.IndentedBlock):
        return [], []
    inits = _inits(cls)
    methods = [
        s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value != "__init__"
    ]
    per_method: dict[str, list[tuple[cst.FunctionDef, _Uses]]] = {}
    visitors: list[tuple[cst.FunctionDef, _Uses]] = []
    for m in methods:
        v = _Uses()
        m.visit(v)
        visitors.append((m, v))
        for a in v.uses:
            per_method.setdefault(a, []).append((m, v))
    memos: list[Memo] = []
    why: list[str] = []
    # dict memos
    for a, kind in ((a, _init_value(e)) for a, e in inits.items()):
        if kind != "dict" or a not in per_method:
            continue
        if len(per_method[a]) != 1:
            why.append(f"`self.{a}` is used in more than one method")
            continue
        m, v = per_method[a][0]
        kinds = [_dict_use_ok(n, ps) for n, ps in v.uses[a]]
        if None in kinds:
            why.append(f"`self.{a}` is used other than as a lookup or a store by key")
            continue
        bad = _dict_not_memo(a, v.uses[a], kinds)
        if bad:
            why.append(bad)
            continue
        if "store" in kinds and ({"test", "get"} & set(kinds)):
            keys = {cst.Module([]).code_for_node(k) for k in _keys(v.uses[a])}
            if len(keys) != 1:
                why.append(f"`self.{a}` is looked up by more than one key expression")
                continue
            memos.append(Memo((a,), m, {a: inits[a]}, keyed=True))
    # size memos: attributes written only in the body of an `if` whose test reads one of them
    for m, v in visitors:
        for node in iter_nodes(m):
            if not isinstance(node, cst.If):
                continue
            written = {
                attr
                for n in iter_nodes(node.body)
                if isinstance(n, cst.Assign)
                for t in n.targets
                if (attr := self_attr(t.target)) is not None
            }
            group = {a for a in written if _init_value(inits.get(a, cst.Dict([]))) == "const"}
            built = _builds_state(node.body)
            if group and built:
                why.append(f"`{built}` builds a module or parameter on the first call: state")
                continue
            if not group or not _test_reads(node.test, group) or node.orelse is not None:
                continue
            ok = True
            for a in group:
                if len(per_method.get(a, [])) != 1:
                    why.append(f"`self.{a}` is used in more than one method")
                    ok = False
                    continue
                for _n, ps in v.uses[a]:
                    if isinstance(ps[-1], cst.AssignTarget) and not any(p is node.body for p in ps):
                        why.append(f"`self.{a}` is written outside the test that reads it")
                        ok = False
                    if isinstance(ps[-1], cst.AugAssign):
                        ok = False
            if ok:
                memos.append(Memo(tuple(sorted(group)), m, {a: inits[a] for a in group}))
    return memos, why


class _Localize(cst.CSTTransformer):
    """``self.<attr>`` -> a local. A dict memo (``slots``) with one key per call becomes one
    local value: a lookup misses (``k not in`` -> ``True``, ``k in`` -> ``False``, ``.get(k)``
    -> ``None``), ``[k] = v`` stores into the local, ``[k]`` reads it; ``if True:`` /
    ``if False:`` are then folded."""

    def __init__(self, names: dict[str, str], slots: set[str]) -> None:
        self.names = names
        self.slots = slots

    def _slot(self, e: cst.BaseExpression) -> str | None:
        a = self_attr(e)
        return a if a is not None and a in self.slots else None

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        if len(original_node.comparisons) == 1:
            c = original_node.comparisons[0]
            if self._slot(c.comparator) is not None:
                return cst.Name("True" if isinstance(c.operator, cst.NotIn) else "False")
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        f = original_node.func
        if isinstance(f, cst.Attribute) and f.attr.value == "get" and self._slot(f.value):
            return cst.Name("None")
        return updated_node

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        a = self._slot(original_node.value)
        if a is not None:
            return cst.Name(self.names[a])
        return updated_node

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        a = self_attr(original_node)
        if a is not None and a in self.names:
            return cst.Name(self.names[a])
        return updated_node

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        t = updated_node.test
        if isinstance(t, cst.Name) and t.value in ("True", "False"):
            if t.value == "True":
                body = updated_node.body
            elif isinstance(updated_node.orelse, cst.Else):
                body = updated_node.orelse.body
            elif isinstance(updated_node.orelse, cst.If):
                return updated_node.orelse
            else:
                return cst.RemoveFromParent()
            if isinstance(body, cst.IndentedBlock):
                return cst.FlattenSentinel(body.body)
        return updated_node


def _fold_none_test(stmts: list[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """``v = None`` directly followed by ``if v is None: <body>`` (no ``else``) -> ``<body>``
    (what a lookup that always misses leaves)."""
    out: list[cst.BaseStatement] = []
    for st in stmts:
        prev = out[-1] if out else None
        if (
            isinstance(st, cst.If)
            and st.orelse is None
            and isinstance(st.body, cst.IndentedBlock)
            and isinstance(st.test, cst.Comparison)
            and len(st.test.comparisons) == 1
            and isinstance(st.test.comparisons[0].operator, cst.Is)
            and isinstance(st.test.left, cst.Name)
            and isinstance(st.test.comparisons[0].comparator, cst.Name)
            and st.test.comparisons[0].comparator.value == "None"
            and isinstance(prev, cst.SimpleStatementLine)
            and len(prev.body) == 1
            and isinstance(prev.body[0], cst.Assign)
            and len(prev.body[0].targets) == 1
            and isinstance(prev.body[0].targets[0].target, cst.Name)
            and prev.body[0].targets[0].target.value == st.test.left.value
            and isinstance(prev.body[0].value, cst.Name)
            and prev.body[0].value.value == "None"
        ):
            out.pop()
            out.extend(st.body.body)
            continue
        out.append(st)
    return out


def _drop_unread(m: cst.FunctionDef, names: set[str]) -> cst.FunctionDef:
    """Remove ``slot = v`` statements of slots nothing reads."""
    loads = {
        n.value
        for st in iter_nodes(m)
        if not isinstance(st, cst.AssignTarget)
        for n in (st.children if not isinstance(st, cst.Assign) else [st.value])
        if isinstance(n, cst.Name)
    }
    dead = {n for n in names if n not in loads}
    if not dead:
        return m

    class _Drop(cst.CSTTransformer):
        def leave_SimpleStatementLine(
            self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
        ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
            b = updated_node.body
            if (
                len(b) == 1
                and isinstance(b[0], cst.Assign)
                and len(b[0].targets) == 1
                and isinstance(b[0].targets[0].target, cst.Name)
                and b[0].targets[0].target.value in dead
            ):
                return cst.RemoveFromParent()
            return updated_node

    out = m.visit(_Drop())
    assert isinstance(out, cst.FunctionDef)
    return out


def _local_names(m: cst.FunctionDef, attrs: tuple[str, ...]) -> dict[str, str]:
    taken = {n.value for n in iter_nodes(m) if isinstance(n, cst.Name)}
    out: dict[str, str] = {}
    for a in attrs:
        name = a.strip("_")
        for suffix in ("_cache", "_cached", "cache"):
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)].rstrip("_")
                break
        name = name or "memo"
        while name in taken or name in out.values():
            name += "_"
        out[a] = name
    return out


def memo_rewrite(ctx: FixContext, cls: cst.ClassDef) -> Rewrite | NoFix:
    """All memos of ``cls``, each a local of its method (one rewrite; reach: the class)."""
    memos, why = find_memos(cls)
    if not memos:
        return NoFix(
            "no cache on `self` filled in forward was found in the class"
            + (f" ({why[0]})" if why else "")
        )
    by_method: dict[int, tuple[cst.FunctionDef, list[Memo]]] = {}
    for mm in memos:
        by_method.setdefault(id(mm.method), (mm.method, []))[1].append(mm)
    changes: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    titles: list[str] = []
    for m, ms in by_method.values():
        attrs = tuple(a for mm in ms for a in mm.attrs)
        names = _local_names(m, attrs)
        inits = {a: e for mm in ms for a, e in mm.inits.items()}
        slots = {a for mm in ms if mm.keyed for a in mm.attrs}
        new = m.visit(_Localize(names, slots))
        assert isinstance(new, cst.FunctionDef)
        new = _drop_unread(new, {names[a] for a in slots})
        body = new.body
        if not isinstance(body, cst.IndentedBlock):
            return NoFix(f"`{m.name.value}` is a one-line function")
        stmts = _fold_none_test(list(body.body))
        at = 0
        if (  # after the docstring
            stmts
            and isinstance(stmts[0], cst.SimpleStatementLine)
            and isinstance(stmts[0].body[0], cst.Expr)
            and isinstance(stmts[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString))
        ):
            at = 1
        starts = [
            cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(names[a]))], inits[a].deep_clone())]
            )
            for a in attrs
            if a not in slots
        ]
        stmts[at:at] = starts
        changes.append((m, new.with_changes(body=body.with_changes(body=stmts))))
        titles.append(", ".join(f"`self.{a}`" for a in attrs) + f" local to `{m.name.value}`")
    first = ctx.span(cls)
    return Rewrite(
        title=(
            "cache on `self` filled in forward (dynamo guards on its keys or size: a recompile "
            "per new key) -> computed in the graph on every call: "
            + "; ".join(titles)
            + " (its value is what a first call computes; other code no longer sees it)"
        ),
        changes=changes,
        reach=(first[0], first[2]),
    )


RECOMPILE_FINDING = "observed-recompile"


def observed_recompile_findings(
    recompiles: Iterable[dict[str, Any]],
    root: str,
    sources: dict[str, bytes],
    display: Callable[[str], str],
    fixable: Iterable[str],
) -> list[Finding]:
    """A CL501 finding (name ``observed-recompile``) spanning each class of the project in which
    torch observed a recompile and that has a memo (:func:`find_memos`): its codemod makes the
    memos locals (:func:`memo_rewrite`). ``recompiles``: the dynamic block's, paths relative to
    ``root``; ``sources``: current text of changed files by real path."""
    if "CL501" not in set(fixable):
        return []
    lines: dict[str, set[int]] = {}
    for r in recompiles:
        path, line = r.get("path"), r.get("line")
        if not path or line is None or os.path.isabs(str(path)):
            continue
        real = os.path.realpath(os.path.join(root, str(path)))
        lines.setdefault(real, set()).add(int(line))
    from libcst.metadata import PositionProvider

    from compilelint.fix.observed import read_parsed

    out: list[Finding] = []
    for real, want in sorted(lines.items()):
        parsed = read_parsed(real, sources)
        if parsed is None:
            continue
        wrapper, text = parsed
        pos = wrapper.resolve(PositionProvider)
        for node in iter_nodes(wrapper.module):
            if not isinstance(node, cst.ClassDef):
                continue
            span = pos[node]
            if not any(span.start.line <= ln <= span.end.line for ln in want):
                continue
            memos, _ = find_memos(node)
            if not memos:
                continue
            attrs = ", ".join(f"`self.{a}`" for m in memos for a in m.attrs)
            out.append(
                Finding(
                    rule="CL501",
                    name=RECOMPILE_FINDING,
                    path=display(real),
                    line=span.start.line,
                    col=span.start.column + 1,
                    end_line=span.end.line,
                    end_col=span.end.column + 1,
                    severity="warning",
                    message=(
                        f"torch observed a recompile in `{node.name.value}`; forward fills "
                        f"a cache on `self` ({attrs}) that dynamo guards on"
                    ),
                    fix="",
                    stage="dynamic",
                    line_text=text[span.start.line - 1] if span.start.line <= len(text) else "",
                    gb_id=None,
                    observed=True,
                    package=None,
                )
            )
    return out
