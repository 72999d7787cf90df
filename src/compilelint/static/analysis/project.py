"""Phase 2: join every file's facts into one project view.

Answers the two questions a graph-break linter must get right:

- *reachability*: which functions does torch.compile trace? Roots are ``forward`` of
  ``nn.Module`` subclasses (through base classes defined in the scanned files) and functions
  compiled with ``torch.compile``; from them, every scanned function they call or pass along
  (``self.method()``, module helpers, helpers imported from other scanned files, ``super()``),
  except functions under ``torch.compiler.disable`` and graph ops (functions a module registers
  with ``allow_in_graph``: dynamo puts them into the graph as one op, so they are not entered and
  what they return is a tensor).
- *tensor inference*: which symbolic values (parameters, helper returns, ``self.<attr>``) hold
  tensors, decided from function summaries in :mod:`summaries`.
"""

from __future__ import annotations

import json
import os
from collections import deque
from collections.abc import Callable, Iterable
from itertools import chain
from typing import TYPE_CHECKING, Any

from compilelint.static.analysis import conds as C
from compilelint.static.analysis import constants as K
from compilelint.static.analysis import names as N
from compilelint.static.analysis import values as V
from compilelint.static.analysis.facts import (
    BRANCH,
    EAGER_REST_CODES,
    IN_TRY,
    KWARGS_SLOT,
    REBUILD_CODES,
    UNRESUMABLE_CODES,
    CallSite,
    Candidate,
    FileFacts,
    FunctionFacts,
    ParamFacts,
)
from compilelint.static.analysis.params import root_param_is_tensor
from compilelint.static.analysis.summaries import Summaries

# value kinds (``analysis.values``) of a list, tuple or dict: a container whatever its items
# (``conds.CONTAINER``)
_CONTAINER_KINDS = ("Q", "D")

if TYPE_CHECKING:
    from compilelint.static.analysis.breakpoints import CalleeBreaks

FKey = tuple[str, str]  # (path, qual)
_MAX_STAR_IMPORTS = 8  # star imports of a package __init__ searched for a name
__all__ = ["Project", "root_param_is_tensor"]


# bases outside the project that assign no attribute of their subclasses' instances by name
_PLAIN_BASES = frozenset({"object", "abc.ABC", "torch.nn.Module", "torch.nn.modules.module.Module"})


class Project(Summaries):
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
        self._targets: dict[tuple[str, str], tuple[FKey, int] | None] = {}  # ``_target``
        self._ref_targets: dict[tuple[str, str], tuple[FKey, int] | None] = {}
        self._wrappers: dict[FKey, list[tuple[FKey, CallSite]]] = {}  # ``decorator_wrappers``
        # ``compute``'s edges of each function reached in its first pass (no call refuted yet):
        # the later passes only drop the sites a refuted condition guards (``_edge_list``)
        self._edge_memo: dict[FKey, list[tuple[FKey, bool, int]]] | None = None
        # and, likewise, each traced function's call sites with their callees
        # (``_call_targets``) and those under a condition (``_cond_sites``)
        self._site_memo: dict[FKey, list[tuple[CallSite, FKey, int]]] | None = None
        self._cond_memo: dict[FKey, list[CallSite]] | None = None
        self._stars: dict[str, list[str]] = {}
        self._is_module_cache: dict[FKey, bool] = {}
        self.traced: set[FKey] = set()
        self.roots: set[FKey] = set()
        self._with_defaults: set[FKey] = set()
        self.callers: dict[FKey, list[tuple[str, CallSite, int]]] = {}
        # id(CallSite) -> (the site, its function). The tables keyed by a site's id hold the
        # site: follow's passes drop sites from facts that outlive a project (a virtual call
        # pruned) and make new ones, which would take a dropped site's id
        self._site_owner: dict[int, tuple[CallSite, FKey]] | None = None
        self._reached: dict[FKey, bool] = {}  # surely_reached, memoised
        # roots that run under their parameters' literal defaults (library-mode entry points)
        self.default_roots: set[FKey] = set()
        # id(CallSite) -> the site, for the sites a refuted condition guards
        self._dead_calls: dict[int, CallSite] = {}
        self._opaque: set[FKey] = set()  # reached other than by a call site: arguments unknown
        self._param_values: dict[tuple[FKey, str], list[object] | None] = {}
        self._subclasses: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self._attr_memo: dict[tuple[str, str], list[object] | None] = {}
        # the text of a file of the project: the scan's (``engine``: an editor's unsaved
        # buffer where the server has one), the disk's where the scan did not read it
        self.source: Callable[[str], bytes | None] = _read
        self._init_memo: dict[tuple[str, str, str], list[object] | None] = {}
        self.spec_init: tuple[str, str, str] | None = None  # ``Config.spec_init``
        self._init_summaries()
        self.unresolved_modules: set[str] = set()
        self._callee_breaks: CalleeBreaks | None = None  # calls that break their caller
        self.graph_ops: set[FKey] = set()  # registered with allow_in_graph: never entered

    # ------------------------------------------------------------------ name resolution
    def _module_file(self, dotted: str) -> str | None:
        if dotted in self.modules:
            return self.modules[dotted]
        cands = self._suffix.get(dotted)
        if cands and len(cands) == 1:
            return cands[0]
        return None

    def _not_loaded(self, dotted: str) -> bool:
        """Whether ``dotted``, which names no file of the project, is a module that will join
        it (following's installed modules); a project of given files has none."""
        return False

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
            meth = rest[len(head) + 1 :]
            if head in f.classes and meth and "." not in meth:
                # `Cls.forward` inherited from a base class (kornia's `ColorJitter.forward` is
                # `_BasicAugmentationBase.forward`): the nearest definition in the MRO
                for cpath, cqual in self.mro(path, head)[1:]:
                    if f"{cqual}.{meth}" in self.files[cpath].functions:
                        return (cpath, f"{cqual}.{meth}", "function")
                return None  # a method of a class of this file: no star import defines it
            stars = self._star_imports(path, f) if f.is_package else []
            if 0 < len(stars) <= _MAX_STAR_IMPORTS:
                # ``from .intensity import *`` in a package's __init__ (re-exports); a package
                # with many of them (a model zoo's index) is not searched
                for mod in stars:
                    got = self.resolve(path, f"D|{mod}.{rest}", depth + 1)
                    if got is not None:
                        return got
            if f.torch_free and f.module:  # only syntax-checked so far: analyse it on demand
                self.unresolved_modules.add(f.module)
            return None
        if kind == "D":
            parts = rest.split(".")
            for i in range(len(parts) - 1, 0, -1):
                dotted = ".".join(parts[:i])
                mpath = self._module_file(dotted)
                if mpath is None:
                    if self._not_loaded(dotted):
                        # ``pkg.sub.name`` with ``pkg.sub`` a module not loaded yet: the name is
                        # ``sub``'s, not an attribute of a package above it (after ``import
                        # pkg.sub``, ``pkg.sub`` is the submodule)
                        return None
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

    def _star_imports(self, path: str, f: FileFacts) -> list[str]:
        """The modules a file star-imports (listed once per file: a package's ``__init__`` of
        hundreds of imports is asked for every name it does not define)."""
        got = self._stars.get(path)
        if got is None:
            got = self._stars[path] = [m for k, m in f.imports.items() if k.startswith("*")]
        return got

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
    def find_graph_ops(self) -> set[FKey]:
        """The functions some module registers with ``allow_in_graph`` on import."""
        out: set[FKey] = set()
        for f in self.files.values():
            for ref in f.graph_op_refs:
                r = self.resolve(f.path, ref)
                if r is not None and r[2] == "function":
                    out.add((r[0], r[1]))
        return out

    def opaque_to_dynamo(self, key: FKey) -> bool:
        """Whether tracing does not enter the function: under ``torch.compiler.disable`` (it
        breaks the graph instead) or a graph op."""
        return self.fn(key).disabled or key in self.graph_ops

    def compute(self) -> None:
        # the functions with a function as a parameter's default (see `default_edges`); a
        # light library file (read for names only) has none, and reading its functions' body
        # facts would demand its whole analysis: once it is reached, it is analysed and the
        # next computation reads them
        self._with_defaults = {
            (p, q)
            for p, f in self.files.items()
            if not f.__dict__.get("_light")
            for q, fn in f.functions.items()
            if fn.default_refs
        }
        self.graph_ops = self.find_graph_ops()
        roots = self.find_roots()
        roots = {k for k in roots if not self.opaque_to_dynamo(k)}
        self.roots = roots
        self._dead_calls = {}
        self._callee_breaks = None
        # Call-site sensitivity: a call under a condition on a parameter that no traced caller's
        # value satisfies is not traced; dropping it can refute more, so repeat (few rounds).
        self._edge_memo, self._site_memo, self._cond_memo = {}, {}, {}
        try:
            for _ in range(4):
                self._reach()
                self.link_callers()
                dead = {
                    id(c): c
                    for key in self.traced
                    for c in self._cond_sites(key)
                    if id(c) not in self._dead_calls and self.refuted(key, c.conds)
                }
                if not dead:
                    break
                self._dead_calls |= dead
        finally:
            self._edge_memo = self._site_memo = self._cond_memo = None

    def _cond_sites(self, key: FKey) -> list[CallSite]:
        """The call sites of ``key`` under a condition (once per ``compute``)."""
        memo = self._cond_memo
        got = memo.get(key) if memo is not None else None
        if got is None:
            got = [c for c in self.fn(key).calls if c.conds]
            if memo is not None:
                memo[key] = got
        return got

    def _reach(self) -> None:
        traced: set[FKey] = set()
        opaque: set[FKey] = set()
        queue = deque(sorted(self.roots))
        dead = self._dead_calls
        while queue:
            key = queue.popleft()
            if key in traced:
                continue
            traced.add(key)
            for callee, by_site, site in self._edge_list(key):
                if site and site in dead:
                    continue
                if not by_site:
                    opaque.add(callee)
                if callee not in traced and not self.opaque_to_dynamo(callee):
                    queue.append(callee)
        self.traced = traced
        self._opaque = opaque

    def link_callers(self) -> None:
        """Index every traced call site by its callee (the argument values summaries read)."""
        callers: dict[FKey, list[tuple[str, CallSite, int]]] = {}
        traced, dead = self.traced, self._dead_calls
        for key in sorted(traced):
            for c, callee, implicit in self._call_targets(key):
                if callee in traced and id(c) not in dead:
                    callers.setdefault(callee, []).append((key[0], c, implicit))
        self.callers = callers
        self._param_values = {}
        self._init_summaries()

    # ------------------------------------------------------------------ call-site values
    def param_values(self, key: FKey, pname: str) -> list[object] | None:
        """The Python values parameter ``pname`` of a traced function may hold, from what its
        traced callers pass (its literal default where a caller leaves it out; a library-mode
        entry point's default); None when any is unknown (a root's input, a tensor, a value
        computed at run time, a call through ``*args``, a function passed as a value)."""
        got = self._param_values.get((key, pname), ...)
        if got is not ...:
            return got
        self._param_values[(key, pname)] = None  # a cycle of forwarded parameters: unknown
        out = self._param_values_uncached(key, pname)
        self._param_values[(key, pname)] = out
        return out

    def _param_values_uncached(self, key: FKey, pname: str) -> list[object] | None:
        if key not in self.traced or key in self._opaque:
            return None
        fn = self.fn(key)
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None or prm.index < -1:
            return None
        return self._site_values(key, fn, prm)

    def _kwargs_values(self, cpath: str, src: str, prm: ParamFacts) -> list[object] | None:
        """What keyword ``prm.name`` of a callee holds where a call leaves it to the caller's
        own ``**kwargs`` parameter ``src`` (``P|<func>|<kwargs>``, passed on unchanged): what
        the caller's callers pass by that keyword, or the callee's default ``prm.literal``
        where they leave it out (a caller's parameter of that name takes the keyword, so the
        dict never holds it). None: unknown."""
        qual, _, kwname = src[2:].rpartition("|")
        ckey = (cpath, qual)
        if ckey not in self.traced or ckey in self._opaque:
            return None
        caller = self.fn(ckey)
        if any(p.name == prm.name and p.index >= -1 for p in caller.params):
            return list(prm.literal[:1]) or None
        memo = (ckey, f"**{kwname}|{prm.name}")
        got = self._param_values.get(memo, ...)
        if got is not ...:
            return got
        self._param_values[memo] = None  # a cycle of forwarded dicts: unknown
        # the key as a keyword-only parameter of the caller defaulting to the callee's default
        # (absent from the dict: the callee's default applies)
        key_prm = ParamFacts(prm.name, -1, "unknown", prm.default, list(prm.literal))
        got = self._param_values[memo] = self._site_values(ckey, caller, key_prm)
        return got

    def _kwalt_values(
        self, cpath: str, alts: list[dict[str, V.Value]], prm: ParamFacts
    ) -> list[object] | None:
        """What keyword ``prm.name`` holds where a call passes ``**d``, ``d`` a local bound only
        to dicts of literal keys (``CallSite.kwalts``): the value each binding gives it, or the
        callee's default ``prm.literal`` for a binding without it. None: unknown."""
        vals: list[object] = []
        for alt in alts:
            v = alt.get(prm.name)
            if v is None:
                if not prm.literal:
                    return None
                vals.append(prm.literal[0])
                continue
            for m in V.members(v):
                c = V.const(m)
                if c is not ...:
                    vals.append(c)
                elif m[0] in _CONTAINER_KINDS:
                    vals.append(C.CONTAINER)
                else:
                    got = self._forwarded(cpath, m[1]) if m[0] == "Y" else None
                    if got is None:
                        return None
                    vals.extend(got)
        return vals

    def _site_values(self, key: FKey, fn: FunctionFacts, prm: ParamFacts) -> list[object] | None:
        """The values parameter ``prm`` of ``fn`` (``key``) holds over its callers' sites
        (see :meth:`param_values`).

        A call of ``fn`` from its own body under conditions (entmax's
        ``_sparsemax_threshold_and_support(X_, k=2 * k)`` under ``if k is not None and ...:``)
        is counted last: what the other sites give is what the first frame holds, and where
        that refutes the recursive call's conditions, no frame makes it (by induction on the
        frames), so its arguments add nothing. Before, its value (``2 * k``, unknown) made the
        parameter unknown, and the branch holding the call could not be refuted by the very
        values that make it dead."""
        vals: list[object] = []
        if key in self.roots:
            if key not in self.default_roots or not prm.literal:
                return None
            vals.append(prm.literal[0])
        sites = self.callers.get(key, ())
        if not sites and key not in self.roots:
            return None
        positional = [p.name for p in fn.params if p.index >= 0]
        own = {id(c) for c in fn.calls if c.conds}
        later: list[tuple[str, CallSite, int]] = []
        for site in sites:
            if site[0] == key[0] and id(site[1]) in own:
                later.append(site)  # a recursive call under conditions: after the others
            elif not self._add_site_values(site, prm, positional, vals):
                return None
        if later:
            memo = (key, prm.name)
            before = self._param_values.get(memo, ...)
            memos: list[dict[Any, Any]] = [
                self._param_values,
                self._attr_memo,
                self._init_memo,
                self._reached,
            ]
            known = [set(m) for m in memos]
            self._param_values[memo] = list(vals)  # the first frame's values, for the test
            live = later
            try:
                live = [t for t in later if not self.refuted(key, t[1].conds)]
            finally:
                if live:
                    # what the test computed took the first frame's values for all of them:
                    # not the parameter's values once a recursive call adds to them
                    for m, had in zip(memos, known, strict=True):
                        for k in set(m) - had:
                            del m[k]
                if before is ...:
                    self._param_values.pop(memo, None)
                else:
                    self._param_values[memo] = before
            for site in live:
                if not self._add_site_values(site, prm, positional, vals):
                    return None
        return vals

    def _add_site_values(
        self,
        site: tuple[str, CallSite, int],
        prm: ParamFacts,
        positional: list[str],
        vals: list[object],
    ) -> bool:
        """Add to ``vals`` what one call site passes for ``prm``; False where it is unknown."""
        cpath, call, implicit = site
        pname = prm.name
        if call.star and not call.kwstar:
            return False
        v = None
        slot = pname
        if prm.index >= 0:
            j = positional.index(pname) - implicit
            if 0 <= j < len(call.args):
                v = call.args[j]
                slot = str(j)
        if v is None:
            v = call.kwargs.get(pname)
        if v is None and call.star:
            if call.kwalts and call.kwstar:
                # a local dict of literal keys: each binding's value, or the default
                got = self._kwalt_values(cpath, call.kwalts, prm)
            else:
                kw = call.fwd.get(KWARGS_SLOT) if call.kwstar else None
                got = self._kwargs_values(cpath, kw, prm) if kw else None
            if got is None:
                return False  # left to a `**kwargs` dict whose other keys are not known
            vals.extend(got)
            return True
        if v is None:
            if not prm.literal:
                return False
            vals.append(prm.literal[0])
            return True
        if slot in call.fwd:
            # the caller's own parameter passed on unchanged (``ignore_index=ignore_index``):
            # whatever the caller's callers (or its defaults, for an entry point) give it
            got = self._forwarded(cpath, call.fwd[slot])
            if got is None:
                return False
            vals.extend(got)
            return True
        if slot in call.gfwd:
            # the caller's parameter re-bound only under conditions (`if exists(lens): mask =
            # ...`): its callers' values where each re-binding is dead code in the caller
            src, guards = call.gfwd[slot]
            owner = self._owners().get(id(call), (None, None))[1]
            if owner is not None and all(self._harmless(owner, g, 1) for g in guards):
                got = self._forwarded(cpath, src)
                if got is not None:
                    vals.extend(got)
                    return True
        if slot in call.never_none and V.const(v) is ...:
            # `minlength=4 * num_labels`: a value not known, but never None
            vals.append(C.OBJECT)
            return True
        for m in V.members(v):
            c = V.const(m)
            if c is not ...:
                vals.append(c)
                continue
            got = self._forwarded(cpath, m[1]) if m[0] == "Y" else None
            if got is None:
                return False
            vals.extend(got)
        return True

    def site_noneness(
        self, key: FKey, pname: str, depth: int = 0
    ) -> list[tuple[str, int, frozenset[str]]]:
        """Whether each traced call site of ``key`` passes ``None`` to parameter ``pname``:
        one ``(caller path, line, kinds)`` per site, ``kinds`` a set of ``none|<path>``
        (certainly ``None``: the literal, or the parameter left to a ``None`` default, seen at
        a call in file ``path``), ``some|<path>`` (certainly not: a tensor, a number, a module,
        a container, a built object) and ``?`` (not known). The path says which file decided
        it: a library function that one model calls with ``None`` and another with a value
        differs between runs, not within one. A value the
        caller passes on from its own parameter takes the kinds of every call site of the
        caller (followed up the callers): one class whose ``forward`` the encoder calls without
        a cache and the decoder with one shows both. A required parameter of an entry point (no
        caller) is ``some``; one with a default is ``?`` (the user decides)."""
        fn = self.fn(key)
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None or prm.index < -1:
            return []
        positional = [p.name for p in fn.params if p.index >= 0]
        out: list[tuple[str, int, frozenset[str]]] = []
        for cpath, call, implicit in self.callers.get(key, ()):
            if call.star and not call.kwstar:
                out.append((cpath, call.line, frozenset("?")))
                continue
            v, slot = None, pname
            if prm.index >= 0:
                j = positional.index(pname) - implicit
                if 0 <= j < len(call.args):
                    v, slot = call.args[j], str(j)
            if v is None:
                v = call.kwargs.get(pname)
            if v is None:
                if call.star:
                    kinds = frozenset("?")  # left to the `**kwargs` the call unpacks
                elif prm.default == "none":
                    kinds = frozenset({f"none|{cpath}"})
                else:
                    kinds = frozenset({f"some|{cpath}"} if prm.default == "literal" else {"?"})
                out.append((cpath, call.line, kinds))
                continue
            if slot in call.never_none:
                out.append((cpath, call.line, frozenset({f"some|{cpath}"})))
                continue
            srcs = [call.fwd[slot]] if slot in call.fwd else []
            got: set[str] = set()
            if not srcs:
                for m in V.members(v):
                    if m == V.NONE:
                        got.add(f"none|{cpath}")
                    elif m[0] == "Y" and m[1].startswith("P|") and "@" not in m[1]:
                        srcs.append(m[1])
                    elif V.kind(m) in ("tensor", "scalar", "sequence", "dict", "module"):
                        got.add(f"some|{cpath}")
                    elif m[0] == "Y" and self._built_object(cpath, m[1]):
                        got.add(f"some|{cpath}")
                    else:
                        got.add("?")
            for src in srcs:
                qual, _, cparam = src[2:].rpartition("|")
                got |= self._param_noneness((cpath, qual), cparam, depth + 1)
            out.append((cpath, call.line, frozenset(got)))
        return out

    def _built_object(self, path: str, src: str) -> bool:
        """``R|<class ref>``: what calling a class gives, an instance (never ``None``)."""
        if not src.startswith("R|") or "@" in src:
            return False
        ref = src[2:]
        r = self.resolve(path, ref)
        if r is not None:
            return r[2] == "class"
        last = ref.rpartition(".")[2].rpartition("|")[2]
        return last[:1].isupper() and not last.isupper()

    def instances(self, path: str, cls: str) -> int:
        """How many attributes of one class hold an instance of class ``cls`` (an encoder
        and a decoder stack of one class: 2), the most over the project's classes; instances
        repeated in a container (``ModuleList([Block() ...])``) count once."""
        index = self.__dict__.get("_instances")
        if index is None:
            index = {}
            for fp, f in self.files.items():
                for cf in f.classes.values():
                    seen: dict[tuple[str, str], int] = {}
                    for refs in cf.attr_classes.values():
                        for ref in {r.lstrip("*") for r in refs}:
                            got = self.resolve(fp, ref)
                            if got is not None and got[2] == "class":
                                k = (got[0], got[1])
                                seen[k] = seen.get(k, 0) + 1
                    for k, n in seen.items():
                        index[k] = max(index.get(k, 0), n)
            self.__dict__["_instances"] = index
        return int(index.get((path, cls), 0))

    def _param_noneness(self, key: FKey, pname: str, depth: int) -> set[str]:
        """The kinds (see :meth:`site_noneness`) parameter ``pname`` of ``key`` holds over
        every call of it."""
        memo = self.__dict__.setdefault("_noneness", {})
        got = memo.get((key, pname))
        if got is not None:
            return got
        memo[(key, pname)] = {"?"}  # a cycle of forwarded parameters: not known
        out = self._param_noneness_uncached(key, pname, depth)
        memo[(key, pname)] = out
        return out

    def _param_noneness_uncached(self, key: FKey, pname: str, depth: int) -> set[str]:
        if key not in self.traced or depth > 6:
            return {"?"}
        if key in self.roots or not self.callers.get(key):
            prm = next((p for p in self.fn(key).params if p.name == pname), None)
            if (
                prm is not None
                and prm.default == "nodefault"  # a required parameter
                and prm.index > -2
                and prm.annotation != "unknown"
            ):
                return {f"some|{key[0]}"}
            return {"?"}
        out: set[str] = set()
        for _p, _l, kinds in self.site_noneness(key, pname, depth):
            out |= kinds
        return out or {"?"}

    def object_param(self, key: FKey, pname: str, depth: int = 0) -> bool:
        """Whether the function uses parameter ``pname`` as what a tensor is not (an attribute
        ``torch.Tensor`` lacks, a size), itself or in a callee it passes the parameter on to
        unchanged (``check_contract(sde, ...)`` reading ``sde.noise_type``)."""
        fn = self.fn(key)
        if pname in fn.object_params:
            return True
        if depth >= 4:
            return False
        src = f"P|{key[1]}|{pname}"
        for c in fn.calls:
            slots = [s for s, v in c.fwd.items() if v == src]
            if not slots or id(c) in self._dead_calls:
                continue
            t = self._target(key[0], c.ref)
            if t is None:
                continue
            (cpath, cq), implicit = t
            callee = self.fn((cpath, cq))
            positional = [p.name for p in callee.params if p.index >= 0]
            for s in slots:
                if s.isdigit():
                    j = int(s) + implicit
                    name = positional[j] if j < len(positional) else None
                else:
                    name = s if any(p.name == s for p in callee.params) else None
                if name is not None and self.object_param((cpath, cq), name, depth + 1):
                    return True
        return False

    def _forwarded(self, cpath: str, src: str) -> list[object] | None:
        """The values a caller's parameter ``src`` (``P|<func>|<param>``, no access path) may
        hold, or ``self.<attr>`` (``A|<class>|<attr>``, see :meth:`attr_values`); None when
        unknown."""
        if src.startswith("A|") and "@" not in src:
            return self.attr_values(cpath, src)
        if not src.startswith("P|") or "@" in src:
            return None
        qual, _, name = src[2:].rpartition("|")
        if (cpath, qual) not in self.traced:
            return None
        return self.param_values((cpath, qual), name)

    def attr_values(self, cpath: str, src: str) -> list[object] | None:
        """The values ``self.<attr>`` (``A|<class>|<attr>`` of a class in ``cpath``) may hold
        when the attribute has one assignment in the class, its bases and its subclasses, from
        a parameter of that class's ``__init__`` (what its traced callers pass, or
        its literal default where the class and its subclasses are library-mode entry classes
        the user builds under their defaults). None: unknown (assigned more than once, from
        anything else, or ``__init__``'s callers are not known)."""
        got = self._attr_memo.get((cpath, src), ...)
        if got is ...:
            got = self._attr_memo[(cpath, src)] = self._attr_values(cpath, src)
        return got

    def _attr_values(self, cpath: str, src: str) -> list[object] | None:
        cq, _, attr = src[2:].rpartition("|")
        if cq not in self.files[cpath].classes or attr == "training":
            return None  # `training`: nn.Module's own, set by `.train()` / `.eval()`
        own = [
            (cp, cqq, store)
            for cp, cqq in self.mro(cpath, cq)
            for store in self.files[cp].classes[cqq].attr_stores.get(attr, ())
        ]
        if len(own) > 1 or any(not st or st[0] not in ("P", "X") for _, _, st in own):
            return None  # (checked first: the subclasses are looked up only when it may be)
        if any(b not in _PLAIN_BASES for b in self.external_bases(cpath, cq)):
            return None  # a base the project does not see may assign it too
        assigned = [
            (cp, cqq, store)
            for cp, cqq in self._related_classes(cpath, cq)
            for store in self.files[cp].classes[cqq].attr_stores.get(attr, ())
        ]
        if len(assigned) != 1 or not assigned[0][2]:
            return None
        cp, cqq, (kind, what) = assigned[0]
        if kind == "X":
            # a flag computed from `__init__`'s parameters (`self.expire = threshold > 0`)
            tree: list[object] = what  # type: ignore[assignment]
            vals: dict[str, list[object]] = {}
            for name in C.params_of(tree):
                if name == C.DISTRIBUTED:
                    got = self._distributed_values()
                elif name.startswith("G|"):
                    got = self.module_constant(name)
                else:
                    got = self._init_param_values(cp, cqq, name)
                if got is not None:
                    vals[name] = got
            return C.evaluate(tree, vals)
        if kind != "P":
            # a flag set to a literal is state that code outside the class toggles
            # (transformers' `gradient_checkpointing = False`, which
            # `gradient_checkpointing_enable()` sets on every submodule): not decided
            return None
        return self._init_param_values(cp, cqq, str(what))

    def _init_param_values(self, cp: str, cqq: str, pname: str) -> list[object] | None:
        """What parameter ``pname`` of class ``cqq``'s ``__init__`` holds (see
        :meth:`attr_values`)."""
        init = (cp, f"{cqq}.__init__")
        if init[1] not in self.files[cp].functions:
            return None
        if init in self.traced:
            return self.param_values(init, pname)
        key = (cp, cqq, pname)
        got = self._init_memo.get(key, ...)
        if got is not ...:
            return got
        self._init_memo[key] = None  # a cycle of constructions: unknown
        got = self._init_memo[key] = self._init_param_values_uncached(cp, cqq, pname, init)
        return got

    def _init_param_values_uncached(
        self, cp: str, cqq: str, pname: str, init: FKey
    ) -> list[object] | None:
        entries: set[tuple[str, str]] = (
            getattr(self, "entry_classes", set()) if self.default_roots else set()
        )
        spec = self._spec_class()
        if (cp, cqq) not in entries:
            sites, named = self._constructions()
            if (cp, cqq) in named or ((cp, cqq) not in sites and (cp, cqq) != spec and not entries):
                return None  # the class itself is built where the project does not show
        # each class whose instances run this __init__ (the class and its subclasses that
        # inherit it, the nearest in their MRO) is an entry class the user builds under its
        # defaults, the spec's class, or a class the project builds at call sites it can read
        related = self._related_classes(cp, cqq)
        users = [c for c in related if c == (cp, cqq) or (cp, cqq) in self.mro(*c)]
        if entries:
            # library mode: the user builds the entry classes only; a class the package never
            # builds (nor names) has no instance, and its `__init__` hands nothing over
            users = [u for u in users if u in entries or self._built_or_named(u)]
        elif spec is not None:
            # an input spec's run: the objects are those building the spec's class makes; a
            # class no live construction builds has no instance there
            users = [u for u in users if u == spec or self._live_sites(u)]
            if not users:
                return None
        nearest: dict[tuple[str, str], FKey] = {}
        for u in users:
            n = self._nearest_init(*u)
            if n is None:
                return None
            nearest[u] = n
        prm = next((p for p in self.fn(init).params if p.name == pname), None)
        if prm is None or prm.index < -1:
            return None
        if any(n != init and not self._hands_over(n, pname) for n in nearest.values()):
            return None  # (checked first, on the facts alone: most subclasses take no part)
        out: list[object] = []
        for u in users:
            sub = nearest[u]
            if sub != init:
                # a subclass's own `__init__` (`Decoder.__init__(self, **kwargs)`) that hands
                # the keyword to this one through `super().__init__(causal=True, **kwargs)`
                got = self._through_super(u, sub, init, prm, u in entries)
                if got is None:
                    return None
                out.extend(got)
                continue
            if u in entries:
                if not prm.literal:
                    return None
                out.append(prm.literal[0])
                continue
            if u == spec:
                value = self._spec_init_value(init, prm)
                if value is ...:
                    return None
                out.append(value)
                if not self._live_sites(u):
                    continue
            got = self._built_values(u, init, prm)
            if got is None:
                return None
            out.extend(got)
        return out

    def _built_or_named(self, cls: tuple[str, str]) -> bool:
        """Whether the project builds class ``cls`` or names it without a call (see
        :meth:`_constructions`)."""
        sites, named = self._constructions()
        return cls in sites or cls in named

    def _hands_over(self, sub: FKey, pname: str) -> bool:
        """Whether ``__init__`` ``sub`` may hand keyword ``pname`` to a base's ``__init__``
        (see :meth:`_through_super`): it has no parameter of that name, and a ``super()``
        call passes the keyword or ``sub``'s own ``**kwargs``."""
        fn = self.fn(sub)
        if any(p.name == pname and p.index >= -1 for p in fn.params):
            # a parameter of that name takes the keyword: handed over only where a `super()`
            # call passes it on unchanged (`super().__init__(init_method=init_method)`)
            return any(
                c.ref.startswith("S|") and (c.args or c.fwd.get(pname) == f"P|{sub[1]}|{pname}")
                for c in fn.calls
            )
        return any(
            c.ref.startswith("S|") and (pname in c.kwargs or KWARGS_SLOT in c.fwd or c.args)
            for c in fn.calls
        )

    def _through_super(
        self, cls: tuple[str, str], sub: FKey, init: FKey, prm: ParamFacts, entry: bool
    ) -> list[object] | None:
        """What parameter ``prm`` of ``init`` holds for instances of ``cls``, whose nearest
        ``__init__`` ``sub`` calls ``init`` once, unconditionally, through ``super()``: the
        literal that call passes, or what ``sub``'s own parameter that it passes on unchanged
        holds (``super().__init__(init_method=init_method)``: an entry class's default, or what
        ``cls``'s constructions pass), or, where it leaves the keyword to ``sub``'s own
        ``**kwargs`` passed on unchanged (and ``sub`` has no parameter of that name), what
        ``cls``'s constructions pass by that keyword (an entry class: ``init``'s default, the
        user building it under its defaults). None: unknown."""
        sfn = self.fn(sub)
        sites = [
            c
            for c in sfn.calls
            if c.ref.startswith("S|") and (t := self._target(sub[0], c.ref)) and t[0] == init
        ]
        if (entry or self._built_without(cls, prm.name)) and self._kwargs_only_chain(
            cls, init, prm.name, entry or self._built_with_positional(cls)
        ):
            # `super().__init__(**kwargs)` through bases in between (pytorch-metric-learning's
            # losses: `TripletMarginLoss` -> mixins -> `ModuleWithRecords`): no `__init__` on the
            # way names the keyword, so where the user (an entry class, built under its
            # defaults) or each of the package's constructions passes none, it holds `init`'s
            # default
            return list(prm.literal[:1]) or None
        if len(sites) != 1 or sites[0].conds or sites[0].branch:
            return None
        call = sites[0]
        positional = [p.name for p in self.fn(init).params if p.index >= 0]
        slot = prm.name
        if prm.index >= 0 and 0 <= positional.index(prm.name) - 1 < len(call.args):
            slot = str(positional.index(prm.name) - 1)
            v: V.Value | None = call.args[int(slot)]
        else:
            v = call.kwargs.get(prm.name)
        if v is not None:
            src = call.fwd.get(slot)
            if src is not None:
                # `sub`'s own parameter passed on unchanged (`init_method=init_method`): what
                # it holds for `cls` (an entry class: its default; else its constructions)
                qual, _, name = src[2:].rpartition("|")
                sprm = next((p for p in sfn.params if p.name == name and p.index >= -1), None)
                if not src.startswith("P|") or qual != sub[1] or sprm is None:
                    return None
                if entry:
                    return list(sprm.literal[:1]) or None
                return self._built_values(cls, sub, sprm)
            consts = [V.const(m) for m in V.members(v)]
            return None if any(c is ... for c in consts) else consts
        if not call.kwstar or KWARGS_SLOT not in call.fwd:
            return None  # `*args`, or a dict other than `sub`'s own `**kwargs`
        if entry:
            return list(prm.literal[:1]) or None
        key_prm = ParamFacts(prm.name, -1, "unknown", prm.default, list(prm.literal))
        return self._built_values(cls, sub, key_prm)

    def _built_without(self, cls: tuple[str, str], pname: str) -> bool:
        """Whether the project builds class ``cls`` (and never names it without a call), each
        construction without keyword ``pname`` nor ``*``/``**`` arguments."""
        sites, named = self._constructions()
        mine = sites.get(cls, ())
        return (
            bool(mine)
            and cls not in named
            and all(not c.star and pname not in c.kwargs for _p, _q, c in mine)
        )

    def _built_with_positional(self, cls: tuple[str, str]) -> bool:
        """Whether some construction of class ``cls`` the project makes passes a positional
        argument."""
        return any(c.args for _p, _q, c in self._constructions()[0].get(cls, ()))

    def _kwargs_only_chain(
        self, cls: tuple[str, str], init: FKey, pname: str, positional: bool
    ) -> bool:
        """Whether no ``__init__`` of class ``cls``'s MRO other than ``init`` can give
        ``init`` a value for keyword ``pname``: none has a parameter of that name, none calls
        a base's ``__init__`` with positional arguments, ``*args``, that keyword or a keyword
        dict other than its own ``**kwargs`` passed on unchanged (``super().__init__(**kwargs)``
        hands on only what the user passed). Own ``*args`` passed on are empty past the class's
        nearest ``__init__``, and in it too where no construction passes a positional argument
        (``positional`` False: not an entry the user builds, no construction that does)."""
        first = positional
        for p, q in self.mro(*cls):
            key = (p, f"{q}.__init__")
            if key == init or key[1] not in self.files[p].functions:
                continue
            fn = self.fn(key)
            if any(pr.name == pname for pr in fn.params):
                return False
            # its own `*args` passed on (`super().__init__(*args, **kwargs)`) is empty past the
            # class's nearest `__init__`: the calls up to it pass no positional argument
            own = [("Y", f"P|{key[1]}|{pr.name}") for pr in fn.params if pr.index == -2]
            for c in fn.calls:
                if pname in c.kwargs:
                    return False
                if not c.ref.startswith("S|") and not c.ref.endswith(".__init__"):
                    continue
                if c.star and c.fwd.get(KWARGS_SLOT) != f"P|{key[1]}|" + next(
                    (pr.name for pr in fn.params if pr.index == -3), ""
                ):
                    return False  # a keyword dict other than its own `**kwargs`
                if c.args and (first or [tuple(a) for a in c.args] != own):
                    return False
            first = False
        return True

    def _constructions(
        self,
    ) -> tuple[dict[tuple[str, str], list[tuple[str, str, CallSite]]], set[tuple[str, str]]]:
        """Every call of a project class (``Codebook(...)``, ``cls(**kw)`` with ``cls =
        Codebook``), in any function, traced or not: class -> ``(path, function, site)``; and
        the classes some function names without calling them (passed on, kept in a registry
        the call sites do not show): their constructions are not all known. A module-level
        binding (``DEFAULT = Codebook``) is not seen, nor are the calls in a followed
        library's light files (see :mod:`compilelint.static.libresolve`)."""
        got = self.__dict__.get("_built_index")
        if got is not None:
            return got
        # a class is called by a local ref (`Q|Codebook`) or an imported one
        # (`D|pkg.mod.Codebook`): refs of other kinds (methods) and of other names are passed
        # over before any resolution, with no function call for the commonest ones
        quals = {q for f in self.files.values() for q in f.classes}
        names = {q.rpartition(".")[2] for q in quals}
        sites: dict[tuple[str, str], list[tuple[str, str, CallSite]]] = {}
        named: set[tuple[str, str]] = set()
        for fp, f in self.files.items():
            if f.__dict__.get("_light"):
                # a followed library file read only for name resolution (nothing the traced
                # code runs is in it): its functions' calls are not read, which would have it
                # analysed whole; the objects it builds are not those the traced code holds
                continue
            memo: dict[str, tuple[str, str] | None] = {}  # ref -> the class it builds
            for q, fn in f.functions.items():
                built: set[tuple[str, str]] = set()
                # the calls first (all of ``built``), then the names the function mentions
                refs = chain(((c.ref, c) for c in fn.calls), ((r, None) for r in fn.refs))
                for ref, call in refs:
                    if ref in memo:
                        k = memo[ref]
                    elif (ref[0] == "Q" and ref[2:] in quals) or (
                        ref[0] == "D" and ref[2:8] != "torch." and ref.rpartition(".")[2] in names
                    ):
                        k = self._built_class(fp, ref, memo)
                    else:
                        continue
                    if k is None:
                        continue
                    if call is not None:
                        sites.setdefault(k, []).append((fp, q, call))
                        built.add(k)
                    elif k not in built:
                        # a function that names the class and calls it is taken to call it
                        # through the name it bound (`codebook_class = Codebook`)
                        named.add(k)
        self.__dict__["_built_index"] = (sites, named)
        return sites, named

    def _spec_class(self) -> tuple[str, str] | None:
        """The class an input spec builds (``Config.spec_init``), as a project class."""
        got = self.spec_init
        if got is None:
            return None
        path, name, _ = got
        for p, f in self.files.items():
            if name in f.classes and os.path.realpath(p) == path:
                return (p, name)
        return None

    def set_spec_init(self, got: tuple[str, str, str] | None) -> None:
        """Take what an input spec builds its class with; the attribute values known before
        are dropped."""
        if got == self.spec_init:
            return
        self.spec_init = got
        self._attr_memo.clear()
        self._init_memo.clear()
        self.__dict__.pop("_live_built_memo", None)

    def _spec_init_value(self, init: FKey, prm: ParamFacts) -> object:
        """What the spec's class is built with for ``prm`` of its ``__init__`` ``init``: the
        spec's argument (a JSON scalar; a list or dict is a container), else the parameter's
        literal default; ``...`` where unknown (a tagged value such as a tensor, no default)."""
        assert self.spec_init is not None
        given = json.loads(self.spec_init[2])
        args, kwargs = given.get("args", []), given.get("kwargs", {})
        positional = [p.name for p in self.fn(init).params if p.index >= 0]
        j = positional.index(prm.name) - 1 if prm.name in positional else -1
        if 0 <= j < len(args):
            v = args[j]
        elif prm.name in kwargs:
            v = kwargs[prm.name]
        elif prm.literal:
            return prm.literal[0]
        else:
            return ...
        if isinstance(v, dict) and any(k in v for k in ("tensor", "tuple", "dict")):
            return C.CONTAINER if set(v) <= {"tuple", "dict"} else ...
        if isinstance(v, (list, dict)):
            return C.CONTAINER
        return v

    def _live_built(self) -> set[FKey] | None:
        """With an input spec's class: the functions that run while the spec builds it (the
        ``__init__``s of its MRO, and what they call or name: functions, the ``__init__``s of
        the classes they build, their local functions), transitively. None without one."""
        got = self.__dict__.get("_live_built_memo", ...)
        if got is not ...:
            return got  # type: ignore[no-any-return]
        spec = self._spec_class()
        out: set[FKey] | None = None
        if spec is not None:
            live: set[FKey] = set()
            todo: list[FKey] = []

            def add(key: FKey) -> None:
                if key not in live and key[1] in self.files[key[0]].functions:
                    live.add(key)
                    todo.append(key)
                    inner = f"{key[1]}.<locals>."
                    for q in self.files[key[0]].functions:
                        if q.startswith(inner):
                            add((key[0], q))

            def add_class(path: str, qual: str) -> None:
                for cp, cq in self.mro(path, qual):
                    add((cp, f"{cq}.__init__"))

            add_class(*spec)
            while todo:
                key = todo.pop()
                fn = self.fn(key)
                for ref in [c.ref for c in fn.calls] + list(fn.refs):
                    r = self.resolve(key[0], ref)
                    if r is not None and r[2] == "class":
                        add_class(r[0], r[1])
                        continue
                    t = self._target(key[0], ref)
                    if t is not None:
                        add(t[0])
            out = live
        self.__dict__["_live_built_memo"] = out
        return out

    def _live_sites(self, cls: tuple[str, str]) -> list[tuple[str, str, CallSite]]:
        """The constructions of ``cls`` (:meth:`_constructions`) that run in an input spec's
        run: in a function that runs while the spec builds its class, or in traced code;
        without a spec class, all of them (a script may call any function)."""
        sites, _ = self._constructions()
        mine = sites.get(cls, [])
        live = self._live_built()
        if live is None:
            return list(mine)
        return [s for s in mine if (s[0], s[1]) in live or (s[0], s[1]) in self.traced]

    def _built_class(
        self, path: str, ref: str, memo: dict[str, tuple[str, str] | None]
    ) -> tuple[str, str] | None:
        """The project class a call of ``ref`` in file ``path`` builds (None: not a class)."""
        r = self.resolve(path, ref)
        got = memo[ref] = (r[0], r[1]) if r is not None and r[2] == "class" else None
        return got

    def _built_values(
        self, cls: tuple[str, str], init: FKey, prm: ParamFacts
    ) -> list[object] | None:
        """What parameter ``prm`` of ``__init__`` holds over every construction of class
        ``cls`` the project makes (:meth:`_constructions`): a literal, the parameter's
        literal default where a call leaves it out, or a parameter of the constructing
        function passed on unchanged (an ``__init__`` building a held object from its own
        parameters: ``self._codebook = Codebook(threshold=threshold)``, also through a keyword
        dict, whose values are what that class is built with in turn). None: unknown (no call
        site, a class also named without a call, ``*args``, a computed value)."""
        _, named = self._constructions()
        mine = self._live_sites(cls)
        if not mine or cls in named:
            return None
        positional = [p.name for p in self.fn(init).params if p.index >= 0]
        out: list[object] = []
        for spath, squal, call in mine:
            if call.star and not call.kwstar:
                return None
            v, slot = None, prm.name
            if prm.index >= 0:
                j = positional.index(prm.name) - 1
                if 0 <= j < len(call.args):
                    v, slot = call.args[j], str(j)
            if v is None:
                v = call.kwargs.get(prm.name)
            if v is None:
                if call.star or not prm.literal:
                    return None  # left to a `**kwargs` dict that may hold it, or required
                out.append(prm.literal[0])
                continue
            srcs = [call.fwd[slot]] if slot in call.fwd else []
            if not srcs:
                for m in V.members(v):
                    c = V.const(m)
                    if c is not ...:
                        out.append(c)
                    elif m[0] in _CONTAINER_KINDS:
                        out.append(C.CONTAINER)
                    elif m[0] == "Y" and m[1].startswith("P|") and "@" not in m[1]:
                        srcs.append(m[1])
                    else:
                        return None
            for src in srcs:
                got = self._caller_param_values(spath, squal, src)
                if got is None:
                    return None
                out.extend(got)
        return out

    def _caller_param_values(self, spath: str, squal: str, src: str) -> list[object] | None:
        """The values the constructing function's parameter ``src`` (``P|<func>|<param>``)
        holds: what its traced callers pass, or, for an ``__init__`` that is not traced,
        what its own class is built with."""
        qual, _, name = src[2:].rpartition("|")
        if qual != squal or "@" in src:
            return None
        if (spath, qual) in self.traced:
            return self.param_values((spath, qual), name)
        fn = self.fn((spath, qual))
        if fn.cls is None or fn.name != "__init__":
            return None
        return self._init_param_values(spath, fn.cls, name)

    def _nearest_init(self, path: str, cls_qual: str) -> FKey | None:
        for p, q in self.mro(path, cls_qual):
            if f"{q}.__init__" in self.files[p].functions:
                return (p, f"{q}.__init__")
        return None

    def _related_classes(self, path: str, cls_qual: str) -> list[tuple[str, str]]:
        """A class's MRO and every project class that has it in its MRO."""
        if self._subclasses is None:
            direct: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for p, f in self.files.items():
                for q, cf in f.classes.items():
                    for base in cf.bases:
                        r = self.resolve(p, base)
                        if r is not None and r[2] == "class":
                            direct.setdefault((r[0], r[1]), []).append((p, q))
            self._subclasses = direct
        out = self.mro(path, cls_qual)
        todo = list(self._subclasses.get((path, cls_qual), ()))
        while todo:
            c = todo.pop()
            if c not in out:
                out.append(c)
                todo.extend(self._subclasses.get(c, ()))
        return out

    def _distributed_values(self) -> list[object] | None:
        """What ``torch.distributed.is_initialized()`` (:data:`conds.DISTRIBUTED`) returns: in
        library mode ``False`` (a user's first call of an entry point runs in one process, no
        process group initialised); unknown for model files (a training script may run them
        under DDP)."""
        return [False] if self.default_roots else None

    def module_constant(self, ref: str) -> list[object] | None:
        """The value of module-level name ``ref`` (``G|<module>.<name>``, see
        :func:`conds.expr_tree`): in library mode, ``[value]`` where the module binds the name
        once to a literal (``COLLECT_STATS = False``, :mod:`analysis.constants`) and no file
        of the project stores it through the module (``c_f.COLLECT_STATS = True``): a user's
        first call of an entry runs under the package's configuration as shipped, as under
        the entry's defaults. Unknown (None) for model files, whose scripts may set it."""
        if not self.default_roots:
            return None
        stores = self.__dict__.get("_module_stores")
        if stores is None:
            # every file's stores through a module, read from its text when first asked
            stores = self.__dict__["_module_stores"] = {
                s
                for p, f in self.files.items()
                if (text := self.source(p)) is not None
                for s in K.module_stores(None if f.torch_free else f.imports, text)
            }
        dotted = ref[2:]
        if dotted in stores:
            return None
        mod, _, name = dotted.rpartition(".")
        path = self.modules.get(mod)
        if path is None:
            return None
        if f"*.{name}" in stores:
            return None  # stored through a name the file's imports do not tell
        memo: dict[str, dict[str, Any]] = self.__dict__.setdefault("_module_consts", {})
        consts = memo.get(path)
        if consts is None:
            text = self.source(path)
            got = K.module_constants(None, None, text) if text is not None else {}
            consts = memo[path] = got.get("module_consts", {})
        return [consts[name]] if name in consts else None

    def _fallback_values(self, key: FKey, subject: str) -> list[object] | None:
        """The values parameter ``pname`` holds after ``pname = default(pname, self.<attr>)``
        (``subject``, :func:`conds.fallback`): its own that are not None, and where it may be
        None the attribute's (:meth:`attr_values`); None when either is unknown."""
        got = C.split_fallback(subject)
        if got is None:
            return None
        pname, other = got
        vals = self.param_values(key, pname)
        if vals is None:
            return None
        out = [v for v in vals if v is not None]
        if len(out) == len(vals):
            return out
        cls = self.fn(key).cls
        if cls is None or key not in self.traced or not other.startswith("self."):
            return None
        held = self.attr_values(key[0], f"A|{cls}|{other[5:]}")
        return None if held is None else out + held

    def refuted(self, key: FKey, conds: list[str], depth: int = 0) -> bool:
        """Whether some condition (``analysis.conds``) holds for none of the values the
        function's parameter may take here: the guarded code never runs in this project."""
        for cond in conds:
            pname, op, lit = C.decode(cond)
            if pname == C.DISTRIBUTED:
                vals = self._distributed_values()
                if vals and not any(C.holds(v, op, lit) for v in vals):
                    return True
                continue
            if C.FALLBACK_SEP in pname:
                vals = self._fallback_values(key, pname)
                if vals and not any(C.holds(v, op, lit) for v in vals):
                    return True
                continue
            gs = C.guards(cond)
            if gs and (depth >= 4 or any(not self._harmless(key, g, depth + 1) for g in gs)):
                continue  # a re-binding of the parameter before the test may change it
            if op in C.INPUT_OPS:
                if (
                    op in C.UNUSUAL_INPUT_OPS
                    and self.default_roots
                    and self.input_tensor(key, pname)
                ):
                    if op != "otherdevice" or self.input_tensor(key, str(lit)):
                        return True
                continue
            if pname.startswith("self."):
                cls = self.fn(key).cls
                if cls is None or key not in self.traced:
                    continue
                vals = self.attr_values(key[0], f"A|{cls}|{pname[5:]}")
            elif pname.startswith("G|"):
                vals = self.module_constant(pname)  # `if DEBUG:` (library mode: as shipped)
            else:
                vals = self.param_values(key, pname)
            if vals and not any(C.holds(v, op, lit) for v in vals):
                return True
        return False

    def surely_holds(self, key: FKey, conds: list[str]) -> bool:
        """:meth:`certain`, where a condition on ``self.<attr>`` holds too when it holds for
        every value :meth:`attr_values` knows the attribute to hold in a traced method (``if
        self.tol is not None:`` with ``self.tol = tol`` stored from a default ``1e-4``), as
        :meth:`refuted` reads them."""
        if not conds:
            return False
        plain = []
        for cond in conds:
            pname, op, lit = C.decode(cond)
            if not pname.startswith("self."):
                plain.append(cond)
                continue
            if op in C.INPUT_OPS or C.guards(cond):
                return False
            cls = self.fn(key).cls
            if cls is None or key not in self.traced:
                return False
            vals = self.attr_values(key[0], f"A|{cls}|{pname[5:]}")
            if not vals or not all(
                C.holds(v, op, lit) and (v is not C.CONTAINER or not C.undecided(v, op, lit))
                for v in vals
            ):
                return False
        return not plain or self.certain(key, plain)

    def surely_runs(self, key: FKey, call: CallSite) -> bool:
        """Every call of ``key`` makes this call: outside branches its conditions do not
        describe, and its conditions (if any) :meth:`certain`."""
        return not call.branch and (not call.conds or self.certain(key, call.conds))

    def _certain_in_mode(self, key: FKey, conds: list[str]) -> bool:
        """:meth:`certain`, where the compile context's mode also decides ``self.training``
        (``if self.training:`` holds in train mode)."""
        if self.mode in ("train", "eval"):
            want = "truthy" if self.mode == "train" else "falsy"
            rest = [c for c in conds if C.decode(c)[:2] != ("self.training", want)]
            if not rest:
                return True
            conds = rest
        return self.certain(key, conds)

    def certain(self, key: FKey, conds: list[str]) -> bool:
        """Whether every condition holds for each value the function's parameter may take
        here (all of them known: literals the traced callers pass, or defaults they leave):
        ``if prompt_ids is None:`` in a function no caller passes ``prompt_ids``."""
        if not conds:
            return False
        for cond in conds:
            pname, op, lit = C.decode(cond)
            if op in C.INPUT_OPS or pname.startswith("self."):
                return False
            vals = (
                self._distributed_values()
                if pname == C.DISTRIBUTED
                else self._default_values(key, pname)
            )
            if not vals or not all(
                C.holds(v, op, lit) and (v is not C.CONTAINER or not C.undecided(v, op, lit))
                for v in vals
            ):
                return False
        return True

    def _default_values(self, key: FKey, pname: str, depth: int = 0) -> list[object] | None:
        """:meth:`param_values`, with an entry's optional parameter at its literal default
        (what a call of the compiled model that leaves it out gives), followed down the
        traced calls that pass it on unchanged."""
        vals = self.param_values(key, pname)
        if vals is not None or depth > 6:
            return vals
        fn = self.fn(key)
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None or prm.index < -1:
            return None
        sites = self.callers.get(key, ())
        if not sites:
            return [prm.literal[0]] if prm.literal else None
        positional = [p.name for p in fn.params if p.index >= 0]
        out: list[object] = []
        owners = self._owners()
        for _cpath, call, implicit in sites:
            if call.star and not call.kwstar:
                return None
            slot = pname
            if prm.index >= 0:
                j = positional.index(pname) - implicit
                if 0 <= j < len(call.args):
                    slot = str(j)
            if slot == pname and pname not in call.kwargs:
                if call.star or not prm.literal:
                    return None
                out.append(prm.literal[0])
                continue
            src = call.fwd.get(slot, "")
            owner = owners.get(id(call), (None, None))[1]
            if not src or owner is None:
                return None
            got = self._default_values(owner, src.rpartition("|")[2], depth + 1)
            if got is None:
                return None
            out.extend(got)
        return out

    def _owners(self) -> dict[int, tuple[CallSite, FKey]]:
        """id(CallSite) -> (the site, the function holding it) (built once, on first use)."""
        if self._site_owner is None:
            self._site_owner = {
                id(c): (c, (path, q))
                for path, f in self.files.items()
                for q, fn in f.functions.items()
                for c in fn.calls
            }
        return self._site_owner

    def surely_reached(self, key: FKey, depth: int = 0) -> bool:
        """Every call of the compiled entry reaches ``key``: it has no traced caller (an
        entry), or a caller surely reached calls it outside branches (or in one whose
        conditions are :meth:`certain`)."""
        sites = self.callers.get(key, ())
        if not sites:
            return True
        got = self._reached.get(key)
        if got is not None:
            return got
        if depth > 8:
            return False
        self._reached[key] = False  # a cycle of calls reaches nothing new
        owners = self._owners()
        for _cpath, call, _i in sites:
            owner = owners.get(id(call), (None, None))[1]
            if owner is None or owner == key or id(call) in self._dead_calls:
                continue
            if not self.surely_runs(owner, call):
                continue
            if self.surely_reached(owner, depth + 1):
                self._reached[key] = True
                return True
        return False

    def _harmless(self, key: FKey, guard: list[str] | dict[str, str], depth: int) -> bool:
        """Whether a re-binding of a parameter (one guard of :func:`conds.guarded`) leaves it
        the caller's value here: its conditions are refuted (it never runs), or it takes back
        what a checking helper returns unchanged (``{"via": ...}``: the helper hands its
        parameter back at that position, re-bound only where that is harmless too)."""
        if isinstance(guard, list):
            return self.refuted(key, guard, depth)
        t = self._target(key[0], guard["via"])
        if t is None:
            return False
        (hkey, implicit), arg = t, guard["arg"]
        fn = self.fn(hkey)
        if arg.isdigit():
            positional = [p.name for p in fn.params if p.index >= 0]
            j = int(arg) + implicit
            if j >= len(positional):
                return False
            arg = positional[j]
        row = fn.passes.get(guard["slot"])
        if not row or row[0] != arg:
            return False
        return all(self._harmless(hkey, g, depth + 1) for g in row[1]) if depth < 6 else False

    def input_tensor(self, key: FKey, pname: str, depth: int = 0) -> bool:
        """Whether parameter ``pname`` holds a tensor the user passes to a library-mode entry
        point (one without a literal default), passed on unchanged by every traced caller
        (``_binary_stat_scores_tensor_validation(preds, target, ...)``). Library mode judges
        its entries on tensors of torch's default dtype on one device (``conds.INPUT_OPS``)."""
        if depth > 8 or key not in self.traced or key in self._opaque:
            return False
        fn = self.fn(key)
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None or prm.index < -1 or prm.literal:
            return False
        sites = self.callers.get(key, ())
        if key in self.roots:
            if key not in self.default_roots:
                return False
        elif not sites:
            return False
        positional = [p.name for p in fn.params if p.index >= 0]
        for cpath, call, implicit in sites:
            if call.star:
                return False
            slot = pname
            if prm.index >= 0:
                j = positional.index(pname) - implicit
                if 0 <= j < len(call.args):
                    slot = str(j)
            src = call.fwd.get(slot)
            if src is None or not src.startswith("P|") or "@" in src:
                return False
            qual, _, name = src[2:].rpartition("|")
            if not self.input_tensor((cpath, qual), name, depth + 1):
                return False
        return True

    def find_roots(self, forwards: bool = True) -> set[FKey]:
        """Functions torch.compile starts tracing at: module forwards and compiled functions
        (``forwards=False``: the compiled functions only)."""
        roots: set[FKey] = set()
        for f in self.files.values():
            for cq, cf in f.classes.items():
                if forwards and "forward" in cf.methods and self.is_module_class(f.path, cq):
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

    def site_refuted(self, site: CallSite) -> bool:
        """Whether reachability refuted call site ``site`` (its conditions cannot hold: the
        callee is not reached through it)."""
        return id(site) in self._dead_calls

    def _target(self, path: str, ref: str) -> tuple[FKey, int] | None:
        """Resolved callee and the number of implicit leading arguments (self). Answered once
        per (file, ref) in a project's life: its files do not change, and a resolution asked
        again gives the same answer (reachability asks for every call of every traced
        function, once per round of refuted conditions, and the callers' index again)."""
        key = (path, ref)
        try:
            return self._targets[key]
        except KeyError:
            pass
        out = self._targets[key] = self._target_uncached(path, ref)
        return out

    # the function a call of ``ref`` in file ``path`` runs (a class: its ``__init__``) and its
    # implicit leading arguments (``self``), the edge reachability follows: for the analyses'
    # consumers (the prediction's user calls, hand-overs and loop calls); the same function,
    # no call in between
    call_target = _target

    def _ref_target(self, path: str, ref: str) -> tuple[FKey, int] | None:
        """The function a name a function mentions (``fn.refs``) passes on: none for a class
        (`Cls.helper(...)`, `isinstance(x, Cls)` build nothing). Once per (file, ref)."""
        key = (path, ref)
        try:
            return self._ref_targets[key]
        except KeyError:
            pass
        r = self.resolve(path, ref)
        out = None if r is not None and r[2] == "class" else self._target(path, ref)
        self._ref_targets[key] = out
        return out

    def _target_uncached(self, path: str, ref: str) -> tuple[FKey, int] | None:
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
        if fn.cls is not None and fn.params and fn.params[0].name in ("self", "cls", "ctx"):
            implicit = 1 if ref[0] in "MS" or "." in q else 0
        return ((p, q), implicit)

    def callees(self, key: FKey) -> list[FKey]:
        return [callee for callee, _ in self._edges(key)]

    def default_edges(
        self, key: FKey, site: CallSite | None = None, implicit: int = 0
    ) -> list[FKey]:
        """The functions ``key``'s parameter defaults name that a call runs with: at ``site``
        (``implicit`` leading arguments: ``self``), those of the parameters it leaves out (a
        call that unpacks ``*args`` or ``**kwargs`` may leave any out); without a site (a root,
        a function passed on as a value), all of them. torchmetrics'
        ``_binary_recall_at_fixed_precision_compute(..., reduce_fn=_recall_at_precision)``
        runs ``_precision_at_recall`` where ``binary_precision_at_fixed_recall`` passes it."""
        if key not in self._with_defaults:
            return []
        fn = self.fn(key)
        out: list[FKey] = []
        for prm in fn.params:
            ref = fn.default_refs.get(prm.name)
            if ref is None:
                continue
            if site is not None and not site.star:
                if prm.name in site.kwargs:
                    continue
                if 0 <= prm.index - implicit < len(site.args):
                    continue
            t = self._target(key[0], ref)
            if t is not None:
                out.append(t[0])
        return out

    def _call_targets(self, key: FKey) -> list[tuple[CallSite, FKey, int]]:
        """``key``'s call sites that resolve, each with its callee and implicit leading
        arguments (:meth:`_target`); made once per ``compute`` as :meth:`_edge_list`'s edges
        are (refuted sites may be in it, to be skipped)."""
        memo = self._site_memo
        if memo is not None:
            got = memo.get(key)
            if got is not None:
                return got
        dead = self._dead_calls
        out: list[tuple[CallSite, FKey, int]] = []
        for c in self.fn(key).calls:
            if id(c) in dead:
                continue
            t = self._target(key[0], c.ref)
            if t is not None:
                out.append((c, t[0], t[1]))
        if memo is not None and not dead:
            memo[key] = out
        return out

    def _edges(self, key: FKey) -> list[tuple[FKey, bool]]:
        """Callees, each with whether it is reached by a call site (whose arguments show)."""
        dead = self._dead_calls
        return [(k, by_site) for k, by_site, site in self._edge_list(key) if site not in dead]

    def _edge_list(self, key: FKey) -> list[tuple[FKey, bool, int]]:
        """:meth:`_edges` with the id of the call site each comes from (0: a name the function
        mentions, a default, a decorator's wrapper); those of refuted sites may be in it, to
        be skipped. In ``compute``, a function's edges are made once, in the first pass (when
        no site is refuted: the later passes reach a subset of its functions), and the later
        passes take them; elsewhere, or for a function the first pass did not reach, they are
        made without the refuted sites (whose callees are not resolved)."""
        memo = self._edge_memo
        if memo is not None:
            got = memo.get(key)
            if got is not None:
                return got
        dead = self._dead_calls
        fn = self.fn(key)
        out: list[tuple[FKey, bool, int]] = []
        for c in fn.calls:
            cid = id(c)
            if cid in dead:
                continue
            t = self._target(key[0], c.ref)
            if t is not None:
                out.append((t[0], True, cid))
                if t[0] in self._with_defaults:
                    out.extend((d, False, cid) for d in self.default_edges(t[0], c, t[1]))
        for ref in fn.refs:
            t = self._ref_target(key[0], ref)
            if t is not None:
                out.append((t[0], False, 0))
                if t[0] in self._with_defaults:
                    out.extend((d, False, 0) for d in self.default_edges(t[0]))
        if key in self.roots and key in self._with_defaults:
            out.extend((d, False, 0) for d in self.default_edges(key))
        out.extend((w, False, 0) for w, _site in self.decorator_wrappers(key))
        if memo is not None and not dead:
            memo[key] = out
        return out

    def decorator_wrappers(self, key: FKey) -> list[tuple[FKey, CallSite]]:
        """The wrapper closures the decorators of a function return, with the decorator's site.

        ``@deco`` whose ``deco(func)`` returns a nested ``wrapper`` (``return wrapper``), and
        decorator factories ``@deco(...)`` returning a nested decorator that returns the wrapper
        (also ``return wrapped_fn(func)``): torch.compile traces the wrapper, which calls the
        original. A nested def that returns another nested def is a decorator, not a wrapper; a
        wrapper calls a parameter of an enclosing function (the decorated ``func``)."""
        fn = self.fn(key)
        if not fn.decorators:
            return []
        got = self._wrappers.get(key)
        if got is None:
            got = self._wrappers[key] = self._decorator_wrappers(key, fn)
        return got

    def _decorator_wrappers(self, key: FKey, fn: FunctionFacts) -> list[tuple[FKey, CallSite]]:
        out: list[tuple[FKey, CallSite]] = []
        for site in fn.decorators:
            r = self.resolve(key[0], site.ref)
            if r is None or r[2] != "function":
                continue
            start = (r[0], r[1])
            funcs = self.files[r[0]].functions
            seen: set[str] = set()
            stack = [(r[1], 0)]
            while stack:
                q, depth = stack.pop()
                if q in seen or q not in funcs or depth > 4:
                    continue
                seen.add(q)
                f = funcs[q]
                inner = [c for c in (*f.returned_defs, *f.returned_calls) if c in funcs]
                if inner:
                    stack.extend((c, depth + 1) for c in inner)
                elif (r[0], q) != start and f.calls_closure_param and not f.disabled:
                    out.append(((r[0], q), site))
        return out

    # ------------------------------------------------------------------ findings
    def kept(self, f: FileFacts, only: frozenset[str] | None = None) -> list[Candidate]:
        """The candidates whose conditions hold (``only``: of these codes). One after a call
        (``args["via"]``: CL304) holds when the call breaks (:mod:`breakpoints`)."""
        out: list[Candidate] = []
        for c in f.candidates:
            if only is not None and c.code not in only:
                continue
            if c.scope == "traced" and (f.path, c.func) not in self.traced:
                continue
            if c.requires and not self.resolves(f.path, c.requires):
                continue
            if c.conds and self.refuted((f.path, c.func), c.conds):
                continue
            if c.args.get("guarded") and self.default_roots:
                # library mode: a warning or log record in a branch is what the library says
                # about inputs it considers unusual; its entry points, called as a user first
                # calls them, do not take it (latent, shown by --report-untraced)
                continue
            if c.args.get("entry") and not self.frame_param((f.path, c.func), c.args["name"]):
                continue
            if c.args.get("via") and not self.callee_breaks().keep(f.path, c):
                continue
            out.append(c)
        rebuilt = [c for c in out if c.code in REBUILD_CODES]
        ends = EAGER_REST_CODES
        if any(c.args.get(IN_TRY) for c in out):
            from compilelint.static.analysis.breakpoints import break_codes

            ends = ends | break_codes()
        if rebuilt or any(
            c.code in UNRESUMABLE_CODES or (c.args.get(IN_TRY) and c.code in ends) for c in out
        ):
            # after the first reconstruction failure torch runs the rest of the function
            # eagerly: a later call in it is not another one, and where every call of the
            # function reaches the failure (no branch, no condition that may not hold), nothing
            # on a later line of the function's own body breaks or recompiles (the functions
            # it calls there still run as frames of their own: their findings stay; the call's
            # own arguments, evaluated before it, are traced). A break torch cannot resume after
            # (``UNRESUMABLE_CODES``: a tensor slice bound), or any break inside a ``try:`` body
            # (``IN_TRY``), ends the frame's tracing the same way.
            first: dict[str, tuple[int, int]] = {}
            for c in rebuilt:
                first[c.func] = min(first.get(c.func, (c.line, c.col)), (c.line, c.col))
            out = [
                c for c in out if c.code not in REBUILD_CODES or first[c.func] == (c.line, c.col)
            ]
            eager: dict[str, int] = {}
            for c in out:
                if (
                    (c.code in EAGER_REST_CODES or (c.args.get(IN_TRY) and c.code in ends))
                    and not c.args.get(BRANCH)
                    and not c.args.get("latent")
                    and (not c.args.get("training") or self.mode == "train")
                    and (not c.conds or self._certain_in_mode((f.path, c.func), c.conds))
                ):
                    eager[c.func] = min(eager.get(c.func, c.line), c.line)
            if eager:
                out = [c for c in out if c.func not in eager or c.line <= eager[c.func]]
            # an unresumable break under conditions ends the frame where they hold: a later
            # candidate of the function under the same conditions (and more) runs only after it
            # (`if self.training:` ... two draws in arithmetic: the first ends the frame)
            gated = [
                c
                for c in out
                if c.code in UNRESUMABLE_CODES
                and (c.conds or c.args.get("training"))
                and not c.args.get(BRANCH)
                and not c.args.get("latent")
            ]
            if gated:
                out = [c for c in out if not any(_after_under(g, c) for g in gated)]
        return out

    def frame_param(self, key: FKey, pname: str, depth: int = 0) -> bool:
        """Whether parameter ``pname`` may hold a per-call Python value that dynamo guards on
        in this function (what a finding about it as a frame input needs, ``args["entry"]``):
        the function is compiled, or no traced code of the project calls it (a frame starts
        there), or a traced caller passes it on from its own parameter (the input reaches it
        through the inlined call, where that parameter is itself one: followed up the callers)
        or in a way not seen here (``*args``). A function traced code
        calls is inlined into the caller's frame: a literal, a default, or a value the caller
        computes or reads (a size read from a shape, a loop's counter, what a submodule returns)
        is no input of a frame."""
        fn = self.files[key[0]].functions.get(key[1])
        sites = self.callers.get(key)
        if fn is None or fn.compiled or not sites or not pname or depth > 6:
            return True
        prm = next((p for p in fn.params if p.name == pname), None)
        if prm is None or prm.index < -1:
            return True
        positional = [p.name for p in fn.params if p.index >= 0]
        for cpath, call, implicit in sites:
            if call.star and not call.kwstar:
                return True
            v, slot = None, pname
            if prm.index >= 0:
                j = positional.index(pname) - implicit
                if 0 <= j < len(call.args):
                    v, slot = call.args[j], str(j)
            if v is None:
                v = call.kwargs.get(pname)
            if v is None:
                if call.star:
                    return True  # left to the `**kwargs` the call unpacks: not seen here
                continue  # its default
            srcs = [call.fwd[slot]] if slot in call.fwd else []
            for m in V.members(v):
                if m[0] == "Y" and m[1].startswith("P|"):
                    srcs.append(m[1])
            for src in srcs:
                # the caller's own parameter: an input only where it is one there
                qual, _, cparam = src[2:].rpartition("|")
                if "@" in cparam or self.frame_param((cpath, qual), cparam, depth + 1):
                    return True
        return False

    def callee_breaks(self) -> CalleeBreaks:
        if self._callee_breaks is None:
            from compilelint.static.analysis.breakpoints import CalleeBreaks, break_codes

            self._callee_breaks = CalleeBreaks(self, break_codes())
        return self._callee_breaks


def _after_under(first: Candidate, c: Candidate) -> bool:
    """``c`` is on a later line of ``first``'s function, under every condition ``first`` is
    under (its ``conds``, training-only code): reached only where ``first`` was."""
    return (
        c.func == first.func
        and c.line > first.line
        and set(first.conds) <= set(c.conds)
        and (not first.args.get("training") or bool(c.args.get("training")))
    )


def _read(path: str) -> bytes | None:
    """The text of file ``path`` as it is on disk (None where it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None
