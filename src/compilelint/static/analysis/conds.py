"""Conditions on a function's parameters under which a statement runs (call-site sensitivity).

Phase 1 records, for every call site and candidate finding, the tests of the enclosing ``if``
statements that compare one of the function's own parameters (still unassigned) with a literal:
``if event_fn is None:``, ``if not causal:``, ``elif method == "rk4":``,
``if norm in ("batch", "layer"):``, and the rest of a block after ``if param is None: return``.
A condition is a JSON string ``[param, op, literal]`` with ``op`` one of ``truthy``, ``falsy``,
``is``, ``isnot``, ``eq``, ``ne``, ``in``, ``notin`` (the literal of ``is``/``isnot`` is None),
or ``lt``, ``le``, ``gt``, ``ge`` against a number (``if power < 0:``, ``if 1 < power:``).

Tests of what an input tensor is (:data:`INPUT_OPS`): ``not x.is_floating_point()``
(``intdtype``), ``x.dtype == torch.float16`` / ``x.dtype in (torch.float16, torch.bfloat16)``
(``halfdtype``), ``a.device != b.device`` (``otherdevice``, the literal the other parameter) and
their negations (``floatdtype``, ``nothalfdtype``, ``samedevice``), and tests of its values:
``torch.isnan(x).any()``, ``torch.any(torch.isinf(x[0]))``, ``not torch.isfinite(x).all()``
(``nonfinite``: true only where an element is NaN or infinite) and its negation (``allfinite``).
Library mode judges its entry points on finite tensors of torch's default dtype (float32) on
one device, as a user's first call makes them: code that runs only for integer or
half-precision inputs, inputs on different devices or inputs holding NaN or infinity is latent
there (:meth:`~compilelint.static.analysis.project.Project.refuted`).

Phase 2 (:meth:`~compilelint.static.analysis.project.Project.compute`) knows the Python values
the traced callers pass for a parameter (or its literal default when a caller leaves it out; a
library-mode entry point runs under its defaults): a call or a finding whose condition no such
value satisfies is dead code for this project, as dynamo, which specialises on those values,
never traces it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the project phase needs only ``decode`` and ``holds``: a warm run (stored
    import libcst as cst  # results) must not import libcst, so the walk's functions import it

UNKNOWN = object()


def literal(node: cst.BaseExpression) -> object:
    """The Python value of a literal expression (str, int, float, bool, None, a tuple/list of
    them), else :data:`UNKNOWN`."""
    import libcst as cst

    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        got = node.evaluated_value
        return got if isinstance(got, str) else UNKNOWN
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, (cst.Integer, cst.Float))
    ):
        return -node.expression.evaluated_value
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        out = []
        for el in node.elements:
            if not isinstance(el, cst.Element):
                return UNKNOWN
            v = literal(el.value)
            if v is UNKNOWN or isinstance(v, list):
                return UNKNOWN
            out.append(v)
        return out
    return UNKNOWN


_NEG = {
    "truthy": "falsy",
    "falsy": "truthy",
    "is": "isnot",
    "isnot": "is",
    "eq": "ne",
    "ne": "eq",
    "in": "notin",
    "notin": "in",
    "lt": "ge",
    "ge": "lt",
    "le": "gt",
    "gt": "le",
    "intdtype": "floatdtype",
    "floatdtype": "intdtype",
    "halfdtype": "nothalfdtype",
    "nothalfdtype": "halfdtype",
    "otherdevice": "samedevice",
    "samedevice": "otherdevice",
    "nonfinite": "allfinite",
    "allfinite": "nonfinite",
    "isinstance": "notisinstance",
    "notisinstance": "isinstance",
}
# tests of an input tensor's dtype, device or values: the ops that refute in library mode, and
# their negations (which never refute); never carried to the rest of a block (``if
# target.is_floating_point(): raise ...`` says nothing about the code after it)
INPUT_OPS = frozenset(
    (
        "intdtype",
        "floatdtype",
        "halfdtype",
        "nothalfdtype",
        "otherdevice",
        "samedevice",
        "nonfinite",
        "allfinite",
    )
)
UNUSUAL_INPUT_OPS = frozenset(("intdtype", "halfdtype", "otherdevice", "nonfinite"))
_HALF = ("torch.float16", "torch.half", "torch.bfloat16")
# ``lit < param`` is ``param > lit``
_FLIP = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
_ORDER = ("lt", "le", "gt", "ge")


def _atom(
    test: cst.BaseExpression,
    is_param: Callable[[str], bool],
    none_test: Callable[[str], str | None] | None = None,
    global_ref: Callable[[cst.BaseExpression], str | None] | None = None,
) -> tuple[str, str, object] | None:
    import libcst as cst

    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated = not negated
        test = test.expression
    out: tuple[str, str, object] | None = None
    subject = _subject(test, is_param, global_ref)
    if subject is not None:
        out = (subject, "truthy", None)
    elif (got := _none_helper_test(test, is_param, none_test)) is not None:
        out = got
    elif (
        type(test) is cst.Call
        and not test.args
        and (got := _distributed_test(test, none_test)) is not None
    ):
        out = got  # (a call without arguments: most tests are not, and pay no call here)
    elif (got := _input_test(test, is_param)) is not None:
        out = got
    elif type(test) is cst.Call and (got := _values_test(test, is_param)) is not None:
        out = got  # (a values test is a call: most tests are not, and pay no call here)
    elif (got := _isinstance_test(test, is_param)) is not None:
        out = got
    elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        cmp = test.comparisons[0]
        op = {
            cst.Is: "is",
            cst.IsNot: "isnot",
            cst.Equal: "eq",
            cst.NotEqual: "ne",
            cst.In: "in",
            cst.NotIn: "notin",
            cst.LessThan: "lt",
            cst.LessThanEqual: "le",
            cst.GreaterThan: "gt",
            cst.GreaterThanEqual: "ge",
        }.get(type(cmp.operator))
        left, right = test.left, cmp.comparator
        if (
            op in _FLIP
            and _subject(right, is_param, global_ref)
            and not _subject(left, is_param, global_ref)
        ):
            left, right, op = right, left, _FLIP[op]  # `0 < power`: `power > 0`
        name = _subject(left, is_param, global_ref)
        if op is None or name is None:
            return None
        lit = literal(right)
        if lit is UNKNOWN:
            return None
        if op in ("is", "isnot") and lit is not None:
            return None
        if (op in ("in", "notin")) != isinstance(lit, list):
            return None
        if op in _ORDER and (not isinstance(lit, (int, float)) or isinstance(lit, bool)):
            return None  # ordered only against a number
        out = (name, op, lit)
    if out is None:
        return None
    return (out[0], _NEG[out[1]], out[2]) if negated else out


def _statements(body: cst.IndentedBlock) -> list[cst.BaseStatement]:
    """A block's statements less a leading docstring."""
    import libcst as cst

    stmts = list(body.body)
    first = stmts[0] if stmts else None
    if (
        isinstance(first, cst.SimpleStatementLine)
        and len(first.body) == 1
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    ):
        return stmts[1:]
    return stmts


def none_test_function(node: cst.CSTNode) -> str | None:
    """``"isnot"`` for a function whose whole body returns whether its first parameter is not
    None (``def exists(v): return v is not None``, the helper lucidrains-style libraries define
    in every module), ``"is"`` for ``return v is None``; None for anything else."""
    import libcst as cst

    if not isinstance(node, cst.FunctionDef) or node.decorators or node.asynchronous:
        return None
    params = node.params
    if (
        not params.params
        or params.posonly_params
        or params.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
    ):
        return None
    first = params.params[0].name.value
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        stmts: list[cst.CSTNode] = [body]
    else:
        stmts = list(_statements(body))
    if len(stmts) != 1:
        return None
    line = stmts[0]
    small = (
        line.body if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    )
    if len(small) != 1 or not isinstance(small[0], cst.Return) or small[0].value is None:
        return None
    a = _atom(small[0].value, lambda n: n == first)
    if a is None or a[0] != first or a[1] not in ("is", "isnot"):
        return None
    return a[1]


def _none_helper_test(
    test: cst.BaseExpression,
    is_param: Callable[[str], bool],
    none_test: Callable[[str], str | None] | None,
) -> tuple[str, str, object] | None:
    """``exists(param)`` with ``exists`` a :func:`none_test_function` of the module: the same
    condition as ``param is not None``."""
    import libcst as cst

    if (
        none_test is None
        or not isinstance(test, cst.Call)
        or not isinstance(test.func, cst.Name)
        or len(test.args) != 1
        or test.args[0].star
        or test.args[0].keyword is not None
    ):
        return None
    op = none_test(test.func.value)
    if op not in ("is", "isnot"):
        return None
    name = _subject(test.args[0].value, is_param)
    return None if name is None else (name, op, None)


# the subject of a test whether a distributed run is initialised (``dist.is_initialized()``,
# a helper returning it): no parameter, the process group (see :func:`_distributed_test`)
DISTRIBUTED = "@distributed"
# what ``none_test`` answers for a call that tests whether a distributed run is initialised
DIST_OP = "dist"


def _distributed_test(
    test: cst.BaseExpression, none_test: Callable[[str], str | None] | None
) -> tuple[str, str, object] | None:
    """``torch.distributed.is_initialized()`` (as the module imports it: ``dist.`` or
    ``torch.distributed.``), or a call of the module's helper returning it
    (:func:`distributed_test_function`, ``is_distributed()``), as ``(DISTRIBUTED, "truthy",
    None)``: true only in a run whose process group is initialised. ``none_test`` (the walker)
    says what the called name is."""
    import libcst as cst

    if none_test is None or type(test) is not cst.Call or test.args:
        return None
    parts: list[str] = []
    node = test.func
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    if none_test(".".join(reversed(parts))) != DIST_OP:
        return None
    return (DISTRIBUTED, "truthy", None)


def distributed_test_function(node: cst.CSTNode) -> str | None:
    """``"dist:<receiver>"`` for a function of no parameters whose whole body returns
    ``<receiver>.is_initialized()`` or a conjunction holding it (``def is_distributed(): return
    dist.is_initialized() and dist.get_world_size() > 1``, vector-quantize-pytorch's and
    torchmetrics' helpers): true only where a distributed run is initialised, once the walker
    knows ``<receiver>`` names ``torch.distributed``. None for anything else."""
    import libcst as cst

    if (
        not isinstance(node, cst.FunctionDef)
        or node.decorators
        or node.asynchronous
        or node.params.params
        or node.params.posonly_params
        or node.params.kwonly_params
        or not isinstance(node.params.star_arg, cst.MaybeSentinel)
        or node.params.star_kwarg is not None
        or not isinstance(node.body, cst.IndentedBlock)
    ):
        return None
    stmts = _statements(node.body)
    if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
        return None
    small = stmts[0].body
    if len(small) != 1 or not isinstance(small[0], cst.Return) or small[0].value is None:
        return None
    terms = [small[0].value]
    while terms:
        t = terms.pop()
        if isinstance(t, cst.BooleanOperation) and isinstance(t.operator, cst.And):
            terms.extend((t.left, t.right))  # the conjunction is true only where each term is
            continue
        if (
            isinstance(t, cst.Call)
            and not t.args
            and isinstance(t.func, cst.Attribute)
            and t.func.attr.value == "is_initialized"
        ):
            from compilelint.static.analysis.walker import dotted

            recv = dotted(t.func.value)
            if recv is not None:
                return f"{DIST_OP}:{recv}"
    return None


# what ``none_test`` answers for a module's ``default(val, d)`` helper (:func:`default_function`)
DEFAULT_OP = "default"
# the subject of a test of a parameter re-bound to ``default(param, self.<attr>)``:
# ``"param??self.<attr>"`` (:func:`fallback`)
FALLBACK_SEP = "??"


def fallback(param: str, other: str) -> str:
    """The subject of a test of ``param`` after ``param = default(param, other)``: the
    parameter's value where it is not None, else ``other``'s (``self.<attr>``)."""
    return f"{param}{FALLBACK_SEP}{other}"


def split_fallback(subject: str) -> tuple[str, str] | None:
    """``(param, other)`` of a :func:`fallback` subject, else None."""
    if FALLBACK_SEP not in subject:
        return None
    param, _, other = subject.partition(FALLBACK_SEP)
    return param, other


def default_function(node: cst.CSTNode, none_test: Callable[[str], str | None]) -> bool:
    """Whether a function of two parameters returns its first where it is not None, else its
    second: ``def default(val, d): return val if exists(val) else d``, or ``if exists(val):
    return val`` then ``return d`` (``return d() if callable(d) else d``: a value that is not
    callable, as a flag is), the helper lucidrains-style libraries define beside ``exists``."""
    import libcst as cst

    if (
        not isinstance(node, cst.FunctionDef)
        or node.decorators
        or node.asynchronous
        or len(node.params.params) != 2
        or node.params.posonly_params
        or node.params.kwonly_params
        or not isinstance(node.params.star_arg, cst.MaybeSentinel)
        or node.params.star_kwarg is not None
        or not isinstance(node.body, cst.IndentedBlock)
    ):
        return False
    first, second = (p.name.value for p in node.params.params)

    def name(e: cst.BaseExpression | None, want: str) -> bool:
        return isinstance(e, cst.Name) and e.value == want

    def returned(stmt: cst.CSTNode) -> cst.BaseExpression | None:
        if isinstance(stmt, cst.IndentedBlock) and len(stmt.body) == 1:
            stmt = stmt.body[0]
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            small = stmt.body
            if len(small) == 1 and isinstance(small[0], cst.Return):
                return small[0].value
        return None

    def test_op(test: cst.BaseExpression) -> str | None:
        a = _atom(test, lambda n: n == first, none_test)
        return a[1] if a is not None and a[0] == first and a[1] in ("is", "isnot") else None

    def is_second(e: cst.BaseExpression | None) -> bool:
        if name(e, second):
            return True
        # `d() if callable(d) else d`: `d` itself where it is not callable
        return (
            isinstance(e, cst.IfExp)
            and name(e.orelse, second)
            and isinstance(e.body, cst.Call)
            and name(e.body.func, second)
            and not e.body.args
            and isinstance(e.test, cst.Call)
            and name(e.test.func, "callable")
            and len(e.test.args) == 1
            and name(e.test.args[0].value, second)
        )

    body = list(node.body.body)
    if len(body) == 1:
        exp = returned(body[0])
        if not isinstance(exp, cst.IfExp):
            return False
        op = test_op(exp.test)
        if op == "isnot":
            return name(exp.body, first) and is_second(exp.orelse)
        return op == "is" and is_second(exp.body) and name(exp.orelse, first)
    if len(body) == 2 and isinstance(body[0], cst.If) and body[0].orelse is None:
        return (
            test_op(body[0].test) == "isnot"
            and name(returned(body[0].body), first)
            and is_second(returned(body[1]))
        )
    return False


def _isinstance_test(
    test: cst.BaseExpression, is_param: Callable[[str], bool]
) -> tuple[str, str, object] | None:
    """``isinstance(param, int)`` / ``isinstance(param, (list, Tensor))``: ``("param",
    "isinstance", [type names])`` (the last part of each dotted name)."""
    import libcst as cst

    if not (
        isinstance(test, cst.Call)
        and isinstance(test.func, cst.Name)
        and test.func.value == "isinstance"
        and len(test.args) == 2
        and not any(a.star or a.keyword for a in test.args)
    ):
        return None
    name = _subject(test.args[0].value, is_param)
    if name is None:
        return None
    kinds = test.args[1].value
    nodes = (
        [e.value for e in kinds.elements] if isinstance(kinds, (cst.Tuple, cst.List)) else [kinds]
    )
    names: list[str] = []
    for n in nodes:
        if isinstance(n, cst.Name):
            names.append(n.value)
        elif isinstance(n, cst.Attribute):
            names.append(n.attr.value)
        else:
            return None
    return (name, "isinstance", names)


# the builtin types a literal value can be an instance of (a literal tuple is read as a list)
_LITERAL_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (float,),
    "str": (str,),
    "bool": (bool,),
    "list": (list,),
    "tuple": (list,),
    "NoneType": (type(None),),
}


def _param_attr(node: cst.BaseExpression, attr: str, is_param: Callable[[str], bool]) -> str | None:
    """``p`` of ``p.<attr>`` where ``p`` is a parameter still unassigned."""
    import libcst as cst

    if (
        isinstance(node, cst.Attribute)
        and node.attr.value == attr
        and isinstance(node.value, cst.Name)
        and node.value.value != "self"
        and is_param(node.value.value)
    ):
        return node.value.value
    return None


def _input_test(
    test: cst.BaseExpression, is_param: Callable[[str], bool]
) -> tuple[str, str, object] | None:
    """A test of a parameter's dtype or device (:data:`INPUT_OPS`), as it holds in the body."""
    import libcst as cst

    from compilelint.static.analysis.walker import dotted  # (imported: walker imports this module)

    if isinstance(test, cst.Call) and not test.args:
        p = _param_attr(test.func, "is_floating_point", is_param)
        if p is not None:
            return (p, "floatdtype", None)
        return None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    cmp = test.comparisons[0]
    left, right = test.left, cmp.comparator
    if isinstance(cmp.operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot)):
        eq = isinstance(cmp.operator, (cst.Equal, cst.Is))
        a = _param_attr(left, "device", is_param)
        b = _param_attr(right, "device", is_param)
        if a is not None and b is not None and a != b:
            return (a, "samedevice" if eq else "otherdevice", b)
        p = _param_attr(left, "dtype", is_param)
        if p is not None and dotted(right) in _HALF:
            return (p, "halfdtype" if eq else "nothalfdtype", None)
        return None
    if isinstance(cmp.operator, (cst.In, cst.NotIn)) and isinstance(right, (cst.Tuple, cst.List)):
        p = _param_attr(left, "dtype", is_param)
        els = [e.value for e in right.elements if isinstance(e, cst.Element)]
        if p is not None and els and all(dotted(e) in _HALF for e in els):
            return (p, "halfdtype" if isinstance(cmp.operator, cst.In) else "nothalfdtype", None)
    return None


# torch's elementwise tests of a value: ``isnan``/``isinf`` are true only on a NaN or an
# infinity, ``isfinite`` everywhere else
_VALUE_TESTS = {"isnan": "nonfinite", "isinf": "nonfinite", "isfinite": "allfinite"}


def _values_test(
    test: cst.BaseExpression, is_param: Callable[[str], bool]
) -> tuple[str, str, object] | None:
    """A test that an input tensor holds NaN or infinity (``nonfinite``), or only finite values
    (``allfinite``), as it holds in the body: ``torch.isnan(p).any()``, ``torch.any(p.isinf())``,
    ``torch.isfinite(p[0])``, ``torch.isfinite(p).all()`` (``bool(...)`` and ``.item()``
    around them), with ``p`` a parameter still unassigned or an element of one (``p[0]``,
    ``p[..., 0, :]``). ``torch.isnan(p).all()`` and ``torch.isfinite(p).any()`` are not read
    (true on an empty tensor, or for a tensor with one finite element)."""
    import libcst as cst

    # (exact type tests, no ``dotted``: ``torch.<op>`` is an Attribute on the Name ``torch``;
    # this runs on every call a condition tests)
    def unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
        while type(node) is cst.Call:
            func, args = node.func, node.args
            if (  # bool(t)
                type(func) is cst.Name
                and func.value == "bool"
                and len(args) == 1
                and not args[0].star
                and args[0].keyword is None
            ):
                node = args[0].value
            elif not args and type(func) is cst.Attribute and func.attr.value == "item":
                node = func.value  # t.item()
            else:
                break
        return node

    def on_torch(func: cst.Attribute) -> bool:
        return type(func.value) is cst.Name and func.value.value == "torch"

    def reduced(node: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
        """(``any``/``all``, the reduced tensor) of ``t.any()`` / ``torch.any(t)``."""
        if type(node) is not cst.Call:
            return None
        func = node.func
        if type(func) is not cst.Attribute or func.attr.value not in ("any", "all"):
            return None
        how = func.attr.value
        if not on_torch(func):
            return None if node.args else (how, func.value)
        if len(node.args) == 1:
            a = node.args[0]
            if not a.star and a.keyword is None:
                return how, a.value
        return None

    def elementwise(node: cst.BaseExpression) -> tuple[str, str] | None:
        """(op, parameter) of ``torch.isnan(p)`` / ``p.isnan()`` (``p`` or ``p[...]``)."""
        if type(node) is not cst.Call:
            return None
        func = node.func
        if type(func) is not cst.Attribute:
            return None
        op = _VALUE_TESTS.get(func.attr.value)
        if op is None:
            return None
        if not node.args:
            if on_torch(func):
                return None
            arg = func.value
        else:
            if len(node.args) != 1 or not on_torch(func):
                return None
            a = node.args[0]
            if a.star or a.keyword is not None:
                return None
            arg = a.value
        if isinstance(arg, cst.Subscript):
            arg = arg.value
        name = _subject(arg, is_param)
        if name is None or name.startswith("self."):
            return None
        return op, name

    node = unwrap(test)
    red = reduced(node)
    if red is not None:
        how, node = red
        got = elementwise(unwrap(node))
        if got is None:
            return None
        op, name = got
        if (op == "nonfinite") != (how == "any"):
            return None  # `isnan(p).all()`, `isfinite(p).any()`: not read
        return (name, op, None)
    got = elementwise(node)
    return None if got is None else (got[1], got[0], None)


def _subject(
    node: cst.BaseExpression,
    is_param: Callable[[str], bool],
    global_ref: Callable[[cst.BaseExpression], str | None] | None = None,
) -> str | None:
    """What a test is about: a parameter still unassigned (its name), or ``self.<attr>`` in a
    method whose ``self`` is (``"self.<attr>"``: decided from the attribute's one assignment,
    :meth:`~compilelint.static.analysis.project.Project.attr_values`), or with ``global_ref``
    (the walker's) a module-level name the function reads (``if DEBUG:``, ``if cfg.DEBUG:``:
    ``"G|<module>.<name>"``, decided by
    :meth:`~compilelint.static.analysis.project.Project.module_constant`)."""
    import libcst as cst

    if isinstance(node, cst.Name):
        if is_param(node.value):
            return node.value
        return global_ref(node) if global_ref is not None else None
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        if node.value.value == "self" and is_param("self"):
            return f"self.{node.attr.value}"
        return global_ref(node) if global_ref is not None else None
    return None


def _through_alias(
    test: cst.BaseExpression,
    is_param: Callable[[str], bool],
    alias: Callable[[str], cst.BaseExpression | None] | None,
    depth: int,
) -> tuple[cst.BaseExpression, bool, int] | None:
    """What a test on a local bound once stands for, as (expression, negated, depth):
    ``if drop:`` is tested as ``drop``'s expression, ``if not drop:`` as ``drop`` negated."""
    import libcst as cst

    if alias is None or depth >= 4:
        return None
    if isinstance(test, cst.Name) and not is_param(test.value):
        got = alias(test.value)
        return None if got is None else (got, False, depth + 1)
    if (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Name)
        and not is_param(test.expression.value)
        and alias(test.expression.value) is not None
    ):
        return test.expression, True, depth
    return None


def parse(
    test: cst.BaseExpression,
    is_param: Callable[[str], bool],
    alias: Callable[[str], cst.BaseExpression | None] | None = None,
    depth: int = 0,
    none_test: Callable[[str], str | None] | None = None,
    global_ref: Callable[[cst.BaseExpression], str | None] | None = None,
) -> tuple[list[str], list[str]]:
    """(conditions that hold in the body, conditions that hold in the else branch) of a test.
    ``alias``: the expression a local variable was bound to once (``drop = self.training and
    self.dropout``, then ``if drop:``), tested as that expression. ``global_ref``: see
    :func:`_subject`."""
    import libcst as cst

    via = _through_alias(test, is_param, alias, depth)
    if via is not None:
        body, orelse = parse(via[0], is_param, alias, via[2], none_test, global_ref)
        return (orelse, body) if via[1] else (body, orelse)
    a = _atom(test, is_param, none_test, global_ref)
    if a is not None:
        neg = (a[0], _NEG[a[1]], a[2])
        return [encode(*a)], [encode(*neg)]
    if isinstance(test, cst.BooleanOperation):
        left, lelse = parse(test.left, is_param, alias, depth, none_test, global_ref)
        right, relse = parse(test.right, is_param, alias, depth, none_test, global_ref)
        if isinstance(test.operator, cst.And):
            return left + right, []  # `not (a and b)` says nothing about either alone
        return [], lelse + relse  # `a or b` false: both are false
    return [], []


def exact(
    test: cst.BaseExpression,
    is_param: Callable[[str], bool],
    alias: Callable[[str], cst.BaseExpression | None] | None = None,
    depth: int = 0,
    none_test: Callable[[str], str | None] | None = None,
) -> tuple[bool, bool]:
    """Whether :func:`parse`'s conditions say all of the test, for the body and for the else
    branch: a test on a parameter (``if x is None:``), ``a and b`` of such tests for the body,
    ``a or b`` for the else branch. Otherwise the branch runs on a condition the parameters'
    values do not decide alone (``if isinstance(h, torch.Tensor):``)."""
    import libcst as cst

    via = _through_alias(test, is_param, alias, depth)
    if via is not None:
        body, orelse = exact(via[0], is_param, alias, via[2], none_test)
        return (orelse, body) if via[1] else (body, orelse)
    if _atom(test, is_param, none_test) is not None:
        return True, True
    if isinstance(test, cst.BooleanOperation):
        left = exact(test.left, is_param, alias, depth, none_test)
        right = exact(test.right, is_param, alias, depth, none_test)
        if isinstance(test.operator, cst.And):
            return left[0] and right[0], False
        return False, left[1] and right[1]
    return False, False


def expr_tree(
    node: cst.BaseExpression,
    is_param: Callable[[str], bool],
    none_test: Callable[[str], str | None] | None = None,
    global_ref: Callable[[cst.BaseExpression], str | None] | None = None,
) -> list[object] | None:
    """A flag computed from parameters and literals (``threshold > 0``, ``dropout and n > 1``,
    ``not causal``, ``exists(p)``) as JSON-able data (``["p", name]``, ``["l", value]``,
    ``["c", name, op, literal]``, ``["not", t]``, ``["and"|"or", t, t]``, a string method
    without arguments, ``["s", "lower", t]``: ``init_method.lower()``), or a value chosen by
    one (``opt(params) if exists(opt) else None``: ``["if", test, then, else]``, where a branch
    that is neither a literal nor a parameter is ``["o"]``, an object that is not None) that
    :func:`evaluate` reads; None for anything else. The right side of ``and``/``or`` that is
    none of these is ``["u"]``, unknown: read only where the left side does not decide.
    ``global_ref`` (the walker) names a module-level name the expression reads
    (``c_f.COLLECT_STATS``, ``DEBUG``) as ``G|<module>.<name>``: ``["g", ref]``, the value of
    that module constant where the project knows it (``Project.module_constant``)."""
    import libcst as cst

    if isinstance(node, cst.Name) and is_param(node.value):
        return ["p", node.value]
    lit = literal(node)
    if lit is not UNKNOWN and not isinstance(lit, list):
        return ["l", lit]
    if global_ref is not None and type(node) in (cst.Name, cst.Attribute):
        ref = global_ref(node)
        if ref is not None:
            return ["g", ref]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = expr_tree(node.expression, is_param, none_test, global_ref)
        return None if inner is None else ["not", inner]
    if isinstance(node, cst.BooleanOperation):
        left = expr_tree(node.left, is_param, none_test, global_ref)
        if left is None:
            return None
        # the right side is read only where the left does not decide: unknown there (``["u"]``,
        # ``dist.is_initialized() and dist.get_world_size() > 1`` is False in one process)
        right = expr_tree(node.right, is_param, none_test, global_ref) or ["u"]
        return ["and" if isinstance(node.operator, cst.And) else "or", left, right]
    if isinstance(node, cst.IfExp):
        test = expr_tree(node.test, is_param, none_test, global_ref)
        if test is None:
            return None
        sides = []
        for side in (node.body, node.orelse):
            got = expr_tree(side, is_param, none_test, global_ref)
            if got is not None and got[0] == "g":
                # a branch holding a module-level name: an object that is not None where
                # the project does not know it as a constant (as any other object here)
                got = [*got, "o"]
            sides.append(got if got is not None else ["o"])
        if sides == [["o"], ["o"]]:
            return None  # nothing known either way
        return ["if", test, *sides]
    if (
        type(node) is cst.Call
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in STR_METHODS
    ):
        # a string normalised (`self.init_method = init_method.lower()`): the method of each
        # string value (a value that is not a string: unknown)
        inner = expr_tree(node.func.value, is_param, none_test, global_ref)
        if inner is not None and inner[0] in ("p", "l", "s", "g"):
            return ["s", node.func.attr.value, inner]
    if isinstance(node, (cst.Comparison, cst.Call)):
        a = _atom(node, is_param, none_test)
        if a is not None and a[1] not in INPUT_OPS and not a[0].startswith("self."):
            return ["c", a[0], a[1], a[2]]
    return None


# ``str`` methods without arguments that :func:`expr_tree` applies to a parameter's string values
STR_METHODS = frozenset(("lower", "upper", "strip", "lstrip", "rstrip", "casefold"))


class _Object:
    """A value that is not None and whose other properties are unknown (a branch of
    :func:`expr_tree`'s ``["if", ...]`` that builds an object): ``is``/``isnot`` decide on it,
    any other test is undecided (:func:`holds` answers True on the TypeError)."""

    def __bool__(self) -> bool:
        raise TypeError("unknown truth value")


OBJECT = _Object()


class _Container(_Object):
    """A list, tuple or dict whose items are not known (``tails=[...]`` built by a
    comprehension): not None, and never equal to (nor one of) the numbers, strings and None
    a test compares with; any other test is undecided, as for :data:`OBJECT`."""


CONTAINER = _Container()


def params_of(tree: list[object]) -> set[str]:
    """The parameters a flag (:func:`expr_tree`) reads, and its module-level names (``G|...``)."""
    if tree[0] in ("p", "c", "g"):
        return {str(tree[1])}
    return set().union(*(params_of(t) for t in tree[1:] if isinstance(t, list)))


def evaluate(tree: list[object], values: dict[str, list[object]]) -> list[object] | None:
    """The values a flag (:func:`expr_tree`) may hold when each parameter holds one of
    ``values[name]`` (a name missing: unknown); None when unknown."""
    kind = tree[0]
    if kind == "l":
        return [tree[1]]
    if kind == "u":
        return None
    if kind == "o":
        return [OBJECT]
    if kind == "p":
        return values.get(str(tree[1]))
    if kind == "g":
        got = values.get(str(tree[1]))
        if got is None and len(tree) > 2:
            return [OBJECT]  # (a branch of `["if", ...]`: not None, as before it was read)
        return got
    if kind == "s":
        got = evaluate(tree[2], values)  # type: ignore[arg-type]
        if got is None or not all(isinstance(v, str) for v in got):
            return None  # (`None.lower()` raises: no value the attribute holds)
        return [getattr(v, str(tree[1]))() for v in got]
    if kind == "c":
        vals = values.get(str(tree[1]))
        if vals is None:
            return None
        op, lit = str(tree[2]), tree[3]
        return [
            OBJECT if v is CONTAINER and undecided(v, op, lit) else holds(v, op, lit) for v in vals
        ]
    if kind == "if":
        test = evaluate(tree[1], values)  # type: ignore[arg-type]
        if test is None or any(isinstance(v, _Object) for v in test):
            return None
        out: list[object] = []
        for truth in {bool(v) for v in test}:
            got = evaluate(tree[2 if truth else 3], values)  # type: ignore[arg-type]
            if got is None:
                return None
            out.extend(got)
        return out
    if kind == "not":
        got = evaluate(tree[1], values)  # type: ignore[arg-type]
        if got is None or any(isinstance(v, _Object) for v in got):
            return None
        return [not v for v in got]
    left = evaluate(tree[1], values)  # type: ignore[arg-type]
    if left is None or any(isinstance(v, _Object) for v in left):
        return None
    # `a and b` is `a` where `a` is falsy, else `b`; `a or b` the other way round
    stop = [v for v in left if (not v) == (kind == "and")]
    if len(stop) == len(left):
        return stop
    right = evaluate(tree[2], values)  # type: ignore[arg-type]
    return None if right is None else stop + right


def encode(param: str, op: str, lit: object) -> str:
    return json.dumps([param, op, lit])


def guarded(cond: str, guards: list[list[str]]) -> str:
    """``cond`` about a parameter the function may re-bind before the test, each re-binding
    under the conditions of one of ``guards`` (``if isinstance(generator, list): generator =
    generator[0]``, then ``if generator is not None:``): the test is about the caller's value
    only where every re-binding is dead code (:meth:`Project.refuted` decides each guard)."""
    p, op, lit = decode(cond)
    return json.dumps([p, op, lit, guards])


@functools.lru_cache(maxsize=1 << 16)
def decode(cond: str) -> tuple[str, str, object]:
    """A condition's parts (decoded once per text: the project view tests the same conditions
    in every computation; the literal is shared, read only)."""
    p, op, lit, *_guards = json.loads(cond)
    return p, op, lit


@functools.lru_cache(maxsize=1 << 16)
def guards(cond: str) -> list[list[str]]:
    """The guards of the re-bindings a condition depends on (:func:`guarded`), or ``[]``."""
    got = json.loads(cond)
    return got[3] if len(got) > 3 else []


def undecided(value: object, op: str, lit: object) -> bool:
    """Whether :func:`holds` answers True for a :data:`CONTAINER` only for not knowing
    (``truthy``: an empty list is false): ``certain`` and a flag's evaluation must not read that
    as true. (:data:`OBJECT` keeps its older reading.)"""
    if value is not CONTAINER or op in ("is", "isnot"):
        return False
    if op in ("eq", "ne", "in", "notin"):
        scalars = lit if op in ("in", "notin") else [lit]
        return not (
            isinstance(scalars, list)
            and all(x is None or isinstance(x, (str, int, float)) for x in scalars)
        )
    return True


def holds(value: object, op: str, lit: object) -> bool:
    """Whether a parameter holding ``value`` satisfies ``op lit``."""
    if op in INPUT_OPS:
        return True  # about a tensor: decided by the project (``Project.refuted``), not here
    if value is CONTAINER and op in ("eq", "ne", "in", "notin"):
        scalars = lit if op in ("in", "notin") else [lit]
        if isinstance(scalars, list) and all(
            x is None or isinstance(x, (str, int, float)) for x in scalars
        ):
            return op in ("ne", "notin")  # a container equals no scalar literal
        return True
    if isinstance(value, _Object) and op not in ("is", "isnot"):
        return True  # an object: only whether it is None is known
    try:
        if op == "truthy":
            return bool(value)
        if op == "falsy":
            return not value
        if op == "is":
            return value is None
        if op == "isnot":
            return value is not None
        if op == "eq":
            return bool(value == lit)
        if op == "ne":
            return bool(value != lit)
        if op == "in":
            return value in lit  # type: ignore[operator]
        if op == "notin":
            return value not in lit  # type: ignore[operator]
        if op in ("isinstance", "notisinstance"):
            # a literal is an instance of these builtin types only; another name may be an
            # abstract type that it is an instance of too (`numbers.Number`, `Sequence`)
            if not isinstance(lit, list) or any(n not in _LITERAL_TYPES for n in lit):
                return True
            inst = any(isinstance(value, _LITERAL_TYPES[n]) for n in lit)
            return inst if op == "isinstance" else not inst
        if op in _ORDER:
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                return True  # not a number: the test is not decided here
            if not isinstance(lit, (int, float)):
                return True  # nor compared with one (a TypeError, as Python would raise)
            return {"lt": value < lit, "le": value <= lit, "gt": value > lit, "ge": value >= lit}[
                op
            ]
    except TypeError:
        return True
    return True


def terminates(body: cst.BaseSuite) -> bool:
    """Whether a block always leaves the enclosing block (ends in return, raise, continue or
    break)."""
    import libcst as cst

    if isinstance(body, cst.IndentedBlock):
        if not body.body:
            return False
        last = body.body[-1]
        smalls = last.body if isinstance(last, cst.SimpleStatementLine) else []
    elif isinstance(body, cst.SimpleStatementSuite):
        smalls = body.body
    else:
        return False
    return bool(smalls) and isinstance(smalls[-1], (cst.Return, cst.Raise, cst.Continue, cst.Break))
