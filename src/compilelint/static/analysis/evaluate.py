"""Expression values: what each expression evaluates to, as an abstract :mod:`values` value.

This is where a construct's value is decided (a newcomer looking for "why is this a tensor?"
starts here): names read the walker's environment, ``self.<attr>`` is symbolic until phase 2,
calls into torch give tensors unless :mod:`names` says otherwise, calls to scanned functions give
their (symbolic) summary, calling a module gives a tensor, ``zip``/``enumerate``/``.items()`` keep
per-position values, a conditional expression is the join of its branches.

:class:`Evaluator` is a mixin of :class:`~compilelint.static.analysis.walker.FileWalker`; it reads
the walker's scope, class and imports but never changes them.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.values import Value

_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
_INT_BUILTINS = frozenset({"len", "int", "round", "hash", "id", "ord"})
# packages whose capitalised callables construct modules: ``torch.nn`` and the quantization
# modules (``torch.ao.quantization.FakeQuantize``, its observers, ``torch.ao.nn.quantized``)
_MODULE_PREFIXES = ("torch.nn.", "torch.ao.nn.", "torch.ao.quantization.", "torch.quantization.")
_BOOL_BUILTINS = frozenset({"bool", "isinstance", "hasattr", "callable", "issubclass"})
_STR_BUILTINS = frozenset({"str", "repr", "format", "chr", "ascii"})
_UNKNOWN_BUILTINS = frozenset({"type", "getattr", "vars", "super", "object", "print", "open"})
_PYTHON_MODULES = frozenset({"np", "numpy", "math", "random", "os", "sys", "time"})
_NUMPY_GENERATORS = frozenset(
    {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"}
)
_META_ATTR_VALUES: dict[str, Value] = {
    "shape": V.SIZE,
    "ndim": V.INT,
    "itemsize": V.INT,
    "nbytes": V.INT,
    "requires_grad": V.BOOL,
    "is_leaf": V.BOOL,
    "is_cuda": V.BOOL,
    "is_sparse": V.BOOL,
    "is_quantized": V.BOOL,
    "is_meta": V.BOOL,
    "is_nested": V.BOOL,
    "is_mps": V.BOOL,
    "is_cpu": V.BOOL,
    "training": V.BOOL,
    "__name__": V.STR,
}
_META_METHOD_VALUES: dict[str, Value] = {
    "dim": V.INT,
    "ndimension": V.INT,
    "numel": V.INT,
    "nelement": V.INT,
    "element_size": V.INT,
    "get_device": V.INT,
    "storage_offset": V.INT,
    "is_contiguous": V.BOOL,
    "is_floating_point": V.BOOL,
    "is_complex": V.BOOL,
    "is_signed": V.BOOL,
    "is_pinned": V.BOOL,
    "is_shared": V.BOOL,
    "has_names": V.BOOL,
    "is_inference": V.BOOL,
    "is_set_to": V.BOOL,
    "__len__": V.INT,
    "stride": V.SIZE,
}
_CONTAINER_MODULES = frozenset({"ModuleList", "Sequential", "ModuleDict"})

# Tensor methods (and ``torch.<name>(x, ...)``) whose result's rank and dtype kind follow from
# the receiver's (``values.tensor``): the dtype they give ...
_DTYPE_OPS: dict[str, str] = {
    "argsort": "int",
    "long": "int",
    "int": "int",
    "short": "int",
    "bool": "bool",
    "float": "float",
    "double": "float",
    "half": "float",
    "bfloat16": "float",
}
# ... reductions to a 0-d tensor without a dim (one dim less with one; the same rank with
# ``keepdim=True``), with the dtype they give ("" the receiver's; sum/prod of bools count)
_REDUCTIONS: dict[str, str] = {
    "argmax": "int",
    "argmin": "int",
    "sum": "",
    "prod": "",
    "mean": "float",
    "std": "float",
    "var": "float",
    "norm": "float",
    "any": "bool",
    "all": "bool",
    "amax": "",
    "amin": "",
    "count_nonzero": "int",
}
# ``max``/``min`` reduce only without arguments (with a dim they give (values, indices), with a
# tensor an elementwise result)
_BARE_REDUCTIONS = frozenset({"max", "min"})
# tensor methods that keep rank and dtype (elementwise); any other tensor method forgets what
# was known of its receiver's rank (a view, a product, a split)
_KEEPS_META = frozenset(
    {
        "abs",
        "neg",
        "clamp",
        "clip",
        "clone",
        "detach",
        "contiguous",
        "cpu",
        "cuda",
        "masked_fill",
        "exp",
        "log",
        "sqrt",
        "sigmoid",
        "tanh",
        "relu",
        "softmax",
        "log_softmax",
        "add",
        "sub",
        "mul",
        "div",
        "pow",
        "floor",
        "ceil",
        "round",
        "sign",
        "requires_grad_",
        "type_as",
        "fill_",
        "zero_",
        "clamp_",
        "add_",
        "mul_",
        "sub_",
        "div_",
        "masked_fill_",
        "flip",
        "roll",
        "cumsum",
        "cumprod",
        "float_power",
        "remainder",
        "fmod",
        "permute",
        "transpose",
        "t",
        "movedim",
        "swapaxes",
        "expand_as",
    }
)
# methods that change the rank (or return pieces) of a symbolic receiver (a parameter): its
# rank, decided later, is not the result's
_RESHAPES = frozenset(
    {
        "view",
        "reshape",
        "flatten",
        "unflatten",
        "unsqueeze",
        "squeeze",
        "chunk",
        "split",
        "unbind",
        "tensor_split",
        "unfold",
        "expand",
        "repeat",
        "matmul",
        "mm",
        "bmm",
        "view_as",
        "reshape_as",
        "topk",
        "max",
        "min",
        "sort",
        "diag",
        "outer",
    }
)
# of those, the ones that give a float whatever their receiver
_FLOAT_OPS = frozenset({"exp", "log", "sqrt", "sigmoid", "tanh", "softmax", "log_softmax"})

# methods (and torch functions) that give a 1-d tensor of their receiver's dtype: the distinct
# values (without a ``dim``, an inverse or counts), all the elements (``flatten()``)
_ONE_DIM = frozenset({"unique", "unique_consecutive", "flatten", "ravel"})
# the methods :func:`meta_result` models (any other is answered without looking at the call)
_META_METHODS = frozenset((*_DTYPE_OPS, *_REDUCTIONS, *_BARE_REDUCTIONS, *_ONE_DIM, "nonzero"))
# ``dtype=`` of a factory (``torch.eye(n, dtype=torch.bool)``): the dtype kind it gives
_DTYPE_KINDS: dict[str, str] = {
    "torch.bool": "bool",
    **{f"torch.{n}": "int" for n in ("long", "int", "int64", "int32", "int16", "int8", "short")},
    **{
        f"torch.{n}": "float"
        for n in ("float", "float32", "float64", "float16", "double", "half", "bfloat16")
    },
}
# factories whose ``dtype=`` is their result's dtype (their rank: :meth:`Evaluator._factory`)
_FACTORIES = frozenset(
    {
        "eye",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "arange",
        "linspace",
    }
)


def _keyword(node: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in node.args if a.keyword and a.keyword.value == name), None)


def meta_result(recv: Value, meth: str, node: cst.Call, skip: int = 0) -> Value | None:
    """What the rank/dtype model knows of ``recv.<meth>(...)`` (``skip``: leading positional
    arguments that are the receiver, for ``torch.<meth>(x, ...)``), or None: not modelled."""
    if meth not in _META_METHODS:
        return None
    pos = [a for a in node.args if a.keyword is None][skip:]
    if meth in _DTYPE_OPS and not pos:
        return V.meta_step(recv, "#" + _DTYPE_OPS[meth])
    dim = pos[0].value if pos else _keyword(node, "dim")
    if isinstance(dim, cst.Name) and dim.value == "None":
        dim = None
    if meth in _REDUCTIONS or (meth in _BARE_REDUCTIONS and dim is None and not pos):
        if meth in ("sum", "prod") and (pos[1:] or _keyword(node, "dtype")):
            return None
        keep = _keyword(node, "keepdim")
        if keep is not None and not (isinstance(keep, cst.Name) and keep.value == "False"):
            out = V.meta_step(recv, "?") if dim is not None else recv
        elif dim is None:
            out = V.meta_step(recv, "~0")
        elif isinstance(dim, (cst.Integer, cst.UnaryOperation)):
            out = V.meta_step(recv, "~r")
        else:
            out = V.meta_step(recv, "?")  # a tuple of dims
        d = _REDUCTIONS.get(meth, "")
        if d:
            return V.meta_step(out, "#" + d)
        if meth in ("sum", "prod", "count_nonzero"):
            return _bool_counts(out)
        return out
    if meth in _ONE_DIM:
        if meth in ("flatten", "ravel"):
            keywords = any(a.keyword is not None for a in node.args)
            return V.meta_step(recv, "~1") if not pos and not keywords else None
        if pos or any(a.keyword is not None and a.keyword.value != "sorted" for a in node.args):
            return None  # a dim, an inverse, counts: not one tensor of the distinct values
        return V.meta_step(recv, "~1")
    if meth == "nonzero" and _keyword(node, "as_tuple") is None:
        if recv[0] == "T":
            return V.tensor(2, "int")
        return V.meta_step(V.meta_step(recv, "?"), "#int")
    return None


def _bool_counts(v: Value) -> Value:
    """``sum`` of a bool tensor gives an int one."""
    if v[0] == "T" and V.tensor_meta(v)[1] == "bool":
        return V.tensor(V.tensor_meta(v)[0], "int")
    if v[0] == "J":
        return V.join(*(_bool_counts(m) for m in v[1]))
    return v


# torch functions that, given only Python numbers, compute a constant dynamo folds
_FOLDED_TORCH = frozenset(
    {
        "div",
        "floor_divide",
        "true_divide",
        "remainder",
        "fmod",
        "add",
        "sub",
        "mul",
        "ceil",
        "floor",
        "round",
        "tensor",
        "as_tensor",
        "scalar_tensor",
    }
)


def tensor_part(v: Value) -> Value:
    """The members of ``v`` that may be tensors (tensor or symbolic), else unknown."""
    parts = [m for m in V.members(v) if m[0] in "TY"]
    return V.join(*parts) if parts else V.UNKNOWN


def _literal(node: cst.BaseExpression) -> Value | None:
    t = type(node)
    if t is cst.Integer:
        try:
            return V.scalar("int", int(node.value.replace("_", ""), 0))  # type: ignore[attr-defined]
        except ValueError:
            return V.INT
    if t is cst.Float:
        return V.FLOAT
    if t is cst.Imaginary:
        return V.scalar("complex")
    if t in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
        ev = getattr(node, "evaluated_value", None)
        return V.scalar("str", ev) if isinstance(ev, str) and len(ev) <= 64 else V.STR
    return None


# what iterating a module's parameters or buffers yields (``nn.Module`` methods): tensors, or
# (name, tensor) pairs
_MODULE_TENSOR_ITERS: dict[str, Value] = {
    "parameters": V.seq("list", None, V.TENSOR),
    "buffers": V.seq("list", None, V.TENSOR),
    "named_parameters": V.seq("list", None, V.seq("tuple", [V.STR, V.TENSOR])),
    "named_buffers": V.seq("list", None, V.seq("tuple", [V.STR, V.TENSOR])),
}


def attr_name_key(node: cst.BaseExpression) -> str | None:
    """The attribute a string argument names (``getattr``/``setattr``/``register_buffer``):
    a literal string's text, or an f-string's with :data:`values.DYN_ATTR` for each
    replacement field (``f"to_{n}"`` is ``to___dyn__``); None for any other expression or a
    name that is no identifier once the fields are replaced."""
    if isinstance(node, cst.SimpleString):
        ev = node.evaluated_value
        key = ev if isinstance(ev, str) else None
    elif isinstance(node, cst.FormattedString):
        out: list[str] = []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                out.append(part.value)
            else:
                out.append(V.DYN_ATTR)
        key = "".join(out)
    else:
        return None
    return key if key is not None and key.isidentifier() and len(key) <= 64 else None


class Evaluator:
    """Computes (and caches per node) the abstract value of expressions."""

    scope: Any
    imports: dict[str, str]
    module_defs: dict[str, str]
    class_defs: set[str]
    _value_cache: dict[int, Value]
    # the top-level classes whose ``forward`` returns a tuple display (``_tuple_forwards``),
    # None until asked
    _forward_names: frozenset[str] | None = None

    # provided by the walker
    cls: Any

    def qualify(self, node: cst.BaseExpression) -> str | None:  # pragma: no cover - walker's
        raise NotImplementedError

    def shadowed(self, name: str) -> bool:  # pragma: no cover - walker's
        raise NotImplementedError

    def name_ref(self, name: str) -> str | None:  # pragma: no cover - walker's
        raise NotImplementedError

    def _compiling_guard(self, test: cst.BaseExpression) -> tuple[bool, bool]:  # pragma: no cover
        raise NotImplementedError

    def _aliased_refs(self, func: cst.BaseExpression) -> list[str]:  # pragma: no cover
        return []

    def _branch_narrowing(self, test: cst.BaseExpression, body: bool) -> Any:  # pragma: no cover
        return None

    def _unnarrow(self, restore: Any) -> None:  # pragma: no cover - walker's
        return None

    def callee_ref(self, func: cst.BaseExpression) -> str | None:  # pragma: no cover - walker's
        raise NotImplementedError

    # ------------------------------------------------------------------ entry points
    def value(self, node: cst.BaseExpression) -> Value:
        key = id(node)
        got = self._value_cache.get(key)
        if got is None:
            got = self._value(node)
            self._value_cache[key] = got
        return got

    def taint(self, node: cst.BaseExpression) -> frozenset[str]:
        """The sources under which ``node`` is a tensor (what checks pass as ``requires``)."""
        return V.sources(self.value(node))

    def lookup(self, name: str) -> Value | None:
        s = self.scope
        nar = s.narrowed.get(name) if s is not None and s.narrowed else None
        if nar is not None and s.env.get(name, nar[0]) == nar[0]:
            return nar[1]  # narrowed by a test it has not been re-bound since
        while s is not None:
            got = s.env.get(name)
            if got is not None:
                return got
            s = s.parent
        return None

    def compile_const(self, node: cst.BaseExpression) -> bool | None:
        """The Python bool ``node`` certainly is while torch.compile traces, else None:
        compiling predicates (``torch.compiler.is_compiling()``, transformers'
        ``is_torchdynamo_compiling()``/``is_tracing()``) are True, TorchScript's
        (``torch.jit.is_tracing()``/``is_scripting()``) False, ``not`` and ``and``/``or`` of
        those, and bool constants."""
        t = type(node)
        if t is cst.UnaryOperation and isinstance(node.operator, cst.Not):  # type: ignore[attr-defined]
            c = self.compile_const(node.expression)  # type: ignore[attr-defined]
            return None if c is None else not c
        if t is cst.BooleanOperation:
            a = self.compile_const(node.left)  # type: ignore[attr-defined]
            is_and = isinstance(node.operator, cst.And)  # type: ignore[attr-defined]
            if a is not None and a is not is_and:
                return a
            if a is not None:
                return self.compile_const(node.right)  # type: ignore[attr-defined]
            return None  # `x and False` still evaluates `x`
        if t is cst.Call:
            q = self.qualify(node.func) or ""  # type: ignore[attr-defined]
            last = q.rsplit(".", 1)[-1]
            if q in N.COMPILING_PREDICATES or last in ("is_torchdynamo_compiling", "is_compiling"):
                return True
            if q in N.NOT_COMPILING_PREDICATES:
                return False
            return None
        v = self.value(node) if t is cst.Name else None
        if v is not None and v[0] == "S" and v[1] == "bool" and len(v) == 3:
            return bool(v[2])
        return None

    # ------------------------------------------------------------------ expressions
    def _value(self, node: cst.BaseExpression) -> Value:
        t = type(node)
        if t is cst.Name:
            name = node.value  # type: ignore[attr-defined]
            got = self.lookup(name)
            if got is not None:
                return got
            if name in ("True", "False"):
                return V.scalar("bool", name == "True")
            if name == "None":
                return V.NONE
            if name in self.module_defs:
                ref = f"Q|{self.module_defs[name]}"
                return V.module(ref) if name in self.class_defs else V.func(ref)
            return V.UNKNOWN
        lit = _literal(node)
        if lit is not None:
            return lit
        if t is cst.Attribute:
            return self._attribute(node)  # type: ignore[arg-type]
        if t is cst.Subscript:
            return self._subscript(node)  # type: ignore[arg-type]
        if t is cst.BinaryOperation:
            return self._binop(self.value(node.left), self.value(node.right))  # type: ignore[attr-defined]
        if t is cst.UnaryOperation:
            inner = self.value(node.expression)  # type: ignore[attr-defined]
            if isinstance(node.operator, cst.Not):  # type: ignore[attr-defined]
                tp = tensor_part(inner)
                return V.BOOL if tp == V.UNKNOWN else tp
            if inner[0] == "S" and len(inner) == 3:  # a Python number's constant: `-1` is -1
                c = inner[2]
                if isinstance(c, (int, float)) and not isinstance(c, bool):
                    if isinstance(node.operator, cst.Minus):  # type: ignore[attr-defined]
                        return V.scalar(inner[1], -c)
                    if isinstance(node.operator, cst.Plus):  # type: ignore[attr-defined]
                        return inner
                return V.scalar(inner[1])
            return inner
        if t is cst.BooleanOperation:
            # short-circuiting on what is a constant under torch.compile: `not is_tracing(m) and
            # (m == 0).all()` never evaluates its right side while compiling
            c = self.compile_const(node.left)  # type: ignore[attr-defined]
            is_and = isinstance(node.operator, cst.And)  # type: ignore[attr-defined]
            if c is not None:
                if c is not is_and:
                    return V.scalar("bool", c)  # `False and ...`, `True or ...`
                return self.value(node.right)  # type: ignore[attr-defined]
            return V.join(self.value(node.left), self.value(node.right))  # type: ignore[attr-defined]
        if t is cst.Comparison:
            return self._comparison(node)  # type: ignore[arg-type]
        if t is cst.Call:
            return self._call(node)  # type: ignore[arg-type]
        if t is cst.IfExp:
            # the join of its branches; only the branch torch.compile takes under a compiling guard
            skip_body, skip_else = self._compiling_guard(node.test)  # type: ignore[attr-defined]
            if skip_body:
                return self.value(node.orelse)  # type: ignore[attr-defined]
            if skip_else:
                return self.value(node.body)  # type: ignore[attr-defined]
            # `n if isinstance(n, int) else n.shape[0]`: each branch under its test's narrowing
            sides: list[Value] = []
            for branch, is_body in ((node.body, True), (node.orelse, False)):  # type: ignore[attr-defined]
                restore = self._branch_narrowing(node.test, is_body)  # type: ignore[attr-defined]
                sides.append(self.value(branch))
                self._unnarrow(restore)
            return V.join(*sides)
        if t in (cst.Tuple, cst.List, cst.Set):
            kind = "tuple" if t is cst.Tuple else ("list" if t is cst.List else "set")
            elems: list[Value] = []
            known = True
            for el in node.elements:  # type: ignore[attr-defined]
                ev = self.value(el.value)
                if isinstance(el, cst.StarredElement):
                    known = False
                    ev = V.iter_elem(ev)
                elems.append(ev)
            if known:
                return V.seq(kind, elems)
            return V.seq(kind, None, V.join(*elems) if elems else V.UNKNOWN)
        if t is cst.Dict:
            items: list[tuple[str, Value]] = []
            all_str = True
            vals: list[Value] = []
            for el in node.elements:  # type: ignore[attr-defined]
                if isinstance(el, cst.StarredDictElement):
                    all_str = False
                    vals.append(V.element(self.value(el.value), None))
                    continue
                v = self.value(el.value)
                vals.append(v)
                k = el.key
                key = getattr(k, "evaluated_value", None)
                if isinstance(k, cst.SimpleString) and isinstance(key, str):
                    items.append((key, v))
                else:
                    all_str = False
            if all_str:
                return V.dict_of(items)
            return V.dict_of(None, V.join(*vals) if vals else V.UNKNOWN)
        if t in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            kind = "set" if t is cst.SetComp else "list"
            return V.seq(kind, None, self.value(node.elt))  # type: ignore[attr-defined]
        if t is cst.DictComp:
            return V.dict_of(None, self.value(node.value))  # type: ignore[attr-defined]
        if t is cst.NamedExpr:
            return self.value(node.value)  # type: ignore[attr-defined]
        if t is cst.Await:
            return self.value(node.expression)  # type: ignore[attr-defined]
        if t is cst.Lambda:
            return V.func()
        return V.UNKNOWN

    def _attribute(self, node: cst.Attribute) -> Value:
        attr = node.attr.value
        base = node.value
        if isinstance(base, cst.Name) and base.value == "self" and self.cls is not None:
            if attr in N.META_ATTRS:
                return _META_ATTR_VALUES.get(attr, V.UNKNOWN)
            if attr in self.cls.methods:
                return V.func(f"M|{self.cls.qual}|{attr}")
            return V.sym(f"A|{self.cls.qual}|{attr}")
        if attr in N.META_ATTRS:
            return _META_ATTR_VALUES.get(attr, V.UNKNOWN)
        q = self.qualify(node)
        if q is not None and q.startswith("torch.") and not q.startswith("torch.Tensor"):
            return V.UNKNOWN  # torch.float32, torch.nn.functional (a module), ...
        bv = self.value(base)
        if bv[0] in "TY":
            return bv  # x.T, x.data, x.grad, x.real; out.logits of a model output
        if bv[0] == "J":
            return tensor_part(bv)
        return V.UNKNOWN

    def _subscript(self, node: cst.Subscript) -> Value:
        base = self.value(node.value)
        sl = node.slice
        if len(sl) == 1 and isinstance(sl[0].slice, cst.Index):
            idx = sl[0].slice.value
            if isinstance(idx, (cst.SimpleString, cst.ConcatenatedString)):
                ev = idx.evaluated_value
                return V.element(base, ev if isinstance(ev, str) else None)
            neg = (
                isinstance(idx, cst.UnaryOperation)
                and isinstance(idx.operator, cst.Minus)
                and isinstance(idx.expression, cst.Integer)
            )
            if isinstance(idx, cst.Integer) or neg:
                lit = idx.expression if isinstance(idx, cst.UnaryOperation) else idx
                c = V.const(_literal(lit) or V.UNKNOWN)
                if neg and c == 1 and base == V.SIZE:
                    return V.INT  # `x.shape[-1]`: a feature size, fixed between calls
                if isinstance(c, int):
                    return V.element(base, -c if neg else c)
            if base[0] == "T" and len(base) == 4:
                return self._tensor_index(base, [sl[0].slice])
            return V.element(base, None)
        if len(sl) == 1 and isinstance(sl[0].slice, cst.Slice):
            return V.slice_of(base)
        # multi-dimensional indexing: only tensors (and arrays) take it
        if base[0] == "T" and len(base) == 4:
            return self._tensor_index(base, [e.slice for e in sl])
        return tensor_part(base) if base[0] in "TYJ" else V.UNKNOWN

    def _tensor_index(self, base: Value, items: list[cst.BaseSlice]) -> Value:
        """``base[items]`` for a tensor whose rank or dtype is known: an int drops a dim, a
        slice or ``...`` keeps it, ``None`` adds one; a boolean mask of ``k`` dims turns them
        into one, an integer index tensor of rank ``k`` replaces one dim by ``k``."""
        rank, dtype = V.tensor_meta(base)
        delta = 0
        for it in items:
            if isinstance(it, cst.Slice):
                continue
            e = it.value  # type: ignore[attr-defined]
            if isinstance(e, cst.Ellipsis):
                continue
            if isinstance(e, cst.Name) and e.value == "None":
                delta += 1
                continue
            v = self.value(e)
            tp = tensor_part(v)
            if tp == V.UNKNOWN and all(m[0] == "S" for m in V.members(v)):
                delta -= 1  # a Python int
                continue
            # the tensor part known here (a symbolic member, `s > self.thr`'s `self.thr`, is
            # taken for a number: a tensor there would broadcast to the same rank or fail)
            known = [m for m in V.members(tp) if m[0] == "T"]
            if not known or len(items) > 1:
                return V.tensor(-1, dtype)  # advanced indexing among other indices
            ir, idt = V.tensor_meta(V.join(*known))
            if idt == "bool":
                diff = V.rank_diff(rank, ir)
                return V.tensor(-1 if diff is None else diff + 1, dtype)
            if idt == "int" and isinstance(ir, int) and ir >= 0:
                return V.tensor(V.rank_add(rank, ir - 1), dtype)
            return V.tensor(-1, dtype)
        return V.tensor(V.rank_add(rank, delta), dtype)

    def _binop(self, a: Value, b: Value) -> Value:
        ka, kb = a[0], b[0]
        if ka == "T" or kb == "T":
            folded = _folded(a, b)
            if folded is not None:
                return folded  # torch.div(n, 2) + 1 on Python ints: folded
            return V.TENSOR
        if ka == "S" and kb == "S":
            if a[1] == b[1]:
                return V.scalar(a[1])
            types = (a[1], b[1])
            if "drawn" in types:
                return V.DRAWN  # still a drawn number (where this breaks, CL121 says)
            if "float" in types:
                return V.FLOAT
            # arithmetic on a size (`(w - n % w) % w`) is still a per-call size
            return V.SIZE_INT if "size" in types and "str" not in types else V.scalar(a[1])
        if ka == "Q" and kb == "Q":
            if a[2] is not None and b[2] is not None:
                return V.seq(a[1], (*a[2], *b[2]))
            return V.seq(a[1], None, V.join(a[3], b[3]))
        if ka == "Q" and kb == "S":
            return V.seq(a[1], None, a[3])
        ta, tb = tensor_part(a), tensor_part(b)
        if ta == V.UNKNOWN and tb == V.UNKNOWN:
            if (ka == "S" and kb in "UN") or (kb == "S" and ka in "UN"):
                return V.scalar(a[1] if ka == "S" else b[1])
            return V.UNKNOWN
        out = tb if ta == V.UNKNOWN else ta if tb == V.UNKNOWN else V.join(ta, tb)
        if V.SIZE_INT in V.members(a) or V.SIZE_INT in V.members(b):
            # a size with a symbolic operand (`n % self.window`): the symbol's tensor part
            # decides tensor-ness; where it is a number, the result is still a per-call size
            return V.join(out, V.SIZE_INT)
        return out

    def _comparison(self, n: cst.Comparison) -> Value:
        parts: list[Value] = []
        left = n.left
        for ct in n.comparisons:
            if isinstance(ct.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) or (
                isinstance(ct.operator, (cst.Equal, cst.NotEqual))
                and (_is_str_or_none(left) or _is_str_or_none(ct.comparator))
            ):
                left = ct.comparator  # identity, membership, `x == "name"`: a Python bool
                continue
            for side in (left, ct.comparator):
                tp = tensor_part(self.value(side))
                if tp != V.UNKNOWN:
                    parts.append(tp)
            left = ct.comparator
        if not parts:
            return V.BOOL
        # a comparison of tensors is a bool tensor of their (broadcast) rank; a symbolic
        # operand stays as it is (whether it is a tensor is decided later)
        return V.join(
            *(V.meta_step(m, "#bool") if m[0] == "T" else m for p in parts for m in V.members(p))
        )

    # ------------------------------------------------------------------ calls
    def _builtin(self, name: str, node: cst.Call) -> Value | None:
        args = [a.value for a in node.args if a.keyword is None]
        if any(a.star for a in node.args):
            return V.UNKNOWN if name not in _INT_BUILTINS | _BOOL_BUILTINS | _STR_BUILTINS else None
        if name in _INT_BUILTINS:
            return V.INT
        if name == "float":
            return V.FLOAT
        if name in _BOOL_BUILTINS:
            return V.BOOL
        if name in _STR_BUILTINS:
            return V.STR
        if name == "getattr" and len(args) in (2, 3):
            got = self._self_getattr(args)
            if got is not None:
                return got
        if name in _UNKNOWN_BUILTINS:
            return V.NONE if name == "print" else V.UNKNOWN
        if name in ("dict",):
            return V.dict_of(None, V.UNKNOWN)
        if name in ("set", "frozenset"):
            return V.seq("set", None, V.iter_elem(self.value(args[0])) if args else V.UNKNOWN)
        if name == "range":
            return V.seq("list", None, V.INT)
        if name == "abs":
            return self.value(args[0]) if args else V.UNKNOWN
        if name in ("max", "min", "sum"):
            if not args:
                return V.UNKNOWN
            if len(args) == 1:
                out = V.iter_elem(self.value(args[0]))
                if name == "sum":
                    for a in node.args:
                        if a.keyword is not None and a.keyword.value == "start":
                            out = self._binop(out, self.value(a.value))
                return out
            return V.join(*(self.value(a) for a in args))
        if name in ("tuple", "list"):
            if not args:
                return V.seq(name, ())
            v = self.value(args[0])
            if v[0] == "Q":
                return V.seq(name, v[2], v[3])
            return V.seq(name, None, V.iter_elem(v))
        if name in ("sorted", "reversed", "filter"):
            if not args:
                return V.UNKNOWN
            src = args[-1] if name == "filter" else args[0]
            return V.seq("list", None, V.iter_elem(self.value(src)))
        if name == "map":
            return V.seq("list", None, V.UNKNOWN)
        if name == "zip":
            return V.seq("list", None, V.seq("tuple", [V.iter_elem(self.value(a)) for a in args]))
        if name == "enumerate":
            if not args:
                return V.UNKNOWN
            return V.seq("list", None, V.seq("tuple", [V.INT, V.iter_elem(self.value(args[0]))]))
        if name == "next":
            return V.iter_elem(self.value(args[0])) if args else V.UNKNOWN
        if name == "iter":
            return self.value(args[0]) if args else V.UNKNOWN
        if name in ("all", "any"):
            # a Python bool: `bool()` of each element is taken inside the call, which is where
            # a tensor element breaks the graph (CL101 reports the call)
            return V.BOOL
        return None

    def _self_getattr(self, args: list[cst.BaseExpression]) -> Value | None:
        """``getattr(self, "name")`` is ``self.name``; ``getattr(self, f"to_{n}")`` is the
        attribute of the dynamic name ``to___dyn__`` (``A|<class>|to___dyn__``: in phase 2 every
        attribute of the class the name may be); a default argument joins in. None for other
        receivers and names, and for a dynamic name a method of the class may have."""
        cls = self.cls
        if cls is None or not (isinstance(args[0], cst.Name) and args[0].value == "self"):
            return None
        key = attr_name_key(args[1])
        if key is None:
            return None
        if key in N.META_ATTRS:
            got = _META_ATTR_VALUES.get(key, V.UNKNOWN)
        elif any(V.attr_names_match(key, m) for m in cls.methods):
            if V.DYN_ATTR in key:
                return None
            got = V.func(f"M|{cls.qual}|{key}")
        else:
            got = V.sym(f"A|{cls.qual}|{key}")
        return V.join(got, self.value(args[2])) if len(args) == 3 else got

    def _call(self, node: cst.Call) -> Value:
        func = node.func
        if isinstance(func, cst.Attribute):
            return self._method_call(node, func)
        if isinstance(func, cst.Name):
            name = func.value
            local = self.lookup(name)
            if local is not None:
                if local[0] == "Y" and local[1].startswith("P|") and "@" not in local[1]:
                    # a callable parameter (``norm(err / tol)``, ``func(t, y)``): a function
                    # handed to torch code maps tensors to tensors, so what it returns is a
                    # tensor when an argument is
                    args = [tensor_part(self.value(a.value)) for a in node.args]
                    return V.join(*args) if args else V.UNKNOWN
                if local == V.UNKNOWN:
                    refs = self._aliased_refs(func)
                    if refs:  # `spline_fn(...)` with `spline_fn = splines.rq_spline`
                        return V.join(*(V.sym(f"R|{r}") for r in refs))
                own = self._module_forward(local)
                if own is not None:  # `loss, stats = model(x, y)`, `model = Net()` above
                    return own
                return V.call_result(local)
            if name in _BUILTIN_NAMES and not self.shadowed(name):
                got = self._builtin(name, node)
                if got is not None:
                    return got
            q = self.qualify(func)
            if q is not None and q.startswith("torch."):
                return self.torch_result(q, node)
            if q in V.TRACED_DRAWS:
                return V.DRAWN
            if name in self.class_defs:
                return V.module(f"Q|{self.module_defs[name]}")
            ref = self.name_ref(name)
            if ref is not None:
                local_fn = self._walked_function(ref[2:]) if ref.startswith("Q|") else None
                if local_fn is not None:
                    got = self._returns_for(local_fn, node, 0)
                    if got is not None:
                        return got
                return V.sym(f"R|{ref}")
            return V.UNKNOWN
        return V.call_result(self.value(func))

    def _method_call(self, node: cst.Call, func: cst.Attribute) -> Value:
        meth = func.attr.value
        q = self.qualify(func)
        if q is not None and q.startswith("torch."):
            return self.torch_result(q, node)
        if meth == "apply":
            ref = self.callee_ref(func)
            if ref is not None and ref.endswith("|forward"):
                return V.sym(f"R|{ref}")  # an autograd.Function: what its forward returns
        recv_node = func.value
        own_method = (
            isinstance(recv_node, cst.Name)
            and recv_node.value == "self"
            and self.cls is not None
            and meth in self.cls.methods
        )
        if meth in _MODULE_TENSOR_ITERS and not own_method:
            # `self.backbone.parameters()`, `model.named_buffers()`: a module's tensors
            return _MODULE_TENSOR_ITERS[meth]
        if isinstance(recv_node, cst.Name) and recv_node.value == "self" and self.cls is not None:
            if meth in self.cls.methods:
                local_fn = self._walked_function(f"{self.cls.qual}.{meth}")
                if local_fn is not None:
                    implicit = 1 if local_fn.params and local_fn.params[0].name == "self" else 0
                    got = self._returns_for(local_fn, node, implicit)
                    if got is not None:
                        return got
                return V.sym(f"R|M|{self.cls.qual}|{meth}")
            own = self._own_module_forward(meth)
            if own:  # a submodule of a class defined in this file: what its forward returns
                return V.join(*(V.sym(f"R|M|{q}|forward") for q in own))
            return V.TENSOR  # self.<submodule>(...) of a class we cannot see: a tensor
        if (
            isinstance(recv_node, cst.Call)
            and isinstance(recv_node.func, cst.Name)
            and recv_node.func.value == "super"
            and self.cls is not None
        ):
            return V.sym(f"R|S|{self.cls.qual}|{meth}")
        if q is not None:
            head = q.split(".", 1)[0]
            if head in _PYTHON_MODULES:
                if q in V.TRACED_DRAWS:
                    return V.DRAWN
                if q in _NUMPY_GENERATORS:
                    # a generator object whose methods dynamo skips (CL107 follows it into
                    # ``self.rng`` by this source)
                    return V.sym(f"R|D|{q}")
                return V.FLOAT if head == "math" else V.UNKNOWN
            if q in self.imports.values() or q.rsplit(".", 1)[0] in self.imports.values():
                if q.split(".", 1)[0] in self.imports or head in self.imports.values():
                    return V.sym(f"R|D|{q}")
        recv = self.value(recv_node)
        k = recv[0]
        if k == "J":
            return V.join(*(self._method_on(m, meth, node) for m in recv[1]))
        return self._method_on(recv, meth, node)

    def _walked_function(self, qual: str) -> Any:
        """The facts of a function of this file already walked to its end (its returns are
        complete), else None."""
        walked: set[str] = getattr(self, "walked", set())
        if qual not in walked:
            return None
        return self.functions.get(qual)  # type: ignore[attr-defined]

    def _returns_for(self, fn: Any, node: cst.Call, implicit: int) -> Value | None:
        """Call-site-sensitive return value: the callee's summary with this call's argument
        values put in for its parameters (``helper(x)`` is a tensor for a tensor ``x`` and an
        int for an int). None when the call hides its arguments or the callee returns nothing
        that depends on them."""
        if not fn.returns or any(a.star for a in node.args):
            return None
        summary = V.join(*fn.returns)
        prefix = f"P|{fn.qual}|"
        if not any(s.startswith(prefix) for s in V.contained_sources(summary)):
            return None  # nothing to specialise: keep the summary's symbol
        positional = [p for p in fn.params if p.index >= 0][implicit:]
        bound: dict[str, Value] = {}
        pos = [a for a in node.args if a.keyword is None]
        for prm, a in zip(positional, pos, strict=False):
            bound[prefix + prm.name] = self.value(a.value)
        star = next((p for p in fn.params if p.index == -2), None)
        if star is not None:  # `def default(*args)`: this call's extra positional arguments
            rest = pos[len(positional) :]
            bound[prefix + star.name] = V.seq("tuple", [self.value(a.value) for a in rest])
        for a in node.args:
            if a.keyword is not None:
                bound[prefix + a.keyword.value] = self.value(a.value)
        for prm in fn.params:
            key = prefix + prm.name
            if key in bound or prm.index < -1:
                continue
            if prm.default == "none":
                bound[key] = V.NONE
            elif prm.default == "literal":
                bound[key] = V.UNKNOWN  # a Python literal: not a tensor
        return V.instantiate(summary, V.bind_params(bound))

    def _module_forward(self, v: Value) -> Value | None:
        """What calling a module instance of a top-level class of this file whose ``forward``
        returns a tuple display gives (``model = Net()`` at module level, then ``loss, stats =
        model(x, y)``): that forward's return, per position; None for other values (a module
        call is then taken for a tensor, as before)."""
        if v[0] != "M" or not isinstance(v[1], str) or not v[1].startswith("Q|"):
            return None
        name = v[1][2:]
        return V.sym(f"R|M|{name}|forward") if name in self._tuple_forwards() else None

    def _tuple_forwards(self) -> frozenset[str]:
        """The top-level classes of this file whose ``forward`` returns a tuple display
        (:func:`_forward_classes`), found once per file."""
        forwards = self._forward_names
        if forwards is None:
            forwards = _forward_classes(getattr(self, "module", None))
            self._forward_names = forwards
        return forwards

    def _own_module_forward(self, attr: str) -> list[str]:
        """The classes ``self.<attr>`` is built from, when every one is a top-level class of
        this file that defines ``forward`` itself (else [], and the call is taken for a
        tensor as before)."""
        cls = self.cls
        refs = getattr(cls, "attr_classes", {}).get(attr) if cls is not None else None
        if not refs:
            return []
        forwards = self._forward_names
        if forwards is None:
            forwards = self._tuple_forwards()
        out: list[str] = []
        for r in refs:
            r = r.removeprefix("*")
            kind, _, name = r.partition("|")
            if kind != "Q" or name not in forwards:
                return []
            out.append(name)
        return out

    def _method_on(self, recv: Value, meth: str, node: cst.Call) -> Value:
        k = recv[0]
        if k in "TY":
            if meth in ("items", "values", "keys"):
                el = V.element(recv, None)
                if meth == "items":
                    return V.seq("list", None, V.seq("tuple", [V.STR, el]))
                return V.seq("list", None, el if meth == "values" else V.STR)
            if meth == "size":
                if not node.args:
                    return V.SIZE
                return V.INT if _feature_dim(node.args[0].value) else V.SIZE_INT
            if meth in N.META_METHODS:
                return _META_METHOD_VALUES.get(meth, V.UNKNOWN)
            if meth == "item":
                return V.DATA
            if meth == "tolist":
                return V.seq("list", None, V.DATA)
            if meth in N.SCALAR_METHODS:
                return V.UNKNOWN
            if meth in N.DATA_BOOL_READS:
                return V.BOOL  # `x.equal(y)`: the break is at the call (CL101)
            if meth in ("forward", "__call__"):
                return V.TENSOR if k == "T" or recv[1].startswith("A|") else V.UNKNOWN
            if meth not in N.TENSOR_METHODS:
                # not a Tensor method: the receiver is some other object (a cache, a config, a
                # model output), and so is what the method returns, as far as we can tell
                return V.UNKNOWN
            got = meta_result(recv, meth, node) if meth in _META_METHODS else None
            if got is not None:
                return got
            if k == "T" and len(recv) == 4:
                if meth in _KEEPS_META:
                    return V.meta_step(recv, "#float") if meth in _FLOAT_OPS else recv
                return V.TENSOR
            if k == "Y" and meth in _RESHAPES:
                return V.meta_step(
                    recv, "?"
                )  # what is known of the parameter's rank no longer holds
            return recv
        if k == "M":
            if meth in ("forward", "__call__"):
                return V.TENSOR
            if meth in ("children", "modules", "parameters", "buffers"):
                el = V.TENSOR if meth in ("parameters", "buffers") else V.module()
                return V.seq("list", None, el)
            return V.UNKNOWN
        if k == "Q":
            if meth in ("pop",):
                return recv[3]
            if meth in ("index", "count"):
                return V.INT
            if meth == "copy":
                return recv
            return V.UNKNOWN
        if k == "D":
            if meth in ("get", "pop") and node.args:
                key = node.args[0].value
                ev = getattr(key, "evaluated_value", None)
                got = V.element(recv, ev if isinstance(ev, str) else None)
                return V.join(got, V.NONE) if len(node.args) == 1 else got
            if meth == "values":
                return V.seq("list", None, recv[2])
            if meth == "keys":
                return V.seq("list", None, V.STR)
            if meth == "items":
                return V.seq("list", None, V.seq("tuple", [V.STR, recv[2]]))
            if meth == "copy":
                return recv
            return V.UNKNOWN
        if k == "S" and recv[1] == "str":
            if meth in ("split", "rsplit", "splitlines"):
                return V.seq("list", None, V.STR)
            if meth.startswith("is") or meth in ("startswith", "endswith"):
                return V.BOOL
            if meth in ("find", "rfind", "index", "count"):
                return V.INT
            return V.STR
        return V.UNKNOWN

    def torch_result(self, q: str, node: cst.Call | None = None) -> Value:
        """What calling the torch callable ``q`` returns."""
        if q.startswith(V.OPTIMIZER_PREFIX):
            last = q.rsplit(".", 1)[-1]
            if last == "AveragedModel":  # torch.optim.swa_utils.AveragedModel: a module
                return V.module(q)
            if last[:1].isupper():
                return V.obj(q)  # an optimizer or an LR scheduler
            return V.UNKNOWN  # torch.optim.lr_scheduler helpers, torch.optim.swa_utils.*
        if q in N.NON_TENSOR_TORCH or q.startswith(N.NON_TENSOR_TORCH_PREFIXES):
            last = q.rsplit(".", 1)[-1]
            if last in _CONTAINER_MODULES and node is not None:
                return V.module(q, self._children(node))
            if q in ("torch.is_tensor", "torch.is_floating_point", "torch.is_complex"):
                return V.BOOL
            if q == "torch.numel":
                return V.INT
            if q == "torch.Size":
                return V.SIZE
            if q.startswith("torch.nn.Module"):
                return V.module(q)
            return V.UNKNOWN
        last = q.rsplit(".", 1)[-1]
        if (
            last[:1].isupper()
            and q.startswith(_MODULE_PREFIXES)
            and not q.startswith("torch.nn.functional")
        ):
            if last in ("Parameter", "Buffer"):
                return V.TENSOR
            return V.module(q)  # constructing a module (calling it later returns a tensor)
        if last in ("is_tensor", "is_same_size"):
            return V.BOOL
        pos = [a for a in node.args if a.keyword is None] if node is not None else []
        if last in _FOLDED_TORCH and pos and not any(a.star for a in pos):
            # keywords (rounding_mode=, dtype=, device=) do not make data
            folded = _folded(*(self.value(a.value) for a in pos))
            if folded is not None:
                return folded  # arithmetic on Python numbers: dynamo folds it
        if last in N.DATA_BOOL_READS:
            # a Python bool read from the data of its tensor arguments: the graph breaks at the
            # call (CL101 reports it), and what it gives is a Python bool
            return V.BOOL
        if node is not None and q.count(".") == 1:
            if last in _FACTORIES:
                got = self._factory(last, pos, node)
                if got is not None:
                    return got
            if last == "arange" and pos and not any(a.star for a in pos):
                vals = [self.value(a.value) for a in pos]
                ints = all(
                    m[0] == "S" and m[1] in ("int", "size") for v in vals for m in V.members(v)
                )
                return V.tensor(1, "int" if ints and _keyword(node, "dtype") is None else "")
            if pos and (
                last in _REDUCTIONS
                or last in _BARE_REDUCTIONS
                or last in _ONE_DIM
                or last in ("argsort", "nonzero")
            ):
                x = tensor_part(self.value(pos[0].value))
                if x[0] == "T":
                    got = meta_result(x, last, node, skip=1)
                    if got is not None and got[0] == "T":
                        return got
                elif x[0] == "Y" and last in _ONE_DIM:
                    # a tensor whatever its argument; of one dim and the argument's dtype where
                    # the argument is decided (an entry's by the spec, a helper's by its callers)
                    got = meta_result(x, last, node, skip=1)
                    if got is not None:
                        return V.join(V.TENSOR, got)
        return V.TENSOR

    def _factory(self, last: str, pos: list[cst.Arg], node: cst.Call) -> Value | None:
        """``torch.<last>(...)`` with a ``dtype=`` keyword: a tensor of that dtype kind, of rank
        2 for ``eye``, the given size's for ``zeros``/``ones``/``empty``/``full``, the model
        tensor's for ``*_like``; None without a known dtype."""
        dt = _keyword(node, "dtype")
        kind = _DTYPE_KINDS.get(self.qualify(dt) or "") if dt is not None else None
        if kind is None or any(a.star for a in pos):
            return None
        rank: V.Rank = -1
        if last == "eye":
            rank = 2
        elif last.endswith("_like") and pos:
            x = tensor_part(self.value(pos[0].value))
            rank = V.tensor_meta(x)[0] if x[0] == "T" else -1
        elif last in ("zeros", "ones", "empty", "full") and pos:
            first = pos[0].value
            if isinstance(first, (cst.Tuple, cst.List)):
                if not any(isinstance(e, cst.StarredElement) for e in first.elements):
                    rank = len(first.elements)
            elif last != "full":
                sizes = [self.value(a.value) for a in pos]
                if all(
                    m[0] == "S" and m[1] in ("int", "size") for v in sizes for m in V.members(v)
                ):
                    rank = len(pos)
        elif last in ("arange", "linspace"):
            rank = 1
        return V.tensor(rank, kind)

    def _children(self, node: cst.Call) -> Value:
        """The value of the children of ``nn.ModuleList([...])``/``nn.Sequential(a, b)``."""
        vals: list[Value] = []
        for a in node.args:
            if a.keyword is not None:
                continue
            v = self.value(a.value)
            if a.star or isinstance(a.value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
                v = V.iter_elem(v)
            elif v[0] == "D":
                v = v[2]
            vals.append(v)
        out = V.join(*vals) if vals else V.module()
        # an unknown child of a module container is still a module
        return V.join(*(V.module() if m == V.UNKNOWN else m for m in V.members(out)))


def _folded(*vals: Value) -> Value | None:
    """Arithmetic on Python numbers (and tensors folded from them) is a folded constant; a
    symbolic operand (a parameter, a helper's return) keeps its own say: the result is a data
    tensor exactly when that operand is a tensor. None when some operand is a data tensor or
    not a number."""
    syms: list[Value] = []
    for v in vals:
        for m in V.members(v):
            if m[0] == "Y":
                syms.append(m)
            elif m[0] == "S" and m[1] != "str":
                continue
            elif m != V.CONST_TENSOR:
                return None
    return V.join(V.CONST_TENSOR, *syms)


def _feature_dim(node: cst.BaseExpression) -> bool:
    """``-1`` as a dimension: the last one, a feature size (fixed between calls)."""
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
        and node.expression.value == "1"
    )


def _is_str_or_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or (
        isinstance(node, cst.Name) and node.value == "None"
    )


def _forward_classes(
    module: cst.Module | None, memo: dict[int, tuple[cst.ClassDef, bool]] | None = None
) -> frozenset[str]:
    """Top-level classes of a module whose own ``forward`` returns a tuple display
    (``return out, lengths``): calling such a submodule gives what that forward returns, per
    position, instead of "a tensor" (a tuple of a tensor and Python ints is not all tensors).
    ``memo``: id of a class statement -> (the statement, the answer), kept between versions of
    a file (the editor server keeps unchanged statements as the same objects): an answer is
    used for its own statement only, and the memo is left with this module's classes."""
    if module is None:
        return frozenset()
    out: set[str] = set()
    kept: dict[int, tuple[cst.ClassDef, bool]] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.ClassDef):
            continue
        got = memo.get(id(stmt)) if memo is not None else None
        if got is not None and got[0] is stmt:
            tuple_forward = got[1]
        else:
            tuple_forward = any(
                isinstance(b, cst.FunctionDef) and b.name.value == "forward" and _returns_tuple(b)
                for b in getattr(stmt.body, "body", ())
            )
        kept[id(stmt)] = (stmt, tuple_forward)
        if tuple_forward:
            out.add(stmt.name.value)
    if memo is not None:
        memo.clear()
        memo.update(kept)
    return frozenset(out)


def _returns_tuple(fn: cst.FunctionDef) -> bool:
    """Whether a ``return`` of ``fn`` itself (not of a nested def or class) returns a tuple
    display. Returns are statements: only statements are walked (libcst's visitor, which
    rebuilds every node it passes, cost a third of a file's walk here)."""
    return _suite_returns_tuple(fn.body)


def _suite_returns_tuple(suite: cst.BaseSuite) -> bool:
    for stmt in suite.body:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.Return)):
            smalls = stmt.body if isinstance(stmt, cst.SimpleStatementLine) else (stmt,)
            if any(isinstance(x, cst.Return) and isinstance(x.value, cst.Tuple) for x in smalls):
                return True
        elif isinstance(stmt, cst.BaseCompoundStatement) and _compound_returns_tuple(stmt):
            return True
    return False


def _compound_returns_tuple(stmt: cst.BaseCompoundStatement) -> bool:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return False  # a nested function's returns are its own
    suites: list[cst.BaseSuite] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        suites.append(body)
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        if _compound_returns_tuple(orelse):
            return True
    elif orelse is not None:
        suites.append(orelse.body)
    for h in getattr(stmt, "handlers", ()):
        suites.append(h.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        suites.append(final.body)
    for case in getattr(stmt, "cases", ()):
        suites.append(case.body)
    return any(_suite_returns_tuple(x) for x in suites)
