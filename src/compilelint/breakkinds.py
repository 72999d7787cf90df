"""What a line of code does, for labelling a graph break torch observed there.

An observed break carries torch's GB id and the user's line; the rule it is reported under must
describe that line (issue 22: a GB0007 at ``self.log.append(t.tolist())`` is not the
``warnings.warn`` rule). :data:`LINE_KINDS` names, per rule, the syntactic shape of the code the
rule is about; :func:`label_break` picks the rule for an observed break from the rules that
predict its GB id *and* whose shape is on the line. Rules defined by the GB id alone (a call
to a ``torch.compiler.disable``d function has no shape) are listed in :data:`BY_GB_ONLY`.
Pure functions over the standard library's ``ast``; no torch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from compilelint.catalog import Catalog

CATCH_ALL = "CL002"

_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
)
# standard-library modules whose calls dynamo skips (GB0007) or cannot trace
_SKIPPED_MODULES = frozenset(
    {
        "time",
        "random",
        "inspect",
        "hashlib",
        "os",
        "sys",
        "socket",
        "threading",
        "datetime",
        "uuid",
        "json",
        "pickle",
        "subprocess",
        "traceback",
        "gc",
        "platform",
        "weakref",
        "functools",
        "itertools",
        "collections",
    }
)
_SHAPE_OPS = frozenset(
    {
        "nonzero",
        "unique",
        "unique_consecutive",
        "masked_select",
        "argwhere",
        "bincount",
        "repeat_interleave",
    }
)


def _attr(n: ast.AST) -> str | None:
    """The method name of a call ``x.name(...)``."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
        return n.func.attr
    return None


def _name(n: ast.AST) -> str | None:
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
        return n.func.id
    return None


def _on(n: ast.AST) -> str | None:
    """``m`` of a call ``m.f(...)`` where ``m`` is a bare name."""
    if (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
    ):
        return n.func.value.id
    return None


def _is_log(n: ast.AST) -> bool:
    return _attr(n) in _LOG_METHODS and _on(n) != "warnings"


def _is_mask_index(n: ast.AST) -> bool:
    if not isinstance(n, ast.Subscript):
        return False
    s = n.slice
    return isinstance(s, (ast.Compare, ast.BoolOp)) or (
        isinstance(s, ast.UnaryOp) and isinstance(s.op, (ast.Invert, ast.Not))
    )


def _is_name_index(n: ast.AST) -> bool:
    """``x[m]`` / ``x[:, m]`` with a plain name as the index: a mask or not, only the GB id
    tells (see :data:`WEAK_KINDS`)."""
    if not isinstance(n, ast.Subscript):
        return False
    s = n.slice
    if (
        isinstance(s, ast.Tuple)
        and s.elts
        and all(
            isinstance(e, ast.Slice) and e.lower is e.upper is e.step is None for e in s.elts[:-1]
        )
    ):
        s = s.elts[-1]
    return isinstance(s, ast.Name) or (
        isinstance(s, ast.BinOp) and isinstance(s.op, (ast.BitAnd, ast.BitOr))
    )


def _is_shape_op(n: ast.AST) -> bool:
    a = _attr(n)
    if a in _SHAPE_OPS:
        return True
    return a == "where" and isinstance(n, ast.Call) and len(n.args) == 1 and not n.keywords


def _is_data_slice(n: ast.AST) -> bool:
    if not isinstance(n, ast.Slice):
        return False
    for part in (n.lower, n.upper, n.step):
        if part is not None and any(
            _attr(x) == "item" or _name(x) == "int" for x in ast.walk(part)
        ):
            return True
    return False


def _is_sort_key(n: ast.AST) -> bool:
    return (_name(n) == "sorted" or _attr(n) == "sort") and any(
        k.arg == "key"
        for k in n.keywords  # type: ignore[attr-defined]
    )


def _is_data_assign(n: ast.AST) -> bool:
    return isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Attribute) and t.attr == "data"
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
    )


def _is_requires_grad(n: ast.AST) -> bool:
    if _attr(n) == "requires_grad_":
        return True
    return isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in n.targets
    )


def _is_module_ctor(n: ast.AST) -> bool:
    return _on(n) == "nn" and bool(_attr(n)) and str(_attr(n))[:1].isupper()


# rule -> the shape of the code it is about (any node of the line); in order of preference
# when several rules that predict the same GB id match one line (the more specific first)
LINE_KINDS: dict[str, Callable[[ast.AST], bool]] = {
    "CL103": lambda n: _attr(n) == "item" and not n.args,  # type: ignore[attr-defined]
    "CL105": lambda n: _attr(n) == "tolist",
    "CL106": lambda n: _attr(n) == "numpy",
    "CL108": lambda n: _attr(n) == "data_ptr",
    "CL113": _is_data_slice,
    "CL112": lambda n: _on(n) == "math",
    "CL102": lambda n: _name(n) in ("int", "float", "bool") and len(n.args) == 1,  # type: ignore[attr-defined]
    "CL110": _is_shape_op,
    "CL111": _is_mask_index,
    "CL114": _is_sort_key,
    "CL104": lambda n: isinstance(n, ast.Assert),
    "CL117": lambda n: isinstance(n, ast.Assert) and isinstance(n.test, ast.Name),  # type: ignore[attr-defined]
    "CL118": lambda n: (
        isinstance(n, ast.Call)
        and any(
            isinstance(a.value if isinstance(a, ast.Starred) else a, ast.GeneratorExp)
            for a in n.args
        )
    ),
    "CL101": lambda n: (
        isinstance(n, (ast.If, ast.While, ast.IfExp))
        or _attr(n) in ("equal", "allclose", "is_nonzero")
        or _name(n) in ("all", "any")
    ),
    "CL201": lambda n: _name(n) == "print",
    "CL203": lambda n: _attr(n) == "warn" and _on(n) == "warnings",
    "CL202": _is_log,
    "CL204": lambda n: _name(n) == "breakpoint" or _attr(n) == "set_trace",
    "CL206": lambda n: _attr(n) == "deepcopy" or _name(n) == "deepcopy",
    "CL506": lambda n: (
        _attr(n) in ("manual_seed", "seed", "Generator")
        or _name(n) == "Generator"
        or any(k.arg == "generator" for k in getattr(n, "keywords", ()))
    ),
    "CL504": lambda n: _attr(n) == "backward" or (_attr(n) == "grad" and _on(n) == "autograd"),
    "CL502": _is_requires_grad,
    "CL503": lambda n: str(_attr(n) or "").startswith("register_") and "hook" in str(_attr(n)),
    "CL505": _is_data_assign,
    "CL508": lambda n: _attr(n) == "Parameter" or _name(n) == "Parameter",
    "CL509": _is_module_ctor,
    "CL205": lambda n: _on(n) in _SKIPPED_MODULES,
    "CL107": lambda n: _on(n) in ("np", "numpy"),
    "CL209": lambda n: _name(n) in ("str", "repr") or isinstance(n, ast.JoinedStr),
}

# shapes that may be what a rule is about, or not (``x[m]``: a mask, or an integer index):
# they label a break only when the rule also predicts its GB id (step 1 of label_break)
WEAK_KINDS: dict[str, Callable[[ast.AST], bool]] = {"CL111": _is_name_index}

# rules whose observed breaks are known by the GB id alone (no shape of code to match)
BY_GB_ONLY: frozenset[str] = frozenset({"CL210"})


@lru_cache(maxsize=1024)
def _parse_line(text: str) -> tuple[ast.AST, ...]:
    s = text.strip()
    if not s or s.startswith("#"):
        return ()
    for cand in (s, s + " pass", s + "\n    pass", s.rstrip(":") + ": pass", s.rstrip(",")):
        try:
            return tuple(ast.walk(ast.parse(cand)))
        except SyntaxError:
            continue
    if s.startswith(("elif ", "else")):
        return _parse_line("if" + s[4:] if s.startswith("elif ") else "")
    try:  # a line inside a bracket: an expression on its own
        return tuple(ast.walk(ast.parse("(" + s.rstrip(",") + ")")))
    except SyntaxError:
        return ()


def line_rules(line_text: str) -> tuple[str, ...]:
    """The rules whose code shape is on the line (in :data:`LINE_KINDS` order)."""
    nodes = _parse_line(line_text)
    if not nodes:
        return ()
    return tuple(code for code, pred in LINE_KINDS.items() if any(_safe(pred, n) for n in nodes))


def _safe(pred: Callable[[ast.AST], bool], n: ast.AST) -> bool:
    try:
        return bool(pred(n))
    except (AttributeError, TypeError):
        return False


def predicts(catalog: Catalog, code: str, gb_type: str, gb_id: str | None) -> bool:
    rule = catalog.get(code)
    if rule is None:
        return False
    types = {t.strip().lower() for t in rule.gb_types}
    return gb_type.strip().lower() in types or bool(gb_id and gb_id in rule.gb_ids)


# torch's hint naming the function it could not trace: "Avoid calling `X`", "Avoid calling the
# function `X`" (not the alternatives other hints suggest, such as "use `torch.cond`")
_CALLEE = re.compile(r"calling (?:the function )?`([A-Za-z_][\w.]*)(?:\(\))?`")


def callee_elsewhere(hints: Sequence[str], line_text: str) -> bool:
    """Whether torch's hints name the function it could not trace (``Avoid calling
    `Logger.set_runtime_stats_and_log```) and no part of that name is on the line: the break
    then happened inside a call made from the line (a library's or torch's own code), and the
    line's code does not say what broke."""
    words = set(re.findall(r"[A-Za-z_]\w*", line_text))
    named = [m for h in hints for m in _CALLEE.findall(h)]
    return bool(named) and not any(set(n.split(".")) & words for n in named)


def label_break(
    catalog: Catalog,
    gb_type: str,
    gb_id: str | None,
    line_text: str,
    hints: Sequence[str] = (),
) -> str:
    """The rule an observed break at a line of ``line_text`` is reported under.

    1. a rule that predicts the break's GB id (or type) and whose code shape is on the line;
    2. a rule known by the GB id alone (:data:`BY_GB_ONLY`);
    3. for a GB id the catalogue knows, the one break-causing shape on the line when exactly
       one is there (torch's GB id then names what it did not trace in it, e.g. a GB0007
       inside a ``.tolist()`` read);
    4. otherwise the catch-all :data:`CATCH_ALL` (the report quotes the GB id and the line).
    A rule about something the line does not do is never chosen: step 3 is skipped when
    torch's ``hints`` name a function that is not on the line (:func:`callee_elsewhere`: the
    break is inside a call made from the line, which the line's one shape need not be)."""
    on_line = [c for c in line_rules(line_text) if c in catalog.rules]
    nodes = _parse_line(line_text)
    weak = [
        c
        for c, pred in WEAK_KINDS.items()
        if c in catalog.rules and c not in on_line and any(_safe(pred, n) for n in nodes)
    ]
    for code in on_line + weak:
        if predicts(catalog, code, gb_type, gb_id):
            return code
    for code in catalog.by_gb_type(gb_type) + tuple(
        c for c, r in catalog.rules.items() if gb_id and gb_id in r.gb_ids
    ):
        if code in BY_GB_ONLY and code in catalog.rules:
            return code
    known = bool(gb_id) and any(gb_id in r.gb_ids for r in catalog.rules.values())
    breaking = [c for c in on_line if catalog.rules[c].category != "recompiles"]
    if known and len(breaking) == 1 and not callee_elsewhere(hints, line_text):
        return breaking[0]
    return CATCH_ALL
