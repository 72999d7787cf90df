"""Library files loaded only to resolve names, read from CPython's tree (issue 24).

Following loads a library file because traced code names something in it; on the 200-file
transformers corpus, 27 of the 37 files a first run loads hold no traced function: they are
there for a base class's MRO, a decorator, a re-exporting ``__init__``. For such a file the
project view reads only its *resolution facts*: the imports (the walker's one table for the
whole file, in source order), the names, classes and bases of its definitions, and its
module-level facts. Those are made here from ``ast.parse`` plus one walk of the statements
(about 7x cheaper than libcst's parse), equal to what the libcst walker gives
(``tests/test_libresolve.py`` compares them field by field over whole installed packages).

Only files whose module-level facts are empty by construction are read this way (no
``compile``/``optimize``/``allow_in_graph``/hook/``disable`` name, no ``__all__``, no
``__main__`` block, no class that stores ``self.<attr>``): the rest are analysed whole as
before. A function's facts from its body (calls, returns, parameters, decorators, ...) are not
made: reading one records a *demand* (:class:`Demand`), and following analyses that file again
whole with libcst and recomputes the project view, so that what the project computes reads
only facts identical to a whole-file analysis's.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from compilelint.static.analysis import names as N
from compilelint.static.analysis.facts import ClassFacts, FileFacts, FunctionFacts

# read a library file only for resolution while it holds nothing traced (off: every followed
# file is analysed whole, as before)
ENABLED = True
# analyse whole at once the light files that the calls of traced functions name (each would
# otherwise be demanded by a computation, and cost one more)
PREDICT = True

# the walker's module-level facts come from calls and decorators of these qualified names
# (compiled refs, graph ops, compiled or disabled functions): a file that may call one (under
# any name its imports give) is analysed whole
_SENSITIVE = N.COMPILE_CALLS | N.DISABLE_CALLS | N.ALLOW_IN_GRAPH_CALLS
_SENSITIVE_LAST = frozenset(q.rsplit(".", 1)[-1] for q in _SENSITIVE)
# calls on any object that the walker records (forward hooks: compiled refs)
_HOOKS = frozenset(
    {"register_forward_hook", "register_forward_pre_hook", "register_module_forward_hook"}
)
# calls that give a class attribute facts without a store (``self.register_buffer("x", t)``)
_CLASS_CALLS = frozenset({"register_buffer", "register_parameter"})
# FunctionFacts fields made here (everything else is a demand for the whole-file analysis)
_KNOWN = frozenset({"qual", "name", "cls", "line", "compiled", "returned_defs", "returned_calls"})


class _Noticed(set):  # type: ignore[type-arg]
    """A demand's paths that tell ``on_new`` of each path when it is first recorded."""

    def __init__(self, on_new: Callable[[str], None]) -> None:
        super().__init__()
        self.on_new = on_new

    def add(self, path: str) -> None:
        if path not in self:
            super().add(path)
            self.on_new(path)


class Demand:
    """The light files whose functions' body facts were read while recording. With
    ``on_new``, each path is handed to it when first recorded (following begins that file's
    whole analysis in the pool while the computation goes on)."""

    active: ClassVar[bool] = False
    paths: ClassVar[set[str]] = set()

    @classmethod
    @contextlib.contextmanager
    def recording(cls, on_new: Callable[[str], None] | None = None) -> Iterator[set[str]]:
        saved = cls.active, cls.paths
        cls.active, cls.paths = True, (set() if on_new is None else _Noticed(on_new))
        try:
            yield cls.paths
        finally:
            cls.active, cls.paths = saved

    @classmethod
    @contextlib.contextmanager
    def paused(cls) -> Iterator[None]:
        """Nothing read meanwhile is a demand (a file read for the next round while a
        computation records)."""
        saved = cls.active
        cls.active = False
        try:
            yield
        finally:
            cls.active = saved


class LightFunction(FunctionFacts):
    """A function of a light file: reading a fact its body gives records a demand."""

    _known: ClassVar[frozenset[str]] = _KNOWN

    def __getattribute__(self, name: str) -> object:
        if Demand.active and not name.startswith("_"):
            if name not in object.__getattribute__(self, "_known"):
                Demand.paths.add(object.__getattribute__(self, "__dict__")["_light"])
        return object.__getattribute__(self, name)


class _NoClosureCall(LightFunction):
    """A light function that calls no parameter of an enclosing function by name anywhere
    (``calls_closure_param`` is False, as the walker finds)."""

    _known: ClassVar[frozenset[str]] = _KNOWN | {"calls_closure_param"}


def _whole(name: str) -> Callable[..., Any]:
    """``dict.<name>`` of an ``_Attrs`` after its whole analysis was demanded."""

    def read(self: _Attrs, *a: Any) -> Any:
        self._demand()
        return getattr(dict, name)(self, *a)

    return read


class _Attrs(dict):  # type: ignore[type-arg]
    """A light class's attribute facts (``attrs``/``attr_classes``), not made: looking up an
    attribute its methods never store (``self.<attr> = ...``) answers that there is none, as the
    walker's table would; any other read records a demand."""

    def __init__(self, path: str, stored: frozenset[str] | None) -> None:
        super().__init__()
        self.path = path
        self.stored = stored  # None: any attribute may have facts

    def _absent(self, key: object) -> bool:
        if self.stored is None or not isinstance(key, str):
            return False
        return key.removesuffix("()") not in self.stored

    def _demand(self) -> None:
        if Demand.active:
            Demand.paths.add(self.path)

    def get(self, key: object, default: object = None) -> object:
        if not self._absent(key):
            self._demand()
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if not self._absent(key):
            self._demand()
        return super().__contains__(key)

    def __getitem__(self, key: object) -> object:
        if not self._absent(key):
            self._demand()
        return super().__getitem__(key)

    items = _whole("items")
    keys = _whole("keys")
    values = _whole("values")
    __iter__ = _whole("__iter__")
    __len__ = _whole("__len__")
    __bool__ = _whole("__len__")
    __eq__ = _whole("__eq__")
    __hash__ = None  # type: ignore[assignment]


class LightClass(ClassFacts):
    """A class of a light file whose methods may give it attribute facts: those are
    :class:`_Attrs` tables."""


def is_light(f: FileFacts) -> bool:
    return bool(f.__dict__.get("_light"))


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


# fields of CPython's nodes that never hold a node worth visiting here (names, operators,
# load/store contexts, constants)
_LEAF_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "name", "arg", "asname", "module", "level", "kind"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
# nodes with nothing to visit below them and no fact of their own here (a third of a tree's
# nodes): not pushed on the walk's stack (a name or constant is read from its parent)
_LEAVES = frozenset({ast.Name, ast.Constant})


class _TreeFacts:
    """What the reader needs from whole subtrees, from one walk of the module's tree (every
    node once, instead of a walk per function and per class): per function node, the names it
    calls by name anywhere in it (nested defs included); per class node, the attributes its
    body stores to (``self.<attr> = ...``, ``self.<attr>[k] = ...``; the walker's ``append``/``extend`` facts extend an
    attribute stored before) and whether it registers a buffer or parameter (any name); and
    every call's and decorator's callee, for the module-level test."""

    def __init__(self, tree: ast.Module) -> None:
        # the tables below are keyed by ids of the tree's nodes: held with them, the tree
        # keeps every id its node's while the tables live
        self.tree = tree
        self.called: dict[int, set[str]] = {}  # id(function node) -> names it calls
        self.stores: dict[int, tuple[set[str], list[bool]]] = {}  # id(class node) -> ...
        self.hooks = False  # a forward-hook registration somewhere
        self.callees: list[str] = []  # dotted callees of calls and decorators
        AST = ast.AST
        Call, Attribute, Name = ast.Call, ast.Attribute, ast.Name
        Load, ClassDef, Subscript = ast.Load, ast.ClassDef, ast.Subscript
        fields = _CHILD_FIELDS
        leaves = _LEAVES
        stack: list[tuple[ast.AST, tuple[set[str], ...], tuple[tuple[set[str], list[bool]], ...]]]
        stack = [(tree, (), ())]
        while stack:
            n, funcs, classes = stack.pop()
            t = type(n)
            if t is Call:
                f = n.func  # type: ignore[attr-defined]
                ft = type(f)
                if ft is Name:
                    for called in funcs:
                        called.add(f.id)
                elif ft is Attribute:
                    if f.attr in _CLASS_CALLS:
                        for _st, reg in classes:
                            reg[0] = True
                    if f.attr in _HOOKS:
                        self.hooks = True
                d = N.ast_dotted(f)
                if d is not None:
                    self.callees.append(d)
            elif t is Attribute:
                if classes and type(n.ctx) is not Load:  # type: ignore[attr-defined]
                    v = n.value  # type: ignore[attr-defined]
                    if type(v) is Name and v.id == "self":
                        for st, _reg in classes:
                            st.add(n.attr)  # type: ignore[attr-defined]
            elif t is Subscript:
                # an item stored into an attribute (``self.table[k] = v``, ``self.__dict__[k]
                # = v``): the walker gives the attribute facts even where a base class binds it
                if classes and type(n.ctx) is not Load:  # type: ignore[attr-defined]
                    v = n.value  # type: ignore[attr-defined]
                    if type(v) is Attribute and type(v.value) is Name and v.value.id == "self":
                        for st, _reg in classes:
                            st.add(v.attr)
            elif t in _DEFS:
                for dec in n.decorator_list:  # type: ignore[attr-defined]
                    d = N.ast_dotted(dec.func if isinstance(dec, Call) else dec)
                    if d is not None:
                        self.callees.append(d)
                called = self.called[id(n)] = set()
                funcs = (*funcs, called)
            elif t is ClassDef:
                info: tuple[set[str], list[bool]] = (set(), [False])
                self.stores[id(n)] = info
                classes = (*classes, info)
            names = fields.get(t)
            if names is None:
                names = fields[t] = tuple(x for x in t._fields if x not in _LEAF_FIELDS)
            for name in names:
                v = getattr(n, name, None)
                if type(v) is list:
                    for x in v:
                        if isinstance(x, AST) and type(x) not in leaves:
                            stack.append((x, funcs, classes))
                elif isinstance(v, AST) and type(v) not in leaves:
                    stack.append((v, funcs, classes))


def _main_guard(test: ast.expr) -> bool:
    """``__name__ == "__main__"`` (either way round), as the walker tests it."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


class _Heavy(Exception):
    """The file has module-level facts this reader does not make: analyse it whole."""


class _Reader:
    def __init__(self, path: str, module: str, is_package: bool, tree: ast.Module) -> None:
        self.path = path
        self.module = module
        self.is_package = is_package
        self.imports: dict[str, str] = {}
        self.functions: dict[str, FunctionFacts] = {}
        self.classes: dict[str, ClassFacts] = {}
        self.module_defs = {st.name for st in tree.body if isinstance(st, (*_DEFS, ast.ClassDef))}
        self.module_funcs = {st.name for st in tree.body if isinstance(st, _DEFS)}
        self.class_stack: list[ClassFacts] = []
        self.func: str | None = None  # the enclosing function's qual (None: module or class)
        self.fn: LightFunction | None = None
        self.local_defs: list[dict[str, str]] = []  # per enclosing function: nested def -> qual
        self.params: list[set[str]] = []  # per enclosing function: its parameters' names
        self.bound: dict[str, set[str]] = {}  # every target a local name was imported as
        self.all_names: list[str] | None = None
        self.all_computed = False
        self.stars = 0  # star imports so far
        self.tree_facts = _TreeFacts(tree)

    def outer_params(self) -> set[str]:
        return set().union(*self.params) if self.params else set()

    def bind(self, local: str, target: str) -> None:
        self.imports[local] = target
        self.bound.setdefault(local, set()).add(target)

    def sensitive(self, d: str) -> bool:
        """Whether the dotted name ``d`` may qualify, under some import of the file, to a
        call that gives module-level facts."""
        if d.rsplit(".", 1)[-1] not in _SENSITIVE_LAST and d not in self.bound:
            return False
        head, _, rest = d.partition(".")
        names = {d} | {f"{t}.{rest}" if rest else t for t in self.bound.get(head, ())}
        return bool(names & _SENSITIVE)

    def module_all(self, target: ast.expr, value: ast.expr, extend: bool) -> None:
        if not (isinstance(target, ast.Name) and target.id == "__all__"):
            return
        if self.func is not None or self.class_stack:
            return
        names: list[str] | None = None
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            got = [e.value for e in value.elts if isinstance(e, ast.Constant)]
            if len(got) == len(value.elts) and all(isinstance(n, str) for n in got):
                names = got  # type: ignore[assignment]
        if names is None:
            self.all_computed = True
            return
        self.all_names = (self.all_names or []) + names if extend else names

    def qualify(self, node: ast.expr) -> str | None:
        d = N.ast_dotted(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        target = self.imports.get(head)
        if target is None:
            return d
        return f"{target}.{rest}" if rest else target

    def block(self, body: list[ast.stmt]) -> None:
        for st in body:
            self.stmt(st)

    def stmt(self, st: ast.stmt) -> None:
        t = type(st)
        if t is ast.Import:
            for a in st.names:  # type: ignore[attr-defined]
                if a.asname is not None:
                    self.bind(a.asname, a.name)
                else:
                    head = a.name.split(".", 1)[0]
                    self.bind(head, head)
        elif t is ast.ImportFrom:
            self.import_from(st)  # type: ignore[arg-type]
        elif t in _DEFS:
            self.function(st)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            self.klass(st)  # type: ignore[arg-type]
        else:
            if t is ast.Return:
                if st.value is not None and self.fn is not None:  # type: ignore[attr-defined]
                    self.returned(st.value)  # type: ignore[attr-defined]
            elif t is ast.Assign:
                for tgt in st.targets:  # type: ignore[attr-defined]
                    self.module_all(tgt, st.value, extend=False)  # type: ignore[attr-defined]
            elif t is ast.AugAssign:
                self.module_all(st.target, st.value, extend=True)  # type: ignore[attr-defined]
            elif (
                t is ast.If and self.func is None and not self.class_stack and _main_guard(st.test)  # type: ignore[attr-defined]
            ):
                raise _Heavy  # the script's calls (``script_refs``)
            for name in ("body", "orelse", "finalbody"):
                sub = getattr(st, name, None)
                if sub:
                    self.block(sub)
                if name == "body":
                    for h in getattr(st, "handlers", ()):
                        self.block(h.body)
                    for c in getattr(st, "cases", ()):
                        self.block(c.body)

    def import_from(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        if node.level:
            pkg = self.module.split(".") if self.module else []
            if not self.is_package:
                pkg = pkg[:-1]
            if node.level > 1:
                lv = node.level - 1
                pkg = pkg[: len(pkg) - lv] if lv <= len(pkg) else []
            base = ".".join(pkg)
            mod = f"{base}.{mod}" if base and mod else (base or mod)
        if len(node.names) == 1 and node.names[0].name == "*":
            if mod:
                # ``*<n>``: the n-th star import (no other key of the table starts with ``*``)
                self.imports[f"*{self.stars}"] = mod
                self.stars += 1
            return
        for a in node.names:
            local = a.asname if a.asname is not None else a.name
            self.bind(local, f"{mod}.{a.name}" if mod else a.name)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        cls = self.class_stack[-1] if self.class_stack and self.func is None else None
        if cls is not None:
            qual = f"{cls.qual}.{node.name}"
            for d in node.decorator_list:
                if isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter"):
                    qual += f".<{d.attr}>"
        elif self.func is not None:
            qual = f"{self.func}.<locals>.{node.name}"
            self.local_defs[-1][node.name] = qual
        else:
            qual = node.name
        called = self.tree_facts.called[id(node)]
        make = _NoClosureCall if not (called & self.outer_params()) else LightFunction
        fn = make(qual=qual, name=node.name, cls=cls.qual if cls else None, line=0, params=[])
        fn.__dict__["_light"] = self.path
        self.functions[qual] = fn
        saved_func, saved_stack, saved_fn = self.func, self.class_stack, self.fn
        if cls is None and self.func is not None:
            self.class_stack = []
        self.func, self.fn = qual, fn
        # the nested defs it declares before walking its body (more as they are walked)
        self.local_defs.append(
            {st.name: f"{qual}.<locals>.{st.name}" for st in node.body if isinstance(st, _DEFS)}
        )
        a = node.args
        self.params.append(
            {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg) if x}
        )
        self.block(node.body)
        self.params.pop()
        self.local_defs.pop()
        self.func, self.class_stack, self.fn = saved_func, saved_stack, saved_fn

    def returned(self, value: ast.expr) -> None:
        """``return wrapper`` / ``return wrapped_fn(func)`` of a nested def (decorators)."""
        fn, defs = self.fn, self.local_defs[-1]
        assert fn is not None
        if isinstance(value, ast.Name) and value.id in defs:
            q = defs[value.id]
            lst = object.__getattribute__(fn, "returned_defs")
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            name = value.func.id
            if name in defs:
                q = defs[name]
            elif name in self.module_funcs and len(self.params) == 1 and name not in self.params[0]:
                q = name  # a decorator handing over to another of its module (as the walker)
            else:
                return
            lst = object.__getattribute__(fn, "returned_calls")
        else:
            return
        if q not in lst:
            lst.append(q)

    def klass(self, node: ast.ClassDef) -> None:
        outer = self.class_stack[-1] if self.class_stack else None
        qual = f"{outer.qual}.{node.name}" if outer is not None else node.name
        bases: list[str] = []
        for b in node.bases:
            v = b.value if isinstance(b, ast.Starred) else b
            q = self.qualify(v)
            if q is None:
                continue
            head = q.split(".", 1)[0]
            if isinstance(v, ast.Name) and v.id in self.module_defs:
                bases.append(f"Q|{v.id}")
            elif head in self.imports.values() or N.ast_dotted(v) != q:
                bases.append(f"D|{q}")
            else:
                bases.append(f"D|{q}" if "." in q else f"Q|{q}")
        methods = [st.name for st in node.body if isinstance(st, _DEFS)]
        for d in node.decorator_list:
            dd = N.ast_dotted(d.func if isinstance(d, ast.Call) else d) or ""
            if dd.rsplit(".", 1)[-1] in N.FORWARD_REPLACING_CLASS_DECORATORS:
                raise _Heavy  # its forward is disabled
        stored, reg = self.tree_facts.stores[id(node)]
        registers = reg[0]
        if stored or registers:
            st = frozenset(stored)
            cf: ClassFacts = LightClass(
                qual=qual,
                name=node.name,
                bases=bases,
                methods=methods,
                attrs=_Attrs(self.path, None if registers else st),
                attr_classes=_Attrs(self.path, st),
            )
        else:
            cf = ClassFacts(
                qual=qual, name=node.name, bases=bases, methods=methods, attrs={}, attr_classes={}
            )
        self.classes[qual] = cf
        self.class_stack.append(cf)
        self.block(node.body)
        self.class_stack.pop()


# every word one of :func:`light_facts`'s refusals needs in the file's text (a sensitive
# call's last name, a forward hook, a ``__main__`` block, a forward-replacing class decorator):
# a file with none of them is not refused for its module-level facts (only one that does not
# parse or nests too deep is)
_HEAVY_WORDS = re.compile(
    b"|".join(
        re.escape(w).encode()
        for w in sorted(
            _SENSITIVE_LAST | _HOOKS | {"__main__"} | N.FORWARD_REPLACING_CLASS_DECORATORS
        )
    )
)


def may_be_heavy(data: bytes) -> bool:
    """Whether :func:`light_facts` may refuse ``data`` for its module-level facts (a byte
    search, no parse: most files it says yes to are light after all; none it says no to is
    refused but for a syntax error or its depth)."""
    return _HEAVY_WORDS.search(data) is not None


# what makes :func:`light_facts` refuse a file, as code text: a sensitive call by its full name
# (``torch.compile(...)``, ``@torch.compiler.disable``), a forward hook's registration, a
# ``__main__`` block, a forward-replacing class decorator. A hit inside a triple-quoted string,
# a comment, a quoted or back-quoted name (a docstring's example) does not count
_CERTAIN = re.compile(
    rb"torch\.(?:compile|_disable_dynamo|_dynamo\.(?:disable|optimize|allow_in_graph)"
    rb"|compiler\.(?:disable|allow_in_graph))\b"
    rb"|\.(?:" + b"|".join(re.escape(h).encode() for h in sorted(_HOOKS)) + rb")\("
    rb"|^if __name__ == ['\"]__main__['\"]"
    rb"|^[ \t]*@[\w.]*\b(?:"
    + b"|".join(re.escape(d).encode() for d in sorted(N.FORWARD_REPLACING_CLASS_DECORATORS))
    + rb")\b",
    re.M,
)
# a line's text before a hit that is code: no comment, quote or back-quote, not a doctest line
_CODE_PREFIX = re.compile(rb"[ \t]*(?!>>>|\.\.\.)[^#`'\"\n]*\Z")
# text every hit of ``_CERTAIN`` has on its line (no hit spans lines): only the lines with one
# are searched (the regular expression tries each of its branches at each byte: 2-5 ms for
# 100 KB, where finding these texts takes microseconds)
_CERTAIN_TEXTS = (
    b"torch.compile",
    b"torch._disable_dynamo",
    b"torch._dynamo.",
    *(b"." + h.encode() for h in sorted(_HOOKS)),
    b"__main__",
    *(d.encode() for d in sorted(N.FORWARD_REPLACING_CLASS_DECORATORS)),
)


def must_be_heavy(data: bytes) -> bool:
    """Whether :func:`light_facts` will refuse ``data`` by its text alone (a byte search, no
    parse): a call of ``torch.compile`` or another sensitive function by its full name, a
    forward hook, a module-level ``__main__`` block, a forward-replacing class decorator, in
    code (not a docstring's or comment's example). Following begins such a file's whole
    analysis before its light read; the light read still decides (a yes is a guess: over
    every installed package's files, ``benchmarks/heavy_bytes.py``, it said yes to no light
    file and to 687 of the 695 refused ones)."""
    for m in _certain_hits(data):
        s = m.start()
        if data.count(b'"""', 0, s) % 2 or data.count(b"'''", 0, s) % 2:
            continue  # inside a triple-quoted string
        hit = m.group()
        if hit.startswith(b"if __name__") or hit.lstrip().startswith(b"@"):
            return True
        prefix = data[data.rfind(b"\n", 0, s) + 1 : s]
        if hit.startswith(b"torch"):
            last = prefix[-1:]
            if last in (b".", b"`", b"_") or last.isalnum():
                continue  # ``x.torch.compile``, ``my_torch.compile``: not torch's
            if prefix.strip() == b"@":
                return True  # a decorator
            if data[m.end() : m.end() + 1] != b"(":
                continue  # named, not called
        if _CODE_PREFIX.match(prefix):
            return True
    return False


def _certain_hits(data: bytes) -> Iterator[re.Match[bytes]]:
    """``_CERTAIN.finditer(data)``, searching only the lines that hold one of
    ``_CERTAIN_TEXTS``: each from its start (where ``^`` matches as in the whole text) to its
    newline."""
    starts: set[int] = set()
    for text in _CERTAIN_TEXTS:
        i = data.find(text)
        while i >= 0:
            starts.add(data.rfind(b"\n", 0, i) + 1)
            i = data.find(text, i + 1)
    for start in sorted(starts):
        end = data.find(b"\n", start)
        yield from _CERTAIN.finditer(data, start, len(data) if end < 0 else end + 1)


def count_lines(data: bytes) -> int:
    """As the engine counts a file's lines."""
    nl = b"\n" if b"\n" in data or b"\r" not in data else b"\r"
    return data.count(nl) + (1 if data and not data.endswith(nl) else 0)


def light_facts(data: bytes, path: str, module: str, is_package: bool) -> FileFacts | None:
    """The resolution facts of a library file from CPython's tree, or None when the file is
    to be analysed whole (a heavy word, a class with attribute facts, not parsable)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        r = _Reader(path, module, is_package, tree)
        r.block(tree.body)
        if r.tree_facts.hooks or any(r.sensitive(d) for d in r.tree_facts.callees):
            return None
    except (_Heavy, RecursionError):
        return None
    f = FileFacts(
        path=path,
        module=module,
        is_package=is_package,
        lines=count_lines(data),
        imports=r.imports,
        functions=r.functions,
        classes=r.classes,
        compiled_refs=[],
        candidates=[],
        all_names=None if r.all_computed else r.all_names,
    )
    f.__dict__["_light"] = True
    return f


_PLAIN = "light1"  # the cache form's tag (a library cache entry that is not a FileFacts blob)


def is_plain(data: object) -> bool:
    return isinstance(data, tuple) and len(data) == 7 and data[0] == _PLAIN


def to_plain(f: FileFacts) -> tuple[object, ...]:
    """A light file's facts as marshal-able data for the library cache (reading them back is
    cheaper than CPython's parse)."""
    fns = []
    for q, fn in f.functions.items():
        g = object.__getattribute__
        fns.append(
            (
                q,
                g(fn, "name"),
                g(fn, "cls"),
                type(fn) is _NoClosureCall,
                list(g(fn, "returned_defs")),
                list(g(fn, "returned_calls")),
            )
        )
    classes = []
    for q, cf in f.classes.items():
        if isinstance(cf, LightClass):
            ac = object.__getattribute__(cf, "attr_classes")
            at = object.__getattribute__(cf, "attrs")
            light = (sorted(ac.stored or ()), at.stored is None)
        else:
            light = None
        classes.append((q, cf.name, list(cf.bases), list(cf.methods), light))
    return (_PLAIN, f.module, f.is_package, f.lines, dict(f.imports), f.all_names, (fns, classes))


def from_plain(path: str, data: tuple[object, ...]) -> FileFacts:
    """The light facts :func:`to_plain` stored."""
    parts: Any = data  # the tuple to_plain made
    _tag, module, is_package, lines, imports, all_names, (fns, classes) = parts
    functions: dict[str, FunctionFacts] = {}
    for q, name, cls, no_closure, rdefs, rcalls in fns:
        make = _NoClosureCall if no_closure else LightFunction
        fn = make(qual=q, name=name, cls=cls, line=0, params=[])
        object.__getattribute__(fn, "returned_defs").extend(rdefs)
        object.__getattribute__(fn, "returned_calls").extend(rcalls)
        fn.__dict__["_light"] = path
        functions[q] = fn
    out_classes: dict[str, ClassFacts] = {}
    for q, name, bases, methods, light in classes:
        if light is None:
            out_classes[q] = ClassFacts(
                qual=q, name=name, bases=bases, methods=methods, attrs={}, attr_classes={}
            )
        else:
            st = frozenset(light[0])
            out_classes[q] = LightClass(
                qual=q,
                name=name,
                bases=bases,
                methods=methods,
                attrs=_Attrs(path, None if light[1] else st),
                attr_classes=_Attrs(path, st),
            )
    f = FileFacts(
        path=path,
        module=module,  # type: ignore[arg-type]
        is_package=is_package,  # type: ignore[arg-type]
        lines=lines,  # type: ignore[arg-type]
        imports=imports,  # type: ignore[arg-type]
        functions=functions,
        classes=out_classes,
        compiled_refs=[],
        candidates=[],
        all_names=all_names,  # type: ignore[arg-type]
    )
    f.__dict__["_light"] = True
    return f
