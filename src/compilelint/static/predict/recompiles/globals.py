"""Recompiles from the guards torch installs on module globals traced code changes
(:func:`global_state`: a ``global`` counter or a module-level dict written in the forward).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import function_node, installed, own_nodes, parsed_tree
from compilelint.static.predict.prediction import FKey, PredictedRecompile
from compilelint.static.predict.reach import _read_eagerly
from compilelint.static.predict.recompiles.fixes import _FIX


def _module_literals(tree: ast.Module) -> dict[str, Any]:
    """The module-level names bound once at the top level of ``tree``, to a literal or a dict
    of literals with constant keys (``_STEP = 0``, ``_STATE = {"warned": False}``): by name,
    the value (a dict as a ``dict``)."""
    count: dict[str, int] = {}
    out: dict[str, Any] = {}
    for st in tree.body:
        tgts: list[ast.expr] = []
        if isinstance(st, ast.Assign):
            tgts = list(st.targets)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign)):
            tgts = [st.target]
        for t in tgts:
            if isinstance(t, ast.Name):
                count[t.id] = count.get(t.id, 0) + 1
        if not isinstance(st, ast.Assign) or len(st.targets) != 1:
            continue
        t, v = st.targets[0], st.value
        if not isinstance(t, ast.Name):
            continue
        try:
            out[t.id] = ast.literal_eval(v)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    for st in tree.body:
        # a class attribute bound in the class body (`num_calls = 0`): `Cls.num_calls`
        if isinstance(st, ast.ClassDef) and count.get(st.name) is None:
            for a in st.body:
                if (
                    isinstance(a, ast.Assign)
                    and len(a.targets) == 1
                    and isinstance(a.targets[0], ast.Name)
                ):
                    try:
                        out[f"{st.name}.{a.targets[0].id}"] = ast.literal_eval(a.value)
                    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                        continue
                    count[f"{st.name}.{a.targets[0].id}"] = 1
    return {k: v for k, v in out.items() if count.get(k) == 1}


def _global_item(e: ast.AST, names: Mapping[str, Any]) -> tuple[str, Any] | None:
    """``(name, key)`` of ``NAME[key]`` (a constant key) of a module-level dict, else None."""
    if (
        isinstance(e, ast.Subscript)
        and isinstance(e.value, ast.Name)
        and isinstance(names.get(e.value.id), dict)
        and isinstance(e.slice, ast.Constant)
    ):
        return e.value.id, e.slice.value
    return None


def global_state(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, tree: ast.Module
) -> list[tuple[str, int, str]]:
    """``(subject, line of its first read, guard)`` for each module-level value that the
    function reads and then changes: a name it declares ``global`` and stores (``STEP += 1``,
    ``STEP = STEP + 1``, ``WARNED = True`` after ``if not WARNED:``), or an item of a
    module-level dict with a constant key (``STATE["warned"] = True`` after ``if not
    STATE["warned"]:``), or an attribute of a module-level class bound in its body
    (``Tracker.num_calls += 1``), the stored value another than the one read: a counter, or a
    literal other than the module's. dynamo guards a global's value where traced code first reads it
    (torch 2.13: ``G['_STEP'] == 0  # _STEP += 1``, ``G['_STATE']['warned'] == False``): the
    value lives across the calls, so the next call recompiles (once: automatic dynamic makes
    an int symbolic, a flag keeps its new value)."""
    names = _module_literals(tree)
    if not names:
        return []
    declared = {n for st in own_nodes(fn) if isinstance(st, ast.Global) for n in st.names}
    reads: dict[tuple[str, Any], int] = {}
    changed: dict[tuple[str, Any], int] = {}

    def subject(e: ast.AST) -> tuple[str, Any] | None:
        if isinstance(e, ast.Name) and e.id in declared and e.id in names:
            return e.id, None
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
            k = f"{e.value.id}.{e.attr}"
            return (k, None) if k in names else None
        return _global_item(e, names)

    def initial(k: tuple[str, Any]) -> Any:
        v = names[k[0]]
        return v if k[1] is None else v.get(k[1], _MISSING)

    for n in own_nodes(fn):
        if isinstance(n, ast.AugAssign):
            k = subject(n.target)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1:
            k = subject(n.targets[0])
            if k is None:
                continue
            v = n.value
            if any(subject(x) == k for x in ast.walk(v)):
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
                continue
            try:
                lit = ast.literal_eval(v)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if lit != initial(k) or type(lit) is not type(initial(k)):
                changed[k] = min(changed.get(k, n.lineno), n.lineno)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            k = subject(n)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Load):
            k = subject(n)
            if k is not None:
                reads[k] = min(reads.get(k, n.lineno), n.lineno)
    out: list[tuple[str, int, str]] = []
    for k, line in sorted(changed.items(), key=lambda kv: kv[1]):
        read = reads.get(k)
        if read is None or read > line:
            continue  # stored before any read: nothing guarded the old value
        owner, _, attr = k[0].partition(".")
        text = (
            f"G[{owner!r}]" + (f".{attr}" if attr else "") + ("" if k[1] is None else f"[{k[1]!r}]")
        )
        guard = (
            f"not ___dict_contains({k[1]!r}, G[{k[0]!r}])"
            if initial(k) is _MISSING
            else f"{text} == {initial(k)!r}"
        )
        out.append((k[0] if k[1] is None else f"{k[0]}[{k[1]!r}]", read, guard))
    return out


_MISSING = object()


def _global_state_recompiles(
    project: Project, keyset: set[FKey], recs: Sequence[PredictedRecompile]
) -> list[PredictedRecompile]:
    """Module-level values traced code reads and changes (:func:`global_state`), for a spec
    whose calls run the model more than once: one recompile each, at its first read."""
    taken = {(r.path, r.line) for r in recs}
    out: list[PredictedRecompile] = []
    for path, qual in sorted(keyset):
        if installed(path):
            continue
        tree = parsed_tree(path)
        fn = function_node(tree, qual) if tree is not None else None
        if tree is None or fn is None:
            continue
        for subj, line, guard in global_state(fn, tree):
            if (path, line) in taken or _read_eagerly(project, (path, qual), line):
                continue
            taken.add((path, line))
            out.append(
                PredictedRecompile(
                    path,
                    line,
                    qual.rsplit(".", 1)[-1],
                    subj,
                    guard,
                    1,
                    f"`{subj}` is module-level state that traced code reads and changes: torch "
                    "guards on its value where it is first read, so the next call recompiles",
                    _FIX["state"],
                )
            )
    return out
