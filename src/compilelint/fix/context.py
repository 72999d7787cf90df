"""What a codemod needs to know about one parsed file: nodes at a finding's position, parents,
the enclosing function, whether a value is a tensor (the static stage's own tensor inference,
re-run on this parse), and how this file names ``torch``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from compilelint.fix.evidence import Evidence, arithmetic, tensor_method
from compilelint.model import Finding
from compilelint.static.analysis.facts import FileFacts, Taint
from compilelint.static.analysis.numbers import certainly_number, numeric_attribute
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.walker import FileWalker, Hook, analyze_module, self_attr

N = TypeVar("N", bound=cst.CSTNode)
Span = tuple[int, int, int, int]

# Expression node types whose tensor-ness codemods ask about.
_PROBED = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.IfExp,
    cst.Comparison,
)


class FixContext:
    def __init__(
        self,
        module: cst.Module,
        *,
        path: str,
        module_name: str = "",
        is_package: bool = False,
        project: Project | None = None,
        observed: Mapping[int, tuple[str, ...]] | None = None,
    ) -> None:
        """``observed``: line -> GB ids of the data-dependent branches torch observed in this
        file (:func:`compilelint.fix.evidence.observed_lines`), facts of the value model."""
        self.module = module
        self.observed = dict(observed or {})
        self._evidence: Evidence | None = None
        self._building = False
        self.path = path
        self.module_name = module_name
        self.is_package = is_package
        self.project = project
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._positions = wrapper.resolve(PositionProvider)
        self._parents = wrapper.resolve(ParentNodeProvider)
        self._by_start: dict[tuple[int, int], list[cst.CSTNode]] | None = None
        self._taints: dict[int, Taint] | None = None
        self._values: dict[int, tuple[object, ...]] = {}
        self._facts: FileFacts | None = None
        self._names: set[str] | None = None
        self._modules: dict[str, str] | None = None
        self.torch_alias, self.torch_bound = _torch_alias(module)

    # ------------------------------------------------------------------ positions
    def span(self, node: cst.CSTNode) -> Span:
        r = self._positions[node]
        return (r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)

    def nodes_at(self, f: Finding, kind: type[N] | tuple[type, ...]) -> list[N]:
        """Nodes of ``kind`` whose span is exactly the finding's span."""
        if self._by_start is None:
            idx: dict[tuple[int, int], list[cst.CSTNode]] = {}
            for node, r in self._positions.items():
                idx.setdefault((r.start.line, r.start.column + 1), []).append(node)
            self._by_start = idx
        want = (f.line, f.col, f.end_line, f.end_col)
        return [
            n  # type: ignore[misc]
            for n in self._by_start.get((f.line, f.col), [])
            if isinstance(n, kind) and self.span(n) == want
        ]

    def on_line(self, line: int, kind: type[N]) -> list[N]:
        return [
            n for n, r in self._positions.items() if isinstance(n, kind) and r.start.line == line
        ]

    def on_line_within(self, line: int, kind: type | tuple[type, ...]) -> list[cst.CSTNode]:
        """Branches (``kind``) whose condition spans ``line`` without starting on it."""
        out: list[cst.CSTNode] = []
        for n in self._positions:
            if isinstance(n, kind):
                r = self._positions[n.test]  # type: ignore[attr-defined]
                if r.start.line < line <= r.end.line:
                    out.append(n)
        return out

    # ------------------------------------------------------------------ tree
    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        p = self._parents.get(node)
        while p is not None:
            yield p
            p = self._parents.get(p)

    def enclosing(self, node: cst.CSTNode, kind: type[N]) -> N | None:
        for a in self.ancestors(node):
            if isinstance(a, kind):
                return a
        return None

    def function(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for a in self.ancestors(node):
            if isinstance(a, cst.FunctionDef):
                return a
            if isinstance(a, (cst.Lambda, cst.ClassDef)):
                return None
        return None

    def statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement (a line of simple statements, or a compound one) holding ``node``."""
        for a in [node, *self.ancestors(node)]:
            if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return a
        return None

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ------------------------------------------------------------------ tensors
    def is_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is a tensor: by the static stage's tensor inference, or by what
        torch observed (:mod:`compilelint.fix.evidence`): a condition torch called ``bool()``
        on, and arithmetic with it or a tensor method called on it."""
        if self.static_tensor(node):
            return True
        ev = self.evidence()
        if ev is None or not ev.tensors:
            return False
        if id(node) in ev.tensors:
            return True
        if any(self.is_tensor(o) for o in arithmetic(node)):
            return True
        got = tensor_method(node)
        return got is not None and self.is_tensor(got[0])

    def evidence(self) -> Evidence | None:
        """The tensor facts of torch's observations in this file (None while they are built,
        or when there are none)."""
        if not self.observed or self._building:
            return None
        if self._evidence is None:
            self._building = True
            try:
                self._evidence = Evidence(self, self.observed)
            finally:
                self._building = False
        return self._evidence

    def evidence_note(self, node: cst.CSTNode) -> str:
        """Why torch's observation at ``node``'s line named no tensor ("" when it did, or there
        is none)."""
        ev = self.evidence()
        return "" if ev is None else ev.notes.get(self.span(node)[0], "")

    def static_tensor(self, node: cst.BaseExpression) -> bool:
        """Whether the static stage's tensor inference holds ``node`` for a tensor (there)."""
        if self._taints is None:
            self._taints = self._probe()
        taint = self._taints.get(id(node))
        if not taint:
            return False
        if self.project is None:
            return "T" in taint
        return self.project.resolves(self.path, taint)

    def is_number(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is certainly a Python int or float (never a tensor), by the static
        stage's value model: a number literal or arithmetic of numbers, a parameter with a number
        default, ``self.X`` where every value the class assigns to ``X`` is such a number (see
        :mod:`compilelint.static.analysis.numbers`)."""
        if isinstance(node, cst.UnaryOperation) and isinstance(
            node.operator, (cst.Minus, cst.Plus)
        ):
            return self.is_number(node.expression)
        if isinstance(node, cst.BinaryOperation) and not isinstance(
            node.operator, cst.MatrixMultiply
        ):
            return self.is_number(node.left) and self.is_number(node.right)
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if self._taints is None:
            self._taints = self._probe()
        v = self._values.get(id(node))
        if v is None or self._facts is None or self.static_tensor(node):
            return False
        if certainly_number(v, self._facts):
            return True
        # `self.scale = (dim // heads) ** -0.5`, `tau = 0.07` in the class body: the
        # assignments show a number where the joined value lost it
        if (attr := self_attr(node)) is not None:
            klass = self.enclosing(node, cst.ClassDef)
            return klass is not None and numeric_attribute(klass, attr)
        return False

    def _probe(self) -> dict[int, Taint]:
        out: dict[int, Taint] = {}
        values = self._values

        def hooks(w: FileWalker) -> dict[type, list[Hook]]:
            def record(node: cst.BaseExpression) -> None:
                v = w.value(node)
                values[id(node)] = v
                out[id(node)] = w.taint(node)

            return {t: [record] for t in _PROBED}

        try:
            self._facts = analyze_module(
                self.module,
                path=self.path,
                module_name=self.module_name,
                is_package=self.is_package,
                lines=0,
                make_checks=hooks,
            )
        except (RecursionError, ValueError, TypeError, AttributeError, KeyError):
            return {}
        return out

    # ------------------------------------------------------------------ names
    def foreign_module(self, e: cst.BaseExpression) -> str | None:
        """The module a name binds through a top-level ``import`` (``np`` -> ``numpy``), when
        it is not torch: ``np.bincount(x)`` is NumPy's function, not a method of ``np``."""
        if self._modules is None:
            self._modules = _module_aliases(self.module)
        if not isinstance(e, cst.Name):
            return None
        mod = self._modules.get(e.value)
        return None if mod is None or mod.split(".")[0] == "torch" else mod

    def torch(self, attr: str = "") -> str:
        """Source text naming ``torch.<attr>`` in this file (through an alias if it has one)."""
        return f"{self.torch_alias}.{attr}" if attr else self.torch_alias

    def used_names(self) -> set[str]:
        if self._names is None:
            self._names = {n.value for n in self._positions if isinstance(n, cst.Name)}
        return self._names

    def fresh_name(self, base: str, *, reserve: bool = True) -> str:
        """A name not used anywhere in the file, starting with ``base`` (``reserve``: no
        later call returns it; else call again with ``reserve`` once it is used)."""
        names = self.used_names()
        cand, i = base, 2
        while cand in names:
            cand, i = f"{base}_{i}", i + 1
        if reserve:
            names.add(cand)
        return cand


def _top_imports(module: cst.Module) -> Iterator[tuple[cst.ImportAlias, str]]:
    """Each name of the top-level ``import m`` / ``import m as n`` statements, with its
    dotted module."""
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    yield alias, cst.Module([]).code_for_node(alias.name)


def _module_aliases(module: cst.Module) -> dict[str, str]:
    """Name -> module for the top-level ``import m`` / ``import m as n`` statements."""
    out: dict[str, str] = {}
    for alias, name in _top_imports(module):
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            out[alias.asname.name.value] = name
        else:
            out[name.split(".")[0]] = name.split(".")[0]
    return out


def _torch_alias(module: cst.Module) -> tuple[str, bool]:
    """(name that refers to the torch module, whether the file binds it at module level)."""
    for alias, name in _top_imports(module):
        if alias.asname is not None and name == "torch":
            asname = alias.asname.name
            if isinstance(asname, cst.Name):
                return asname.value, True
        if alias.asname is None and (name == "torch" or name.startswith("torch.")):
            return "torch", True
    return "torch", False
