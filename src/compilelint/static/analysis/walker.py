"""Phase 1: one flow-sensitive walk over one parsed file.

The walker follows statements in order and keeps an environment from local names to abstract
values (:mod:`values`; what an expression evaluates to is decided in :mod:`evaluate`), joins the
environments of the branches of ``if`` and of loops, records calls between functions with the
values of their arguments (for reachability and phase-2 summaries), records what functions
return and what ``self.<attr>`` is assigned, and fires the checks' ``visit_<Node>`` hooks on every
node, in one pass. Values that depend on other functions or files stay symbolic and are resolved
in phase 2 (:mod:`summaries`).
"""

from __future__ import annotations

import abc
import ast
import dataclasses
import dis
import re
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import libcst as cst

from compilelint.static.analysis import conds as C
from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.evaluate import Evaluator, _forward_classes, attr_name_key
from compilelint.static.analysis.facts import (
    BRANCH,
    IN_TRY,
    KWARGS_SLOT,
    NO_TAINT,
    CallSite,
    Candidate,
    ClassFacts,
    FileFacts,
    FunctionFacts,
    ParamFacts,
    Taint,
)
from compilelint.static.analysis.params import root_param_is_tensor
from compilelint.static.analysis.resume import ByIdentity, WalkMemo, thaw
from compilelint.static.analysis.values import Value

if TYPE_CHECKING:
    from compilelint.static import positions as P
    from compilelint.static.analysis.guards import GuardUses

Hook = Callable[[Any], None]

_SKIP_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "operator",
        "leading_lines",
        "header",
        "footer",
        "colon",
        "equal",
        "star",
        "dot",
        "asynchronous",
        "trailing_whitespace",
        "newline",
        "lines_after_decorators",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "whitespace",
        "keyword",
        "star_tok",
        "arrow",
        "whitespace_after_def",
        "prefix",
        "quote",
        "walrus",
        "lines_after",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(t: type) -> tuple[str, ...]:
    got = _FIELDS.get(t)
    if got is None:
        got = tuple(
            f.name
            for f in dataclasses.fields(t)
            if f.name not in _SKIP_FIELDS and not f.name.startswith("whitespace")
        )
        _FIELDS[t] = got
    return got


def _subclasses(t: type) -> set[type]:
    out: set[type] = set()
    subs: list[type] = t.__subclasses__()
    for sub in subs:
        out |= {sub, *_subclasses(sub)}
    return out


# ``isinstance(v, cst.CSTNode)`` goes through ``ABCMeta.__instancecheck__`` (about 4x a type
# test) and the walk asks it a million times per large file: libcst's node classes and the
# common non-node field types are looked up by exact type first (the ABC test stays for
# anything else, so the answer is the same).
_NODE_TYPES: frozenset[type] = frozenset(_subclasses(cst.CSTNode))
_NOT_NODES: frozenset[type] = frozenset(
    {type(None), str, bool, int, tuple, list, type(cst.MaybeSentinel.DEFAULT)}
)


def _is_node(v: object) -> bool:
    t = type(v)
    return t in _NODE_TYPES or (t not in _NOT_NODES and isinstance(v, cst.CSTNode))


# libcst's ``_visit_and_replace_children`` visits a node's child fields in source order, each
# with one of these (``children`` is what they visit)
_VISITS = frozenset(
    {"visit_required", "visit_optional", "visit_sequence", "visit_sentinel", "visit_body_sequence"}
)
_ORDERS: dict[type, tuple[str, ...] | None] = {}


def _visit_order(t: type) -> tuple[str, ...] | None:
    """The child fields ``children`` visits for a node of type ``t``, in its order, leaving out
    those that hold no expression or name (the fields the walk skips: parentheses, commas,
    tokens, whitespace; a keyword argument's ``keyword`` name is kept); None unless the
    method is straight-line code of ``visit_*(self, "<field>", ...)`` calls, read from its
    bytecode."""
    code = getattr(getattr(t, "_visit_and_replace_children", None), "__code__", None)
    if code is None or not dataclasses.is_dataclass(t):
        return None
    ins = list(dis.get_instructions(code))
    if any("JUMP" in i.opname or i.opname in ("FOR_ITER", "BEFORE_WITH") for i in ins):
        return None
    fields: list[str] = []
    for k, i in enumerate(ins):
        if i.opname in ("LOAD_GLOBAL", "LOAD_NAME") and i.argval in _VISITS:
            nxt = ins[k + 1 : k + 3]
            if len(nxt) < 2 or (nxt[0].opname, nxt[0].argval) != ("LOAD_FAST", "self"):
                return None
            if nxt[1].opname != "LOAD_CONST" or not isinstance(nxt[1].argval, str):
                return None
            fields.append(nxt[1].argval)
    # no other call (a child visited some other way): the visits and the constructor only
    calls = sum(i.opname.startswith("CALL") for i in ins)
    if calls != len(fields) + 1 and (calls or fields):  # a leaf returns itself: no children
        return None
    names = {f.name for f in dataclasses.fields(t)}
    if not set(fields) <= names:
        return None
    return tuple(
        f for f in fields if f == "keyword" or not (f in _SKIP_FIELDS or f.startswith("whitespace"))
    )


def ordered_children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """libcst's ``node.children`` in its order, less the nodes that can hold no expression or
    name (tokens, parentheses, commas, whitespace), without ``children``' visitor, which
    rebuilds the node to list them; ``children`` itself where the order cannot be read."""
    t = type(node)
    try:
        order = _ORDERS[t]
    except KeyError:
        order = _ORDERS[t] = _visit_order(t)
    if order is None:
        return node.children
    out: list[cst.CSTNode] = []
    for name in order:
        v = getattr(node, name)
        if type(v) is tuple or type(v) is list:
            out.extend(x for x in v if _is_node(x))
        elif _is_node(v):
            out.append(v)
    return out


class _ExactNodeMeta(abc.ABCMeta):
    """The metaclass of libcst's node classes once ``exact_node_tests`` ran: ``isinstance`` and
    ``issubclass`` are ``type``'s own tests (a C call), not ``ABCMeta``'s (a Python frame, then
    the ABC's registry and caches). The two agree while no class has a virtual subclass, which
    libcst never registers; ``register`` first gives the class and its bases their ABC tests
    back, so a registration keeps its meaning."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__

    def register(cls, subclass: type) -> type:
        for k in cls.__mro__:
            if type(k) is _ExactNodeMeta:
                k.__class__ = abc.ABCMeta  # type: ignore[assignment]
        return abc.ABCMeta.register(cls, subclass)


def exact_node_tests() -> int:
    """Give libcst's node classes ``type``'s ``isinstance``. The walk and the checks ask
    ``isinstance(node, cst.Attribute)`` and the like about a million times per large file,
    most of them false; a false answer went through ``ABCMeta.__instancecheck__`` (a Python
    call, about 4x a true one): about 4% of an edit in the editor server. Only classes whose
    answers cannot change are switched: an ``ABCMeta`` node class with nothing registered and
    no ``__subclasshook__`` of its own along its bases. Returns how many were switched."""
    from _abc import _get_dump

    n = 0
    for c in (cst.CSTNode, *_NODE_TYPES):
        if type(c) is not abc.ABCMeta or _get_dump(c)[0]:
            continue
        if any("__subclasshook__" in k.__dict__ for k in c.__mro__ if k is not object):
            continue
        c.__class__ = _ExactNodeMeta
        n += 1
    return n


exact_node_tests()


_COMPREHENSIONS = frozenset({cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp})
# nodes without children (their fields are strings, or skipped: parentheses, operators)
_LEAVES = frozenset(
    {cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis}
)


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in child_fields(type(node)):
        v = getattr(node, name)
        if _is_node(v):
            yield v
        elif isinstance(v, (tuple, list)):
            for item in v:
                if _is_node(item):
                    yield item


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    # exact type tests: libcst's concrete node classes have no subclasses, and an ABC's
    # ``isinstance`` is slow on this hot path
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def self_attr(node: cst.CSTNode | None) -> str | None:
    """``name`` for ``self.name``, else None (the one test of ``self.<attr>`` for the checks
    and the codemods)."""
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


_OP_TOKENS: dict[type, str] = {
    cst.BitOr: "|",
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
}


def fast_code(node: cst.CSTNode) -> str | None:
    """What ``Module.code_for_node`` gives for the commonest small expressions (names, dotted
    names, literals, ``A | B``) without parentheses or line breaks, without running libcst's
    code generation; None for anything else."""
    t = type(node)
    n: Any = node
    if t in _TEXT_LEAVES:
        return None if n.lpar else n.value
    if t is cst.Attribute:
        dot = n.dot
        if n.lpar or type(dot.whitespace_before) is not cst.SimpleWhitespace:
            return None
        if type(dot.whitespace_after) is not cst.SimpleWhitespace:
            return None
        head = fast_code(n.value)
        if head is None:
            return None
        return f"{head}{dot.whitespace_before.value}.{dot.whitespace_after.value}{n.attr.value}"
    if t is cst.BinaryOperation:
        op = n.operator
        tok = _OP_TOKENS.get(type(op))
        if tok is None or n.lpar or type(op.whitespace_before) is not cst.SimpleWhitespace:
            return None
        if type(op.whitespace_after) is not cst.SimpleWhitespace:
            return None
        left = fast_code(n.left)
        right = fast_code(n.right) if left is not None else None
        if right is None:
            return None
        return f"{left}{op.whitespace_before.value}{tok}{op.whitespace_after.value}{right}"
    return None


_TEXT_LEAVES = frozenset({cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString})


# The code of nodes that ``fast_code`` does not cover, by node (kept here, so that its id is
# not reused while remembered) and the module's defaults (all that ``code_for_node`` reads
# besides the node). libcst's nodes never change; the editor server's incremental parse keeps
# the nodes of unchanged statements, so an edit generates the code of the changed ones only.
_CODE_MEMO: OrderedDict[tuple[int, str, str], tuple[cst.CSTNode, str]] = OrderedDict()
_CODE_MEMO_SIZE = 4096


def code_of(module: cst.Module, node: cst.CSTNode) -> str:
    """``module.code_for_node(node)``, faster for the commonest small expressions."""
    got = fast_code(node)
    if got is not None:
        return got
    key = (id(node), module.default_indent, module.default_newline)
    hit = _CODE_MEMO.get(key)
    if hit is not None and hit[0] is node:
        _CODE_MEMO.move_to_end(key)
        return hit[1]
    text = module.code_for_node(node)
    _CODE_MEMO[key] = (node, text)
    if len(_CODE_MEMO) > _CODE_MEMO_SIZE:
        _CODE_MEMO.popitem(last=False)
    return text


def _module_dotted(mod: cst.BaseExpression | None) -> str:
    if mod is None:
        return ""
    return dotted(mod) or ""


def _ann_kind(ann: cst.Annotation | None) -> str:
    if ann is None:
        return "unknown"
    expr = ann.annotation
    text = dotted(expr)
    if text is None and isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value if isinstance(expr.evaluated_value, str) else None
    if text is None:
        # Optional[torch.Tensor], Tensor | None, tuple[Tensor, ...], list[Tensor]
        flat = code_of(_EMPTY_MODULE, expr)
        if any(w in flat for w in N.TENSORISH_ANNOTATION_WORDS):
            head = flat.split("[", 1)[0].strip().lower()
            if head in ("list", "tuple", "typing.list", "typing.tuple", "sequence", "iterable"):
                return "container"
            if _number_alternative(expr):
                # `num_obs: Union[int, Tensor]` (torchmetrics' compute functions): a Python
                # number is as welcome as a tensor, so what the callers pass decides
                return "unknown"
            return "tensor"
        return _named_or_not(_ANN_WORD.findall(flat))
    last = text.rsplit(".", 1)[-1]
    if last in N.TENSORISH_ANNOTATION_WORDS:
        return "tensor"
    return _named_or_not([text])


_EMPTY_MODULE = cst.Module([])
_NUMBERS = frozenset({"int", "float", "bool", "complex"})


def _number_alternative(expr: cst.BaseExpression) -> bool:
    """A Python number among the top-level alternatives of an annotation (`Union[int,
    Tensor]`, `float | Tensor`; not `Tensor | None`, nor `dict[str, int] | Tensor`)."""
    alts: list[cst.BaseExpression] = []
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitOr):
            stack += [e.left, e.right]
        elif isinstance(e, cst.Subscript) and (dotted(e.value) or "").rsplit(".", 1)[-1] == "Union":
            stack += [el.slice.value for el in e.slice if isinstance(el.slice, cst.Index)]
        else:
            alts.append(e)
    return any(isinstance(a, cst.Name) and a.value in _NUMBERS for a in alts)


# builtins whose result is never None
_NEVER_NONE_CALLS = frozenset({"len", "int", "float", "bool", "str", "abs", "round", "max", "min"})


def _never_none(e: cst.BaseExpression) -> bool:
    """Whether an argument expression never evaluates to ``None``: arithmetic and bitwise
    operations, unary operators, comparisons, f-strings, literals, a call of a builtin number
    or string constructor or of ``len``/``abs``/``round``/``max``/``min``. ``a or b`` and
    ``a if c else b`` may give ``None`` and are not counted."""
    if isinstance(
        e,
        (
            cst.BinaryOperation,
            cst.UnaryOperation,
            cst.Comparison,
            cst.FormattedString,
            cst.Integer,
            cst.Float,
            cst.SimpleString,
            cst.ConcatenatedString,
        ),
    ):
        return True
    return (
        isinstance(e, cst.Call)
        and isinstance(e.func, cst.Name)
        and e.func.value in _NEVER_NONE_CALLS
    )


_ANN_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9.]*")


def _named_or_not(words: list[str]) -> str:
    """``"nontensor"`` when every name in an annotation is a known non-tensor type (builtins,
    typing's wrappers, torch's dtype/device); ``"named"`` when one is a type alias or a class
    this file cannot see into (``t0: Optional[Scalar]`` with ``Scalar = Union[float, Tensor]``
    in another module): such a parameter holds what its callers pass."""
    for w in words:
        if w.rsplit(".", 1)[-1] not in N.NONTENSOR_ANNOTATIONS and not w.startswith("typing."):
            return "named"
    return "nontensor"


_SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def _optim_annotation(
    qualify: Callable[[cst.BaseExpression], str | None], ann: cst.Annotation | None
) -> str:
    """The ``torch.optim`` class a parameter annotation names as a plain dotted name
    (``torch.optim.Optimizer``, ``Optimizer`` imported from ``torch.optim``,
    ``optim.lr_scheduler.LRScheduler``), else ``""``."""
    if ann is None:
        return ""
    expr = ann.annotation
    if not isinstance(expr, (cst.Name, cst.Attribute)):
        return ""
    q = qualify(expr) or ""
    if q.startswith(V.OPTIMIZER_PREFIX) and q.rsplit(".", 1)[-1][:1].isupper():
        return q if q.rsplit(".", 1)[-1] != "AveragedModel" else ""
    return ""


def _scalar_annotations(p: cst.Parameters) -> dict[str, str]:
    """Parameters annotated exactly ``int``/``float``/``bool``/``str`` (not Optional)."""
    out: dict[str, str] = {}
    for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
        ann = prm.annotation
        if ann is not None and isinstance(ann.annotation, cst.Name):
            if ann.annotation.value in _SCALAR_ANNOTATIONS:
                out[prm.name.value] = ann.annotation.value
    return out


def _literal_default(d: cst.BaseExpression | None) -> list[object]:
    """``[value]`` of a literal scalar or None default, else ``[]`` (see ``ParamFacts``)."""
    if d is None:
        return []
    got = C.literal(d)
    return [] if got is C.UNKNOWN or isinstance(got, list) else [got]


def _default_kind(d: cst.BaseExpression | None) -> str:
    if d is None:
        return "nodefault"
    if isinstance(d, cst.Name) and d.value == "None":
        return "none"
    if isinstance(
        d, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.Imaginary)
    ) or (isinstance(d, cst.Name) and d.value in ("True", "False")):
        return "literal"
    if isinstance(d, cst.UnaryOperation) and isinstance(d.expression, (cst.Integer, cst.Float)):
        return "literal"
    return "other"


# builtin types a tensor is not an instance of (``isinstance`` narrowing), with the scalar kind
_NUMBER_TYPES = {"int": "int", "float": "float", "bool": "bool", "str": "str", "complex": "float"}
_NUMBER_ABCS = frozenset(("numbers.Number", "numbers.Real", "numbers.Integral", "numbers.Complex"))


def _literal_dict_items(src: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """The items of ``{"k": v, ...}`` / ``dict(k=v, ...)`` with literal string keys only (no
    ``**`` inside), else None."""
    n: Any = src
    t = type(n)  # (exact type tests: every assignment to a name asks)
    if t is cst.Dict:
        out: list[tuple[str, cst.BaseExpression]] = []
        for el in n.elements:
            if type(el) is not cst.DictElement:
                return None
            key = C.literal(el.key)
            if type(key) is not str:
                return None
            out.append((key, el.value))
        return out
    if t is cst.Call and type(n.func) is cst.Name and n.func.value == "dict":
        if any(a.star or a.keyword is None for a in n.args):
            return None
        return [(a.keyword.value, a.value) for a in n.args if a.keyword is not None]
    return None


def _del_names(target: cst.BaseExpression) -> list[str]:
    """The names whose item a ``del`` statement removes (``del kw["eps"], d[k]``)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _del_names(el.value)]
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        return [target.value.value]
    return []


class Scope:
    """A function being walked: its facts, local definitions and tensor environment."""

    def __init__(self, facts: FunctionFacts | None, parent: Scope | None) -> None:
        self.facts = facts
        self.parent = parent
        # a class body's scope: the class's qualified name (the checks' per-scope tables keyed
        # by it are read only while that class is walked: ``analysis.tail``)
        self.class_qual = ""
        self.env: dict[str, Value] = {}
        self.local_defs: dict[str, str] = {}  # nested def name -> qual
        self.local_classes: set[str] = set()
        self.params: dict[str, Value] = {}  # parameter -> the value it starts with
        self.rebound: set[str] = set()  # names assigned in the body so far
        # parameter -> the conditions (analysis.conds) in force at each of its re-bindings so
        # far, when every one is under some (None: one is not, or it changed otherwise)
        self.guarded: dict[str, list[Any] | None] = {}
        # local name -> the expression it was bound to, when bound once (None: more than once)
        self.aliases: dict[str, cst.BaseExpression | None] = {}
        # parameter -> the ``self.<attr>`` it was re-bound to where it is None, by its one
        # re-binding so far (``is_distributed = default(is_distributed, self.is_distributed)``):
        # a test of it is about the parameter's values, or the attribute's (``conds.fallback``)
        self.fallbacks: dict[str, str] = {}
        # local name -> the keywords a dict bound to it certainly holds (``kw = dict(dim=dim,
        # eps=eps)``, later ``kw = dict(**kw, more=1)`` keeps them): key -> (value, the
        # ``P|<func>|<param>`` it passes on unchanged, or ""), for ``Cls(**kw)`` call sites
        self.kwdicts: dict[str, dict[str, tuple[Value, str]]] = {}
        # (dict name, key) -> the guards of the re-bindings of the parameter that key's
        # ``P|<func>|<param>`` names, where it was re-bound only under conditions
        # (``CallSite.gfwd``)
        self.kwguards: dict[tuple[str, str], list[Any]] = {}
        # local name -> the dicts of literal keys bound to it so far, one per binding
        # (``spline_kwargs = {}`` in one branch, ``= {"tails": self.tails}`` in the other;
        # None: some binding is not such a dict): what a ``f(**spline_kwargs)`` may pass
        self.kwalts: dict[str, list[dict[str, Value]] | None] = {}
        # names of dicts changed in place so far (``kw["eps"] = 1e-3``, ``kw.pop("eps")``,
        # ``del kw["eps"]``): a ``**kwargs`` parameter among them no longer holds only what
        # the callers passed
        self.changed_dicts: set[str] = set()
        self.param_classes: dict[str, str] = {}  # parameter annotated with a class -> its ref
        # name -> whether every tensor bound to it so far was bound in training-only code
        # (`skip = False` then `if self.training: skip = torch.rand([]) < p`: True)
        self.training_tensors: dict[str, bool] = {}
        # names bound to the call of a module whose class is not known here (`out = layer(x)`):
        # "a tensor" when used whole, unknown positions when unpacked later (`a, h, w = out`)
        self.module_outputs: set[str] = set()
        # local name -> the functions bound to it (``spline_fn = splines.rq_spline`` in one
        # branch, ``= splines.unconstrained_rq_spline`` in the other): ``spline_fn(...)`` calls
        # each of them
        # each with the conditions (analysis.conds) in force where it was bound
        self.func_aliases: dict[str, list[tuple[str, list[str]]]] = {}
        # name -> (its value where a test narrowed it, the narrowed value): in the body of
        # `if isinstance(sigma, (int, float)):` sigma is a Python number, not a tensor, while
        # it still holds what it held before the test
        self.narrowed: dict[str, tuple[Value, Value]] = {}
        self.ntok = 0  # tokens of the ranks of tensors bound here (``values.tensor``)

    @property
    def qual(self) -> str:
        return self.facts.qual if self.facts else ""


class FileWalker(Evaluator):
    """Walks one module. ``hooks`` maps a libcst node type to the check callbacks for it."""

    def __init__(
        self,
        module: cst.Module,
        path: str,
        module_name: str,
        is_package: bool,
        hooks: dict[type, list[Hook]],
    ) -> None:
        self.module = module
        self.path = path
        self.module_name = module_name
        self.is_package = is_package
        self.hooks = hooks
        self.imports: dict[str, str] = {}
        self.functions: dict[str, FunctionFacts] = {}
        self.classes: dict[str, ClassFacts] = {}
        self.module_defs: dict[str, str] = {}  # top-level def/class name -> qual
        self._returned_once: set[str] = set()  # functions with a return statement walked
        # top-level functions that test their first argument against None
        # (``def exists(v): return v is not None``): name -> "isnot" / "is"
        self.none_tests: dict[str, str] = {}
        self.compiled_refs: list[str] = []
        # allow_in_graph registrations: (ref, qual of the enclosing function or ""), and the
        # refs of the calls made at module level (which run those functions on import)
        self.graph_op_sites: list[tuple[str, str]] = []
        self.main_guard = 0  # inside a module-level `if __name__ == "__main__":`
        self.script_refs: list[str] = []  # what that block calls: the script, not the API
        # the module's ``__all__`` when it is a literal list of names (``+=`` included); None
        # when it has none or it is computed
        self.all_names: list[str] | None = None
        self.all_computed = False
        self.module_calls: set[str] = set()
        self.pending: list[
            tuple[str, cst.CSTNode, Taint, dict[str, str], str, bool, str, list[str]]
        ] = []
        self.call_nodes: list[tuple[CallSite, cst.CSTNode]] = []
        # unresolved calls on objects under conditions (``FunctionFacts.call_conds``)
        self.cond_calls: list[tuple[FunctionFacts, cst.Call, list[str]]] = []
        self.closure_calls: list[tuple[FunctionFacts, cst.CSTNode]] = []  # wrappers' `func(...)`
        # id(node) -> the statement being walked when it was reported or called (positions)
        self.stmt_of: dict[int, cst.CSTNode | None] = {}
        # id(reported node) -> the node on whose first line CPython places the jump that
        # breaks (a multi-line test's statement or operand: ``TensorDependentBranch``)
        self.jump_at: dict[int, cst.CSTNode] = {}
        self.scope = Scope(None, None)
        self.module_scope = self.scope  # module-level bindings (methods do not see them)
        self.class_stack: list[ClassFacts] = []
        # ``scope.facts`` and ``class_stack[-1]`` (None when empty), kept as plain attributes
        # where ``scope`` and ``class_stack`` change (``visit_function``, ``visit_class``): the
        # checks and the walk read them about 10,000 times per edit of a 2,000-line file
        self.func: FunctionFacts | None = None
        self.cls: ClassFacts | None = None
        self.loop_depth = 0
        self.training_depth = 0  # inside `if self.training:` (or `... and self.training`)
        self.eval_depth = 0  # inside `if not self.training:`, or the `else` of `if self.training:`
        self._arg_names: ByIdentity[CallSite, list[tuple[str, str]]] = ByIdentity()  # arg names
        self.untraced_depth = 0
        # inside a branch of the current function (an `if`/`elif`/`else` body or an `except`
        # handler): code only some values take (``Project.kept``: diagnostics there)
        self.branch_depth = 0
        # inside a branch whose test the conditions on parameters (``conds``) do not describe
        # in full: a call or a break there runs only on some calls (``CalleeBreaks.surely``)
        self.loose_depth = 0
        # inside a `try:` body of the current function: torch 2.13 cannot resume after a break
        # there ("Failed to handle graph break gracefully. Skipping the function"), so the rest
        # of the function runs eagerly (``Project.kept``)
        self.try_depth = 0
        self.forward_replaced: set[str] = set()  # classes whose forward a decorator replaces
        self.current_stmt: cst.CSTNode | None = None
        self._value_cache: dict[int, Value] = {}
        self.class_defs: set[str] = set()  # top-level class names
        self.walked: set[str] = set()  # functions walked to their end
        self.conds: list[str] = []  # conditions on parameters in force here (analysis.conds)
        # ids of names called at a recorded call site (`helper(x)`): the site is the edge, and
        # the name is not a reference to a function passed as a value
        self._called_names: set[int] = set()
        self._super_args: set[int] = set()  # `super(Cls, self)` calls: `Cls` is not passed on
        # id(node) -> (node, its dotted name, head, rest) or (node,) when it has none
        self._dotted: dict[int, tuple[Any, ...]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """The walk's state for a copy (``analysis.resume`` pickles it before each edit's
        first changed statement): less the dotted names found per node, a memo of a function
        of the node alone (``qualify`` finds them again; about a seventh of the pickle)."""
        state = dict(self.__dict__)
        state["_dotted"] = {}
        return state

    # ------------------------------------------------------------------ public API for checks
    @property
    def in_function(self) -> bool:
        return self.scope.facts is not None

    @property
    def in_loop(self) -> bool:
        return self.loop_depth > 0

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Fully qualified dotted name of an expression through this file's imports."""
        # every check asks about the same call's function: its dotted name is found once
        got = self._dotted.get(id(node))
        if got is None or got[0] is not node:
            d = dotted(node)
            got = (node, d, *d.partition(".")[::2]) if d else (node, None, "", "")
            self._dotted[id(node)] = got
        _node, d, head, rest = got
        if d is None:  # (a None in the entry, not its length: no `len` call on this hot path)
            return None
        target = self.imports.get(head)
        if target is None:
            return d
        return f"{target}.{rest}" if rest else target

    def shadowed(self, name: str) -> bool:
        """Whether a builtin name is rebound by an import, a definition or a local variable."""
        if name in self.imports or name in self.module_defs:
            return True
        s: Scope | None = self.scope
        while s is not None:
            if name in s.env or name in s.local_defs:
                return True
            s = s.parent
        return False

    def is_torch_name(self, node: cst.BaseExpression, *names: str) -> bool:
        q = self.qualify(node)
        return q is not None and q in names

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        *,
        requires: Taint = NO_TAINT,
        scope: str = "traced",
        **args: str,
    ) -> None:
        """Record a candidate finding. ``requires``: the taint that must be a tensor."""
        if self.untraced_depth and scope == "traced":
            return
        func = self.scope.qual
        if scope == "traced" and not func:
            return
        if self.training_depth:
            # a break only in training mode: callers that ask "does this call break" (CL304's
            # frame inputs, the prediction) do not count it
            args = {**args, "training": "1"}
        if self.eval_depth:
            # a break only in eval mode: not reported under `--mode train`
            args = {**args, "eval": "1"}
        if self.loose_depth:
            # in a branch its conditions do not describe: not every call reaches it
            # (`CalleeBreaks.surely`)
            args = {**args, BRANCH: "1"}
        if self.try_depth:
            args = {**args, IN_TRY: "1"}
        self.pending.append(
            (code, node, requires, args, scope, self.loop_depth > 0, func, list(self.conds))
        )
        self.stmt_of.setdefault(id(node), self.current_stmt)

    def _ann_kind(self, ann: cst.Annotation | None) -> str:
        """:func:`_ann_kind`, and ``"object"`` for an annotation that names (as a plain dotted
        name) a class torch defines that is not a tensor (``Transform`` imported from
        ``torch.distributions``, ``torch.nn.Module``, ``torch.Generator``): the parameter holds
        such an object, whatever the value model guesses a caller passes."""
        kind = _ann_kind(ann)
        if kind == "named" and ann is not None:
            expr = ann.annotation
            if isinstance(expr, (cst.Name, cst.Attribute)):
                q = self.qualify(expr) or ""
                if q.startswith("torch.") and q.count(".") >= 1:
                    return "object"
        return kind

    def code_for(self, node: cst.CSTNode, limit: int = 60) -> str:
        text = " ".join(code_of(self.module, node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def _class_methods(self) -> set[str]:
        c = self.cls
        return set(c.methods) if c is not None else set()

    def name_ref(self, name: str) -> str | None:
        """A function ref for a bare name, if it may be a scanned function."""
        s: Scope | None = self.scope
        while s is not None:
            if name in s.local_defs:
                return f"Q|{s.local_defs[name]}"
            if name in s.env:
                return None  # a local variable
            s = s.parent
        if name in self.module_defs:
            return f"Q|{self.module_defs[name]}"
        if name in self.imports:
            return f"D|{self.imports[name]}"
        if name in _BUILTIN_NAMES:
            return None
        return f"Q|{name}"  # defined later in this module, or a star import

    def callee_ref(self, func: cst.BaseExpression) -> str | None:
        if isinstance(func, cst.Name):
            return self.name_ref(func.value)
        if isinstance(func, cst.Attribute):
            v = func.value
            if isinstance(v, cst.Name) and v.value == "self" and self.cls is not None:
                return f"M|{self.cls.qual}|{func.attr.value}"
            if (
                isinstance(v, cst.Call)
                and isinstance(v.func, cst.Name)
                and v.func.value == "super"
                and self.cls is not None
            ):
                return f"S|{self.cls.qual}|{func.attr.value}"
            q = self.qualify(func)
            if (
                func.attr.value == "apply"
                and isinstance(v, cst.Name)
                and v.value in self.class_defs
            ):
                # MyFunction.apply(x): torch.autograd.Function runs (and dynamo traces) forward
                return f"M|{self.module_defs[v.value]}|forward"
            local_head = (dotted(func) or "").split(".", 1)[0]
            if (
                q is not None
                and (q.split(".", 1)[0] in self.imports or local_head in self.imports)
                and q.split(".", 1)[0] != "torch"  # torchsde.sdeint is not torch's
            ):
                if func.attr.value == "apply" and isinstance(v, cst.Name) and v.value[:1].isupper():
                    return f"D|{q[: -len('.apply')]}.forward"
                return f"D|{q}"
            if isinstance(v, cst.Name) and v.value in self.module_defs:
                # ClassName.static_method(...)
                return f"M|{self.module_defs[v.value]}|{func.attr.value}"
        return None

    def _opaque_module_call(self, node: cst.BaseExpression) -> bool:
        """A call of a module whose class is not known here (a loop target over a module
        container, ``self.<submodule>`` of an unseen class), or a name bound to one: taken for
        "a tensor" when used whole, but not when unpacked."""
        if isinstance(node, cst.Name):
            return node.value in self.scope.module_outputs
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if isinstance(func, cst.Name):
            fv = self.value(func)
            if V.kind(fv) == "module":
                return self._module_forward(fv) is None
            # an element of a container on self (`for layer, blk in zip(self.a, self.b)`)
            return V.kind(fv) == "symbolic" and any(
                src.startswith("A|") and "@" in src for src in V.sources(fv)
            )
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and self.cls is not None
        ):
            return func.attr.value not in self.cls.methods
        return False

    # ------------------------------------------------------------------ assignment
    def bind(
        self, target: cst.BaseExpression, value: Value, src: cst.BaseExpression | None = None
    ) -> None:
        """Bind ``target`` to ``value``; ``src``: the assigned expression when ``target`` is
        the whole target of an assignment (``self.<attr> = src``, see ``attr_stores``)."""
        """Bind an assignment target to a value (tuple targets unpack it per position)."""
        if isinstance(target, cst.Name):
            first = target.value not in self.scope.rebound and target.value not in self.scope.params
            prev = self.scope.kwdicts.pop(target.value, None)
            got = self._kwdict(target.value, src, prev, first) if src is not None else None
            if got is not None:
                self.scope.kwdicts[target.value] = got
            if type(src) is cst.Dict or type(src) is cst.Call:
                self._kwalt(target.value, src)
            else:  # no dict display nor `dict(...)`: the name's dicts are unknown (`_kwalt`)
                self.scope.kwalts[target.value] = None
            if target.value in self.scope.params:
                fb = self._fallback_of(target.value, src) if type(src) is cst.Call else None
                self._rebind_param(target.value)
                if fb is not None:
                    self.scope.fallbacks[target.value] = fb
                elif self.scope.fallbacks:
                    self.scope.fallbacks.pop(target.value, None)
            if value[0] == "T" and value != V.CONST_TENSOR and value[2:3] in ((), (-1,)):
                # a tensor of unknown rank (``TENSOR``, or ``("T", "m", -1, dtype)``): what is
                # computed from it elementwise has its rank, a token of this binding says so
                # (`m = s > t`, `s[m]` is 1-d)
                self.scope.ntok += 1
                dtype = value[3] if value[2:] else ""  # (``V.tensor``'s, inlined)
                value = ("T", "m", (f"{target.value}{self.scope.ntok}", 0), dtype)
            self.scope.env[target.value] = value
            self.scope.aliases[target.value] = src if first else None
            self.scope.rebound.add(target.value)
            self.scope.module_outputs.discard(target.value)
            if V.sources(value):  # a tensor, or one under some callers (a parameter)
                tt = self.scope.training_tensors
                tt[target.value] = tt.get(target.value, True) and self.training_depth > 0
        elif isinstance(target, (cst.Tuple, cst.List)):
            els = target.elements
            star = next((i for i, e in enumerate(els) if isinstance(e, cst.StarredElement)), -1)
            for i, el in enumerate(els):
                if i == star:
                    self.bind(el.value, V.seq("list", None, V.iter_elem(value)))
                elif star >= 0 and i > star:
                    self.bind(el.value, V.element(value, i - len(els)))
                else:
                    self.bind(el.value, V.element(value, i))
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, value)
        elif isinstance(target, cst.Subscript):
            if isinstance(target.value, cst.Name):
                self.scope.kwdicts.pop(target.value.value, None)  # `kw["eps"] = 1e-3`
                self.scope.changed_dicts.add(target.value.value)
            elif (
                isinstance(target.value, cst.Attribute)
                and isinstance(target.value.value, cst.Name)
                and target.value.value.value == "self"
                and self.cls is not None
                and len(target.slice) == 1
                and isinstance(target.slice[0].slice, cst.Index)
            ):
                # an item stored into an attribute (`self.cache["score"] = y.mean()`): reading
                # the item back (`self.cache["score"]`) may give the value stored
                self._attr_item_store(target.value.attr.value, target.slice[0].slice.value, value)
        elif isinstance(target, cst.Attribute):
            if (
                isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and self.cls is not None
            ):
                attr = target.attr.value
                stores = self.cls.attr_stores.setdefault(attr, [])
                store = self._attr_store(src)
                # (a second store under a test: the one case `_fallback_store` reads)
                fallback = (
                    self._fallback_store(attr, stores, store) if stores and self.conds else None
                )
                if fallback is not None:
                    stores[0] = fallback
                else:
                    stores.append(store)
                lst = self.cls.attrs.setdefault(attr, [])
                if not any(m[0] == "Y" and m[1].startswith("A|") for m in V.members(value)):
                    if value not in lst:
                        lst.append(value)

    def _attr_item_store(self, attr: str, key: cst.BaseExpression, value: Value) -> None:
        """Record ``self.<attr>[key] = value`` as a value of ``self.<attr>``: a dict holding
        ``value`` at a literal string key, else at any key (its elements)."""
        assert self.cls is not None
        if value == V.UNKNOWN or any(
            m[0] == "Y" and m[1].startswith("A|") for m in V.members(value)
        ):
            return
        k = key.evaluated_value if isinstance(key, cst.SimpleString) else None
        held = V.dict_of([(k, value)]) if isinstance(k, str) else V.dict_of(None, value)
        lst = self.cls.attrs.setdefault(attr, [])
        if held not in lst:
            lst.append(held)

    def _kwalt(self, name: str, src: cst.BaseExpression | None) -> None:
        """Record one more binding of ``name`` (``Scope.kwalts``): a dict of literal string
        keys (``{"k": v}``, ``dict(k=v)``) adds its keys' values; anything else (or a
        parameter) makes the name's dicts unknown."""
        alts = self.scope.kwalts
        items = _literal_dict_items(src) if src is not None else None
        if items is not None and self.shadowed("dict"):
            items = None
        if items is None or name in self.scope.params or alts.get(name, []) is None:
            alts[name] = None
            return
        got = alts.setdefault(name, [])
        assert got is not None
        got.append({k: self.value(node) for k, node in items})

    def _kwdict(
        self,
        name: str,
        src: cst.BaseExpression,
        prev: dict[str, tuple[Value, str]] | None,
        first: bool,
    ) -> dict[str, tuple[Value, str]] | None:
        """The keywords ``name = dict(k=v, ...)`` / ``{"k": v, ...}`` certainly holds: on its
        first binding, or ``name = dict(**name, k2=...)`` extending it (the keys it had keep
        their values; a key given again is dropped, the new ones may be in one branch only)."""
        items: list[tuple[str, cst.BaseExpression]] = []
        extends = False
        if isinstance(src, cst.Call) and dotted(src.func) == "dict" and not self.shadowed("dict"):
            for a in src.args:
                if a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == name:
                    extends = True
                elif a.keyword is not None and not a.star:
                    items.append((a.keyword.value, a.value))
                else:
                    return None
        elif isinstance(src, cst.Dict):
            for el in src.elements:
                if not isinstance(el, cst.DictElement):
                    return None
                key = C.literal(el.key)
                if not isinstance(key, str):
                    return None
                items.append((key, el.value))
        else:
            return None
        if extends:
            if prev is None:
                return None
            return {k: v for k, v in prev.items() if k not in {k2 for k2, _ in items}}
        if not first:
            return None
        out: dict[str, tuple[Value, str]] = {}
        facts = self.scope.facts
        for k, node in items:
            fref = ""
            self.scope.kwguards.pop((name, k), None)
            if facts is not None and isinstance(node, cst.Name):
                if self._is_param(node.value):
                    fref = f"P|{facts.qual}|{node.value}"
                elif gs := self._param_guards(node.value):
                    fref = f"P|{facts.qual}|{node.value}"
                    self.scope.kwguards[(name, k)] = gs
            out[k] = (self.value(node), fref)
        return out

    def _param_guards(self, name: str) -> list[Any] | None:
        """The guards of parameter ``name``'s re-bindings, where every one so far is under
        conditions (``Scope.guarded``); None otherwise."""
        if name not in self.scope.params:
            return None
        gs = self.scope.guarded.get(name)
        return list(gs) if gs else None

    def _fallback_of(self, name: str, src: cst.BaseExpression | None) -> str | None:
        """``self.<attr>`` where parameter ``name``, still unassigned, is re-bound to
        ``default(name, self.<attr>)`` (``default`` the module's helper,
        :func:`conds.default_function`) at the top of the function (no condition, no branch
        the conditions do not describe); else None."""
        if (
            type(src) is not cst.Call
            or type(src.func) is not cst.Name
            or len(src.args) != 2
            or any(a.star or a.keyword is not None for a in src.args)
            or self.conds
            or self.loose_depth > 0
            or not self._is_param(name)
            or self._none_test(src.func.value) != C.DEFAULT_OP
        ):
            return None
        first, other = src.args[0].value, src.args[1].value
        if not isinstance(first, cst.Name) or first.value != name:
            return None
        attr = self_attr(other)
        return None if attr is None or not self._is_param("self") else f"self.{attr}"

    def _fallback_store(
        self, attr: str, stores: list[list[object]], store: list[object]
    ) -> list[object] | None:
        """One store for ``self.<attr> = p`` followed in ``__init__`` by ``if not
        exists(self.<attr>): self.<attr> = <flag>`` (a default computed where the parameter
        is None, soft-moe's and st-moe's ``is_distributed``): ``["X", ["if", p is not None,
        p, flag]]``, the value chosen the way the two stores choose it. None where the store
        is anything else (then it is one more store)."""
        if (
            len(stores) != 1
            or stores[0][:1] != ["P"]
            or not store
            or store[0] not in ("P", "X", "L")
            or self.loose_depth > 0
            or self.cls is None
            or self.scope.qual != f"{self.cls.qual}.__init__"
            or self.conds != [C.encode(f"self.{attr}", "is", None)]
        ):
            return None
        first = str(stores[0][1])
        if store[0] == "X":
            other: object = store[1]
        elif store[0] == "P":
            other = ["p", store[1]]
        else:
            other = ["l", store[1]]
        return ["X", ["if", ["c", first, "isnot", None], ["p", first], other]]

    def _attr_store(self, src: cst.BaseExpression | None) -> list[object]:
        if src is None or self.cls is None:
            return []
        in_init = self.scope.qual == f"{self.cls.qual}.__init__"
        if isinstance(src, cst.Name) and in_init and self._is_param(src.value):
            return ["P", src.value]
        lit = C.literal(src)
        if lit is C.UNKNOWN or isinstance(lit, list):
            if in_init and isinstance(
                src, (cst.BooleanOperation, cst.Comparison, cst.UnaryOperation, cst.IfExp, cst.Call)
            ):
                # a flag computed from `__init__`'s parameters (`threshold > 0`), or a value
                # chosen by one (`opt(...) if exists(opt) else None`)
                tree = C.expr_tree(src, self._is_param, self._none_test, self._global_ref)
                return ["X", tree] if tree is not None else []
            return []
        return ["L", lit]

    def _global_ref(self, node: cst.BaseExpression) -> str | None:
        """``G|<module>.<name>`` for a module-level name the function reads: a name that is
        not one of its parameters or locals (``DEBUG``, or ``COLLECT_STATS`` imported from
        another module), or ``mod.NAME`` through a module this file imports
        (``c_f.COLLECT_STATS``); None for anything else (:mod:`analysis.constants` says
        which of them are constants)."""
        env, params = self.scope.env, self.scope.params
        if type(node) is cst.Name:
            name = node.value
            if name in env or name in params or name in self.module_defs:
                return None
            if name in self.imports:
                target = self.imports[name]
                return f"G|{target}" if "." in target and not name.startswith("*") else None
            return f"G|{self.module_name}.{name}" if self.module_name else None
        if type(node) is cst.Attribute and type(node.value) is cst.Name:  # type: ignore[attr-defined]
            head = node.value.value  # type: ignore[attr-defined]
            if head in env or head in params or head not in self.imports:
                return None
            return f"G|{self.imports[head]}.{node.attr.value}"  # type: ignore[attr-defined]
        return None

    def _test_global(self, node: cst.BaseExpression) -> str | None:
        """:meth:`_global_ref` for a test's subject (``if DEBUG:``, ``if cfg.DEBUG:``), where no
        enclosing function binds the name either (a closure's variable is no module's)."""
        head = node.value if type(node) is cst.Attribute else node  # type: ignore[attr-defined]
        if type(head) is not cst.Name:
            return None
        s = self.scope.parent
        while s is not None and s.parent is not None:  # (the outermost: the module's)
            if head.value in s.env or head.value in s.params:
                return None
            s = s.parent
        return self._global_ref(node)

    def bind_self_attr_classes(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Which classes ``self.<attr> = Cls(...)`` instantiates (for regional compilation), or
        ``self.<attr> = bm`` stores (a parameter annotated ``bm: BaseBrownian``), or
        ``self.<attr> = self`` (a tree's root kept as its own cursor: ``self._last = self``)."""
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.cls is not None
            and isinstance(value, cst.Name)
            and value.value == "self"
            and self._is_param("self")
        ):
            lst = self.cls.attr_classes.setdefault(target.attr.value, [])
            if f"Q|{self.cls.qual}" not in lst:
                lst.append(f"Q|{self.cls.qual}")
            return
        if (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.cls is not None
            and isinstance(value, cst.Name)
            and value.value in self.scope.param_classes
            and self._is_param(value.value)
        ):
            lst = self.cls.attr_classes.setdefault(target.attr.value, [])
            ref = self.scope.param_classes[value.value]
            if ref not in lst:
                lst.append(ref)
            return
        if not (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.cls is not None
            and isinstance(value, cst.Call)
        ):
            return
        attr = target.attr.value
        ref = self.callee_ref(value.func)
        q = self.qualify(value.func)
        lst = self.cls.attr_classes.setdefault(attr, [])
        if ref and ref not in lst:
            lst.append(ref)
        if ref is None and isinstance(value.func, cst.Name):
            # cls = Codebook if c else CosineCodebook; self.codebook = cls(...)
            local = self.lookup(value.func.value)
            for m in V.members(local) if local is not None else ():
                if m[0] == "M" and m[1] and m[2] is None and m[1] not in lst:
                    lst.append(m[1])
        if q and q.startswith("torch.nn.") and q not in lst:
            lst.append(q)
        for r in self._repeated_classes(value):
            if r not in lst:
                lst.append(r)
        # objects built as its constructor's arguments (`ScaleKernel(RBFKernel())`): the
        # attribute's object holds them, so they are instantiated with it (rapid type analysis
        # keeps their overrides: `self.base_kernel.forward(...)` runs `RBFKernel.forward`)
        for a in value.args:
            if isinstance(a.value, cst.Call):
                inner = self.callee_ref(a.value.func)
                if (
                    inner
                    and not inner.startswith("D|torch.")
                    and inner.rsplit(".", 1)[-1][:1].isupper()
                ):
                    held = self.cls.attr_classes.setdefault(f"{attr}()", [])
                    if inner not in held:
                        held.append(inner)

    def bind_iter(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """Bind a ``for`` target to what iterating ``it`` yields (``enumerate`` counts and
        ``range`` values are ints, ``zip`` pairs each target with its own iterable, ``.items()``
        keys are strings and its values keep their value: modules of a ``ModuleDict``)."""
        self.bind(target, V.iter_elem(self.value(it)))

    def element_value(self, it: cst.BaseExpression) -> Value:
        """What iterating ``it`` yields; for a comprehension, its element with the loop targets
        bound (as while visiting it: ``x < y for x, y in zip(ts[:-1], ts[1:])`` compares
        tensors)."""
        if not isinstance(it, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            return V.iter_elem(self.value(it))
        saved = dict(self.scope.env)
        comp: cst.CompFor | None = it.for_in
        while comp is not None:
            self.bind_iter(comp.target, comp.iter)
            comp = comp.inner_for_in
        try:
            return self.value(it.elt)
        finally:
            self.scope.env = saved

    @staticmethod
    def _has_star_args(call: cst.Call) -> bool:
        return any(a.star for a in call.args)

    def _repeated_classes(self, call: cst.Call) -> list[str]:
        """``"*<ref>"`` for each class instantiated repeatedly into a container module:
        ``nn.ModuleList([Block() for _ in range(n)])``, ``nn.Sequential(*(Block() for ...))``."""
        q = self.qualify(call.func) or ""
        if q.rsplit(".", 1)[-1] not in ("ModuleList", "Sequential") or not call.args:
            return []
        arg = call.args[0].value
        if isinstance(arg, (cst.ListComp, cst.GeneratorExp)) and isinstance(arg.elt, cst.Call):
            ref = self.callee_ref(arg.elt.func) or self.qualify(arg.elt.func)
            return [f"*{ref}"] if ref else []
        if isinstance(arg, cst.Name):
            # a local list grown in a loop (`blocks.append(Block(...))`, then
            # `nn.ModuleList(blocks)`): the classes of the modules it holds (``_grow_list``)
            got = self.lookup(arg.value)
            out: list[str] = []
            for lst in V.members(got) if got is not None else ():
                if lst[0] != "Q":
                    continue
                for m in V.members(lst[3]):
                    r = f"*{m[1]}" if m[0] == "M" and m[1] else ""
                    if r.startswith(("*Q|", "*D|")) and r not in out:
                        out.append(r)
            return out
        return []

    # ------------------------------------------------------------------ traversal
    def fire(self, node: cst.CSTNode) -> None:
        hooks = self.hooks.get(type(node))
        if hooks:
            for h in hooks:
                h(node)

    def _tensor_method_param(self, node: cst.Call) -> None:
        """``n.max()`` on a parameter ``n`` not re-bound yet: a method only tensors have
        (:data:`~compilelint.static.analysis.names.TENSOR_ONLY_METHODS`) says the parameter is a
        tensor, whatever its name reads like (``ParamFacts.tensor_use``)."""
        f = node.func
        if not (
            isinstance(f, cst.Attribute)
            and isinstance(f.value, cst.Name)
            and f.attr.value in N.TENSOR_ONLY_METHODS
        ):
            return
        scope, name = self.scope, f.value.value
        if scope.facts is None or name not in scope.params or name in scope.rebound:
            return
        for prm in scope.facts.params:
            if prm.name == name:
                prm.tensor_use = True

    def visit_expr(self, node: cst.CSTNode) -> None:
        """Fire hooks on an expression subtree and record calls and references."""
        t = type(node)
        n: Any = node
        if t is cst.Name:  # the commonest node, and a leaf
            facts = self.scope.facts
            if facts is not None:
                if n.value in self.module_defs or n.value in self.scope.local_defs:
                    ref = self.name_ref(n.value)
                    if (
                        ref is not None
                        and ref not in facts.refs
                        and id(node) not in self._called_names
                    ):
                        facts.refs.append(ref)
            hooks = self.hooks.get(t)
            if hooks:
                for h in hooks:
                    h(node)
            return
        if t is cst.Lambda:
            self.fire(node)
            return
        if t is cst.Call:
            self._record_call(n)
            self._grow_list(n)
            self._size_params(n)
            self._tensor_method_param(n)
        elif t is cst.Attribute:
            self._object_param_attr(n)
        elif t is cst.NamedExpr:
            self.fire(node)
            self.visit_expr(n.value)
            self.bind(n.target, self.value(n.value))
            return
        elif t in _COMPREHENSIONS:
            self._visit_comprehension(node)
            return
        elif t is cst.BooleanOperation:
            # `not is_compiling() and bool(cond)`, `x or is_compiling() or y`: torch.compile
            # never evaluates the right operand (no findings, no calls into it)
            # `self.training and random() < p`: the right operand runs in training only (in eval
            # only after `not self.training and`, or after `self.training or`)
            self.fire(node)
            self.visit_expr(n.left)
            false, true = self._compiling_guard(n.left)
            conj = isinstance(n.operator, cst.And)
            skip = false if conj else true
            mode = _mode_test(n.left)[0 if conj else 1]
            self.untraced_depth += skip
            self._enter_mode(mode, 1)
            self.visit_expr(n.right)
            self._enter_mode(mode, -1)
            self.untraced_depth -= skip
            return
        elif t is cst.IfExp:
            # `a if torch.jit.is_tracing() else b`: the branch torch.compile does not take is
            # not traced (no findings, no calls into it)
            # (`randrange(n) + 1 if self.training else None`: the body runs in training only)
            self.fire(node)
            self.visit_expr(n.test)
            skip_body, skip_else = self._compiling_guard(n.test)
            modes = _mode_test(n.test)
            for branch, skip, mode, is_body in (
                (n.body, skip_body, modes[0], True),
                (n.orelse, skip_else, modes[1], False),
            ):
                self.untraced_depth += skip
                self._enter_mode(mode, 1)
                restore = self._branch_narrowing(n.test, is_body)
                self.visit_expr(branch)
                self._unnarrow(restore)
                self._enter_mode(mode, -1)
                self.untraced_depth -= skip
            return
        hooks = self.hooks.get(t)
        if hooks:
            for h in hooks:
                h(node)
        if t in _LEAVES:
            return
        # the children, as ``iter_children`` gives them
        for name in _FIELDS.get(t) or child_fields(t):
            v = getattr(n, name)
            vt = type(v)
            if vt in _NODE_TYPES:
                self.visit_expr(v)
            elif vt is tuple or vt is list:
                for item in v:
                    if _is_node(item):
                        self.visit_expr(item)
            elif vt not in _NOT_NODES and isinstance(v, cst.CSTNode):
                self.visit_expr(v)

    def _object_param(self, name: str) -> None:
        facts = self.scope.facts
        if facts is not None and name not in facts.object_params and self._is_param(name):
            facts.object_params.append(name)

    def _object_param_attr(self, node: cst.Attribute) -> None:
        """``p.<attr>`` with an attribute ``torch.Tensor`` does not have: ``p`` is no tensor."""
        base, attr = node.value, node.attr.value
        if (
            isinstance(base, cst.Name)
            and base.value not in ("self", "cls")
            and not (attr.startswith("__") and attr.endswith("__"))
            and attr not in N.TENSOR_ATTRIBUTES
        ):
            self._object_param(base.value)

    def _size_params(self, node: cst.Call) -> None:
        """Parameters passed as a size: ``range(n)``, ``torch.zeros(n, d)``, ``torch.ones((i, j))``,
        ``size=(n, d)``."""
        q = self.qualify(node.func)
        if q != "range" and q not in N.SIZE_FACTORIES:
            return
        if q == "range" and self.shadowed("range"):
            return
        for a in node.args:
            if a.star or (a.keyword is not None and a.keyword.value != "size"):
                continue
            v = a.value
            els = [e.value for e in v.elements] if isinstance(v, (cst.Tuple, cst.List)) else [v]
            for e in els:  # `torch.ones((i, j))`, `size=(n, d)`
                if isinstance(e, cst.Name):
                    self._object_param(e.value)

    def _visit_comprehension(self, node: Any) -> None:
        self.fire(node)
        comp = node.for_in
        saved = dict(self.scope.env)
        self.loop_depth += 1
        while comp is not None:
            self.visit_expr(comp.iter)
            self.bind_iter(comp.target, comp.iter)
            for cond in comp.ifs:
                self.visit_expr(cond)
            comp = comp.inner_for_in
        if isinstance(node, cst.DictComp):
            self.visit_expr(node.key)
            self.visit_expr(node.value)
            self.value(node.value)  # while the targets are bound
        else:
            self.visit_expr(node.elt)
            self.value(node.elt)
        self.loop_depth -= 1
        self.scope.env = {**saved, **{k: v for k, v in self.scope.env.items() if k in saved}}

    def _grow_list(self, node: cst.Call) -> None:
        """``out.append(t)`` / ``out.extend(ts)`` on a local list: its elements may be ``t``."""
        f = node.func
        if not (
            isinstance(f, cst.Attribute)
            and f.attr.value in ("append", "extend", "insert")
            and isinstance(f.value, cst.Name)
            and node.args
        ):
            return
        name = f.value.value
        cur = self.scope.env.get(name)
        if cur is None or cur[0] != "Q":
            return
        new = self.value(node.args[-1].value)
        if f.attr.value == "extend":
            new = V.iter_elem(new)
        self.scope.env[name] = V.seq(
            cur[1], None, V.join(cur[3], new) if cur[3] != V.UNKNOWN else new
        )

    def _record_call(self, node: cst.Call) -> None:
        facts = self.scope.facts
        q = self.qualify(node.func)
        if q in N.COMPILE_CALLS and node.args:
            ref = self._compile_target(node.args[0].value)
            if ref:
                self.compiled_refs.append(ref)
        elif q in N.ALLOW_IN_GRAPH_CALLS and node.args:
            ref = self._compile_target(node.args[0].value)
            if ref:
                self.graph_op_sites.append((ref, self.scope.qual))
        if facts is None and not self.class_stack:
            ref = self.callee_ref(node.func)
            if ref:
                self.module_calls.add(ref)
                if self.main_guard and ref not in self.script_refs:
                    self.script_refs.append(ref)
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("register_buffer", "register_parameter")
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == "self"
            and self.cls is not None
            and node.args
        ):
            # a literal name, or an f-string's (``register_buffer(f"running_{stat}", ...)``)
            name = attr_name_key(node.args[0].value)
            if name is not None:
                self.cls.attrs[name] = [V.TENSOR]
        if (
            type(node.func) is cst.Name
            and node.func.value == "setattr"
            and len(node.args) == 3
            and not any(a.star or a.keyword for a in node.args)
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value == "self"
            and self.cls is not None
            and not self.shadowed("setattr")
        ):
            # `setattr(self, f"to_{n}", nn.Linear(d, d))` stores as `self.to___dyn__ = ...`
            name = attr_name_key(node.args[1].value)
            if name is not None:
                target = cst.Attribute(value=cst.Name("self"), attr=cst.Name(name))
                src = node.args[2].value
                self.bind(target, self.value(src), src)
                self.bind_self_attr_classes(target, src)
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _FORWARD_HOOK_REGISTRARS
            and node.args
        ):
            # a forward (pre-)hook runs inside the module's call, so torch.compile traces it
            ref = self._compile_target(node.args[0].value)
            if ref and ref not in self.compiled_refs:
                self.compiled_refs.append(ref)
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend")
            and isinstance(node.func.value, cst.Attribute)
            and isinstance(node.func.value.value, cst.Name)
            and node.func.value.value.value == "self"
            and self.cls is not None
            and node.func.value.attr.value in self.cls.attr_classes
            and len(node.args) == 1
            and isinstance(node.args[0].value, cst.Call)
        ):
            # self.layers.append(Block(...)) (in a loop: repeated instances of Block)
            el = node.args[0].value.func
            r = self.callee_ref(el) or self.qualify(el)
            lst = self.cls.attr_classes[node.func.value.attr.value]
            if r and f"*{r}" not in lst:
                lst.append(f"*{r}")
        if (
            isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
            and node.func.attr.value in ("update", "pop", "setdefault", "clear", "popitem")
        ):
            self.scope.kwdicts.pop(node.func.value.value, None)  # a dict changed in place
            self.scope.changed_dicts.add(node.func.value.value)
        if (
            type(node.func) is cst.Name
            and node.func.value == "super"
            and node.args
            and type(node.args[0].value) is cst.Name
        ):
            # `super(Cls, self)` names the class to find the next one in its MRO: neither a
            # construction of it nor a reference that escapes (its constructions stay known)
            self._called_names.add(id(node.args[0].value))
            self._super_args.add(id(node))
        if facts is None or self.untraced_depth:
            return  # calls in code torch.compile does not trace do not make their callees traced
        if isinstance(node.func, cst.Name) and self._closure_param(node.func.value):
            facts.calls_closure_param = True
            if not facts.closure_call:
                facts.closure_call = [node.func.value, 0]
                self.closure_calls.append((facts, node))
                self.stmt_of.setdefault(id(node), self.current_stmt)
        ref = self.callee_ref(node.func)
        sub = self._submodule_call_refs(node.func, ref)
        bound_conds: dict[str, list[str]] = {}
        if sub:
            refs = sub
        elif ref is not None:
            refs = [ref]
        else:  # `fn(...)` with `fn = splines.spline` under the conditions of its binding
            bound_conds = dict(self._aliases(node.func))
            refs = list(bound_conds)
        if not refs:
            if (
                self.conds
                and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name)
                and node.func.value.value in self.scope.env
                and not V.sources(self.scope.env[node.func.value.value])
            ):  # a method of an object bound here (not a tensor's: `x.view(...)`)
                self.cond_calls.append((facts, node, list(self.conds)))
                self.stmt_of.setdefault(id(node), self.current_stmt)
            # functions passed as arguments (checkpoint(self.block, x), map(fn, xs), ...)
            for a in () if id(node) in self._super_args else node.args:
                r = self._func_ref_of(a.value)
                if r and r not in facts.refs:
                    facts.refs.append(r)
            return
        args: list[Value] = []
        kwargs: dict[str, Value] = {}
        fwd: dict[str, str] = {}
        gfwd: dict[str, list[Any]] = {}
        kwalts: list[dict[str, Value]] = []
        never_none: list[str] = []
        arg_names: list[tuple[str, str]] = []  # (position or keyword, name) in a loop
        if self.loop_depth and not any(a.star == "*" for a in node.args):
            for i, a in enumerate(node.args):
                if isinstance(a.value, cst.Name) and not a.star:
                    key = a.keyword.value if a.keyword is not None else str(i)
                    arg_names.append((key, a.value.value))
        for a in node.args:
            tv = self.value(a.value)
            slot = None
            if a.keyword is not None:
                kwargs[a.keyword.value] = tv
                slot = a.keyword.value
            elif a.star == "**":
                # **kwargs: its keys are not known here (the site is marked `star`), but for
                # those a dict bound here certainly holds (`Codebook(**codebook_kwargs)`)
                if isinstance(a.value, cst.Name):
                    for k, (kv, fref) in self.scope.kwdicts.get(a.value.value, {}).items():
                        if k not in kwargs:
                            kwargs[k] = kv
                            gs = self.scope.kwguards.get((a.value.value, k))
                            if fref and gs:
                                gfwd[k] = [fref, gs]
                            elif fref:
                                fwd[k] = fref
                    alts = self.scope.kwalts.get(a.value.value)
                    if (
                        alts
                        and sum(b.star == "**" for b in node.args) == 1
                        and a.value.value not in self.scope.changed_dicts
                    ):
                        # a local bound only to dicts of literal keys: the call passes the
                        # keys of one of them (`spline_fn(..., **spline_kwargs)`)
                        kwalts = alts
                    if sum(b.star == "**" for b in node.args) == 1 and self._kwargs_param(
                        a.value.value
                    ):
                        # the function's own `**kwargs` passed on unchanged: a keyword the
                        # call leaves to it holds what the function's callers pass by that
                        # keyword (`super().__init__(sde=sde, **kwargs)`)
                        fwd[KWARGS_SLOT] = f"P|{facts.qual}|{a.value.value}"
            else:
                args.append(tv)
                slot = str(len(args) - 1) if not a.star else None
            if slot is not None and isinstance(a.value, cst.Name):
                if self._is_param(a.value.value):
                    fwd[slot] = f"P|{facts.qual}|{a.value.value}"
                elif gs := self._param_guards(a.value.value):
                    gfwd[slot] = [f"P|{facts.qual}|{a.value.value}", gs]
            if slot is not None and _never_none(a.value):
                never_none.append(slot)
            r = self._func_ref_of(a.value)
            if r and r not in facts.refs:
                facts.refs.append(r)
        star = any(a.star for a in node.args)
        kwstar = star and all(a.star in ("", "**") for a in node.args)
        for r in refs:
            site = CallSite(
                ref=r,
                args=args,
                kwargs=kwargs,
                in_loop=self.loop_depth > 0,
                star=star,
                kwstar=kwstar,
                conds=list(self.conds) + [c for c in bound_conds.get(r, ()) if c not in self.conds],
                fwd=fwd,
                branch=self.loose_depth > 0,
                never_none=never_none,
                kwalts=[dict(d) for d in kwalts] if kwalts else [],
                gfwd=gfwd,
            )
            facts.calls.append(site)
            if arg_names:
                self._arg_names.put(site, arg_names)
            self.call_nodes.append((site, node))
            self.stmt_of.setdefault(id(node), self.current_stmt)
        if isinstance(node.func, cst.Name):
            self._called_names.add(id(node.func))

    def _submodule_call_refs(self, func: cst.BaseExpression, ref: str | None) -> list[str]:
        """Calls into a submodule whose class ``__init__`` shows: ``self.block(x, dims)`` and
        ``block(x, dims)`` over ``self.blocks`` call that class's ``forward`` (so its parameters
        get the values the parent passes), ``self.encoder.set_mode()`` one of its methods."""
        cls = self.cls
        if cls is None:
            return []
        if isinstance(func, cst.Attribute):
            recv = func.value
            if isinstance(recv, cst.Name) and recv.value == "self":
                attr = func.attr.value
                if ref == f"M|{cls.qual}|{attr}" and attr not in cls.methods:
                    return self._attr_class_refs(attr, "forward")
                return []
            if ref is not None:
                return []
            return self._submodule_method_refs(func)
        if isinstance(func, cst.Name) and ref is None:
            refs: list[str] = []
            for held in self._self_attrs_of(func.value):
                refs += [r for r in self._attr_class_refs(held, "forward") if r not in refs]
            if refs:
                return refs
        if (
            isinstance(func, cst.Subscript)
            and ref is None
            and isinstance(func.value, cst.Attribute)
            and isinstance(func.value.value, cst.Name)
            and func.value.value.value == "self"
        ):
            # self.layer[0](x): an element of a module list whose elements' classes show
            return self._attr_class_refs(func.value.attr.value, "forward")
        return []

    def _self_attrs_of(self, name: str) -> list[str]:
        """The ``self.<attr>`` attributes a local name holds (or holds an element of), in name
        order: all of them where the name joins several (``blocks = self.a if c else self.b``;
        one picked from the join would depend on the interpreter's hash seed)."""
        cls = self.cls
        if cls is None:
            return []
        prefix = f"A|{cls.qual}|"
        out: set[str] = set()
        for m in V.members(self.lookup(name) or V.UNKNOWN):
            if m[0] == "Y" and m[1].startswith(prefix):
                base, steps = V.split_source(m[1])
                if all(st == "*" or st.isdigit() for st in steps):
                    out.add(base[len(prefix) :])
        return sorted(out)

    def _attr_class_refs(self, attr: str, meth: str, module_call: bool = True) -> list[str]:
        """Refs of method ``meth`` of the classes ``self.<attr>`` holds; ``module_call``: the
        object itself is called (``self.kernel(x)``), not its method by name
        (``self.base_kernel.forward(x)``, which runs no ``__call__``)."""
        cls = self.cls
        if cls is None:
            return []
        out: list[str] = []
        for r in cls.attr_classes.get(attr, ()):
            r = r.removeprefix("*")
            if r[:2] in ("Q|", "D|"):
                out.append(f"{r}.{meth}")
                if (
                    module_call
                    and meth == "forward"
                    and (
                        (r.startswith("D|") and not r.startswith("D|torch."))
                        or self._defines_call(r)
                    )
                ):
                    # a `__call__` that an imported class's MRO defines runs first (gpytorch's
                    # `Kernel.__call__` checks its inputs, then calls `forward`); it resolves
                    # only where one is defined (classes of the scanned files: not looked for,
                    # each unresolved ref costs a lookup per round). A class of this file
                    # above defining one: a plain object held on the module and called
                    # (transformers' logits processors, `self.processor(input_ids, scores)`)
                    out.append(f"{r}.__call__")
        return out

    def _defines_call(self, ref: str) -> bool:
        """``Q|Cls``: a class of this file, walked already, whose body defines ``__call__``."""
        if not ref.startswith("Q|"):
            return False
        cf = self.classes.get(ref[2:])
        return cf is not None and "__call__" in cf.methods

    def _submodule_method_refs(self, func: cst.BaseExpression) -> list[str]:
        """``self.encoder.set_mode(...)`` / ``layer.set_mode(...)`` over ``self.layers``: a
        method of a submodule whose class ``__init__`` shows (``self.encoder = Encoder(...)``,
        ``nn.ModuleList([Layer() ...])``); dynamo inlines it like any other call."""
        if not isinstance(func, cst.Attribute) or self.cls is None:
            return []
        meth = func.attr.value
        if meth.startswith("__") or meth in N.TENSOR_METHODS:
            return []
        recv = func.value
        attrs: list[str] = []
        if (
            isinstance(recv, cst.Attribute)
            and isinstance(recv.value, cst.Name)
            and recv.value.value == "self"
        ):
            attrs = [recv.attr.value]
        elif isinstance(recv, cst.Name):
            attrs = self._self_attrs_of(recv.value)
        refs: list[str] = []
        for attr in attrs:
            refs += [
                r for r in self._attr_class_refs(attr, meth, module_call=False) if r not in refs
            ]
        return refs

    def _own_method_store(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """In an ``__init__``, ``self.<attr> = <expr>`` where the expression names a method of
        the class on ``self`` without calling it (``FunctionFacts.binds_own_method``)."""
        facts = self.scope.facts
        cls = self.cls
        if (
            facts is None
            or cls is None
            or facts.name != "__init__"
            or facts.binds_own_method
            or not isinstance(target, cst.Attribute)
            or not isinstance(target.value, cst.Name)
            or target.value.value != "self"
        ):
            return
        stack: list[cst.CSTNode] = [value]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Call):
                stack.extend(a.value for a in n.args)  # not its func: `self.m(...)` is a call
                if not (
                    isinstance(n.func, cst.Attribute)
                    and isinstance(n.func.value, cst.Name)
                    and n.func.value.value == "self"
                ):
                    stack.append(n.func)
                continue
            if (
                isinstance(n, cst.Attribute)
                and isinstance(n.value, cst.Name)
                and n.value.value == "self"
                and n.attr.value in cls.methods
            ):
                facts.binds_own_method = True
                return
            stack.extend(iter_children(n))

    def _alias_functions(self, name: str, src: cst.BaseExpression) -> None:
        """Record the functions a local name is bound to (``fn = helper``, ``fn =
        splines.spline if c else other.spline``), so that ``fn(...)`` is a call of each."""
        refs: list[str] = []
        for e in (src.body, src.orelse) if isinstance(src, cst.IfExp) else (src,):
            r = self._func_ref_of(e)
            if r is None and isinstance(e, cst.Attribute):
                # a function of an imported module (`splines.rational_quadratic_spline`)
                head = (dotted(e) or "").split(".", 1)[0]
                q = self.qualify(e) if head in self.imports else None
                if q is not None and q.split(".", 1)[0] != "torch":
                    r = f"D|{q}"
            if r is None and isinstance(e, cst.Name) and e.value in self.imports:
                r = self.name_ref(e.value)
            if r is not None:
                refs.append(r)
        if refs:
            got = self.scope.func_aliases.setdefault(name, [])
            got.extend((r, list(self.conds)) for r in refs if all(r != g for g, _ in got))

    def _aliases(self, func: cst.BaseExpression) -> list[tuple[str, list[str]]]:
        """The functions a called local name was bound to, each with the conditions in force
        where it was bound (see :meth:`_alias_functions`)."""
        if not isinstance(func, cst.Name):
            return []
        s: Scope | None = self.scope
        while s is not None:
            if func.value in s.func_aliases:
                return list(s.func_aliases[func.value])
            if func.value in s.env:
                return []
            s = s.parent
        return []

    def _aliased_refs(self, func: cst.BaseExpression) -> list[str]:
        return [r for r, _ in self._aliases(func)]

    def _func_ref_of(self, v: cst.BaseExpression) -> str | None:
        if isinstance(v, cst.Name) and (
            v.value in self.module_defs or v.value in self.scope.local_defs
        ):
            return self.name_ref(v.value)
        if (
            isinstance(v, cst.Attribute)
            and isinstance(v.value, cst.Name)
            and v.value.value == "self"
            and self.cls is not None
            and v.attr.value in self.cls.methods
        ):
            return f"M|{self.cls.qual}|{v.attr.value}"
        return None

    def graph_op_refs(self) -> list[str]:
        """The functions registered with ``allow_in_graph`` when this module is imported: at
        module level, or in a function the module calls at module level."""
        out: list[str] = []
        for ref, enclosing in self.graph_op_sites:
            if (not enclosing or f"Q|{enclosing}" in self.module_calls) and ref not in out:
                out.append(ref)
        return out

    def _compile_target(self, v: cst.BaseExpression) -> str | None:
        if isinstance(v, cst.Name):
            return self.name_ref(v.value)
        if isinstance(v, cst.Attribute):
            if isinstance(v.value, cst.Name) and v.value.value == "self" and self.cls is not None:
                return f"M|{self.cls.qual}|{v.attr.value}"
            q = self.qualify(v)
            if q:
                return f"D|{q}"
        return None

    # statements ---------------------------------------------------------------------------
    def walk_module(self) -> None:
        self.declare()
        self.fire(self.module)
        self.visit_block(self.module.body)

    def declare(self) -> None:
        """Pre-declare top-level names so forward references resolve."""
        for stmt in self.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.module_defs[stmt.name.value] = stmt.name.value
                if isinstance(stmt, cst.ClassDef):
                    self.class_defs.add(stmt.name.value)
                elif (op := C.none_test_function(stmt)) is not None:
                    self.none_tests[stmt.name.value] = op
                elif len(stmt.params.params) > 2:
                    pass  # (neither helper below takes more than two parameters)
                elif (op := C.distributed_test_function(stmt)) is not None:
                    self.none_tests[stmt.name.value] = op
                elif C.default_function(stmt, self.none_tests.get):
                    self.none_tests[stmt.name.value] = C.DEFAULT_OP

    def walk_top(self, start: int, stop: int) -> None:
        """Walk the module's top-level statements ``start`` to ``stop`` (``walk_module``
        walks them all through ``visit_block``, which at module level does nothing but visit
        each statement: the module scope has no function facts, so no condition carries from
        one statement to the next)."""
        assert self.scope is self.module_scope and self.scope.facts is None and not self.conds
        body = self.module.body
        for i in range(start, stop):
            self.visit_stmt(body[i])

    def visit_block(self, body: Sequence[cst.CSTNode]) -> None:
        saved = len(self.conds)
        dead = 0
        for stmt in body:
            self.visit_stmt(stmt)
            if (
                isinstance(stmt, cst.If)
                and stmt.orelse is None
                and self.scope.facts is not None
                and C.terminates(stmt.body)
            ):
                # `if param is None: return ...`: the rest of the block runs when it is not
                # (a dtype or device test says nothing about the rest: C.INPUT_OPS)
                self.conds.extend(
                    c for c in self._conds_of(stmt.test)[1] if C.decode(c)[1] not in C.INPUT_OPS
                )
                if not dead and self._compiling_guard(stmt.test)[1]:
                    # `if ... or is_compiling(): return`: torch.compile never runs the rest
                    dead = 1
                    self.untraced_depth += 1
        self.untraced_depth -= dead
        del self.conds[saved:]

    def _annotation_class(self, ann: cst.Annotation | None) -> str | None:
        """The ref of a class named by a parameter annotation (``bm: BaseBrownian``,
        ``Optional[Kernel]``, ``Kernel | None``, ``"Kernel"``), when this file defines or
        imports it; None for builtins, typing and torch types."""
        if ann is None:
            return None
        expr: cst.BaseExpression = ann.annotation
        if isinstance(expr, cst.Subscript) and dotted(expr.value) in (
            "Optional",
            "typing.Optional",
        ):
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
                expr = expr.slice[0].slice.value
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            sides = [x for x in (expr.left, expr.right) if dotted(x) != "None"]
            if len(sides) != 1:
                return None
            expr = sides[0]
        name = dotted(expr)
        if name is None and isinstance(expr, cst.SimpleString):
            ev = expr.evaluated_value
            name = ev if isinstance(ev, str) and ev.isidentifier() else None
        if name is None or not name.rsplit(".", 1)[-1][:1].isupper():
            return None
        head = name.split(".", 1)[0]
        if head not in self.module_defs and head not in self.imports:
            return None
        rest = name[len(head) :]
        q = f"{self.imports[head]}{rest}" if head in self.imports else name
        if q.split(".", 1)[0] in ("torch", "typing", "collections", "numpy") or (
            name.rsplit(".", 1)[-1] in N.TENSORISH_ANNOTATION_WORDS
        ):
            return None
        return f"Q|{name}" if head in self.module_defs else f"D|{q}"

    def _kwargs_param(self, name: str) -> bool:
        """``name`` is the function's ``**kwargs`` parameter, neither rebound nor changed in
        place so far."""
        facts = self.scope.facts
        return (
            facts is not None
            and any(p.name == name and p.index == -3 for p in facts.params)
            and name not in self.scope.changed_dicts
            and name not in self.scope.rebound
            and self.scope.env.get(name) == V.sym(f"P|{facts.qual}|{name}")
        )

    def _is_param(self, name: str) -> bool:
        # not assigned so far: a parameter annotated as a non-tensor type starts as a plain
        # value (``V.UNKNOWN``), which an assignment of another unknown value would equal
        start = self.scope.params.get(name)
        return (
            start is not None
            and name not in self.scope.rebound
            and self.scope.env.get(name) == start
        )

    def _rebind_param(self, name: str) -> None:
        """Record a binding of parameter ``name`` (before the scope's environment changes):
        the conditions it runs under, while every binding so far has some."""
        g = self.scope.guarded
        if (
            self.conds
            and (self._is_param(name) or g.get(name) is not None)
            and sum(map(len, self.conds)) < 2000  # (guards nest: keep the facts small)
        ):
            g.setdefault(name, [])
            g[name].append(list(self.conds))
        else:
            g[name] = None

    def _record_passes(self, value: cst.BaseExpression | None) -> None:
        """``FunctionFacts.passes`` from one return statement: the positions of a returned
        tuple that hold a parameter (unassigned, or re-bound only under conditions), kept
        where every return statement so far holds the same one there."""
        facts = self.scope.facts
        assert facts is not None
        got: dict[str, list[Any]] = {}
        if isinstance(value, cst.Tuple) and not any(
            isinstance(e, cst.StarredElement) for e in value.elements
        ):
            for i, el in enumerate(value.elements):
                v = el.value
                if isinstance(v, cst.Name) and self._cond_param(v.value):
                    gs = [] if self._is_param(v.value) else self.scope.guarded[v.value]
                    got[str(i)] = [v.value, list(gs or [])]
        if facts.qual not in self._returned_once:
            self._returned_once.add(facts.qual)
            facts.passes = got
            return
        keep: dict[str, list[Any]] = {}
        for k, (p, gs) in facts.passes.items():
            if k in got and got[k][0] == p:
                keep[k] = [p, gs + [g for g in got[k][1] if g not in gs]]
        facts.passes = keep

    def _handed_back(
        self, target: cst.BaseExpression, value: cst.BaseExpression
    ) -> list[tuple[str, list[Any] | None]]:
        """``..., p, ... = helper(..., p, ...)`` re-binding this function's parameter ``p``
        from what a checking helper hands back: (``p``, its guards with one more that says so,
        ``{"via": callee ref, "slot": position in the tuple, "arg": position or keyword of
        the argument}``, for :meth:`Project.refuted` to check against the helper's
        ``passes``), or None where ``p`` was re-bound otherwise before."""
        if not (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, cst.Call)
            and self.scope.facts is not None
        ):
            return []
        els = target.elements
        if any(isinstance(e, cst.StarredElement) for e in els):
            return []
        ref = self.callee_ref(value.func)
        if ref is None:
            return []
        args: dict[str, str] = {}  # argument name -> position or keyword
        for i, a in enumerate(value.args):
            if a.star:
                return []
            if isinstance(a.value, cst.Name):
                args.setdefault(a.value.value, a.keyword.value if a.keyword else str(i))
        out: list[tuple[str, list[Any] | None]] = []
        for k, el in enumerate(els):
            v = el.value
            if not (isinstance(v, cst.Name) and v.value in self.scope.params and v.value in args):
                continue
            prev = [] if self._is_param(v.value) else self.scope.guarded.get(v.value)
            via = {"via": ref, "slot": str(k), "arg": args[v.value]}
            out.append((v.value, None if prev is None else [*prev, via]))
        return out

    def _cond_param(self, name: str) -> bool:
        """A parameter a test can be about: still unassigned, or re-bound only under
        conditions (the test's conditions then say so, :func:`conds.guarded`)."""
        return self._is_param(name) or self.scope.guarded.get(name) is not None

    def param_cond(self, cond: str) -> str:
        """``cond`` (about a parameter :meth:`_cond_param` accepts) with the guards of the
        parameter's re-bindings so far, if any."""
        p, op, lit = C.decode(cond)
        fb = self.scope.fallbacks.get(p)
        if fb is not None and not self._is_param(p):
            return C.encode(C.fallback(p, fb), op, lit)
        gs = self.scope.guarded.get(p)
        return C.guarded(cond, gs) if gs and not self._is_param(p) else cond

    def _conds_of(self, test: cst.BaseExpression) -> tuple[list[str], list[str]]:
        if self.scope.facts is None:
            return [], []
        fbs = self.scope.fallbacks
        is_param = (lambda n: self._cond_param(n) or n in fbs) if fbs else self._cond_param
        body, orelse = C.parse(
            test, is_param, self._alias, none_test=self._none_test, global_ref=self._test_global
        )
        if any(self.scope.guarded.values()) or fbs:
            body = [self.param_cond(c) for c in body]
            orelse = [self.param_cond(c) for c in orelse]
        return body, orelse

    def _exact(self, test: cst.BaseExpression) -> tuple[bool, bool]:
        if self.scope.facts is None:
            return False, False
        return C.exact(test, self._is_param, self._alias, none_test=self._none_test)

    def _none_test(self, name: str) -> str | None:
        """``"isnot"``/``"is"`` when ``name`` calls this module's ``exists``-style helper (not
        shadowed by a parameter or local of the function); :data:`conds.DIST_OP` when it is
        ``torch.distributed.is_initialized`` or a helper returning it."""
        if "." in name:
            # `dist.is_initialized()`: torch.distributed's own test, as this module imports it
            head, _, rest = name.rpartition(".")
            return C.DIST_OP if rest == "is_initialized" and self._torch_distributed(head) else None
        op = self.none_tests.get(name)
        if op is None or name in self.scope.env or name in self.scope.params:
            return None
        if op.startswith(C.DIST_OP + ":"):
            # a helper returning `<receiver>.is_initialized()` (and more)
            return C.DIST_OP if self._torch_distributed(op[len(C.DIST_OP) + 1 :]) else None
        return op

    def _torch_distributed(self, name: str) -> bool:
        """Whether dotted ``name`` is ``torch.distributed`` as this module imports it (``dist``
        of ``import torch.distributed as dist``, ``torch.distributed``), not shadowed by a
        parameter or local of the function."""
        head, _, rest = name.partition(".")
        if head in self.scope.env or head in self.scope.params or head not in self.imports:
            return False
        return f"{self.imports[head]}.{rest}".rstrip(".") == "torch.distributed"

    def _alias(self, name: str) -> cst.BaseExpression | None:
        """The expression a local variable of this function was bound to once."""
        return self.scope.aliases.get(name)

    def visit_stmt(self, stmt: cst.CSTNode) -> None:
        prev = self.current_stmt
        self.current_stmt = stmt
        t = type(stmt)
        if t is cst.SimpleStatementLine:
            for small in stmt.body:  # type: ignore[attr-defined]
                self.visit_small(small)
        elif t is cst.FunctionDef:
            self.visit_function(stmt)  # type: ignore[arg-type]
        elif t is cst.ClassDef:
            self.visit_class(stmt)  # type: ignore[arg-type]
        elif t is cst.If:
            self.visit_if(stmt)  # type: ignore[arg-type]
        elif t in (cst.For, cst.While):
            self.fire(stmt)
            n: Any = stmt
            if t is cst.For:
                self.visit_expr(n.iter)
                self.bind_iter(n.target, n.iter)
            else:
                self.visit_expr(n.test)
            saved = dict(self.scope.env)
            facts = self.func
            first = len(facts.calls) if facts is not None else 0
            self.loop_depth += 1
            self.visit_suite(n.body)
            self.loop_depth -= 1
            if facts is not None and len(facts.calls) > first:
                self._mark_carried(facts.calls[first:], saved)
            self._merge_env(saved, [self.scope.env])
            if n.orelse is not None:
                self.visit_suite(n.orelse.body)
        elif t is cst.With:
            self.fire(stmt)
            w: cst.With = stmt  # type: ignore[assignment]
            for item in w.items:
                self.visit_expr(item.item)
                if item.asname is not None:
                    self.bind(item.asname.name, self.value(item.item))
            self.visit_suite(w.body)
        elif t in (cst.Try, cst.TryStar):
            self.fire(stmt)
            tr: Any = stmt
            self.try_depth += 1
            self.visit_suite(tr.body)
            self.try_depth -= 1
            for h in tr.handlers:
                self.fire(h)
                if h.type is not None:
                    self.visit_expr(h.type)
                self.branch_depth += 1
                self.loose_depth += 1
                self.visit_suite(h.body)
                self.loose_depth -= 1
                self.branch_depth -= 1
            if tr.orelse is not None:
                self.visit_suite(tr.orelse.body)
            if tr.finalbody is not None:
                self.visit_suite(tr.finalbody.body)
        elif t is cst.Match:
            self.fire(stmt)
            m: Any = stmt
            self.visit_expr(m.subject)
            for case in m.cases:
                self.visit_suite(case.body)
        else:
            self.fire(stmt)
            for child in iter_children(stmt):
                if isinstance(child, cst.BaseSuite):
                    self.visit_suite(child)
                elif isinstance(child, cst.BaseExpression):
                    self.visit_expr(child)
        self.current_stmt = prev

    def visit_suite(self, suite: cst.BaseSuite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self.visit_block(suite.body)
        elif isinstance(suite, cst.SimpleStatementSuite):
            for small in suite.body:
                self.visit_small(small)

    def visit_small(self, small: cst.BaseSmallStatement) -> None:
        t = type(small)
        if t is cst.Import:
            for alias in small.names:  # type: ignore[attr-defined]
                full = dotted(alias.name) or ""
                if alias.asname is not None:
                    self.imports[alias.asname.name.value] = full
                else:
                    head = full.split(".", 1)[0]
                    self.imports[head] = head
            self.fire(small)
            return
        if t is cst.ImportFrom:
            self._import_from(small)  # type: ignore[arg-type]
            self.fire(small)
            return
        self.fire(small)
        if t is cst.Assign:
            a: cst.Assign = small  # type: ignore[assignment]
            self.visit_expr(a.value)
            tv = self.value(a.value)
            for tgt in a.targets:
                self._module_all(tgt.target, a.value, extend=False)
            for tgt in a.targets:
                self.visit_expr(tgt.target)
                if (
                    tv[0] == "T"
                    and tv != V.CONST_TENSOR
                    and isinstance(tgt.target, (cst.Tuple, cst.List))
                    and len(tgt.target.elements) > 1
                    and self._opaque_module_call(a.value)
                ):
                    # `hidden, height, width = layer(x)` with a module we cannot see: its
                    # forward returns a tuple, not one tensor split along dim 0; what each
                    # position holds is unknown (a tensor and two ints in PVT/GLPN)
                    self.bind(tgt.target, V.UNKNOWN)
                    continue
                handed = self._handed_back(tgt.target, a.value)
                self.bind(tgt.target, tv, a.value)
                if isinstance(tgt.target, cst.Name):
                    self._alias_functions(tgt.target.value, a.value)
                for name, guard in handed:
                    self.scope.guarded[name] = guard
                self.bind_self_attr_classes(tgt.target, a.value)
                self._own_method_store(tgt.target, a.value)
                if (
                    tv[0] == "T"
                    and tv != V.CONST_TENSOR
                    and isinstance(tgt.target, cst.Name)
                    and self._opaque_module_call(a.value)
                ):
                    self.scope.module_outputs.add(tgt.target.value)
        elif t is cst.AnnAssign:
            aa: cst.AnnAssign = small  # type: ignore[assignment]
            if aa.value is not None:
                self.visit_expr(aa.value)
                tv = self.value(aa.value)
                if _ann_kind(aa.annotation) == "tensor":
                    tv = V.join(tv, V.TENSOR)
                self.bind(aa.target, tv, aa.value)
                self.bind_self_attr_classes(aa.target, aa.value)
        elif t is cst.AugAssign:
            ag: cst.AugAssign = small  # type: ignore[assignment]
            self._module_all(ag.target, ag.value, extend=True)
            self.visit_expr(ag.value)
            self.visit_expr(ag.target)
            tv = self._binop(self.value(ag.target), self.value(ag.value))
            self.bind(ag.target, tv)
        elif t is cst.Return:
            r: cst.Return = small  # type: ignore[assignment]
            if r.value is not None:
                self.visit_expr(r.value)
                if self.scope.facts is not None:
                    self._returned_def(r.value)
                    self._record_passes(r.value)
                    rv = V.untokened(self.value(r.value))
                    if rv not in self.scope.facts.returns:
                        self.scope.facts.returns.append(rv)
            elif self.scope.facts is not None:
                self._record_passes(None)
                if V.NONE not in self.scope.facts.returns:
                    self.scope.facts.returns.append(V.NONE)
        elif t in (cst.Global, cst.Nonlocal, cst.Pass, cst.Break, cst.Continue):
            return
        else:
            if t is cst.Del:
                for sub in _del_names(small.target):  # type: ignore[attr-defined]
                    self.scope.kwdicts.pop(sub, None)  # `del kw["eps"]`
                    self.scope.changed_dicts.add(sub)
            for child in iter_children(small):
                self.visit_expr(child)

    def _closure_param(self, name: str) -> bool:
        """Whether ``name`` is a parameter of an enclosing function (not rebound here)."""
        if name in self.scope.env or name in self.scope.local_defs:
            return False
        s = self.scope.parent
        while s is not None and s.facts is not None:
            if name in s.local_defs:
                return False
            if any(p.name == name for p in s.facts.params):
                return True
            if name in s.env:
                return False
            s = s.parent
        return False

    def _returned_def(self, value: cst.BaseExpression) -> None:
        """``return wrapper`` / ``return wrapped_fn(func)`` of a nested def (decorators)."""
        facts = self.scope.facts
        assert facts is not None
        if isinstance(value, cst.Name) and value.value in self.scope.local_defs:
            q = self.scope.local_defs[value.value]
            if q not in facts.returned_defs:
                facts.returned_defs.append(q)
        elif isinstance(value, cst.Name) and value.value[:1].isupper():
            ref = self.name_ref(value.value)  # None for a local variable
            if ref is not None and ref not in facts.returned_names:
                facts.returned_names.append(ref)
        elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            name = value.func.value
            if name in self.scope.local_defs:
                q = self.scope.local_defs[name]
            elif (
                name in self.module_defs
                and name not in self.class_defs
                and name not in self.scope.params
                and (self.scope.parent is None or self.scope.parent.facts is None)
            ):
                # a decorator that hands over to another of its module (gpytorch's
                # ``cached(method, name)`` returns ``_cached(method=method, name=name)``)
                q = self.module_defs[name]
            else:
                return
            if q not in facts.returned_calls:
                facts.returned_calls.append(q)

    def _decorator_sites(self, node: cst.FunctionDef) -> list[CallSite]:
        """Call sites of the decorators that may replace a function by a wrapper closure."""
        out: list[CallSite] = []
        for dec in node.decorators:
            d = dec.decorator
            target = d.func if isinstance(d, cst.Call) else d
            dq = self.qualify(target) or ""
            if (
                dq in N.COMPILE_CALLS
                or dq in N.DISABLE_CALLS
                or dq in N.TORCHSCRIPT_MARKERS
                or dq.rsplit(".", 1)[-1] in _PLAIN_DECORATORS
                or (isinstance(target, cst.Attribute) and target.attr.value in _PLAIN_DECORATORS)
            ):
                continue
            ref = self.callee_ref(target)
            if ref is None or ref.startswith(("M|", "S|")):
                continue
            site = CallSite(ref=ref, args=[], kwargs={}, in_loop=False)
            out.append(site)
            self.call_nodes.append((site, d))
            self.stmt_of.setdefault(id(d), self.current_stmt)
        return out

    def _import_from(self, node: cst.ImportFrom) -> None:
        mod = _module_dotted(node.module)
        if node.relative:
            level = len(node.relative)
            pkg = self.module_name.split(".") if self.module_name else []
            if not self.is_package:
                pkg = pkg[:-1]
            if level > 1:
                pkg = pkg[: len(pkg) - (level - 1)] if level - 1 <= len(pkg) else []
            base = ".".join(pkg)
            mod = f"{base}.{mod}" if base and mod else (base or mod)
        if isinstance(node.names, cst.ImportStar):
            if mod:  # "*<n>" keys: star-imported modules, searched for names not defined here
                self.imports[f"*{sum(k.startswith('*') for k in self.imports)}"] = mod
            return
        for alias in node.names:
            nm = dotted(alias.name) or ""
            local = alias.asname.name.value if alias.asname is not None else nm  # type: ignore[union-attr]
            self.imports[local] = f"{mod}.{nm}" if mod else nm

    def _module_all(
        self, target: cst.BaseExpression, value: cst.BaseExpression, extend: bool
    ) -> None:
        """Record a module-level ``__all__ = [...]`` / ``__all__ += [...]`` of literal names."""
        if not (isinstance(target, cst.Name) and target.value == "__all__"):
            return
        if self.scope.facts is not None or self.class_stack:
            return
        got = C.literal(value)
        if not isinstance(got, list) or not all(isinstance(n, str) for n in got):
            self.all_computed = True
            return
        names = [n for n in got if isinstance(n, str)]
        self.all_names = (self.all_names or []) + names if extend else names

    def visit_if(self, node: cst.If) -> None:
        if self.scope.facts is None and not self.class_stack and _is_main_guard(node.test):
            self.main_guard += 1
            try:
                self._visit_if(node)
            finally:
                self.main_guard -= 1
            return
        self._visit_if(node)

    def _visit_if(self, node: cst.If) -> None:
        self.fire(node)
        self.visit_expr(node.test)
        skip_body, skip_else = self._compiling_guard(node.test)
        body_conds, else_conds = self._conds_of(node.test)
        saved = dict(self.scope.env)
        branches: list[dict[str, Value]] = []
        if skip_body:
            self.untraced_depth += 1
        n = len(self.conds)
        self.conds.extend(body_conds)
        body_mode, else_mode = _mode_test(node.test)
        self._enter_mode(body_mode, 1)
        body_exact, else_exact = self._exact(node.test)
        self.branch_depth += 1
        self.loose_depth += not body_exact
        narrow = self._number_test(node.test) or self._tensor_test(node.test)
        restore = self._narrow(narrow[0], narrow[1]) if narrow and narrow[2] else None
        self.visit_suite(node.body)
        self._unnarrow(restore)
        self.loose_depth -= not body_exact
        self.branch_depth -= 1
        self._enter_mode(body_mode, -1)
        del self.conds[n:]
        if skip_body:
            self.untraced_depth -= 1
        branches.append(self.scope.env)
        self.scope.env = dict(saved)
        orelse = node.orelse
        if orelse is not None:
            if skip_else:
                self.untraced_depth += 1
            self.conds.extend(else_conds)
            self._enter_mode(else_mode, 1)
            self.loose_depth += not else_exact
            restore = self._narrow(narrow[0], narrow[1]) if narrow and not narrow[2] else None
            if isinstance(orelse, cst.If):
                self.visit_if(orelse)
            else:
                self.branch_depth += 1
                self.visit_suite(orelse.body)
                self.branch_depth -= 1
            self._unnarrow(restore)
            self.loose_depth -= not else_exact
            self._enter_mode(else_mode, -1)
            del self.conds[n:]
            if skip_else:
                self.untraced_depth -= 1
        branches.append(self.scope.env)
        self._merge_env(saved, branches)

    def _number_test(self, test: cst.BaseExpression) -> tuple[str, Value, bool] | None:
        """``isinstance(name, (int, float))`` (builtin number and string types, or the
        ``numbers`` ABCs, only): (name, the Python value it then holds, whether that is the
        body's); ``not isinstance(...)``: the ``else``'s. A tensor is none of these types."""
        body = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, body = test.expression, not body
        if not (
            isinstance(test, cst.Call)
            and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance"
            and not self.shadowed("isinstance")
            and len(test.args) == 2
            and isinstance(test.args[0].value, cst.Name)
        ):
            return None
        typ = test.args[1].value
        elems = [e.value for e in typ.elements] if isinstance(typ, cst.Tuple) else [typ]
        kinds: list[Value] = []
        for e in elems:
            if isinstance(e, cst.Name) and e.value in _NUMBER_TYPES and not self.shadowed(e.value):
                kinds.append(V.scalar(_NUMBER_TYPES[e.value]))
            elif self.qualify(e) in _NUMBER_ABCS:
                kinds.append(V.scalar("float"))
            else:
                return None
        if not kinds:
            return None
        return test.args[0].value.value, V.join(*kinds), body

    def _tensor_test(self, test: cst.BaseExpression) -> tuple[str, Value, bool] | None:
        """``torch.is_tensor(name)`` / ``isinstance(name, torch.Tensor)`` (or a tuple of types
        holding ``torch.Tensor``): (name, what it holds where the test is False, whether that is
        the body's: ``not torch.is_tensor(name)``). There it is no tensor, whatever the caller
        passes (``elif mask is not None: x * float(mask)`` never reads tensor data); the side
        where it is one is left as it is (a subclass test, ``torch.FloatTensor``, narrows
        nothing)."""
        body = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, body = test.expression, not body
        if not (
            isinstance(test, cst.Call)
            and test.args
            and isinstance(test.args[0].value, cst.Name)
            and test.args[0].keyword is None
        ):
            return None
        name = test.args[0].value.value
        if len(test.args) == 1 and self.qualify(test.func) == "torch.is_tensor":
            pass
        elif (
            len(test.args) == 2
            and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance"
            and not self.shadowed("isinstance")
        ):
            typ = test.args[1].value
            elems = [e.value for e in typ.elements] if isinstance(typ, cst.Tuple) else [typ]
            if not any(self.qualify(e) == "torch.Tensor" for e in elems):
                return None
        else:
            return None
        cur = self.scope.env.get(name)
        if cur is None:
            return None
        # drop the tensors; a symbolic part (a parameter's value, decided later) may still be
        # any other value
        rest = [V.UNKNOWN if m[0] == "Y" else m for m in V.members(cur) if m[0] != "T"]
        return name, V.join(*rest) if rest else V.UNKNOWN, body

    def _branch_narrowing(
        self, test: cst.BaseExpression, body: bool
    ) -> tuple[str, tuple[Value, Value] | None] | None:
        """Narrow what a type test (``isinstance(n, int)``, ``torch.is_tensor(n)``) tells of a
        name for one side of it (``body``: where it holds): the restore token, or None."""
        narrow = self._number_test(test) or self._tensor_test(test)
        if narrow and narrow[2] == body:
            return self._narrow(narrow[0], narrow[1])
        return None

    def _narrow(self, name: str, value: Value) -> tuple[str, tuple[Value, Value] | None]:
        nar = self.scope.narrowed
        prev = nar.get(name)
        cur = self.scope.env.get(name)  # what it holds, not an earlier narrowing
        if cur is not None:
            nar[name] = (cur, value)
        return name, prev

    def _unnarrow(self, restore: tuple[str, tuple[Value, Value] | None] | None) -> None:
        if restore is None:
            return
        name, prev = restore
        if prev is None:
            self.scope.narrowed.pop(name, None)
        else:
            self.scope.narrowed[name] = prev

    def _enter_mode(self, mode: str | None, step: int) -> None:
        """Enter (``step`` 1) or leave (-1) code that runs in one mode only."""
        if mode == "train":
            self.training_depth += step
        elif mode == "eval":
            self.eval_depth += step

    def _mark_carried(self, sites: list[CallSite], before: dict[str, Value]) -> None:
        """Calls in a loop body whose argument is a name the body binds again (``bias =
        None`` before ``for layer in layers: out, bias = layer(x, bias)``): the next iteration
        passes what the body left there (``CallSite.carried``)."""
        env = self.scope.env
        for site in sites:
            names = self._arg_names.get(id(site))
            if not names:
                continue
            for key, name in names:
                now = env.get(name)
                if now is not None and now != before.get(name) and key not in site.carried:
                    site.carried.append(key)

    def _merge_env(self, saved: dict[str, Value], branches: list[dict[str, Value]]) -> None:
        """After an ``if`` (or a loop): each name may hold what any branch left in it."""
        merged = dict(saved)
        for env in branches:
            for k, v in env.items():
                old = merged.get(k)
                merged[k] = v if old is None or old == v else V.join(old, v)
        self.scope.env = merged

    def _compiling_guard(self, test: cst.BaseExpression) -> tuple[bool, bool]:
        """(skip body, skip else) for `if is_compiling()` style guards."""
        negated = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negated = not negated
            test = test.expression
        if isinstance(test, cst.BooleanOperation):
            # `if not is_compiling() and x:` -> body not traced (the test is false when
            # compiling); `if x or is_compiling():` -> else not traced (it is true)
            lf, lt = self._compiling_guard(test.left)
            rf, rt = self._compiling_guard(test.right)
            if isinstance(test.operator, cst.And):
                false, true = lf or rf, lt and rt
            else:
                false, true = lf and rf, lt or rt
            return (true, false) if negated else (false, true)
        if isinstance(test, cst.Call):
            q = self.qualify(test.func) or ""
            last = q.rsplit(".", 1)[-1]
            if q in N.COMPILING_PREDICATES or last in ("is_torchdynamo_compiling", "is_compiling"):
                return (True, False) if negated else (False, True)
            if q in N.NOT_COMPILING_PREDICATES:
                return (False, True) if negated else (True, False)
        return False, False

    def visit_function(self, node: cst.FunctionDef) -> None:
        for dec in node.decorators:
            self.visit_expr(dec.decorator)
        parent = self.scope
        cls = self.cls if parent.facts is None else None
        if cls is not None:
            qual = f"{cls.qual}.{node.name.value}"
            for dec in node.decorators:
                d = dec.decorator
                if isinstance(d, cst.Attribute) and d.attr.value in ("setter", "deleter"):
                    qual += f".<{d.attr.value}>"  # the property's getter keeps the plain name
        elif parent.facts is not None:
            qual = f"{parent.qual}.<locals>.{node.name.value}"
            parent.local_defs[node.name.value] = qual
        else:
            qual = node.name.value
        params: list[ParamFacts] = []
        p = node.params
        idx = 0
        for prm in (*p.posonly_params, *p.params):
            params.append(
                ParamFacts(
                    prm.name.value,
                    idx,
                    self._ann_kind(prm.annotation),
                    _default_kind(prm.default),
                    _literal_default(prm.default),
                )
            )
            idx += 1
        if isinstance(p.star_arg, cst.Param):
            params.append(ParamFacts(p.star_arg.name.value, -2, "container", "other"))
        for prm in p.kwonly_params:
            params.append(
                ParamFacts(
                    prm.name.value,
                    -1,
                    self._ann_kind(prm.annotation),
                    _default_kind(prm.default),
                    _literal_default(prm.default),
                )
            )
        if p.star_kwarg is not None:
            params.append(ParamFacts(p.star_kwarg.name.value, -3, "container", "other"))
        compiled = disabled = False
        for dec in node.decorators:
            d = dec.decorator
            dq = self.qualify(d.func if isinstance(d, cst.Call) else d) or ""
            if dq in N.COMPILE_CALLS:
                compiled = True
            elif dq in N.DISABLE_CALLS:
                disabled = True
            elif dq in N.ALLOW_IN_GRAPH_CALLS:
                self.graph_op_sites.append((f"Q|{qual}", parent.qual))
        if cls is not None and node.name.value == "forward" and cls.qual in self.forward_replaced:
            disabled = True  # a class decorator dispatches forward elsewhere: never traced
        facts = FunctionFacts(
            qual=qual,
            name=node.name.value,
            cls=cls.qual if cls is not None else None,
            line=0,
            params=params,
            compiled=compiled,
            disabled=disabled,
        )
        facts.decorators = self._decorator_sites(node)
        self.functions[qual] = facts
        scope = Scope(facts, parent)
        scalar_anns = _scalar_annotations(p)
        for pf in params:
            # A parameter annotated as a non-tensor type never holds a tensor: no symbol needed;
            # one annotated `int`/`float`/`bool`/`str` is that Python scalar.
            if pf.annotation == "nontensor":
                typ = scalar_anns.get(pf.name)
                scope.env[pf.name] = V.scalar(typ) if typ else V.UNKNOWN
            else:
                scope.env[pf.name] = V.sym(f"P|{qual}|{pf.name}")
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            optim = _optim_annotation(self.qualify, prm.annotation)
            if optim:  # `opt: torch.optim.Optimizer`: an optimizer, whatever a caller passes
                scope.env[prm.name.value] = V.obj(optim)
        if cls is not None and params and params[0].name in ("self", "cls"):
            scope.env[params[0].name] = V.module(f"Q|{cls.qual}")
        scope.params = {prm.name: scope.env[prm.name] for prm in params if prm.index >= -1}
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            ref = self._annotation_class(prm.annotation)
            if ref is not None:
                scope.param_classes[prm.name.value] = ref
        # Pre-declare nested defs.
        if isinstance(node.body, cst.IndentedBlock):
            for st in node.body.body:
                if isinstance(st, cst.FunctionDef):
                    scope.local_defs[st.name.value] = f"{qual}.<locals>.{st.name.value}"
        saved_loop, saved_untraced = self.loop_depth, self.untraced_depth
        saved_branch, self.branch_depth = self.branch_depth, 0
        saved_loose, self.loose_depth = self.loose_depth, 0
        saved_try, self.try_depth = self.try_depth, 0
        saved_conds, self.conds = self.conds, []
        self.loop_depth = 0
        self.untraced_depth = 0
        self.scope = scope
        self.func = facts
        saved_classes, saved_cls = self.class_stack, self.cls
        if cls is None and parent.facts is not None:
            self.class_stack = []
            self.cls = None
        self.fire(node)
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            if prm.default is not None:
                before = len(facts.refs)
                self.visit_expr(prm.default)
                ref = self._func_ref_of(prm.default) if len(facts.refs) > before else None
                if ref is not None and facts.refs[before:] == [ref]:
                    # a function as a default runs only where a call leaves the parameter
                    # out (`Project.default_edges`), not wherever the function is reached
                    del facts.refs[before:]
                    facts.default_refs[prm.name.value] = ref
        self.visit_suite(node.body)
        self.walked.add(qual)  # its returns are complete: callers below specialise them
        self.class_stack, self.cls = saved_classes, saved_cls
        self.scope = parent
        self.func = parent.facts
        self.conds = saved_conds
        self.loop_depth, self.untraced_depth = saved_loop, saved_untraced
        self.branch_depth = saved_branch
        self.loose_depth = saved_loose
        self.try_depth = saved_try

    def visit_class(self, node: cst.ClassDef) -> None:
        outer = self.cls
        qual = f"{outer.qual}.{node.name.value}" if outer is not None else node.name.value
        bases: list[str] = []
        for arg in node.bases:
            q = self.qualify(arg.value)
            if q is None:
                continue
            head = q.split(".", 1)[0]
            if isinstance(arg.value, cst.Name) and arg.value.value in self.module_defs:
                bases.append(f"Q|{arg.value.value}")
            elif head in self.imports.values() or dotted(arg.value) != q:
                bases.append(f"D|{q}")
            else:
                bases.append(f"D|{q}" if "." in q else f"Q|{q}")
        methods = [
            st.name.value
            for st in (node.body.body if isinstance(node.body, cst.IndentedBlock) else ())
            if isinstance(st, cst.FunctionDef)
        ]
        cf = ClassFacts(
            qual=qual, name=node.name.value, bases=bases, methods=methods, attrs={}, attr_classes={}
        )
        self.classes[qual] = cf
        self.fire(node)
        for dec in node.decorators:
            self.visit_expr(dec.decorator)
            d = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
            if (dotted(d) or "").rsplit(".", 1)[-1] in N.FORWARD_REPLACING_CLASS_DECORATORS:
                self.forward_replaced.add(qual)
        parent_scope = self.scope
        if parent_scope.facts is None:
            self.scope = Scope(None, None)
            self.scope.class_qual = qual
        else:
            self.scope = parent_scope
        self.func = self.scope.facts
        self.class_stack.append(cf)
        self.cls = cf
        self.visit_suite(node.body)
        self.class_stack.pop()
        self.cls = outer
        self.scope = parent_scope
        self.func = parent_scope.facts


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
# Decorators that never put a wrapper closure between torch.compile and the function.
_PLAIN_DECORATORS = frozenset(
    {
        "property",
        "staticmethod",
        "classmethod",
        "setter",
        "getter",
        "deleter",
        "cached_property",
        "abstractmethod",
        "overload",
        "override",
        "dataclass",
        "wraps",
        "no_grad",
        "inference_mode",
        "enable_grad",
        "contextmanager",
    }
)
_FORWARD_HOOK_REGISTRARS = frozenset(
    {"register_forward_hook", "register_forward_pre_hook", "register_module_forward_hook"}
)


def _locally_false(w: FileWalker, src: str) -> bool:
    """A symbolic source this file alone shows can never be a tensor (saves positions later)."""
    base, steps = V.split_source(src)
    kind, _, rest = base.partition("|")
    if kind == "A":
        cq, _, attr = rest.rpartition("|")
        cf = w.classes.get(cq)
        if cf is None or attr not in cf.attrs or steps:
            return False
        return all(
            m[0] == "Y" and m[1].startswith("P|") and ".__init__|" in m[1]
            for v in cf.attrs[attr]
            for m in V.members(v)
        )
    if kind == "P" and not steps:
        fq, _, pname = rest.rpartition("|")
        fn = w.functions.get(fq)
        if fn is None or fn.name != "forward":
            return False
        for i, prm in enumerate(fn.params):
            if prm.name == pname:
                # a name alone (`step`, `use_cache`) leaves it to phase 2: the spec's input or
                # a caller's argument may be a tensor there
                return not root_param_is_tensor(fn, i, by_name=False)
    return False


def _may_hold(w: FileWalker, requires: Taint) -> bool:
    return not requires or not all(_locally_false(w, s) for s in requires)


def _is_self_training(e: cst.BaseExpression) -> bool:
    return (
        isinstance(e, cst.Attribute)
        and e.attr.value == "training"
        and isinstance(e.value, cst.Name)
        and e.value.value == "self"
    )


def _mode_test(test: cst.BaseExpression) -> tuple[str | None, str | None]:
    """The mode (``"train"``/``"eval"``) in which an ``if``'s body runs only, and the one in
    which its ``else`` runs only: ``self.training`` (or a conjunction with it) -> train;
    ``not self.training`` (or a conjunction with it) -> eval; the ``else`` of a bare
    ``self.training`` runs in eval only, of a bare ``not self.training`` in training only."""
    if _training_test(test):
        return "train", "eval" if _is_self_training(test) else None
    if _eval_test(test):
        bare = isinstance(test, cst.UnaryOperation) and _is_self_training(test.expression)
        return "eval", "train" if bare else None
    return None, None


def _eval_test(test: cst.BaseExpression) -> bool:
    """``not self.training``, or a conjunction with it: the body runs only in eval mode."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _eval_test(test.left) or _eval_test(test.right)
    return (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and _is_self_training(test.expression)
    )


def _training_test(test: cst.BaseExpression) -> bool:
    """``self.training``, or a conjunction with it (``self.gradient_checkpointing and
    self.training``): the body runs only in training mode."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _training_test(test.left) or _training_test(test.right)
    return (
        isinstance(test, cst.Attribute)
        and test.attr.value == "training"
        and isinstance(test.value, cst.Name)
        and test.value.value == "self"
    )


def analyze_module(
    module: cst.Module,
    *,
    path: str,
    module_name: str,
    is_package: bool,
    lines: int,
    make_checks: Callable[[FileWalker], dict[type, list[Hook]]],
    tree: ast.Module | None = None,
    source: bytes | None = None,
    span_memo: P.SpanMemo | None = None,
    walk_memo: WalkMemo | None = None,
) -> FileFacts:
    """Run the walk, then turn pending reports into positioned candidates. ``tree``: CPython's
    parse of ``source``, the same text, which places statements and calls (positions without a
    whole-module codegen pass); ``span_memo``: the spans of the previous version of this file
    (the editor server), for the statements an edit did not touch; ``walk_memo``: the walk's
    state before the statement the previous edit changed (``analysis.resume``), from which the
    walk resumes when the statements before it are unchanged."""
    from compilelint.static.analysis.guards import GuardUses
    from compilelint.static.positions import spans_in_statements

    walker = FileWalker(module, path, module_name, is_package, {})
    walker.hooks = make_checks(walker)
    uses = GuardUses(walker)
    for t, hs in uses.hooks().items():
        walker.hooks[t] = [*walker.hooks.get(t, ()), *hs]
    if walk_memo is None:
        walker.walk_module()
    else:
        try:
            walker, uses = _walk_resuming(walker, uses, walk_memo)
        finally:
            thaw()  # what the memo's load froze, to the oldest generation (analysis.resume)
    walker.pending = [p for p in walker.pending if _may_hold(walker, p[2])]
    nodes = [n for (_, n, *_rest) in walker.pending]
    nodes.extend(n for _, n in walker.call_nodes)
    nodes.extend(n for _, n, _c in walker.cond_calls)
    nodes.extend(n for _, n in uses.sites)
    nodes.extend(n for _, n in walker.closure_calls)
    jump_at = walker.jump_at
    if jump_at:
        kept = {id(p[1]) for p in walker.pending}
        jump_at = {i: n for i, n in jump_at.items() if i in kept}
        nodes.extend(jump_at.values())
    stmt_of = walker.stmt_of
    # the guard rows need only a line
    lines_only = {id(n) for _, n in uses.sites}
    lines_only.update(id(n) for n in jump_at.values())
    lines_only.update(id(n) for _, n in walker.closure_calls)
    lines_only.difference_update(id(p[1]) for p in walker.pending)
    lines_only.difference_update(id(n) for _, n in walker.call_nodes)
    sp = (
        spans_in_statements(
            module,
            [(n, stmt_of.get(id(n))) for n in nodes],
            tree,
            source=source,
            memo=span_memo,
            lines_only=lines_only,
        )
        if nodes
        else {}
    )
    for site, node in walker.call_nodes:
        site.line, site.col = sp.get(id(node), (0, 0, 0, 0))[:2]
    for fn_facts, node, conds in walker.cond_calls:
        fn_facts.call_conds.append([*sp.get(id(node), (0, 0, 0, 0))[:2], conds])
    for row, node in uses.sites:
        row[2] = sp.get(id(node), (0, 0, 0, 0))[0]
    for fn_facts, node in walker.closure_calls:
        fn_facts.closure_call[1] = sp.get(id(node), (0, 0, 0, 0))[0]
    candidates: list[Candidate] = []
    for code, node, req, args, scope, in_loop, func, conds in walker.pending:
        line, col, eline, ecol = sp.get(id(node), (1, 1, 1, 1))
        at = jump_at.get(id(node))
        if at is not None and id(at) in sp:
            line = sp[id(at)][0]
        candidates.append(
            Candidate(
                code=code,
                func=func,
                line=line,
                col=col,
                end_line=eline,
                end_col=ecol,
                requires=sorted(req),
                args=args,
                scope=scope,
                in_loop=in_loop,
                conds=conds,
            )
        )
    # The checks' hooks are bound methods of objects that hold the walker: without this
    # reference cycle the walk's state (and CPython's tree it holds) is freed at once by
    # reference counting instead of waiting for the cyclic collector (about 30,000 objects of
    # a 2,000-line file, which an editor server otherwise collects on every few edits).
    walker.hooks = {}
    return FileFacts(
        path=path,
        module=module_name,
        is_package=is_package,
        lines=lines,
        imports=walker.imports,
        functions=walker.functions,
        classes=walker.classes,
        compiled_refs=walker.compiled_refs,
        candidates=candidates,
        graph_op_refs=walker.graph_op_refs(),
        script_refs=walker.script_refs,
        all_names=None if walker.all_computed else walker.all_names,
    )


def _walk_resuming(
    walker: FileWalker, uses: GuardUses, memo: WalkMemo
) -> tuple[FileWalker, GuardUses]:
    """``walker.walk_module()``, resumed from ``memo`` where it can be (``analysis.resume``),
    and ``memo`` set up for the next edit: the state before the first statement this version
    changed. Returns the walker and guard uses that walked (restored ones when resumed)."""
    module = walker.module
    body: list[cst.CSTNode] = list(module.body)
    # What the walk reads of the whole module (later statements included): the pre-declared
    # names, the classes whose forward returns a tuple (``Evaluator._own_module_forward``,
    # otherwise computed on first use and kept), each ``visit_Module`` hook's pre-pass. All
    # are in the memo's key: a state made before a later statement changed is not resumed.
    walker.declare()
    walker._forward_names = _forward_classes(module, memo.forward)
    hooks = tuple((t, tuple(h.__qualname__ for h in hs)) for t, hs in walker.hooks.items())
    signatures: list[object] = []
    for h in walker.hooks.get(cst.Module, ()):
        sign = getattr(getattr(h, "__self__", None), "module_signature", None)
        if sign is None:  # a pre-pass the memo cannot compare: no memo
            signatures = [None]
            break
        signatures.append(sign(module))
    key: Hashable = (
        walker.path,
        walker.module_name,
        walker.is_package,
        (module.encoding, module.default_indent, module.default_newline),
        hooks,
        tuple(walker.module_defs.items()),
        frozenset(walker.class_defs),
        tuple(walker.none_tests.items()),
        walker._forward_names,
        tuple(signatures),
    )
    if None in signatures:
        key = None
    changed = memo.first_changed(body) if memo.body else len(body)
    start = 0
    got = None
    if key is not None and memo.usable(key, body) and memo.at <= changed:
        try:
            got = memo.load(module)
        except Exception:  # pragma: no cover - a pickle that loads is what it dumped
            got = None
    if got is not None:
        walker, uses = got
        start = memo.at
        memo.resumed += 1
        memo.skipped += start
    else:
        memo.data = None  # no longer valid (a new snapshot is taken below)
        memo.full += 1
        walker.fire(module)
    keep = start == changed and memo.data is not None
    if key is not None and not keep and start <= changed < len(body):
        walker.walk_top(start, changed)
        start = changed
        snap = memo.dump((walker, uses), module)
        memo.data, memo.nodes = snap if snap is not None else (None, [])
        memo.at, memo.prefix, memo.key = changed, body[:changed], key
        if snap is not None and changed < len(body):
            # Go on from the copy, as the next edit will: its objects are the next edit's
            # (equal values, and sets iterated in the same order), so what the statements
            # after the edit see can be compared with the next edit's (``analysis.tail``)
            walker, uses = memo.load(module)
    elif not keep:
        memo.data = None
    old_body, memo.body = memo.body, body
    if key is None or start != changed or changed >= len(body):
        memo.record = None
        walker.walk_top(start, len(body))
        return walker, uses
    _walk_region_and_tail(walker, uses, memo, key, old_body, changed)
    return walker, uses


def _walk_region_and_tail(
    walker: FileWalker,
    uses: GuardUses,
    memo: WalkMemo,
    key: Hashable,
    old_body: Sequence[cst.CSTNode],
    changed: int,
) -> None:
    """Walk the statements from ``changed`` (the first this version changed) to the end, or
    only those up to the *tail* (the statements ending both versions as the same objects) when
    what they leave for the tail equals what the previous walk's left there: the tail's
    effect on the walk's outputs is then the previous walk's (``analysis.tail``)."""
    from compilelint.static.analysis import tail as T

    module = walker.module
    body = module.body
    n = 0
    most = min(len(old_body), len(body)) - changed
    while n < most and body[-1 - n] is old_body[-1 - n]:
        n += 1
    at = len(body) - n  # the tail's first statement
    if n == 0:
        memo.record = None
        walker.walk_top(changed, len(body))
        return
    had = len(walker.functions), len(walker.classes)
    walker.walk_top(changed, at)
    region: list[cst.CSTNode] = list(body[changed:at])
    ids = T.region_ids(region)
    quals = T.made_in(walker, had)
    try:
        exports: dict[tuple[str, str], bytes] | None = T.digest(walker, uses, ids, quals)
    except T.RegionRef:
        exports = None
    rec = memo.record
    first = body[at]
    tail: list[cst.CSTNode] = list(body[at:])
    if (
        exports is not None
        and rec is not None
        and rec.key == key
        and rec.mark(first, tail) is not None
    ):
        old_region = list(old_body[changed : len(old_body) - n])
        before = rec.exports_for(changed, old_region)
        old_ids = rec.region_ids
        if before is None and memo.data is not None and memo.at == changed:
            old_ids = T.region_ids(old_region)
            before = _old_exports(memo, module, old_region, old_ids)
        got = (
            T.take_tail(rec, first, tail, module, walker, uses, old_ids)
            if before == exports
            else None
        )
        if got is not None:
            T.apply_tail(walker, uses, got)
            rec.start, rec.region, rec.exports, rec.region_ids = changed, region, exports, ids
            rec.used += 1
            memo.tails += 1
            memo.skipped_tail += n
            return
        rec.refused += 1
        memo.refused += 1
    memo.record = None
    marks: dict[int, tuple[cst.CSTNode, dict[tuple[str, str], Any], int]] = {}
    # the facts before the tail: a tail that defines a function or class again (replaces
    # one of these) leaves no record (the checks read the reports of the function being
    # walked by its name: a function of the tail named as one of the edited statements' would
    # read theirs)
    defined = list(walker.functions.items()), list(walker.classes.items())
    for i in range(at, len(body)):
        if exports is not None:
            marks[id(body[i])] = (body[i], T.marks(walker, uses), i)
        walker.walk_top(i, i + 1)
    if exports is None:
        return
    fns, classes = walker.functions, walker.classes
    if any(fns.get(q) is not f for q, f in defined[0]) or any(
        classes.get(q) is not c for q, c in defined[1]
    ):
        return
    final = T.dump_final(walker, uses, module)
    if final is not None:
        memo.record = T.TailRecord(
            key, final[0], final[1], marks, changed, region, exports, ids, body=list(body)
        )


def _old_exports(
    memo: WalkMemo, module: cst.Module, old_region: list[cst.CSTNode], ids: set[int]
) -> dict[tuple[str, str], bytes]:
    """The exports the previous version's statements ``old_region`` left after the state
    before them (``memo``'s, taken before this edit's first changed statement): walked again
    from a copy of that state ({} when they refer to one of those statements' nodes)."""
    from compilelint.static.analysis import tail as T

    walker, uses = memo.load(module)
    had = len(walker.functions), len(walker.classes)
    for stmt in old_region:
        walker.visit_stmt(stmt)
    try:
        return T.digest(walker, uses, ids, T.made_in(walker, had))
    except T.RegionRef:
        return {}


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"`` (either way round)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    cmp = test.comparisons[0]
    if not isinstance(cmp.operator, cst.Equal):
        return False
    sides = (test.left, cmp.comparator)
    return any(isinstance(s, cst.Name) and s.value == "__name__" for s in sides) and any(
        isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__" for s in sides
    )
