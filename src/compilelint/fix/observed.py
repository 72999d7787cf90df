"""Fixes driven by what torch observed.

The static stage does not predict every break (a value it cannot type, a call through a
helper). When ``fix --verify``'s dynamic run reports a graph break at a line with a GB id, the
codemod that GB id calls for is offered there anyway, as a finding of that rule at the node of
the line that the rule's codemod rewrites; it is then verified like any other fix (its break
must be gone, no new one, the outputs the same).

:data:`GB_RULES` names, per GB id, the rules whose codemods fix it and the kind of node each
one rewrites.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from compilelint.fix.codemods.number_args import number_kw_call
from compilelint.model import Finding

_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}


def _call_named(*names: str) -> Callable[[cst.CSTNode], bool]:
    def pred(n: cst.CSTNode) -> bool:
        if not isinstance(n, cst.Call):
            return False
        f = n.func
        if isinstance(f, cst.Name):
            return f.value in names
        if isinstance(f, cst.Attribute):
            return f.attr.value in names
        return False

    return pred


def _keyed_extreme(n: cst.CSTNode) -> bool:
    """``max(..., key=...)`` / ``min(..., key=...)``."""
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Name)
        and n.func.value in ("max", "min")
        and any(a.keyword is not None and a.keyword.value == "key" for a in n.args)
    )


def _is_print(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "print"


def _is_log(n: cst.CSTNode) -> bool:
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value in _LOG_METHODS
        and not (isinstance(n.func.value, cst.Name) and n.func.value.value == "warnings")
    )


def _is_warn(n: cst.CSTNode) -> bool:
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "warn"
        and isinstance(n.func.value, cst.Name)
        and n.func.value.value == "warnings"
    )


def _is_item(n: cst.CSTNode) -> bool:
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value == "item"
        and not n.args
    )


def _is_cast(n: cst.CSTNode) -> bool:
    """``int(x)``/``float(x)`` (CL102's codemod decides whether ``x`` is a tensor's value)."""
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Name)
        and n.func.value in ("int", "float")
        and len(n.args) == 1
    )


def _is_math(n: cst.CSTNode) -> bool:
    """``math.<f>(x)``."""
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and isinstance(n.func.value, cst.Name)
        and n.func.value.value == "math"
    )


def _is_branch(n: cst.CSTNode) -> bool:
    return isinstance(n, (cst.If, cst.IfExp, cst.While))


# modules whose functions dynamo skips or cannot trace (GB0007 "Attempted to call function
# marked as skipped", GB0059/GB0156 for C builtins of them): CL205's codemod runs such a call
# only in eager when nothing but observing code reads its value
_STDLIB = frozenset(
    {
        "time",
        "random",
        "inspect",
        "hashlib",
        "zlib",
        "os",
        "sys",
        "json",
        "pickle",
        "datetime",
        "uuid",
        "socket",
        "gc",
        "glob",
        "shutil",
        "subprocess",
        "threading",
        "io",
        "platform",
        "traceback",
        "timeit",
        "resource",
        "psutil",
        "secrets",
    }
)


def _root_name(e: cst.BaseExpression) -> str:
    while isinstance(e, cst.Attribute):
        e = e.value
    return e.value if isinstance(e, cst.Name) else ""


def _is_stdlib_call(n: cst.CSTNode) -> bool:
    """``time.perf_counter()``, ``random.random()``, ``hashlib.sha1(...)``, ``open(...)``."""
    if not isinstance(n, cst.Call):
        return False
    f = n.func
    if isinstance(f, cst.Name):
        return f.value in ("open", "input")
    return isinstance(f, cst.Attribute) and _root_name(f) in _STDLIB


def _is_log_value(n: cst.CSTNode) -> bool:
    """A value read to be logged (``t.tolist()``, ``t.item()``, ``self.log.append(...)``):
    CL501's codemod fills a list log on ``self`` only in eager."""
    return (
        isinstance(n, cst.Call)
        and isinstance(n.func, cst.Attribute)
        and n.func.attr.value
        in ("tolist", "item", "numpy", "append", "extend", "insert", "appendleft")
    )


def _is_with(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.With)


# the node a rule's finding points at, given the node the predicate matched
_TARGET: dict[str, Callable[[cst.CSTNode], cst.CSTNode]] = {
    "CL101": lambda n: n.test if isinstance(n, (cst.If, cst.IfExp, cst.While)) else n,
    "CL111": lambda n: n.targets[0].target if isinstance(n, cst.Assign) else n,
}


def _is_masked_store(n: cst.CSTNode) -> bool:
    """``x[m] = v``: a write through an index (a 0-d tensor's ``gain[m] = 0`` reads its mask's
    value: "Data dependent operator")."""
    return (
        isinstance(n, cst.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0].target, cst.Subscript)
    )


def _is_assert(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Assert)


def _is_subscript(n: cst.CSTNode) -> bool:
    return isinstance(n, cst.Subscript)


_SHAPE_OPS = frozenset({"nonzero", "masked_select", "bincount", "unique", "argwhere"})


def _is_shape_call(n: cst.CSTNode) -> bool:
    """``nonzero``, ``masked_select``, ``bincount``, ... or a one-argument ``where``."""
    if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)):
        return False
    name = n.func.attr.value
    return name in _SHAPE_OPS or (name == "where" and len(n.args) == 1)


# GB id -> (rule, which node of the line its codemod rewrites), tried in order
GB_RULES: dict[str, tuple[tuple[str, Callable[[cst.CSTNode], bool]], ...]] = {
    # Tensor.item(), int()/float(), and `if v in t:` (reads the tensor's values)
    "GB0124": (
        ("CL103", _is_item),
        ("CL102", _is_cast),
        ("CL101", _is_branch),
        ("CL501", _is_log_value),
    ),
    "GB0059": (
        ("CL201", _is_print),
        ("CL204", _call_named("breakpoint", "set_trace")),
        ("CL205", _is_stdlib_call),
    ),
    "GB0291": (("CL202", _is_log),),  # logging.Logger method
    "GB4841": (("CL202", _is_log),),
    "GB0007": (
        ("CL203", _is_warn),
        ("CL202", _is_log),
        ("CL204", _call_named("breakpoint", "set_trace")),
        ("CL205", _is_stdlib_call),
        ("CL501", _is_log_value),
    ),
    # C builtins of skipped modules ("Failed to trace builtin operator": zlib.crc32, open)
    "GB0156": (("CL205", _is_stdlib_call),),
    "GB0142": (("CL205", _is_with),),
    # sort with non-constant keys (`sorted(xs, key=lambda t: t.sum())`)
    "GB0207": (
        ("CL114", _call_named("sorted", "max", "min", "sort")),
    ),  # unsupported context manager (a lock, a file)
    # `max(range(n), key=lambda i: t[i])`: the builtin compares 0-d tensors (invalid call to
    # builtin op handler)
    "GB0193": (("CL114", _keyed_extreme),),
    "GB0170": (("CL104", _is_assert), ("CL101", _is_branch)),  # data-dependent branching
    "GB0035": (("CL101", _is_branch),),
    # a layer built in forward (`nn.Parameter()` while tracing): its lazy module in __init__
    "GB0264": (
        (
            "CL508",
            _call_named(
                "Linear", "Conv1d", "Conv2d", "Conv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d"
            ),
        ),
    ),
    # `requires_grad_()` on a tensor made in forward and `torch.autograd.grad` of it:
    # computed with `torch.func.vjp` from the `requires_grad_()` statement on
    "GB8985": (("CL502", _call_named("requires_grad_")),),
    "GB9186": (("CL502", _call_named("grad")),),
    "GB0206": (("CL502", lambda n: isinstance(n, cst.Assign)),),  # `t.requires_grad = True`
    # dynamic shape operator
    "GB0036": (("CL110", _is_shape_call), ("CL111", _is_subscript)),
    # `.tolist()` of a float tensor: a list log on `self`, or a list kept on `self`
    "GB0109": (("CL501", _is_log_value), ("CL105", _call_named("tolist"))),
    # data-dependent operator (`math.sqrt(t)` reads the value through `_local_scalar_dense`)
    "GB0033": (
        ("CL103", _is_item),
        # `torch.add(a, b, alpha=t)`: the number torch reads from `t` (`number_args`)
        ("CL103", number_kw_call),
        ("CL112", _is_math),
        ("CL102", _is_cast),
        ("CL501", _is_log_value),
        ("CL105", _call_named("tolist")),
        ("CL111", _is_masked_store),
    ),
}


# GB id of a break inside a library -> the rule its user-line finding carries (any rule with
# a codemod: the library-call rewrite is used for every finding with a package)
_PACKAGE_RULE = {
    "GB0036": "CL110",
    "GB0124": "CL103",
    "GB0033": "CL103",
    "GB0170": "CL101",
    "GB0035": "CL101",
}


class _Nodes(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: set[int]) -> None:
        self.lines = lines
        self.found: dict[int, list[tuple[cst.CSTNode, tuple[int, int, int, int]]]] = {}
        self.spans: dict[int, tuple[int, int, int, int]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        try:
            r = self.get_metadata(PositionProvider, node)
        except KeyError:
            return True
        if r.start.line in self.lines:
            span = (r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)
            self.found.setdefault(r.start.line, []).append((node, span))
            self.spans[id(node)] = span
        return True


def _observed(
    rule: str,
    path: str,
    span: tuple[int, int, int, int],
    text: list[str],
    line: int,
    message: str,
    gb: str | None,
    package: str | None,
) -> Finding:
    """The finding for a break torch observed at ``line`` (``package``: inside that library)."""
    return Finding(
        rule=rule,
        name="observed",
        path=path,
        line=span[0],
        col=span[1],
        end_line=span[2],
        end_col=span[3],
        severity="error",
        message=message,
        fix="",
        stage="dynamic",
        line_text=text[line - 1] if line <= len(text) else "",
        gb_id=gb,
        observed=True,
        package=package,
    )


def read_parsed(real: str, sources: dict[str, bytes]) -> tuple[MetadataWrapper, list[str]] | None:
    """The parsed file at ``real`` (its current text from ``sources`` when changed) and its
    lines; None when it cannot be read or parsed (nothing to offer there)."""
    data = sources.get(real)
    if data is None:
        try:
            with open(real, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
    try:
        wrapper = MetadataWrapper(cst.parse_module(data))
    except Exception:  # not parseable
        return None
    return wrapper, data.decode("utf-8", "replace").splitlines()


def observed_findings(
    breaks: Iterable[dict[str, Any]],
    root: str,
    sources: dict[str, bytes],
    display: Callable[[str], str],
    covered: set[tuple[str, int]],
    fixable: Iterable[str],
) -> list[Finding]:
    """Findings for the observed ``breaks`` (the dynamic block's, paths relative to ``root``)
    that no fixable static finding covers (``covered``: (real path, line)). ``sources``: the
    current text of changed files by real path; ``display``: real path -> display path."""
    want = set(fixable)
    by_file: dict[str, dict[int, list[str]]] = {}
    # breaks torch saw inside an installed library, attributed to the user's line that reaches
    # it: offered as that line's library call (:mod:`compilelint.fix.library_calls`)
    libs: dict[str, dict[int, tuple[str, str, str]]] = {}
    for b in breaks:
        path, line, gb = b.get("path"), b.get("line"), b.get("gb_id")
        if not path or line is None or os.path.isabs(str(path)):
            continue
        real = os.path.realpath(os.path.join(root, str(path)))
        if (real, int(line)) in covered:
            continue
        pkg = b.get("package")
        if pkg:
            rule = _PACKAGE_RULE.get(str(gb), "CL205")
            if rule in want:
                libs.setdefault(real, {}).setdefault(int(line), (rule, str(pkg), str(gb)))
            continue
        if gb not in GB_RULES:
            continue
        by_file.setdefault(real, {}).setdefault(int(line), []).append(str(gb))
    for real in libs:
        by_file.setdefault(real, {})
    out: list[Finding] = []
    for real, lines in sorted(by_file.items()):
        parsed = read_parsed(real, sources)
        if parsed is None:
            continue
        wrapper, text = parsed
        v = _Nodes(set(lines) | set(libs.get(real, {})))
        wrapper.visit(v)

        for line, (rule, pkg, lgb) in sorted(libs.get(real, {}).items()):
            calls = [(n, sp) for n, sp in v.found.get(line, []) if isinstance(n, cst.Call)]
            if not calls:
                continue
            _, span = min(calls, key=lambda c: (c[1][1], -c[1][2], -c[1][3]))
            msg = f"torch observed a graph break inside {pkg}, reached from here"
            out.append(
                _observed(
                    rule, display(real), span, text, line, msg, lgb if lgb != "None" else None, pkg
                )
            )
        for line, gbs in sorted(lines.items()):
            done: set[tuple[str, tuple[int, int, int, int]]] = set()
            for gb in dict.fromkeys(gbs):
                for rule, pred in GB_RULES[gb]:
                    if rule not in want:
                        continue
                    for node, _ in v.found.get(line, []):
                        if not pred(node):
                            continue
                        target = _TARGET.get(rule, lambda n: n)(node)
                        at = v.spans.get(id(target))
                        if at is None or (rule, at) in done:
                            continue
                        done.add((rule, at))
                        msg = f"torch observed a graph break here ({gb})"
                        out.append(_observed(rule, display(real), at, text, line, msg, gb, None))
    return out
