"""Phase 2: join every file's facts into one project view.

Answers the two questions a graph-break linter must get right:

- *reachability*: which functions does torch.compile trace? Roots are ``forward`` of
  ``nn.Module`` subclasses (through base classes defined in the scanned files) and functions
  compiled with ``torch.compile``; from them, every scanned function they call or pass along
  (``self.method()``, module helpers, helpers imported from other scanned files, ``super()``),
  except functions under ``torch.compiler.disable``.
- *tensor inference*: which symbolic values (parameters, helper returns, ``self.<attr>``) hold
  tensors. Parameters of roots are tensors by annotation or by position; parameters of helpers
  are tensors when a traced caller passes a tensor.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from compilelint.static.analysis import names as N
from compilelint.static.analysis.facts import Candidate, ClassFacts, FileFacts, FunctionFacts

FKey = tuple[str, str]  # (path, qual)


def root_param_is_tensor(fn: FunctionFacts, i: int) -> bool:
    """Whether parameter ``i`` of a compiled-region root (``forward``) is taken as a tensor."""
    prm = fn.params[i]
    if prm.index == 0 and fn.cls is not None and prm.name in ("self", "cls"):
        return False
    if prm.annotation == "tensor":
        return True
    if prm.annotation in ("nontensor", "container") or prm.index in (-2, -3):
        return False
    if prm.default in ("literal", "other"):
        return False
    name = prm.name.lower()
    return not (
        name in N.FLAG_NAMES or name.startswith(N.FLAG_PREFIXES) or name.endswith(N.FLAG_SUFFIXES)
    )


class Project:
    def __init__(self, files: Iterable[FileFacts]) -> None:
        self.files: dict[str, FileFacts] = {f.path: f for f in files}
        self.modules: dict[str, str] = {}
        for f in self.files.values():
            if f.module:
                self.modules.setdefault(f.module, f.path)
        self._suffix: dict[str, list[str]] = {}
        for mod, path in self.modules.items():
            parts = mod.split(".")
            for i in range(1, len(parts)):
                self._suffix.setdefault(".".join(parts[i:]), []).append(path)
        self._resolve_cache: dict[tuple[str, str], tuple[str, str, str] | None] = {}
        self._is_module_cache: dict[FKey, bool] = {}
        self.traced: set[FKey] = set()
        self.roots: set[FKey] = set()
        self.tensor_params: set[tuple[str, str, str]] = set()
        self.unresolved_modules: set[str] = set()

    # ------------------------------------------------------------------ name resolution
    def _module_file(self, dotted: str) -> str | None:
        if dotted in self.modules:
            return self.modules[dotted]
        cands = self._suffix.get(dotted)
        if cands and len(cands) == 1:
            return cands[0]
        return None

    def resolve(self, path: str, ref: str, depth: int = 0) -> tuple[str, str, str] | None:
        """Resolve a ref from file ``path`` to (path, qual, kind) with kind function|class."""
        key = (path, ref)
        if key in self._resolve_cache:
            return self._resolve_cache[key]
        self._resolve_cache[key] = None  # cycle guard
        out = self._resolve(path, ref, depth)
        self._resolve_cache[key] = out
        return out

    def _resolve(self, path: str, ref: str, depth: int) -> tuple[str, str, str] | None:
        if depth > 8:
            return None
        f = self.files.get(path)
        if f is None:
            return None
        kind, _, rest = ref.partition("|")
        if kind == "Q":
            if rest in f.functions:
                return (path, rest, "function")
            if rest in f.classes:
                return (path, rest, "class")
            head = rest.split(".", 1)[0]
            if head in f.imports:
                tail = rest[len(head) :]
                return self.resolve(path, f"D|{f.imports[head]}{tail}", depth + 1)
            if f.torch_free and f.module:  # only syntax-checked so far: analyse it on demand
                self.unresolved_modules.add(f.module)
            return None
        if kind == "D":
            parts = rest.split(".")
            for i in range(len(parts) - 1, 0, -1):
                mpath = self._module_file(".".join(parts[:i]))
                if mpath is None:
                    continue
                return self.resolve(mpath, "Q|" + ".".join(parts[i:]), depth + 1)
            if parts and parts[0] not in ("torch", "numpy", "np", "math", "os", "sys"):
                self.unresolved_modules.add(".".join(parts[:-1]))
            return None
        if kind in ("M", "S"):
            cls_qual, _, meth = rest.rpartition("|")
            for cpath, cqual in self.mro(path, cls_qual)[1 if kind == "S" else 0 :]:
                cf = self.files[cpath].classes[cqual]
                if meth in cf.methods:
                    q = f"{cqual}.{meth}"
                    if q in self.files[cpath].functions:
                        return (cpath, q, "function")
            return None
        return None

    def mro(self, path: str, cls_qual: str) -> list[tuple[str, str]]:
        """Project classes in (an approximation of) the MRO of a class: depth-first, deduped."""
        out: list[tuple[str, str]] = []
        stack = [(path, cls_qual)]
        seen: set[tuple[str, str]] = set()
        while stack:
            p, q = stack.pop(0)
            if (p, q) in seen or p not in self.files or q not in self.files[p].classes:
                continue
            seen.add((p, q))
            out.append((p, q))
            for base in self.files[p].classes[q].bases:
                r = self.resolve(p, base)
                if r is not None and r[2] == "class":
                    stack.append((r[0], r[1]))
        return out

    def external_bases(self, path: str, cls_qual: str) -> list[str]:
        out: list[str] = []
        for p, q in self.mro(path, cls_qual):
            for base in self.files[p].classes[q].bases:
                r = self.resolve(p, base)
                if r is None:
                    out.append(base.split("|", 1)[1])
        return out

    def is_module_class(self, path: str, cls_qual: str) -> bool:
        key = (path, cls_qual)
        if key in self._is_module_cache:
            return self._is_module_cache[key]
        ext = self.external_bases(path, cls_qual)
        result = False
        if any(b in N.MODULE_BASES or b.startswith("torch.nn.") for b in ext):
            result = True
        elif any(b in N.NON_MODULE_BASES or b.startswith("torch.autograd") for b in ext):
            result = False
        elif ext:
            # An external base we cannot see (a library model class, say): a module if it has a
            # forward of its own.
            result = any(
                "forward" in self.files[p].classes[q].methods for p, q in self.mro(path, cls_qual)
            )
        self._is_module_cache[key] = result
        return result

    # ------------------------------------------------------------------ reachability
    def compute(self) -> None:
        roots = self.find_roots()
        roots = {k for k in roots if not self.fn(k).disabled}
        self.roots = roots
        traced: set[FKey] = set()
        queue = deque(sorted(roots))
        while queue:
            key = queue.popleft()
            if key in traced:
                continue
            traced.add(key)
            for callee in self.callees(key):
                if callee not in traced and not self.fn(callee).disabled:
                    queue.append(callee)
        self.traced = traced
        self._infer_params()

    def find_roots(self) -> set[FKey]:
        """Functions torch.compile starts tracing at: module forwards and compiled functions."""
        roots: set[FKey] = set()
        for f in self.files.values():
            for cq, cf in f.classes.items():
                if "forward" in cf.methods and self.is_module_class(f.path, cq):
                    fq = f"{cq}.forward"
                    if fq in f.functions:
                        roots.add((f.path, fq))
            for fq, fn in f.functions.items():
                if fn.compiled:
                    roots.add((f.path, fq))
            for ref in f.compiled_refs:
                r = self.resolve(f.path, ref)
                if r is None:
                    continue
                if r[2] == "function":
                    roots.add((r[0], r[1]))
                else:
                    for p, q in self.mro(r[0], r[1]):
                        if f"{q}.forward" in self.files[p].functions:
                            roots.add((p, f"{q}.forward"))
                            break
        return roots

    def fn(self, key: FKey) -> FunctionFacts:
        return self.files[key[0]].functions[key[1]]

    def _target(self, path: str, ref: str) -> tuple[FKey, int] | None:
        """Resolved callee and the number of implicit leading arguments (self)."""
        r = self.resolve(path, ref)
        if r is None:
            return None
        p, q, kind = r
        if kind == "class":
            for cp, cq in self.mro(p, q):
                if f"{cq}.__init__" in self.files[cp].functions:
                    return ((cp, f"{cq}.__init__"), 1)
            return None
        fn = self.files[p].functions[q]
        implicit = 0
        if fn.cls is not None and fn.params and fn.params[0].name in ("self", "cls"):
            implicit = 1 if ref[0] in "MS" or "." in q else 0
        return ((p, q), implicit)

    def callees(self, key: FKey) -> list[FKey]:
        fn = self.fn(key)
        out: list[FKey] = []
        for c in fn.calls:
            t = self._target(key[0], c.ref)
            if t is not None:
                out.append(t[0])
        for ref in fn.refs:
            t = self._target(key[0], ref)
            if t is not None:
                out.append(t[0])
        return out

    # ------------------------------------------------------------------ tensor inference
    def _root_param_is_tensor(self, fn: FunctionFacts, i: int) -> bool:
        return root_param_is_tensor(fn, i)

    def _infer_params(self) -> None:
        tp: set[tuple[str, str, str]] = set()
        for key in self.traced:
            fn = self.fn(key)
            for i, prm in enumerate(fn.params):
                if key in self.roots:
                    if self._root_param_is_tensor(fn, i):
                        tp.add((key[0], key[1], prm.name))
                elif prm.annotation == "tensor":
                    tp.add((key[0], key[1], prm.name))
        self.tensor_params = tp
        for _ in range(6):
            self._memo: dict[tuple[str, str], bool] = {}
            changed = False
            for key in sorted(self.traced):
                fn = self.fn(key)
                for c in fn.calls:
                    t = self._target(key[0], c.ref)
                    if t is None:
                        continue
                    (cp, cq), implicit = t
                    if (cp, cq) not in self.traced:
                        continue
                    callee = self.fn((cp, cq))
                    positional = [p for p in callee.params if p.index >= 0]
                    for j, taint in enumerate(c.args):
                        k = j + implicit
                        if k < len(positional) and self.resolves(key[0], taint):
                            trip = (cp, cq, positional[k].name)
                            if trip not in self.tensor_params and positional[k].annotation not in (
                                "nontensor",
                            ):
                                self.tensor_params.add(trip)
                                changed = True
                    for kw, taint in c.kwargs.items():
                        if any(p.name == kw for p in callee.params) and self.resolves(
                            key[0], taint
                        ):
                            trip = (cp, cq, kw)
                            if trip not in self.tensor_params:
                                self.tensor_params.add(trip)
                                changed = True
            if not changed:
                break
        self._memo = {}

    def resolves(self, path: str, taint: Iterable[str]) -> bool:
        """Whether any source of a taint is a tensor."""
        return any(self._source(path, s) for s in taint)

    def _source(self, path: str, s: str) -> bool:
        if s == "T":
            return True
        key = (path, s)
        memo = self._memo
        if key in memo:
            return memo[key]
        memo[key] = False  # cycle guard
        kind, _, rest = s.partition("|")
        out = False
        if kind == "P":
            fq, _, pname = rest.rpartition("|")
            out = (path, fq, pname) in self.tensor_params
        elif kind == "R":
            t = self._target(path, rest)
            if t is not None:
                (cp, cq), _ = t
                fn = self.files[cp].functions[cq]
                if fn.name == "__init__":
                    out = False
                else:
                    out = any(self._source(cp, x) for x in fn.returns)
        elif kind == "A":
            cq, _, attr = rest.rpartition("|")
            for cp, cqq in self.mro(path, cq):
                cf: ClassFacts = self.files[cp].classes[cqq]
                if attr in cf.attrs:
                    out = any(self._source(cp, x) for x in cf.attrs[attr])
                    if out:
                        break
        memo[key] = out
        return out

    # ------------------------------------------------------------------ findings
    def kept(self, f: FileFacts) -> list[Candidate]:
        self._memo = {}
        out: list[Candidate] = []
        for c in f.candidates:
            if c.scope == "traced" and (f.path, c.func) not in self.traced:
                continue
            if c.requires and not self.resolves(f.path, c.requires):
                continue
            out.append(c)
        return out
