"""Phase 1: one walk over one parsed file.

The walker follows statements in order, keeps an environment of which local names may hold
tensors (tensor inference), records calls between functions (for reachability) and fires the
checks' ``visit_<Node>`` hooks on every node, in one pass. Values whose tensor-ness depends on
other functions or files are kept symbolic (see :mod:`facts`) and resolved in phase 2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst

from compilelint.static.analysis import names as N
from compilelint.static.analysis.facts import (
    NO_TAINT,
    TENSOR,
    CallSite,
    Candidate,
    ClassFacts,
    FileFacts,
    FunctionFacts,
    ParamFacts,
    Taint,
)

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


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in child_fields(type(node)):
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            yield v
        elif isinstance(v, (tuple, list)):
            for item in v:
                if isinstance(item, cst.CSTNode):
                    yield item


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


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
        flat = cst.Module([]).code_for_node(expr)
        if any(w in flat for w in N.TENSORISH_ANNOTATION_WORDS):
            head = flat.split("[", 1)[0].strip().lower()
            if head in ("list", "tuple", "typing.list", "typing.tuple", "sequence", "iterable"):
                return "container"
            return "tensor"
        return "nontensor"
    last = text.rsplit(".", 1)[-1]
    if last in N.TENSORISH_ANNOTATION_WORDS:
        return "tensor"
    return "nontensor"


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


class Scope:
    """A function being walked: its facts, local definitions and tensor environment."""

    def __init__(self, facts: FunctionFacts | None, parent: Scope | None) -> None:
        self.facts = facts
        self.parent = parent
        self.env: dict[str, Taint] = {}
        self.local_defs: dict[str, str] = {}  # nested def name -> qual
        self.local_classes: set[str] = set()

    @property
    def qual(self) -> str:
        return self.facts.qual if self.facts else ""


class FileWalker:
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
        self.compiled_refs: list[str] = []
        self.pending: list[tuple[str, cst.CSTNode, Taint, dict[str, str], str, bool, str]] = []
        self.call_nodes: list[tuple[CallSite, cst.CSTNode]] = []
        self.scope = Scope(None, None)
        self.class_stack: list[ClassFacts] = []
        self.loop_depth = 0
        self.untraced_depth = 0
        self.forward_replaced: set[str] = set()  # classes whose forward a decorator replaces
        self.current_stmt: cst.CSTNode | None = None
        self._taint_cache: dict[int, Taint] = {}

    # ------------------------------------------------------------------ public API for checks
    @property
    def func(self) -> FunctionFacts | None:
        return self.scope.facts

    @property
    def in_function(self) -> bool:
        return self.scope.facts is not None

    @property
    def in_loop(self) -> bool:
        return self.loop_depth > 0

    @property
    def cls(self) -> ClassFacts | None:
        return self.class_stack[-1] if self.class_stack else None

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """Fully qualified dotted name of an expression through this file's imports."""
        d = dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
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
        self.pending.append((code, node, requires, args, scope, self.loop_depth > 0, func))

    def code_for(self, node: cst.CSTNode, limit: int = 60) -> str:
        text = " ".join(self.module.code_for_node(node).split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # ------------------------------------------------------------------ tensor inference
    def taint(self, node: cst.BaseExpression) -> Taint:
        key = id(node)
        got = self._taint_cache.get(key)
        if got is None:
            got = self._taint(node)
            self._taint_cache[key] = got
        return got

    def _lookup(self, name: str) -> Taint:
        s: Scope | None = self.scope
        while s is not None:
            if name in s.env:
                return s.env[name]
            s = s.parent
        return NO_TAINT

    def _taint(self, node: cst.BaseExpression) -> Taint:
        t = type(node)
        if t is cst.Name:
            return self._lookup(node.value)  # type: ignore[attr-defined]
        if t is cst.Attribute:
            attr = node.attr.value  # type: ignore[attr-defined]
            base = node.value  # type: ignore[attr-defined]
            if attr in N.META_ATTRS:
                return NO_TAINT
            if isinstance(base, cst.Name) and base.value == "self" and self.cls is not None:
                return frozenset({f"A|{self.cls.qual}|{attr}"})
            q = self.qualify(node)  # type: ignore[arg-type]
            if q is not None and q.startswith("torch.") and not q.startswith("torch.Tensor"):
                return NO_TAINT  # torch.float32, torch.nn.functional (a module), ...
            return self.taint(base)
        if t is cst.Subscript:
            base_taint = self.taint(node.value)  # type: ignore[attr-defined]
            sl = node.slice  # type: ignore[attr-defined]
            if (
                len(sl) == 1
                and isinstance(sl[0].slice, cst.Index)
                and isinstance(sl[0].slice.value, (cst.SimpleString, cst.ConcatenatedString))
            ):
                # ``cfg["key"]``: a mapping, so a parameter taken as a tensor by position was not
                # one; results of calls (model outputs) keep their taint.
                return frozenset(s for s in base_taint if not s.startswith("P|"))
            return base_taint
        if t is cst.BinaryOperation:
            return self.taint(node.left) | self.taint(node.right)  # type: ignore[attr-defined]
        if t is cst.UnaryOperation:
            return self.taint(node.expression)  # type: ignore[attr-defined]
        if t is cst.BooleanOperation:
            return self.taint(node.left) | self.taint(node.right)  # type: ignore[attr-defined]
        if t is cst.Comparison:
            n: cst.Comparison = node  # type: ignore[assignment]
            out = NO_TAINT
            left = n.left
            for ct in n.comparisons:
                if isinstance(ct.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) or (
                    isinstance(ct.operator, (cst.Equal, cst.NotEqual))
                    and (_is_str_or_none(left) or _is_str_or_none(ct.comparator))
                ):
                    left = ct.comparator  # identity, membership, `x == "name"`: a Python bool
                    continue
                out = out | self.taint(left) | self.taint(ct.comparator)
                left = ct.comparator
            return out
        if t is cst.Call:
            return self._call_taint(node)  # type: ignore[arg-type]
        if t is cst.IfExp:
            return self.taint(node.body) | self.taint(node.orelse)  # type: ignore[attr-defined]
        if t in (cst.Tuple, cst.List, cst.Set):
            out = NO_TAINT
            for el in node.elements:  # type: ignore[attr-defined]
                out = out | self.taint(el.value)
            return out
        if t is cst.Dict:
            out = NO_TAINT
            for el in node.elements:  # type: ignore[attr-defined]
                out = out | self.taint(el.value)
            return out
        if t in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            return self.taint(node.elt)  # type: ignore[attr-defined]
        if t is cst.NamedExpr:
            return self.taint(node.value)  # type: ignore[attr-defined]
        if t is cst.Await:
            return self.taint(node.expression)  # type: ignore[attr-defined]
        return NO_TAINT

    def _call_taint(self, node: cst.Call) -> Taint:
        func = node.func
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            q = self.qualify(func)
            if q is not None and q.startswith("torch."):
                return self._torch_result(q)
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                if self.cls is not None and meth in self._class_methods():
                    return frozenset({f"R|M|{self.cls.qual}|{meth}"})
                # self.<submodule>(...) or self.<tensor attr>.method(...)
                return TENSOR
            if (
                isinstance(func.value, cst.Call)
                and isinstance(func.value.func, cst.Name)
                and func.value.func.value == "super"
                and self.cls is not None
            ):
                return frozenset({f"R|S|{self.cls.qual}|{meth}"})
            if q is not None:
                head = q.split(".", 1)[0]
                if head in ("np", "numpy", "math", "random", "os", "sys", "time"):
                    return NO_TAINT
                if q in self.imports.values() or q.rsplit(".", 1)[0] in self.imports.values():
                    if q.split(".", 1)[0] in self.imports or head in self.imports.values():
                        return frozenset({f"R|D|{q}"})
            recv = self.taint(func.value)
            if not recv:
                return NO_TAINT
            if meth in N.META_METHODS or meth in N.SCALAR_METHODS:
                return NO_TAINT
            if meth not in N.TENSOR_METHODS:
                # not a Tensor method: the receiver is some other object (a cache, a config, a
                # model output), and so is what the method returns, as far as we can tell
                return NO_TAINT
            return recv
        if isinstance(func, cst.Name):
            name = func.value
            if name in (
                "len",
                "int",
                "float",
                "bool",
                "str",
                "repr",
                "isinstance",
                "hasattr",
                "getattr",
                "callable",
                "type",
                "id",
                "hash",
                "range",
                "print",
                "format",
                "issubclass",
                "dict",
                "set",
                "frozenset",
                "round",
            ):
                return NO_TAINT
            if name in (
                "abs",
                "max",
                "min",
                "sum",
                "tuple",
                "list",
                "sorted",
                "reversed",
                "zip",
                "enumerate",
                "next",
                "iter",
                "map",
                "filter",
                "all",
                "any",
            ):
                out = NO_TAINT
                for a in node.args:
                    out = out | self.taint(a.value)
                return out
            q = self.qualify(func)
            if q is not None and q.startswith("torch."):
                return self._torch_result(q)
            ref = self.name_ref(name)
            if ref is not None:
                return frozenset({f"R|{ref}"})
            return NO_TAINT
        if isinstance(func, cst.Call):
            # torch.compile(fn)(x), functools.partial(...)(x), ...
            return (
                self._call_taint(func) if self.qualify(func.func) == "torch.compile" else NO_TAINT
            )
        return NO_TAINT

    def _torch_result(self, q: str) -> Taint:
        if q in N.NON_TENSOR_TORCH or q.startswith(N.NON_TENSOR_TORCH_PREFIXES):
            return NO_TAINT
        last = q.rsplit(".", 1)[-1]
        if (
            last[:1].isupper()
            and q.startswith("torch.nn.")
            and not q.startswith("torch.nn.functional")
        ):
            if last in ("Parameter", "Buffer"):
                return TENSOR
            return NO_TAINT  # constructing a module (calling it later returns a tensor)
        if last in ("is_tensor", "is_nonzero", "is_same_size", "equal", "allclose"):
            return NO_TAINT
        return TENSOR

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
                q is not None
                and q.split(".", 1)[0] in self.imports
                and q.split(".", 1)[0] != "torch"  # torchsde.sdeint is not torch's
            ):
                return f"D|{q}"
            if isinstance(v, cst.Name) and v.value in self.module_defs:
                # ClassName.static_method(...)
                return f"M|{self.module_defs[v.value]}|{func.attr.value}"
        return None

    # ------------------------------------------------------------------ assignment
    def bind(
        self, target: cst.BaseExpression, taint: Taint, value: cst.BaseExpression | None
    ) -> None:
        if isinstance(target, cst.Name):
            self.scope.env[target.value] = taint
        elif isinstance(target, (cst.Tuple, cst.List)):
            vals: Sequence[cst.BaseElement] | None = None
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(
                target.elements
            ):
                vals = value.elements
            for i, el in enumerate(target.elements):
                if vals is not None and not isinstance(vals[i], cst.StarredElement):
                    self.bind(el.value, self.taint(vals[i].value), vals[i].value)
                else:
                    self.bind(el.value, taint, None)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, taint, None)
        elif isinstance(target, cst.Attribute):
            if (
                isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and self.cls is not None
            ):
                attr = target.attr.value
                self.cls.attrs.setdefault(attr, [])
                for s in taint:
                    if s not in self.cls.attrs[attr] and not s.startswith("A|"):
                        self.cls.attrs[attr].append(s)
                if isinstance(value, cst.Call):
                    ref = self.callee_ref(value.func)
                    q = self.qualify(value.func)
                    lst = self.cls.attr_classes.setdefault(attr, [])
                    if ref and ref not in lst:
                        lst.append(ref)
                    if q and q.startswith("torch.nn.") and q not in lst:
                        lst.append(q)
                    for r in self._repeated_classes(value):
                        if r not in lst:
                            lst.append(r)

    def bind_iter(self, target: cst.BaseExpression, it: cst.BaseExpression) -> None:
        """Bind a ``for`` target to the elements of ``it``: ``enumerate`` counts and ``range``
        values are ints, ``zip`` pairs each target with its own iterable, ``.items()`` keys and
        ``.keys()`` are not tensors."""
        elts = (
            target.elements
            if isinstance(target, (cst.Tuple, cst.List))
            and not any(isinstance(e, cst.StarredElement) for e in target.elements)
            else None
        )
        if isinstance(it, cst.Call) and not self._has_star_args(it):
            f = it.func
            fname = f.value if isinstance(f, cst.Name) and not self.shadowed(f.value) else None
            if fname == "range":
                self.bind(target, NO_TAINT, None)
                return
            if fname == "enumerate" and it.args and elts is not None and len(elts) == 2:
                self.bind(elts[0].value, NO_TAINT, None)
                self.bind_iter(elts[1].value, it.args[0].value)
                return
            if fname == "zip" and elts is not None and len(elts) == len(it.args):
                for el, arg in zip(elts, it.args, strict=True):
                    self.bind_iter(el.value, arg.value)
                return
            if isinstance(f, cst.Attribute) and not it.args:
                meth = f.attr.value
                if meth == "keys":
                    self.bind(target, NO_TAINT, None)
                    return
                if meth == "items" and elts is not None and len(elts) == 2:
                    self.bind(elts[0].value, NO_TAINT, None)
                    self.bind(elts[1].value, self.taint(f.value), None)
                    return
        self.bind(target, self.taint(it), None)

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
        return []

    # ------------------------------------------------------------------ traversal
    def fire(self, node: cst.CSTNode) -> None:
        hooks = self.hooks.get(type(node))
        if hooks:
            for h in hooks:
                h(node)

    def visit_expr(self, node: cst.CSTNode) -> None:
        """Fire hooks on an expression subtree and record calls and references."""
        t = type(node)
        if t is cst.Lambda:
            self.fire(node)
            return
        if t is cst.Call:
            self._record_call(node)  # type: ignore[arg-type]
        elif t is cst.Name and self.scope.facts is not None:
            ref = None
            if node.value in self.module_defs or node.value in self.scope.local_defs:  # type: ignore[attr-defined]
                ref = self.name_ref(node.value)  # type: ignore[attr-defined]
            if ref is not None and ref not in self.scope.facts.refs:
                self.scope.facts.refs.append(ref)
        elif t in (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp):
            self._visit_comprehension(node)
            return
        self.fire(node)
        for child in iter_children(node):
            self.visit_expr(child)

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
        else:
            self.visit_expr(node.elt)
        self.loop_depth -= 1
        self.scope.env = {**saved, **{k: v for k, v in self.scope.env.items() if k in saved}}

    def _record_call(self, node: cst.Call) -> None:
        facts = self.scope.facts
        q = self.qualify(node.func)
        if q in N.COMPILE_CALLS and node.args:
            ref = self._compile_target(node.args[0].value)
            if ref:
                self.compiled_refs.append(ref)
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("register_buffer", "register_parameter")
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == "self"
            and self.cls is not None
            and node.args
            and isinstance(node.args[0].value, cst.SimpleString)
        ):
            name = node.args[0].value.evaluated_value
            if isinstance(name, str):
                self.cls.attrs[name] = ["T"]
        if (
            self.loop_depth
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend")
            and isinstance(node.func.value, cst.Attribute)
            and isinstance(node.func.value.value, cst.Name)
            and node.func.value.value.value == "self"
            and self.cls is not None
            and node.func.value.attr.value in self.cls.attr_classes
            and len(node.args) == 1
            and isinstance(node.args[0].value, cst.Call)
        ):
            # self.layers.append(Block(...)) in a loop: repeated instances of Block
            el = node.args[0].value.func
            r = self.callee_ref(el) or self.qualify(el)
            lst = self.cls.attr_classes[node.func.value.attr.value]
            if r and f"*{r}" not in lst:
                lst.append(f"*{r}")
        if facts is None:
            return
        ref = self.callee_ref(node.func)
        if ref is None:
            # functions passed as arguments (checkpoint(self.block, x), map(fn, xs), ...)
            for a in node.args:
                r = self._func_ref_of(a.value)
                if r and r not in facts.refs:
                    facts.refs.append(r)
            return
        args: list[list[str]] = []
        kwargs: dict[str, list[str]] = {}
        for a in node.args:
            tv = sorted(self.taint(a.value))
            if a.keyword is not None:
                kwargs[a.keyword.value] = tv
            elif a.star:
                args.append(tv)
            else:
                args.append(tv)
            r = self._func_ref_of(a.value)
            if r and r not in facts.refs:
                facts.refs.append(r)
        site = CallSite(ref=ref, args=args, kwargs=kwargs, in_loop=self.loop_depth > 0)
        facts.calls.append(site)
        self.call_nodes.append((site, node))

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
        # Pre-declare top-level names so forward references resolve.
        for stmt in self.module.body:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self.module_defs[stmt.name.value] = stmt.name.value
        self.fire(self.module)
        self.visit_block(self.module.body)

    def visit_block(self, body: Sequence[cst.CSTNode]) -> None:
        for stmt in body:
            self.visit_stmt(stmt)

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
            self.loop_depth += 1
            self.visit_suite(n.body)
            self.loop_depth -= 1
            self._merge_env(saved, [self.scope.env])
            if n.orelse is not None:
                self.visit_suite(n.orelse.body)
        elif t is cst.With:
            self.fire(stmt)
            w: cst.With = stmt  # type: ignore[assignment]
            for item in w.items:
                self.visit_expr(item.item)
                if item.asname is not None:
                    self.bind(item.asname.name, self.taint(item.item), None)  # type: ignore[arg-type]
            self.visit_suite(w.body)
        elif t in (cst.Try, cst.TryStar):
            self.fire(stmt)
            tr: Any = stmt
            self.visit_suite(tr.body)
            for h in tr.handlers:
                self.fire(h)
                if h.type is not None:
                    self.visit_expr(h.type)
                self.visit_suite(h.body)
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
                    self.imports[alias.asname.name.value] = full  # type: ignore[union-attr]
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
            tv = self.taint(a.value)
            for tgt in a.targets:
                self.visit_expr(tgt.target)
                self.bind(tgt.target, tv, a.value)
        elif t is cst.AnnAssign:
            aa: cst.AnnAssign = small  # type: ignore[assignment]
            if aa.value is not None:
                self.visit_expr(aa.value)
                tv = self.taint(aa.value)
                if _ann_kind(aa.annotation) == "tensor":
                    tv = tv | TENSOR
                self.bind(aa.target, tv, aa.value)
        elif t is cst.AugAssign:
            ag: cst.AugAssign = small  # type: ignore[assignment]
            self.visit_expr(ag.value)
            self.visit_expr(ag.target)
            tv = self.taint(ag.target) | self.taint(ag.value)
            self.bind(ag.target, tv, None)
        elif t is cst.Return:
            r: cst.Return = small  # type: ignore[assignment]
            if r.value is not None:
                self.visit_expr(r.value)
                if self.scope.facts is not None:
                    for s in self.taint(r.value):
                        if s not in self.scope.facts.returns:
                            self.scope.facts.returns.append(s)
        elif t in (cst.Global, cst.Nonlocal, cst.Pass, cst.Break, cst.Continue):
            return
        else:
            for child in iter_children(small):
                self.visit_expr(child)

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
            return
        for alias in node.names:
            nm = dotted(alias.name) or ""
            local = alias.asname.name.value if alias.asname is not None else nm  # type: ignore[union-attr]
            self.imports[local] = f"{mod}.{nm}" if mod else nm

    def visit_if(self, node: cst.If) -> None:
        self.fire(node)
        self.visit_expr(node.test)
        skip_body, skip_else = self._compiling_guard(node.test)
        saved = dict(self.scope.env)
        branches: list[dict[str, Taint]] = []
        if skip_body:
            self.untraced_depth += 1
        self.visit_suite(node.body)
        if skip_body:
            self.untraced_depth -= 1
        branches.append(self.scope.env)
        self.scope.env = dict(saved)
        orelse = node.orelse
        if orelse is not None:
            if skip_else:
                self.untraced_depth += 1
            if isinstance(orelse, cst.If):
                self.visit_if(orelse)
            else:
                self.visit_suite(orelse.body)
            if skip_else:
                self.untraced_depth -= 1
        branches.append(self.scope.env)
        self._merge_env(saved, branches)

    def _merge_env(self, saved: dict[str, Taint], branches: list[dict[str, Taint]]) -> None:
        merged = dict(saved)
        for env in branches:
            for k, v in env.items():
                merged[k] = merged.get(k, NO_TAINT) | v if k in merged and merged[k] != v else v
        self.scope.env = merged

    def _compiling_guard(self, test: cst.BaseExpression) -> tuple[bool, bool]:
        """(skip body, skip else) for `if is_compiling()` style guards."""
        negated = False
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negated = not negated
            test = test.expression
        if isinstance(test, cst.BooleanOperation):
            # `if not is_compiling() and x:` -> body not traced
            left_skip, _ = self._compiling_guard(test.left)
            right_skip, _ = self._compiling_guard(test.right)
            if isinstance(test.operator, cst.And) and not negated and (left_skip or right_skip):
                return True, False
            return False, False
        if isinstance(test, cst.Call):
            q = self.qualify(test.func) or ""
            last = q.rsplit(".", 1)[-1]
            if q in N.COMPILING_PREDICATES or last in ("is_torchdynamo_compiling", "is_compiling"):
                return (True, False) if negated else (False, True)
        return False, False

    def visit_function(self, node: cst.FunctionDef) -> None:
        for dec in node.decorators:
            self.visit_expr(dec.decorator)
        parent = self.scope
        cls = self.cls if parent.facts is None else None
        if cls is not None:
            qual = f"{cls.qual}.{node.name.value}"
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
                    prm.name.value, idx, _ann_kind(prm.annotation), _default_kind(prm.default)
                )
            )
            idx += 1
        if isinstance(p.star_arg, cst.Param):
            params.append(ParamFacts(p.star_arg.name.value, -2, "container", "other"))
        for prm in p.kwonly_params:
            params.append(
                ParamFacts(
                    prm.name.value, -1, _ann_kind(prm.annotation), _default_kind(prm.default)
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
        self.functions[qual] = facts
        scope = Scope(facts, parent)
        for prm in params:
            # A parameter annotated as a non-tensor type never holds a tensor: no symbol needed.
            scope.env[prm.name] = (
                NO_TAINT if prm.annotation == "nontensor" else frozenset({f"P|{qual}|{prm.name}"})
            )
        if cls is not None and params and params[0].name in ("self", "cls"):
            scope.env[params[0].name] = NO_TAINT
        # Pre-declare nested defs.
        if isinstance(node.body, cst.IndentedBlock):
            for st in node.body.body:
                if isinstance(st, cst.FunctionDef):
                    scope.local_defs[st.name.value] = f"{qual}.<locals>.{st.name.value}"
        saved_loop, saved_untraced = self.loop_depth, self.untraced_depth
        self.loop_depth = 0
        self.untraced_depth = 0
        self.scope = scope
        saved_classes = self.class_stack
        if cls is None and parent.facts is not None:
            self.class_stack = []
        self.fire(node)
        for prm in (*p.posonly_params, *p.params, *p.kwonly_params):
            if prm.default is not None:
                self.visit_expr(prm.default)
        self.visit_suite(node.body)
        self.class_stack = saved_classes
        self.scope = parent
        self.loop_depth, self.untraced_depth = saved_loop, saved_untraced

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
        self.scope = Scope(None, None) if parent_scope.facts is None else parent_scope
        self.class_stack.append(cf)
        self.visit_suite(node.body)
        self.class_stack.pop()
        self.scope = parent_scope


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


def _locally_false(w: FileWalker, src: str) -> bool:
    """A taint source this file alone shows can never be a tensor (saves positions later)."""
    kind, _, rest = src.partition("|")
    if kind == "A":
        cq, _, attr = rest.rpartition("|")
        cf = w.classes.get(cq)
        if cf is None or attr not in cf.attrs:
            return False
        return all(s.startswith("P|") and ".__init__|" in s for s in cf.attrs[attr])
    if kind == "P":
        fq, _, pname = rest.rpartition("|")
        fn = w.functions.get(fq)
        if fn is None or fn.name != "forward":
            return False
        from compilelint.static.analysis.project import root_param_is_tensor

        for i, prm in enumerate(fn.params):
            if prm.name == pname:
                return not root_param_is_tensor(fn, i)
    return False


def _may_hold(w: FileWalker, requires: Taint) -> bool:
    return not requires or not all(_locally_false(w, s) for s in requires)


def analyze_module(
    module: cst.Module,
    *,
    path: str,
    module_name: str,
    is_package: bool,
    lines: int,
    make_checks: Callable[[FileWalker], dict[type, list[Hook]]],
) -> FileFacts:
    """Run the walk, then turn pending reports into positioned candidates."""
    from compilelint.static.positions import spans

    walker = FileWalker(module, path, module_name, is_package, {})
    walker.hooks = make_checks(walker)
    walker.walk_module()
    walker.pending = [p for p in walker.pending if _may_hold(walker, p[2])]
    nodes = [n for (_, n, *_rest) in walker.pending]
    nodes.extend(n for _, n in walker.call_nodes)
    sp = spans(module, nodes) if nodes else {}
    for site, node in walker.call_nodes:
        site.line, site.col = sp.get(id(node), (0, 0, 0, 0))[:2]
    candidates: list[Candidate] = []
    for code, node, req, args, scope, in_loop, func in walker.pending:
        line, col, eline, ecol = sp.get(id(node), (1, 1, 1, 1))
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
            )
        )
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
    )


def _is_str_or_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or (
        isinstance(node, cst.Name) and node.value == "None"
    )
