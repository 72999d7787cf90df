"""A standard-library call on values fixed when the module is built (``hashlib`` of a config
string, ``zlib.crc32`` of a feature name, ``struct.unpack`` of a constant) is computed once,
in ``__init__``; the compiled forward reads the stored result::

    offset = zlib.crc32(self.name.encode()) % self.buckets
        -> offset = self._const_crc32        (__init__ ends with
           self._const_crc32 = zlib.crc32(self.name.encode()) % self.buckets)

The hoisted expression is the largest one around the call that reads only constants: literals,
module-level names bound once, ``self.X`` assigned in ``__init__`` only, imported modules, and
the pure functions of :data:`PURE` (no clock, no global random state, no frames). Its value is
the very Python object the call made (an ``int`` stays an ``int``, ``bytes`` stay ``bytes``),
so every use typechecks as before; dynamo reads it as a constant (guarded on the attribute).
"""

from __future__ import annotations

import libcst as cst

from compilelint.fix.codemods.base import all_nodes
from compilelint.fix.context import FixContext
from compilelint.fix.records import Rewrite
from compilelint.static.analysis.walker import self_attr

# module -> functions whose result depends only on their arguments
PURE: dict[str, frozenset[str]] = {
    "hashlib": frozenset(
        {"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake2s", "new"}
    ),
    "zlib": frozenset({"crc32", "adler32"}),
    "binascii": frozenset({"crc32", "hexlify", "unhexlify"}),
    "struct": frozenset({"pack", "unpack", "calcsize", "unpack_from"}),
    "random": frozenset({"Random"}),  # a seeded generator: its draws follow from the seed
}
# methods of the values those make (and of str/bytes) that are pure
_METHODS = frozenset(
    {
        "digest",
        "hexdigest",
        "encode",
        "decode",
        "lower",
        "upper",
        "strip",
        "format",
        "random",
        "uniform",
        "randint",
        "randrange",
        "gauss",
        "choice",
        "to_bytes",
    }
)
_BUILTINS = frozenset({"int", "float", "str", "bytes", "abs", "len", "hash", "round"})


class _Pure:
    def __init__(self, ctx: FixContext, cls: cst.ClassDef) -> None:
        self.ctx = ctx
        self.cls = cls
        self._init_only: dict[str, bool] = {}
        self._module_consts = _module_constants(ctx.module)

    def init_only(self, attr: str) -> bool:
        """``self.attr`` is bound in ``__init__`` only (and never changed elsewhere)."""
        if attr not in self._init_only:
            ok = False
            for fn in self.cls.body.body:
                if not isinstance(fn, cst.FunctionDef):
                    continue
                for n in all_nodes(fn):
                    t = None
                    if isinstance(n, cst.AssignTarget):
                        t = n.target
                    elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
                        t = n.target
                    if t is not None and self_attr(t) == attr:
                        if fn.name.value != "__init__":
                            self._init_only[attr] = False
                            return False
                        ok = True
                    if (
                        isinstance(n, cst.Call)
                        and isinstance(n.func, cst.Name)
                        and n.func.value in ("setattr", "delattr")
                    ):
                        self._init_only[attr] = False
                        return False
            self._init_only[attr] = ok
        return self._init_only[attr]

    def const(self, e: cst.BaseExpression) -> bool:
        """Whether ``e`` reads only values fixed once the module is built."""
        if isinstance(e, (cst.Integer, cst.Float, cst.SimpleString, cst.Imaginary)):
            return True
        if isinstance(e, cst.ConcatenatedString):
            return self.const(e.left) and self.const(e.right)  # type: ignore[arg-type]
        if isinstance(e, cst.FormattedString):
            return all(
                self.const(p.expression)
                for p in e.parts
                if isinstance(p, cst.FormattedStringExpression)
            )
        if isinstance(e, cst.Name):
            return e.value in self._module_consts or e.value in ("True", "False", "None")
        if isinstance(e, cst.Attribute):
            a = self_attr(e)
            if a is not None:
                return self.init_only(a)
            return False
        if isinstance(e, cst.UnaryOperation):
            return self.const(e.expression)
        if isinstance(e, cst.BinaryOperation):
            return self.const(e.left) and self.const(e.right)
        if isinstance(e, cst.Subscript):
            return self.const(e.value) and all(self._slice_const(s.slice) for s in e.slice)
        if isinstance(e, (cst.Tuple, cst.List)):
            return all(self.const(x.value) for x in e.elements if isinstance(x, cst.Element))
        if isinstance(e, cst.Call):
            if any(a.star for a in e.args) or not all(self.const(a.value) for a in e.args):
                return False
            f = e.func
            if isinstance(f, cst.Name):
                return f.value in _BUILTINS
            if isinstance(f, cst.Attribute):
                mod = self.ctx.foreign_module(f.value)
                if mod is not None:
                    return f.attr.value in PURE.get(mod, frozenset())
                return f.attr.value in _METHODS and self.const(f.value)
        return False

    def _slice_const(self, s: cst.BaseSlice) -> bool:
        if isinstance(s, cst.Index):
            return self.const(s.value)
        if isinstance(s, cst.Slice):
            return all(
                x is None or self.const(x)
                for x in (s.lower, s.upper, s.step)  # type: ignore[misc]
            )
        return False


def _module_constants(module: cst.Module) -> set[str]:
    """Top-level names bound exactly once by a plain assignment (``SALT = "layer-7"``), never
    declared ``global``; and imported modules."""
    counts: dict[str, int] = {}
    out: set[str] = set()
    for st in module.body:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Name):
                            counts[t.target.value] = counts.get(t.target.value, 0) + 1
    for n in all_nodes(module):
        if isinstance(n, cst.Global):
            for g in n.names:
                counts[g.name.value] = 99
    out = {k for k, v in counts.items() if v == 1}
    return out


def _call_ok(ctx: FixContext, call: cst.Call) -> bool:
    f = call.func
    while isinstance(f, cst.Attribute) and isinstance(f.value, cst.Call):
        f = f.value.func  # random.Random(seed).uniform(...) -> random.Random
    return (
        isinstance(f, cst.Attribute)
        and (mod := ctx.foreign_module(f.value)) is not None
        and f.attr.value in PURE.get(mod, frozenset())
    )


_OBJECTS = {"hashlib": None, "random": frozenset({"Random"})}


def _makes_object(ctx: FixContext, e: cst.BaseExpression) -> bool:
    """``e`` is a call making a stateful object (``hashlib.md5(b)``, ``random.Random(s)``)."""
    if not (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute)):
        return False
    mod = ctx.foreign_module(e.func.value)
    if mod not in _OBJECTS:
        return False
    names = _OBJECTS[mod]
    return names is None or e.func.attr.value in names


def hoist_constant_call(ctx: FixContext, node: cst.CSTNode) -> Rewrite | None:
    """The rewrite that computes the pure standard-library call at ``node`` once in
    ``__init__``, or None when it does not read constants only."""
    calls = [n for n in [node, *ctx.ancestors(node)] if isinstance(n, cst.Call)]
    call = next((c for c in calls if _call_ok(ctx, c)), None)
    if call is None and isinstance(node, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
        call = next(
            (c for c in all_nodes(node) if isinstance(c, cst.Call) and _call_ok(ctx, c)), None
        )
    if call is None:
        return None
    fn = ctx.function(call)
    cls = ctx.enclosing(fn, cst.ClassDef) if fn is not None else None
    if fn is None or cls is None or fn.name.value == "__init__":
        return None
    init = next(
        (s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"),
        None,
    )
    if init is None or any(isinstance(n, cst.Return) for n in all_nodes(init)):
        return None
    if not isinstance(init.body, cst.IndentedBlock):
        return None
    pure = _Pure(ctx, cls)
    if not pure.const(call):
        return None
    # the largest expression around the call that is still constant
    top: cst.BaseExpression = call
    for a in ctx.ancestors(call):
        if isinstance(a, cst.Attribute) and a.value is top:
            p = ctx.parent(a)
            if isinstance(p, cst.Call) and p.func is a:
                continue  # `hashlib.md5(b).digest` of `....digest()`: judged as the call
        if isinstance(a, cst.Arg):
            continue  # `int(h, 16)`: judged as the call
        if not isinstance(a, cst.BaseExpression) or not pure.const(a):
            break
        top = a
    if _makes_object(ctx, top):
        # a hash object or a seeded `random.Random` has state (`.update`, draws): stored once,
        # it would change between calls; only the values read from it are constants
        return None
    f = call.func
    while isinstance(f, cst.Attribute) and isinstance(f.value, cst.Call):
        f = f.value.func
    base = f.attr.value if isinstance(f, cst.Attribute) else "call"
    used = {n.attr.value for n in all_nodes(cls) if isinstance(n, cst.Attribute)}
    attr = f"_const_{base}"
    i = 2
    while attr in used:
        attr, i = f"_const_{base}_{i}", i + 1
    expr = top.with_changes(lpar=[], rpar=[])
    line = cst.SimpleStatementLine(
        [cst.Assign([cst.AssignTarget(cst.Attribute(cst.Name("self"), cst.Name(attr)))], expr)],
        leading_lines=[
            cst.EmptyLine(
                comment=cst.Comment(
                    "# computed once: dynamo cannot trace it, and it reads constants only"
                )
            )
        ],
    )
    body = init.body
    new_init = init.with_changes(body=body.with_changes(body=[*body.body, line]))
    read = cst.Attribute(cst.Name("self"), cst.Name(attr), lpar=top.lpar, rpar=top.rpar)
    return Rewrite(
        title=(
            f"compute `{ctx.code(top).strip()[:60]}` once in `__init__` "
            f"(`self.{attr}`): it reads constants only, and the compiled forward reads the "
            "stored Python value (same type) instead of calling what dynamo cannot trace"
        ),
        changes=[(top, read), (init, new_init)],
    )
