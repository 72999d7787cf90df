"""Reachability for the prediction: the spec's entry (:func:`find_entry`), the functions torch
traces from it (:func:`reachable`, over :meth:`Project.callees` and ``opaque_to_dynamo``), the
break sites among the kept findings (:func:`break_sites`), and how often one call runs a
function (:func:`_runs_per_call`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from compilelint.model import Finding
from compilelint.static.analysis.breakpoints import is_break_rule
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.trees import source_lines
from compilelint.static.predict.prediction import BreakSite, FKey


# ---------------------------------------------------------------------------- the entry
def _norm(p: str) -> str:
    return os.path.normcase(os.path.realpath(p))


def find_entry(project: Project, model: str, spec_dir: str) -> FKey | None:
    """The function torch.compile is handed for ``file.py:Name``: the class's ``forward``
    (through its MRO), a compiled function itself, or, for a factory, the ``forward`` of the
    module class it builds."""
    target, _, name = model.rpartition(":")
    cands = [os.path.join(spec_dir, target), target]
    want = {_norm(c) for c in cands}
    path = next((p for p in project.files if _norm(p) in want), None)
    if path is None:  # a dotted module name
        path = project.modules.get(target)
    if path is None:
        return None
    return _entry_in(project, path, name)


def _entry_in(project: Project, path: str, name: str, depth: int = 0) -> FKey | None:
    f = project.files[path]
    if name in f.classes:
        for p, q in project.mro(path, name):
            if f"{q}.forward" in project.files[p].functions:
                return (p, f"{q}.forward")
        return None
    fn = f.functions.get(name)
    if fn is None or depth > 2:
        return None
    if fn.compiled or fn.name == "forward":
        return (path, name)
    for c in fn.calls:  # a factory: the first module class it builds
        r = project.resolve(path, c.ref)
        if r is not None and r[2] == "class":
            got = _entry_in(project, r[0], r[1], depth + 1)
            if got is not None:
                return got
    return (path, name)


def reachable(project: Project, entry: FKey) -> list[FKey]:
    out: list[FKey] = []
    seen = {entry}
    stack = [entry]
    while stack:
        k = stack.pop()
        out.append(k)
        for c in project.callees(k):
            if c not in seen and c[1] in project.files.get(c[0], _NOFILE).functions:
                if project.opaque_to_dynamo(c):
                    continue
                seen.add(c)
                stack.append(c)
    return out


class _NoFile:
    functions: Mapping[str, Any] = {}


_NOFILE = _NoFile()


# ---------------------------------------------------------------------------- the break sites
def _candidate_in_loop(project: Project, path: str, line: int, code: str) -> tuple[str, bool]:
    f = project.files.get(path)
    if f is None:
        return "", False
    for c in f.candidates:
        if c.line == line and c.code == code:
            return c.func, c.in_loop
    return "", False


def break_sites(
    project: Project,
    keys: Iterable[FKey],
    findings: Sequence[Finding],
    catalog: Any,
    source: Callable[[str], bytes | None] | None = None,
) -> list[BreakSite]:
    funcs = {k for k in keys}
    out: list[BreakSite] = []
    seen: set[tuple[str, int]] = set()
    for f in findings:
        rule = catalog.rules.get(f.rule) if catalog is not None else None
        if rule is None or not is_break_rule(rule) or f.stage == "dynamic":
            continue
        func, in_loop = _candidate_in_loop(project, f.path, f.line, f.rule)
        if (f.path, func) not in funcs or (f.path, f.line) in seen:
            continue
        if "latent:" in f.message:
            continue  # only some inputs reach the tensor part
        if f.behind is not None:
            continue  # torch runs the frame eagerly from an earlier loop break
        seen.add((f.path, f.line))
        out.append(BreakSite(f.path, f.line, f.rule, func, in_loop))
    return [b for b in out if not _under_data_branch(b, out, source)]


BRANCH_BREAKS = frozenset({"CL101", "CL104"})  # a branch (or assert) on a tensor's value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _under_data_branch(
    b: BreakSite,
    sites: Sequence[BreakSite],
    source: Callable[[str], bytes | None] | None = None,
) -> bool:
    """A break in the body of an ``if`` whose condition is a tensor's value (itself a break):
    dynamo breaks at the condition and only meets the body when the data takes it."""
    heads = [
        s
        for s in sites
        if s.rule in BRANCH_BREAKS
        and s.path == b.path
        and s.function == b.function
        and s.line < b.line
    ]
    if not heads:
        return False
    lines = source_lines(b.path, source)
    for h in heads:
        if not (0 < h.line <= len(lines) and b.line <= len(lines)):
            continue
        head = lines[h.line - 1]
        if not head.lstrip().startswith(("if ", "elif ", "while ")):
            continue
        base = _indent(head)
        body = all(not ln.strip() or _indent(ln) > base for ln in lines[h.line : b.line])
        if body:
            return True
    return False


def _user_calls(project: Project, k: FKey) -> list[tuple[FKey, bool]]:
    fn = project.fn(k)
    out: list[tuple[FKey, bool]] = []
    for c in fn.calls:
        t = project.call_target(k[0], c.ref)
        if t is None or t[0] == k:
            continue
        callee = project.fn(t[0])
        if project.opaque_to_dynamo(t[0]) or callee.name == "__init__":
            continue
        out.append((t[0], c.in_loop))
    return out


def _runs_per_call(
    project: Project,
    entry: FKey,
    target: FKey,
    cap: int = 2,
    memo: dict[FKey, int] | None = None,
) -> int:
    """How often one call of ``entry`` runs ``target``: the number of call paths to it (two
    attributes holding one class: 2), a call in a loop counting as ``cap``; at most ``cap``.
    ``memo`` (per ``target``) may be shared between entries."""
    memo = {} if memo is None else memo

    def runs(k: FKey, stack: frozenset[FKey]) -> int:
        if k == target:
            return 1
        if k in memo:
            return memo[k]
        if k in stack or len(stack) > 12:
            return 0
        n = 0
        for c, loop in _user_calls(project, k):
            got = runs(c, stack | {k})
            n += cap * got if loop else got
            if n >= cap:
                break
        memo[k] = min(n, cap)
        return memo[k]

    return runs(entry, frozenset())


def _read_eagerly(project: Project, key: FKey, read: int) -> bool:
    """Whether line ``read`` of the function ``key`` runs in a part of its frame dynamo skips
    (``CalleeBreaks.skips_from``: a graph break in one of its loops, torch 2.13, skips the
    frame from its start or from the last break before that loop; the skipped part runs
    eagerly): module state read there is guarded by no compiled entry, so its change
    recompiles nothing (dev ``speculative_accept_loop``, ``freeze_schedule_requires_grad``)."""
    if read <= 0:
        return False
    start = project.callee_breaks().skips_from(key)
    return start is not None and read > start


def _held_by(project: Project, entry: FKey, path: str, cls: str) -> str | None:
    """How the entry reaches an object of class ``cls`` that lives across calls: ``self`` (the
    entry's own class), ``self.<attr>`` (an attribute the entry's class sets to an instance in
    its methods), else None (an object built during the call starts fresh each time)."""
    ecls = project.fn(entry).cls
    if ecls == cls and entry[0] == path:
        return "self"
    cf = project.files[entry[0]].classes.get(ecls or "")
    if cf is None:
        return None
    for attr, refs in cf.attr_classes.items():
        for ref in refs:
            r = project.resolve(entry[0], ref.lstrip("*"))
            if r is not None and (r[0], r[1]) == (path, cls):
                return f"self.{attr}"
    return None
