"""Follow calls from the scanned files into installed packages (issue 18), statically.

After phase 1 of the scanned files, the project view names the modules traced code calls into
that are not among the scanned files (:attr:`Project.unresolved_modules`). Each round finds
those modules' source files on the search path (:mod:`compilelint.static.analysis.resolve`),
runs the same phase 1 on them (never importing them) and recomputes the project, so that
reachability and values cross into the library exactly as they cross between scanned files:
a tensor argument stays a tensor in the callee, a helper's return value comes back. Library
functions are never roots: only what the user's compiled code reaches is judged.

Findings inside a library are anchored at the user's call line, carry the library frames and
the distribution, and get a fix the user can make. Rounds, files and time are bounded; a bound
that was hit is reported. Library facts are cached per (distribution, version).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import marshal
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from compilelint.model import Finding, Frame, Rule
from compilelint.static import libresolve as LR
from compilelint.static.analysis import values as V
from compilelint.static.analysis.dispatch import add_object_calls
from compilelint.static.analysis.facts import CallSite, Candidate, FileFacts
from compilelint.static.analysis.project import FKey, Project
from compilelint.static.analysis.resolve import ModuleFile, Resolver

MAX_ROUNDS = 8  # import depth followed from the scanned files
MAX_FILES = 300  # library files analysed
MAX_SECONDS = 30.0
LibSource = tuple[bytes, str, str, bool]  # data, real path, module, is a package
# folders of a package not searched for allow_in_graph registrations (not imported by its API)
_REGISTRY_SKIP = frozenset({"tests", "test", "testing", "examples", "benchmarks", "docs"})
_MAX_REGISTRY_FILES = 3000  # files of one package searched for registrations
# begin a library file's reads as soon as a computation shows it needed: a missing module's
# file that cannot be light analysed whole in the pool while the computation goes on, the
# others read for resolution while this process waits for the pool, a demanded light file's
# whole analysis begun at the demand (off: each in its round or after the computation)
EARLY = True
# a round's prediction is foreseen (``follow``'s ``foresee``) when this many bytes of its files
# are left to read light before it (a light read costs about 0.4 ms a KB, a prediction 0.01 to
# 0.03 s): round 1 of the 200-file corpus (``generation/utils.py``, ``modeling_outputs.py``)
FORESEE_BYTES = 200_000
# a call that registers a function (`allow_in_graph(rearrange)`), not a decorator: a decorated
# function is known once its own module loads (whoever calls it imports that module), so only
# modules with call-form registrations need loading (transformers' decorators do not)
_REGISTER_CALL = re.compile(rb"^[ \t]*(?![@#\s])[^\n]*?\ballow_in_graph\(", re.MULTILINE)

# Torch config switches that keep a library's pattern in the graph, by rule.
CONFIG_SWITCH = {
    "CL102": "torch._dynamo.config.capture_scalar_outputs = True",
    "CL103": "torch._dynamo.config.capture_scalar_outputs = True",
    "CL105": "torch._dynamo.config.capture_scalar_outputs = True",
    "CL110": "torch._dynamo.config.capture_dynamic_output_shape_ops = True",
    "CL111": "torch._dynamo.config.capture_dynamic_output_shape_ops = True",
}


@dataclass
class FollowStats:
    source: str = ""  # where the search path came from
    site: list[str] = field(default_factory=list)
    packages: dict[str, str] = field(default_factory=dict)  # distribution -> version
    files: int = 0
    functions: int = 0  # library functions reached from compiled code
    cached: int = 0
    # files first read only for resolution (``libresolve``), and of those, analysed whole after
    light: int = 0
    upgraded: int = 0
    seconds: float = 0.0
    bounds: list[str] = field(default_factory=list)  # bounds that were hit
    entries: int | None = None  # library mode: how many entry points (None: not library mode)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


_DEPTH = 8  # ``Project._resolve``'s bound: a resolution deeper than this answers None


class _Frame:
    """What one resolution in progress read and did; the resolutions it made are its parts."""

    __slots__ = ("attrs", "cut", "missing", "parts", "path", "taint", "top", "unres")

    def __init__(self, path: str, depth: int) -> None:
        self.path = path  # the file whose facts it reads (or finds absent)
        # dotted names that named no file but name an installed module (a file of it may join;
        # no other name can come to name a file)
        self.missing: list[str] = []
        self.unres: list[str] = []  # modules it (or a part) added to ``unresolved_modules``
        self.attrs: list[tuple[str, str, str]] = []  # (path, class, attr): attribute facts read
        self.parts: list[_Resolution] = []
        self.taint = False  # read a resolution in progress (a cycle): this project's alone
        self.cut = False  # the depth bound cut it: its answer holds at its depth only
        self.top = depth  # the deepest depth it reached, with what its parts need


class _Resolution:
    __slots__ = ("attrs", "key", "missing", "need", "out", "path", "unres", "users")

    def __init__(self, out: tuple[str, str, str] | None, need: int, fr: _Frame) -> None:
        self.out = out
        self.need = need  # depths below the query's that it uses: holds while depth+need <= 8
        self.path = fr.path
        self.missing = fr.missing
        self.key: tuple[Any, ...] = ()  # where it is kept
        self.users: list[_Resolution] = []  # the resolutions it is a part of
        for part in fr.parts:
            part.users.append(self)
        # what it and its parts did besides answering, replayed where it is used (mostly
        # nothing)
        self.unres = fr.unres
        self.attrs = fr.attrs


class SharedResolutions:
    """Name resolution shared by the project views that following computes (each round's
    computations and predictions), instead of each view resolving every ref again.

    A resolution is a function of the facts it read, the installed modules it found no file
    for and its depth: it is kept with those (through the resolutions it made), and dropped
    when a file it read joins, changes or leaves (a light file analysed whole, a file that did
    not analyse) or a module it missed joins. Kept under (file, ref) with the depth it needs
    when the depth bound did not cut it, under (file, ref, depth) when it did; a resolution
    that read one in progress (a cycle) is kept by its project only, as ``Project.resolve``
    keeps it. What it did besides answering is replayed in each project that uses it: the
    modules it added to ``unresolved_modules`` and the attribute facts of classes it read
    (reading a light class's records a demand)."""

    def __init__(self) -> None:
        self.kept: dict[tuple[Any, ...], _Resolution] = {}
        self._by_path: dict[str, list[_Resolution]] = {}  # by the file each read itself
        self._by_missing: dict[str, list[_Resolution]] = {}  # by the modules each missed
        self.hits = 0
        self.made = 0

    def get(self, path: str, ref: str, depth: int) -> tuple[_Resolution | None, bool]:
        """The kept resolution that holds at ``depth``, and whether it holds at it only."""
        got = self.kept.get((path, ref))
        if got is not None and depth + got.need <= _DEPTH:
            return got, False
        return self.kept.get((path, ref, depth)), True

    def put(self, key: tuple[Any, ...], res: _Resolution) -> None:
        self.made += 1
        res.key = key
        self.kept[key] = res
        self._by_path.setdefault(res.path, []).append(res)
        for m in res.missing:
            self._by_missing.setdefault(m, []).append(res)

    def changed(self, paths: set[str], modules: set[str]) -> None:
        """Files that joined, changed or left, and the modules they define: the resolutions
        that read them or missed them are dropped, and those they are parts of."""
        todo: list[_Resolution] = []
        for p in paths:
            todo += self._by_path.pop(p, ())
        for m in modules:
            todo += self._by_missing.pop(m, ())
        seen: dict[int, _Resolution] = {}  # held: a dropped one's id is never another's
        while todo:
            r = todo.pop()
            if id(r) in seen:
                continue
            seen[id(r)] = r
            if self.kept.get(r.key) is r:
                del self.kept[r.key]
            todo += r.users


class _Overlay(SharedResolutions):
    """A view's own table over another's: the other's resolutions are answered but those that
    missed one of ``modules`` (the view has files for them: their answers may differ), and
    what the view resolves is kept here only (the other's views are not told of it)."""

    def __init__(self, base: SharedResolutions, modules: set[str]) -> None:
        super().__init__()
        self.base = base
        todo = [r for m in modules for r in base._by_missing.get(m, ())]
        self.stale: set[int] = set()  # ids of the base's resolutions that missed one
        while todo:
            r = todo.pop()
            if id(r) not in self.stale:
                self.stale.add(id(r))
                todo += r.users

    def get(self, path: str, ref: str, depth: int) -> tuple[_Resolution | None, bool]:
        got = super().get(path, ref, depth)
        if got[0] is not None:
            return got
        got = self.base.get(path, ref, depth)
        return got if got[0] is not None and id(got[0]) not in self.stale else (None, False)


class _Unresolved(set):  # type: ignore[type-arg]
    """``unresolved_modules``: what a resolution in progress adds is recorded with it."""

    def __init__(self, frames: list[_Frame]) -> None:
        super().__init__()
        self._frames = frames

    def add(self, item: str) -> None:
        if self._frames:
            self._frames[-1].unres.append(item)
        super().add(item)


class FollowProject(Project):
    """The project view with library files in it: their functions are never roots, their
    module names do not answer suffix look-ups, and ``self.<attr>(...)`` on an attribute
    holding a library class instance calls that class's ``forward``."""

    def __init__(
        self,
        files: Iterable[FileFacts],
        library: dict[str, tuple[str, str]],
        installed: Callable[[str], bool] = lambda m: False,
        entries: tuple[str, ...] | None = None,
        broad: bool = False,
        shared: SharedResolutions | None = None,
    ) -> None:
        files = list(files)
        super().__init__(files)
        self.shared = shared  # resolutions shared with the other views of a following
        self._frames: list[_Frame] = []
        self._replayed: dict[int, _Resolution] = {}  # the shared resolutions used here
        if shared is not None:
            self.unresolved_modules = _Unresolved(self._frames)
        self.library = library  # path -> (distribution, version)
        self.installed = installed  # whether a dotted module is an installed, followable file
        self.entries = entries  # library mode: globs of entry names (``("*",)``: all public)
        # library mode, latent findings: every public function and method is an entry, under
        # any arguments (what ``--report-untraced`` shows, marked latent)
        self.broad = broad
        self.entry_classes: set[tuple[str, str]] = set()  # library mode: exported classes
        # told of each installed module this view finds no file for (next round's), when found
        self.on_missing: Callable[[str], None] | None = None
        self._mf: dict[str, tuple[str | None, bool]] = {}
        self._suffix = {}
        for mod, path in self.modules.items():
            if path in library:
                continue
            parts = mod.split(".")
            for i in range(1, len(parts)):
                self._suffix.setdefault(".".join(parts[i:]), []).append(path)

    def _module_file(self, dotted: str) -> str | None:
        # answered once per name (the files and module tables do not change in a project's
        # life; ``unresolved_modules`` is only added to)
        got = self._mf.get(dotted, ...)
        if got is ...:
            out = super()._module_file(dotted)
            got = self._mf[dotted] = (out, out is None and self.installed(dotted))
            if got[1]:
                self.unresolved_modules.add(dotted)  # load it in the next round
                if self.on_missing is not None:
                    self.on_missing(dotted)
        elif got[1] and self._frames:
            self._frames[-1].unres.append(dotted)
        if got[1] and self._frames:
            self._frames[-1].missing.append(dotted)
        return got[0]  # type: ignore[no-any-return]

    def _not_loaded(self, dotted: str) -> bool:
        # asked right after ``_module_file(dotted)`` found no file: whether it is an installed
        # module (loaded next round)
        return self._mf[dotted][1]

    def resolve(self, path: str, ref: str, depth: int = 0) -> tuple[str, str, str] | None:
        sh = self.shared
        if sh is None:
            return super().resolve(path, ref, depth)
        frames = self._frames
        if depth > _DEPTH:
            if frames:
                frames[-1].cut = True
            return None
        key = (path, ref)
        local = self._resolve_cache  # here: resolutions in progress and those that read one
        if key in local:
            if frames:
                frames[-1].taint = True
            return local[key]
        got, at_depth = sh.get(path, ref, depth)
        if got is not None:
            sh.hits += 1
            if (got.unres or got.attrs) and id(got) not in self._replayed:
                self._replayed[id(got)] = got
                set.update(self.unresolved_modules, got.unres)
                for cpath, cqual, attr in got.attrs:  # records the demands it recorded
                    self.files[cpath].classes[cqual].attr_classes.get(attr)
        else:
            fr = _Frame(path, depth)
            frames.append(fr)
            local[key] = None  # cycle guard
            try:
                out = self._resolve(path, ref, depth)
            finally:
                frames.pop()
                del local[key]
            if fr.taint:
                local[key] = out
                if frames:
                    frames[-1].taint = True
                return out
            at_depth = fr.cut
            got = _Resolution(out, fr.top - depth, fr)
            sh.put((path, ref, depth) if at_depth else key, got)
            self._replayed[id(got)] = got
        if frames:
            fr = frames[-1]
            fr.parts.append(got)
            if got.unres:
                fr.unres += got.unres
            if got.attrs:
                fr.attrs += got.attrs
            if depth + got.need > fr.top:
                fr.top = depth + got.need
            if at_depth:
                fr.cut = True
        return got.out

    def find_roots(self, forwards: bool = True) -> set[FKey]:
        # library mode (``forwards`` is decided here: the argument is the base class's): a module's ``forward`` is a root when it is an entry point (the package
        # exports the class, or an entry reaches it), not for being a forward: a module class
        # the package keeps to itself runs only where its public API calls it
        lib_mode = self.entries is not None and not self.broad
        roots = {k for k in super().find_roots(forwards=not lib_mode) if k[0] not in self.library}
        if self.entries is not None and self.broad:
            roots |= self.public_functions(self.entries)
        elif self.entries is not None:
            entry = self.entry_points(self.entries)
            roots |= entry
            self.default_roots = entry
        return roots

    def public_functions(self, globs: tuple[str, ...]) -> set[FKey]:
        """Every public function, method and ``forward`` of the scanned files whose qualified
        name (``module.Class.method``, or without the module) matches."""
        out: set[FKey] = set()
        for path, f in self.files.items():
            if path in self.library:
                continue
            for q in f.functions:
                if "<locals>" in q or not _public(q):
                    continue
                full = f"{f.module}.{q}" if f.module else q
                if any(fnmatch.fnmatchcase(full, g) or fnmatch.fnmatchcase(q, g) for g in globs):
                    out.add((path, q))
        return out

    def entry_points(self, globs: tuple[str, ...]) -> set[FKey]:
        """Library mode: the package's public API whose qualified name (``module.name``,
        ``module.Class.forward``, or without the module; the defining module or the public
        module that exports it) matches. The API is what the package's public modules (no
        ``_`` in the dotted name) define or import under a public name, star imports
        included: its functions, the ``forward`` of its ``nn.Module`` classes (the nearest in
        the class's MRO) and ``__call__`` of its other classes (test suites, benchmarks and
        examples are not API). Methods are reached from them,
        not entries themselves; entries run under their parameters' defaults."""
        out: set[FKey] = set()
        for pub, name, (path, qual, kind) in self._exported():
            cls_key = (path, qual)
            if kind == "function":
                fq = qual if "." not in qual else None
                if fq is not None and self._script_main(path, fq):
                    continue
            else:
                fq = None
                is_mod = self.is_module_class(path, qual)
                for p, q in self.mro(path, qual):
                    meth = f"{q}.forward" if is_mod else f"{q}.__call__"
                    if meth in self.files[p].functions:
                        path, fq = p, meth
                        break
            if fq is None or "<locals>" in fq:
                continue
            f = self.files[path]
            tail = fq.split(".", 1)[1] if "." in fq else ""
            names = (
                f"{f.module}.{fq}" if f.module else fq,
                fq,
                f"{pub}.{name}" + (f".{tail}" if tail else ""),
            )
            if any(fnmatch.fnmatchcase(n, g) for n in names for g in globs):
                out.add((path, fq))
                if kind != "function":
                    # its instances come from the user (an entry's own class only: a shared
                    # base ``forward`` calls the overrides of the classes named, not of all)
                    self.entry_classes.add(cls_key)
        return out

    def _script_main(self, path: str, qual: str) -> bool:
        """A function the module runs as a script (``if __name__ == "__main__": main()``) that
        takes no arguments it needs: the file's demo, not the package's API."""
        f = self.files[path]
        fn = f.functions.get(qual)
        return (
            fn is not None
            and f"Q|{qual}" in f.script_refs
            and all(p.default != "nodefault" or p.index < -1 for p in fn.params)
        )

    def _exported(self) -> list[tuple[str, str, tuple[str, str, str]]]:
        """(public module, public name, resolved definition) of every name the scanned
        package's public modules define or import."""
        own = {f.module for path, f in self.files.items() if path not in self.library and f.module}
        public = [
            (path, f)
            for path, f in sorted(self.files.items())
            if path not in self.library and f.module and _api_module(_below_root(f.module, own))
        ]
        out: list[tuple[str, str, tuple[str, str, str]]] = []
        seen: set[str] = set()
        while public:
            path, f = public.pop(0)
            if path in seen:
                continue
            seen.add(path)
            if f.torch_free:  # only syntax-checked so far (a re-exporting __init__): analyse it
                self.unresolved_modules.add(f.module)
                continue
            names = [q for q in (*f.functions, *f.classes) if "." not in q]
            names += [k for k in f.imports if not k.startswith("*")]
            if f.all_names is not None:  # the module says which of its names are public
                names = [n for n in names if n in f.all_names]
            for name in sorted(set(names)):
                if name.startswith("_"):
                    continue
                got = self.resolve(path, f"Q|{name}")
                if got is not None and got[0] not in self.library:
                    out.append((f.module, name, got))
            for k, mod in f.imports.items():
                mpath = self._module_file(mod) if k.startswith("*") else None
                if mpath is not None and mpath not in self.library and mpath not in seen:
                    public.append((mpath, self.files[mpath]))
        return out

    def _resolve(self, path: str, ref: str, depth: int) -> tuple[str, str, str] | None:
        if ref.startswith("O|"):  # a method of an object of a known class (analysis.dispatch)
            cref, _, meth = ref[2:].rpartition("|")
            got = self.resolve(path, cref, depth + 1)
            if got is None or got[2] != "class":
                return None
            names = (meth, "forward") if meth == "__call__" else (meth,)
            for p, q in self.mro(got[0], got[1]):
                for name in names:
                    if f"{q}.{name}" in self.files[p].functions:
                        return (p, f"{q}.{name}", "function")
            return None
        out = super()._resolve(path, ref, depth)
        if out is not None or not ref.startswith("M|") or path not in self.files:
            return out
        cls_qual, _, attr = ref[2:].rpartition("|")
        for cpath, cqual in self.mro(path, cls_qual):
            if self._frames:
                self._frames[-1].attrs.append((cpath, cqual, attr))
            for r in self.files[cpath].classes[cqual].attr_classes.get(attr, ()):
                r = r.removeprefix("*")
                if "|" not in r:
                    continue
                got = self.resolve(cpath, r, depth + 1)
                if got is None or got[2] != "class":
                    continue
                if got[0] not in self.library and self.entries is None:
                    continue  # a scanned class: the walker's submodule refs already say
                for p, q in self.mro(got[0], got[1]):
                    for meth in ("forward", "__call__"):
                        if f"{q}.{meth}" in self.files[p].functions:
                            return (p, f"{q}.{meth}", "function")
        return None


_TEST_PARTS = frozenset({"test", "tests", "testing", "conftest", "benchmarks", "examples"})


def _api_module(module: str) -> bool:
    """A module of the package's public API: no private part (``_impl``), and not its test
    suite, benchmarks or examples (``pkg.tests.test_ops``)."""
    return not any(
        part.startswith("_") or part in _TEST_PARTS or part.startswith("test_")
        for part in module.split(".")
    )


def _below_root(module: str, scanned: set[str]) -> str:
    """The part of a dotted module name below the outermost scanned package that holds it:
    scanning ``torchdiffeq/_impl/`` judges ``torchdiffeq._impl`` as the API's root, so only
    privacy below it counts."""
    parts = module.split(".")
    for i in range(1, len(parts)):
        if ".".join(parts[:i]) in scanned:
            return ".".join(parts[i:])
    return "" if module in scanned else module  # the root itself, or a lone module


def _public(qual: str) -> bool:
    """No part private; ``__call__`` counts as public (``__init__`` runs before compiling)."""
    parts = qual.split(".")
    return all(not p.startswith("_") for p in parts[:-1]) and (
        not parts[-1].startswith("_") or parts[-1] == "__call__"
    )


class LibraryCache:
    """Phase-1 facts of library files, one marshal file per (distribution, version)."""

    def __init__(self, directory: Path | None, key: str) -> None:
        self.directory = directory / "libs" if directory else None
        self.key = key
        self._loaded: dict[tuple[str, str], dict[str, tuple[str, Any]]] = {}
        self._dirty: set[tuple[str, str]] = set()

    def _file(self, dist: tuple[str, str]) -> Path | None:
        if self.directory is None:
            return None
        safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in f"{dist[0]}-{dist[1]}")
        return self.directory / f"{safe}-{self.key}.marshal"

    def _table(self, dist: tuple[str, str]) -> dict[str, tuple[str, Any]]:
        got = self._loaded.get(dist)
        if got is None:
            got = {}
            f = self._file(dist)
            if f is not None and f.is_file():
                try:
                    loaded = marshal.loads(f.read_bytes())
                    if isinstance(loaded, dict):
                        got = loaded
                except (OSError, ValueError, EOFError, TypeError):
                    got = {}
            self._loaded[dist] = got
        return got

    @property
    def keeps(self) -> bool:
        """Whether what is put is saved (``--no-cache``: no folder, so a library file's facts
        are not turned into their cache form; no file is read twice in a run)."""
        return self.directory is not None

    def get(self, dist: tuple[str, str], real: str, stamp: str) -> Any:
        got = self._table(dist).get(real)
        return got[1] if got is not None and got[0] == stamp else None

    def put(self, dist: tuple[str, str], real: str, stamp: str, data: object) -> None:
        self._table(dist)[real] = (stamp, data)
        self._dirty.add(dist)

    def save(self) -> None:
        if self.directory is None:
            return
        for dist in sorted(self._dirty):
            f = self._file(dist)
            if f is None:
                continue
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                tmp = f.with_suffix(f".tmp{os.getpid()}")
                tmp.write_bytes(marshal.dumps(self._loaded[dist]))
                os.replace(tmp, f)
            except (OSError, ValueError):
                pass
        self._dirty.clear()


def _stamp(path: str) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{st.st_size}:{st.st_mtime_ns}"


def follow(
    project: FollowProject,
    facts: dict[str, FileFacts],
    resolver: Resolver,
    analyse: Callable[[list[LibSource]], list[FileFacts]],
    *,
    start: Callable[[list[LibSource]], Callable[[], list[FileFacts]] | None] | None = None,
    run: Callable[[Callable[..., Any], tuple[Any, ...]], Callable[[], Any] | None] | None = None,
    shared: SharedResolutions | None = None,
    cache: LibraryCache,
    to_data: Callable[[FileFacts], object],  # the cache form (the engine's: marshal bytes)
    from_data: Callable[[Any], FileFacts],
    stats: FollowStats,
    entries: tuple[str, ...] | None = None,
    max_rounds: int = MAX_ROUNDS,
    max_files: int = MAX_FILES,
    max_seconds: float = MAX_SECONDS,
    prefetched: _Early | None = None,
) -> FollowProject:
    """Load the library files traced code reaches, round by round; the final project view.
    ``start`` begins analysing files and returns what waits for their facts (the engine's
    running pool analyses them while this process goes on), or None when nothing would run
    meanwhile: those files are analysed together by one call of ``analyse`` at the round's end.
    ``run(fn, args)`` begins ``fn(*args)`` likewise (a module-level function) and returns what
    waits for its result, or None: it runs here when needed. ``prefetched``: what
    :func:`prefetch` read and began (taken as the files ``early`` read: under their stamps)."""
    t0 = time.perf_counter()
    library: dict[str, tuple[str, str]] = {}
    tried: set[str] = set()

    def installed(m: str) -> bool:
        return resolver.find(m) is not None

    # ``project`` is the computed view of the scanned files alone (made with ``installed``)
    project.library = library
    searched: set[tuple[str, str]] = set()  # (site, top-level package) searched for graph ops
    # a library file is first read only for resolution (its names, imports and classes from
    # CPython's tree: ``libresolve``) and analysed whole when the project view reads what its
    # functions' bodies give (app mode; library mode judges more)
    use_light = LR.ENABLED and entries is None
    where: dict[str, tuple[ModuleFile, tuple[str, str]]] = {}  # library path -> file, dist

    # the resolutions of ``project``'s view and those before it when they were shared
    shared = shared if shared is not None else SharedResolutions()
    # files read, or begun in the pool, as soon as a computation showed they are needed (or
    # while the project phase waited: ``prefetch``)
    early = prefetched if prefetched is not None else _Early()
    noticed: set[str] = set()  # modules ``read_ahead`` was told of
    # read_ahead is on (while a next round may load what it is told of)
    ahead = [EARLY and use_light and LR.PREDICT and start is not None]

    # files of modules ``read_ahead`` was told of that are light by their bytes, read for
    # resolution while this process would wait for the pool (``idle``)
    pending: list[tuple[str, LibSource]] = []
    # files ``read_ahead`` began in the pool on their bytes alone (``LR.must_be_heavy``), not
    # read light yet
    guessed: list[tuple[str, LibSource]] = [
        (stamp, src) for p, (stamp, src, _w) in early.whole.items() if p not in early.light
    ]
    batched: set[str] = set()  # the files of the rounds so far

    def read_ahead(mod: str) -> None:
        """A module a computation found installed but not loaded (the next round loads its
        file): a file refused by its text (``LR.must_be_heavy``) is begun in the pool now,
        instead of after the computation (``transformers/modeling_utils.py``: the first run's
        longest task); the others are read while this process waits for the pool (``idle``),
        and one found refused then is begun then."""
        if not ahead[0] or mod in tried or mod in noticed or len(library) >= max_files:
            return
        noticed.add(mod)
        mf = resolver.find(mod)
        if mf is None or mf.path in library or mf.path in early.light or mf.path in early.whole:
            return
        stamp = _stamp(mf.path)
        if stamp is None or cache.get(resolver.distribution(mf), mf.path, stamp) is not None:
            return  # the round reads the cache
        src = _source(mf)
        if src is None:
            return
        if start is not None and LR.must_be_heavy(src[0]):
            # refused by its text (``modeling_utils.py``): its whole analysis begun before its
            # light read, which still decides (``idle``, or its round's read)
            wait = start([src])
            if wait is not None:
                early.whole[mf.path] = (stamp, src, wait)
                guessed.append((stamp, src))
                return
        # read when this process would wait, those that may not be light first (a
        # computation or prediction that reads them now waits for their parse: round 1's
        # prediction read ``generation/utils.py``, 247 KB, before it named ``import_utils.py``)
        pending.insert(len(pending) if LR.may_be_heavy(src[0]) else 0, (stamp, src))

    def idle(waits: bool = True) -> None:
        """About to wait for the pool: the files ``read_ahead`` left are read for resolution
        meanwhile (those their round then loads need no read there); first, when there is a
        wait to hide them (``waits``: not all that is waited for is in), those it began on
        their bytes alone: a file found light after all is read light by its round, and an
        upgrade of it takes the analysis begun. With nothing to wait for, those are left to
        their rounds, whose reads decide as these would (round 0's read of
        ``modeling_utils.py``, 0.035 s, begun in the project phase and analysed by round 0's
        end, moves into round 1, which waits for ``import_utils.py`` meanwhile); the others
        are still read here, a refused one begun at once."""
        while waits and guessed:
            stamp, src = guessed.pop(0)
            if src[1] in batched or src[1] in early.light or src[1] not in early.whole:
                continue
            with LR.Demand.paused():
                lf = LR.light_facts(*src)
            early.light[src[1]] = (stamp, src, lf)
        while pending:
            stamp, src = pending.pop()
            if src[1] in batched or src[1] in early.light:
                continue  # its round read it (a refused file's facts are not in yet)
            with LR.Demand.paused():
                lf = LR.light_facts(*src)
            early.light[src[1]] = (stamp, src, lf)
            if lf is None and start is not None:  # cannot be light: begun now
                wait = start([src])
                if wait is not None:
                    early.whole[src[1]] = (stamp, src, wait)

    def begin_whole(path: str) -> None:
        """A light file a computation demanded (:meth:`LR.Demand.recording`): its whole
        analysis begun in the pool now, while the computation goes on; ``upgrade`` takes it."""
        if start is None or path in early.whole or path not in where:
            return
        f = facts.get(path)
        if f is None or not LR.is_light(f):
            return
        mf, dist = where[path]
        stamp = _stamp(path)
        if stamp is None:
            return
        got = cache.get(dist, path, stamp)
        if got is not None and not LR.is_plain(got):
            return  # its whole facts are cached
        src = _source(mf, path)
        if src is None:
            return
        wait = start([src])
        if wait is not None:
            early.whole[path] = (stamp, src, wait)

    def recording() -> Any:
        return LR.Demand.recording(on_new=begin_whole if EARLY and start is not None else None)

    def make() -> FollowProject:
        view = FollowProject(facts.values(), library, installed, entries, shared=shared)
        view.source = project.source
        view.on_missing = read_ahead
        return view

    def enter(
        batch: list[tuple[ModuleFile, tuple[str, str]]], got: list[FileFacts | None], light: bool
    ) -> None:
        # the kept resolutions that read these files or missed their modules
        shared.changed(
            {mf.path for mf, _ in batch} | {f.path for f in got if f is not None},
            {mf.module for mf, _ in batch} | {f.module for f in got if f is not None},
        )
        for (mf, dist), f in zip(batch, got):
            if f is None:
                if not light:  # a light file that does not analyse: as if never loaded
                    library.pop(mf.path, None)
                    facts.pop(mf.path, None)
                continue
            library[f.path] = dist
            facts[f.path] = f
            where[f.path] = (mf, dist)
            stats.packages[dist[0]] = dist[1]

    def load(batch: list[tuple[ModuleFile, tuple[str, str]]], light: bool) -> None:
        got = _load_all(
            batch, analyse, cache, to_data, from_data, stats, light=light, early=early, idle=idle
        )
        enter(batch, got, light)

    def to_upgrade(need: set[str]) -> list[tuple[ModuleFile, tuple[str, str]]]:
        redo = [where[p] for p in sorted(need) if p in facts and LR.is_light(facts[p])]
        stats.upgraded += len(redo)
        return redo

    def upgrade(demand: set[str]) -> bool:
        """Analyse whole the light files whose body facts the project view read."""
        redo = to_upgrade(demand)
        if not redo:
            return False
        load(redo, light=False)
        return True

    def predicted(before: FollowProject) -> set[str]:
        return predict_upgrades(before, make())

    def foresee(batch: list[tuple[ModuleFile, tuple[str, str]]], before: FollowProject) -> None:
        """A round with many bytes of its files left to read light before its prediction:
        the prediction foreseen over a view with the round's files read so far, the round's
        files it finds missing read first (round 1's ``import_utils.py``, before 300 KB of
        others), and again with them; the light files each names are begun in the pool now.
        The round's own prediction, after all its reads, still decides what is upgraded and
        takes what was begun (the same files and facts); what it does not name is left."""
        if not (EARLY and start is not None and ahead[0]):
            return
        known: dict[str, FileFacts] = {}
        lib = dict(library)
        unread: dict[str, tuple[str, ModuleFile, tuple[str, str]]] = {}  # module -> to read
        left = 0  # bytes of the round's files left to read light
        for mf, dist in batch:
            stamp = _stamp(mf.path)
            if stamp is None:
                continue
            e = early.light.get(mf.path)
            if e is not None and e[0] == stamp:
                if e[2] is not None:
                    known[mf.path] = e[2]
                    lib[mf.path] = dist
            elif mf.path not in early.whole and cache.get(dist, mf.path, stamp) is None:
                unread[mf.module] = (stamp, mf, dist)
                left += int(stamp.split(":", 1)[0])
        if left < FORESEE_BYTES:
            return  # the round's prediction comes soon: one more would cost what it saves
        # the kept resolutions that missed the round's modules, dropped now rather than when
        # the round enters them (nothing else resolves in between): the view below finds
        # those modules missing again (``on_missing``)
        shared.changed(set(), {mf.module for mf, _ in batch} | {f.module for f in known.values()})
        for again in (False, True):
            missed: set[str] = set()
            view = FollowProject(
                [*facts.values(), *known.values()], lib, installed, entries, shared=shared
            )
            view.source = project.source
            view.on_missing = missed.add
            for path in sorted(predict_upgrades(before, view)):
                if path in early.whole:
                    continue
                if path in known:
                    stamp, src, _lf = early.light[path]
                    wait = start([src])
                    if wait is not None:
                        early.whole[path] = (stamp, src, wait)
                else:
                    begin_whole(path)  # a light file of an earlier round
            first = [unread.pop(m) for m in sorted(missed) if m in unread]
            if again or not first:
                return
            for stamp, mf, dist in first:
                read = _source(mf)
                if read is None:
                    continue
                src = read
                with LR.Demand.paused():
                    lf = LR.light_facts(*src)
                early.light[mf.path] = (stamp, src, lf)  # the round takes it
                if lf is None:
                    wait = start([src])
                    if wait is not None:
                        early.whole[mf.path] = (stamp, src, wait)
                else:
                    known[mf.path] = lf
                    lib[mf.path] = dist
            shared.changed(set(), {mf.module for _s, mf, _d in first})

    def load_round(
        batch: list[tuple[ModuleFile, tuple[str, str]]],
        before: FollowProject,
        then: Callable[[], None],
    ) -> bool:
        """A round's files: first those read only for resolution (or cached), then, in one call
        of ``analyse`` (the pool runs them side by side), the files to analyse whole together
        with the light files that ``before``'s traced calls name, known from the light facts
        (the heavy files of the round analysed first, the prediction after them, ran one after
        the other). Whether to predict again once they are in (``settle``)."""
        if not (use_light and LR.PREDICT):
            then()
            load(batch, light=use_light)
            return True
        # a file found not to be light (``modeling_utils.py``) starts at once, largest first:
        # it is analysed while this process reads the others and predicts
        begun: _Begun = []
        later: _Todo = []

        def begin(items: _Todo) -> None:
            wait = start([src for _i, _s, src in items]) if start is not None else None
            if wait is None:
                later.extend(items)
            else:
                begun.append((items, wait))

        foresee(batch, before)
        got, todo = _read_all(
            batch, cache, from_data, stats, light=True, begin=begin, early=early, begun=begun
        )
        heavy = bool(todo) or bool(begun)
        enter(batch, got, light=True)
        redo = to_upgrade(predicted(before))
        rbegun: _Begun = []
        rgot, rtodo = _read_all(
            redo, cache, from_data, stats, light=False, early=early, begun=rbegun
        )
        n = len(batch)
        if rtodo:
            begin([(i + n, st, src) for i, st, src in rtodo])
        for items, wait in rbegun:
            begun.append(([(i + n, st, src) for i, st, src in items], wait))
        both = batch + redo
        out = got + rgot
        then()  # after the round's own files: the pool takes them first
        if begun:
            idle(not _all_in(begun))
        for items, wait in begun:
            _store_all(both, out, items, wait(), cache, to_data)
        _analyse_all(both, out, sorted(later, key=lambda t: t[0]), analyse, cache, to_data)
        # the round's files whose facts came now (the light ones are in already: the
        # resolutions that read them hold)
        now = [i for i in range(n) if out[i] is not got[i]]
        enter([batch[i] for i in now], [out[i] for i in now], light=True)
        enter(redo, out[n:], light=False)
        # what the prediction could not see yet: the facts of the files analysed whole
        return heavy

    def settle(before: FollowProject, predict: bool = True) -> FollowProject:
        """The project view over the files loaded so far, every file it reads into whole.
        Light files that the calls of the functions ``before`` traces name are analysed whole
        first: the computation would demand them (saves a computation per round)."""
        if LR.PREDICT and predict:
            upgrade(predicted(before))
        while True:
            with recording() as demand:
                project = make()
                project.compute()
                if add_factory_calls(project):
                    project = make()
                    project.compute()
                if add_virtual_calls(project):
                    project = make()
                    project.compute()
                # the objects built as a held object's constructor arguments
                # (`ScaleKernel(RBFKernel())`): resolving them loads their modules next round,
                # so their overrides are known
                _resolve_held_arguments(project)
            if not upgrade(demand):
                return project

    for rnd in range(max_rounds + 1):
        wanted = [mf for mf in _round_modules(project, tried, resolver) if mf.path not in library]
        if not wanted:
            break
        if rnd == max_rounds:
            stats.bounds.append(f"import depth {max_rounds}")
            break
        batch: list[tuple[ModuleFile, tuple[str, str]]] = []
        for mf in sorted({m.path: m for m in wanted}.values(), key=lambda m: m.path):
            if len(library) + len(batch) >= max_files:
                if f"{max_files} files" not in stats.bounds:
                    stats.bounds.append(f"{max_files} files")
                break
            if time.perf_counter() - t0 > max_seconds:
                if f"{max_seconds:g} s" not in stats.bounds:
                    stats.bounds.append(f"{max_seconds:g} s")
                break
            batch.append((mf, resolver.distribution(mf)))
        batched.update(mf.path for mf, _ in batch)
        # a package's allow_in_graph registrations may lie in a module the call graph does not
        # reach (einops imports `_torch_specific` inside a function): load every module of a
        # followed package that registers some, so its graph ops are known. The search of a
        # package new to this round runs in a pool worker while the round loads (``run``),
        # begun once the round's own files are (a round that waits for a small file does not
        # wait for a search before it)
        searches: list[tuple[ModuleFile, tuple[str, str]]] = []
        for mf, dist in batch:
            if (mf.site, mf.top) not in searched:
                searched.add((mf.site, mf.top))
                searches.append((mf, dist))
        waits: list[Callable[[], list[str]] | None] = []

        def begin_searches(
            searches: list[tuple[ModuleFile, tuple[str, str]]] = searches,
            waits: list[Callable[[], list[str]] | None] = waits,
        ) -> None:
            if len(waits) == len(searches):
                return  # begun
            for mf, dist in searches:
                wait = None
                if run is not None and cached_registering_modules(mf, dist, cache) is None:
                    wait = run(search_registering_modules, (mf.site, mf.top))
                waits.append(wait)

        # one round's files are analysed together (the engine's pool of workers); modules
        # its computations find missing are read ahead while a next round may load them
        ahead[0] = ahead[0] and rnd + 1 < max_rounds
        project = settle(project, predict=load_round(batch, project, begin_searches))
        begin_searches()
        for (mf, dist), wait in zip(searches, waits):
            if wait is None:
                mods = registering_modules(mf, dist, cache)
            else:
                mods = wait()
                cache.put(
                    dist, f"<graph-ops>{os.path.join(mf.site, mf.top)}", "", {"modules": mods}
                )
            project.unresolved_modules.update(mods)
    ahead[0] = False  # no round after these
    while True:
        with recording() as demand:
            final = project
            if prune_registry_calls(final):
                final = make()
                final.compute()
            if prune_virtual_calls(final):
                final = make()
                final.compute()
        if not upgrade(demand):
            project = final
            break
        project = settle(project)
    stats.light = sum(1 for f in facts.values() if LR.is_light(f)) + stats.upgraded
    stats.files = len(library)
    stats.functions = sum(1 for k in project.traced if k[0] in library)
    stats.seconds = time.perf_counter() - t0
    cache.save()
    return project


def _round_modules(project: Project, tried: set[str], resolver: Resolver) -> list[ModuleFile]:
    """The files a round loads for ``project``'s unresolved modules not ``tried`` yet (added to
    it): each module's file, or its nearest package's, with the packages above it (their
    ``__init__`` runs first on import and re-exports)."""
    wanted: list[ModuleFile] = []
    for mod in sorted(project.unresolved_modules):
        if mod in tried:
            continue
        tried.add(mod)
        parts = mod.split(".")
        for i in range(len(parts), 0, -1):
            mf = resolver.find(".".join(parts[:i]))
            if mf is not None:
                wanted.append(mf)
                for j in range(1, i):
                    up = resolver.find(".".join(parts[:j]))
                    if up is not None:
                        wanted.append(up)
                break
    return wanted


def prefetch(
    project: FollowProject,
    facts: Mapping[str, FileFacts],
    resolver: Resolver,
    start: Callable[[list[LibSource]], Callable[[], list[FileFacts]] | None],
    cache: LibraryCache,
    shared: SharedResolutions | None = None,
) -> _Early | None:
    """Following's first round begun while the project phase waits for the pool (its
    torch-free helpers): the files ``project`` (a computed view of the scanned files, not
    necessarily the last) would load first are read for resolution, and a view over them
    predicts as the round would (:func:`predict_upgrades`); the files it names, those that
    cannot be light, and the files of the modules its traced calls find missing (the next
    round's) that their text says cannot be light (``LR.must_be_heavy``:
    ``transformers/modeling_utils.py``, the first run's longest task) are begun in the pool.
    Nothing is decided here: :func:`follow` takes a file's entry (its light facts, its analysis
    begun) only when its own round reads or upgrades that file under the same stamp, reads
    it as before otherwise, and reads a file begun on its text light as any (``guessed``);
    what no round takes never reaches a view. The view resolves with a table of its own over
    ``shared`` (the scan's: what it keeps is answered, but what missed the modules read here;
    what the view resolves is not kept there, the project phase's next views have none of
    those files). None when following would not read ahead (light reads or predictions off,
    library mode)."""
    if not (EARLY and LR.ENABLED and LR.PREDICT) or project.entries is not None:
        return None
    early = _Early()
    known: dict[str, FileFacts] = {}  # path -> light facts read here
    lib: dict[str, tuple[str, str]] = {}

    def installed(m: str) -> bool:
        return resolver.find(m) is not None

    def begin(path: str, stamp: str, src: LibSource) -> None:
        if path not in early.whole:
            wait = start([src])
            if wait is not None:
                early.whole[path] = (stamp, src, wait)

    def source(mf: ModuleFile) -> tuple[str, LibSource] | None:
        if mf.path in early.light or mf.path in early.whole or mf.path in facts:
            return None
        stamp = _stamp(mf.path)
        if stamp is None or cache.get(resolver.distribution(mf), mf.path, stamp) is not None:
            return None  # the round reads the cache
        src = _source(mf)
        return None if src is None else (stamp, src)

    for mf in sorted(
        {m.path: m for m in _round_modules(project, set(), resolver)}.values(),
        key=lambda m: m.path,
    ):
        got = source(mf)
        if got is None:
            continue
        stamp, src = got
        if LR.must_be_heavy(src[0]):
            begin(mf.path, stamp, src)  # its round reads it light (a guess)
            continue
        with LR.Demand.paused():
            lf = LR.light_facts(*src)
        early.light[mf.path] = (stamp, src, lf)
        if lf is None:
            begin(mf.path, stamp, src)
        else:
            known[mf.path] = lf
            lib[mf.path] = resolver.distribution(mf)
    missed: set[str] = set()
    if not known:
        return early  # nothing new to resolve into (the round reads the library cache)
    modules = {f.module for f in known.values()}
    table = _Overlay(shared, modules) if shared is not None else SharedResolutions()
    view = FollowProject([*facts.values(), *known.values()], lib, installed, None, shared=table)
    view.on_missing = missed.add
    with LR.Demand.paused():
        for path in sorted(predict_upgrades(project, view)):
            if path in known:
                stamp, src, _lf = early.light[path]
                begin(path, stamp, src)
    for m in sorted(missed):
        found = resolver.find(m)
        got = source(found) if found is not None else None
        if found is not None and got is not None and LR.must_be_heavy(got[1][0]):
            begin(found.path, *got)
    return early


def predict_upgrades(before: FollowProject, pre: FollowProject) -> set[str]:
    """The light files that the calls and refs of the functions ``before`` traces resolve
    into in ``pre`` (a view over the files loaded since): the next computation would demand
    them."""
    need: set[str] = set()
    library, files = pre.library, pre.files
    for key in before.traced:
        fn = before.fn(key)
        if LR.is_light(before.files[key[0]]):
            continue
        for ref in [c.ref for c in fn.calls] + list(fn.refs):
            r = pre.resolve(key[0], ref)
            if r is not None and r[0] in library and LR.is_light(files[r[0]]):
                need.add(r[0])
    return need


def registering_modules(mf: ModuleFile, dist: tuple[str, str], cache: LibraryCache) -> list[str]:
    """The modules of ``mf``'s top-level package whose text names ``allow_in_graph`` (a cheap
    byte search, no parsing; test and example folders skipped), cached per (distribution,
    version). Phase 1 then decides which functions they register on import."""
    got = cached_registering_modules(mf, dist, cache)
    if got is not None:
        return got
    out = search_registering_modules(mf.site, mf.top)
    cache.put(dist, f"<graph-ops>{os.path.join(mf.site, mf.top)}", "", {"modules": out})
    return out


def cached_registering_modules(
    mf: ModuleFile, dist: tuple[str, str], cache: LibraryCache
) -> list[str] | None:
    """:func:`registering_modules` when it needs no search (cached, or no package folder);
    None: the search is to be made."""
    root = os.path.join(mf.site, mf.top)
    if not os.path.isdir(root):
        return []  # a single-module distribution: that module is loaded already
    got = cache.get(dist, f"<graph-ops>{root}", "")
    if got is not None:
        return [str(m) for m in got.get("modules", [])]
    return None


def search_registering_modules(site: str, top: str) -> list[str]:
    """The search of :func:`registering_modules` (no cache): a pool worker may run it while
    this process loads the round that found the package."""
    root = os.path.join(site, top)
    out: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _REGISTRY_SKIP and d.isidentifier())
        for name in sorted(filenames):
            if not name.endswith(".py") or seen >= _MAX_REGISTRY_FILES:
                continue
            seen += 1
            try:
                with open(os.path.join(dirpath, name), "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if b"allow_in_graph" not in data or not _REGISTER_CALL.search(data):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name[:-3]), site).split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            if all(p.isidentifier() for p in rel):
                out.append(".".join(rel))
    return out


def add_factory_calls(project: FollowProject) -> bool:
    """``obj.meth(...)`` on an object made from a class a function returns
    (``solver_fn = methods.select(method)``, then ``solver_fn(...).integrate(t)``): the ref
    ``O|K|<function>|meth`` becomes one call site per class the function returns by name
    (``return Euler``). Whether any was added."""
    added = False
    for key in sorted(project.traced):
        fn = project.fn(key)
        have = {c.ref for c in fn.calls}
        new = []
        for c in fn.calls:
            if not c.ref.startswith("O|K|"):
                continue
            fref, _, meth = c.ref[4:].rpartition("|")
            got = project.resolve(key[0], fref)
            if got is None or got[2] != "function":
                continue
            factory = project.files[got[0]].functions[got[1]]
            for nref in factory.returned_names:
                cls = project.resolve(got[0], nref)
                if cls is None or cls[2] != "class" or not project.files[cls[0]].module:
                    continue
                ref = f"O|D|{project.files[cls[0]].module}.{cls[1]}|{meth}"
                if ref in have:
                    continue
                have.add(ref)
                new.append(CallSite(ref, c.args, c.kwargs, c.in_loop, c.line, c.col, conds=c.conds))
        if new:
            fn.calls.extend(new)
            added = True
    return added


def _none_key(project: FollowProject, key: FKey, none_to: object) -> str | None:
    """The key a registry dispatch in ``key`` uses where its parameter is None (the last
    element of ``CallSite.guard``): the literal the function binds under ``if param is None``,
    or the one a checking helper binds (its ``none_literals``) when it is passed in and
    unpacked from what every return of the helper gives at that position. None: not known."""
    if isinstance(none_to, str):
        return none_to
    if not isinstance(none_to, list) or len(none_to) != 3:
        return None
    ref, slot, idx = none_to
    got = project.resolve(key[0], ref)
    if got is None or got[2] != "function":
        return None
    helper = project.files[got[0]].functions.get(got[1])
    if helper is None or helper.cls is not None:
        return None
    prm = next(
        (
            p
            for p in helper.params
            if (p.index == slot if isinstance(slot, int) else p.name == slot)
        ),
        None,
    )
    lit = helper.none_literals.get(prm.name) if prm is not None else None
    if prm is None or not isinstance(lit, str):
        return None
    allowed = {V.sym(f"P|{helper.qual}|{prm.name}"), V.scalar("str", lit)}
    passed = False
    for r in helper.returns:
        if idx >= 0 and V.kind(r) != "sequence":
            continue  # a nested function's or a generator's value, not the unpacked tuple
        got_v = r if idx < 0 else V.element(r, idx)
        if not set(V.members(got_v)) <= allowed:
            return None
        passed = True
    return lit if passed else None


def prune_registry_calls(project: FollowProject, own: set[str] | None = None) -> bool:
    """Call-site sensitive registry dispatch: ``SOLVERS[method](...)`` in a library function
    (or in ``own``, library mode's scanned files) keeps only the entries whose keys its traced
    callers pass for ``method`` (a string literal, or the parameter's literal default when a
    caller leaves it out; None stands for the literal a ``None`` key is re-bound to, in the
    function or in a checking helper it goes through). When a caller passes anything else, or
    the function is an entry point that is not run under its defaults, every entry stays.
    Whether any was dropped."""
    guarded = [
        key
        for key in sorted(project.traced)
        if (key[0] in project.library or (own is not None and key[0] in own))
        and any(c.guard and not c.guard.startswith(VIRTUAL) for c in project.fn(key).calls)
    ]
    if not guarded:
        return False
    # (function, parameter) -> its literal default, and the keys callers pass (None: unknown)
    defaults: dict[tuple[FKey, str], str | None] = {}
    none_keys: dict[tuple[FKey, str], str | None] = {}
    for key in guarded:
        for c in project.fn(key).calls:
            if c.guard and not c.guard.startswith(VIRTUAL):
                g = json.loads(c.guard)
                defaults[(key, g[0])] = g[2]
                if (key, g[0]) not in none_keys:
                    none_keys[(key, g[0])] = _none_key(project, key, g[3] if len(g) > 3 else None)

    def keyed(k: tuple[FKey, str], v: object) -> object:
        return none_keys.get(k) if v is None else v

    keys: dict[tuple[FKey, str], set[str] | None] = {k: set() for k in defaults}
    for k, default in defaults.items():
        if k[0] in project.roots:
            # a library-mode entry under its defaults: the default (None: what it becomes)
            pf = next((p for p in project.fn(k[0]).params if p.name == k[1]), None)
            under = default if default is not None else None if pf and pf.default == "none" else ...
            v = keyed(k, under)
            if k[0] in project.default_roots and isinstance(v, str):
                keys[k] = {v}
            else:
                keys[k] = None
    want = set(guarded)
    for ckey in sorted(project.traced):
        for c in project.fn(ckey).calls:
            t = project._target(ckey[0], c.ref)
            if t is None or t[0] not in want:
                continue
            callee, implicit = t
            params = project.fn(callee).params
            for (fk, pname), default in defaults.items():
                got = keys[(fk, pname)]
                if fk != callee or got is None:
                    continue
                pf = next((p for p in params if p.name == pname), None)
                vals: list[object] = [...]
                if pf is not None and not c.star:
                    j = pf.index - implicit
                    if pf.index >= 0 and 0 <= j < len(c.args):
                        vals = [V.const(m) for m in V.members(c.args[j])]
                    elif pname in c.kwargs:
                        vals = [V.const(m) for m in V.members(c.kwargs[pname])]
                    else:
                        vals = [default]
                vals = [keyed((fk, pname), v) for v in vals]
                if all(isinstance(v, str) for v in vals):
                    got.update(str(v) for v in vals)
                else:
                    keys[(fk, pname)] = None
    dropped = False
    for key in guarded:
        fn = project.fn(key)
        kept = []
        for c in fn.calls:
            if c.guard and not c.guard.startswith(VIRTUAL):
                pname, entry = json.loads(c.guard)[:2]
                allowed = keys[(key, pname)]
                if allowed and entry not in allowed:  # unknown or no caller seen: keep all
                    continue
            kept.append(c)
        if len(kept) != len(fn.calls):
            fn.calls[:] = kept
            dropped = True
    return dropped


VIRTUAL = "virtual:"  # CallSite.guard of a call added to an override: "virtual:[path, class]"


def add_virtual_calls(project: FollowProject, paths: set[str] | None = None) -> bool:
    """A call to a method that subclasses override (a solver base class calling its
    ``self._step_func``; ``self.bm(t0, t1)`` on an attribute annotated with an abstract base)
    may run any override: add a call site to each override defined in a loaded library file (or
    in ``paths``), with the same arguments (:func:`prune_virtual_calls` keeps those of classes
    the traced code instantiates). Whether any was added."""
    scope = paths if paths is not None else set(project.library)
    subclasses: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for path in sorted(scope):
        f = project.files[path]
        if not f.module:
            continue
        for cq in f.classes:
            for anc in project.mro(path, cq)[1:]:
                subclasses.setdefault(anc, []).append((path, cq))
    if not subclasses:
        return False
    added = False
    for key in sorted(project.traced):
        if key[0] not in scope:
            continue
        fn = project.fn(key)
        have = {c.ref for c in fn.calls}
        new = []
        for c in fn.calls:
            if c.guard.startswith(VIRTUAL) or id(c) in project._dead_calls:
                continue
            # (class, method) whose overrides may run: the calling class for self.meth(...),
            # even when only its subclasses define meth; the class defining the resolved method
            bases: set[tuple[tuple[str, str], str]] = set()
            if c.ref.startswith("M|"):
                cls_qual, _, m = c.ref[2:].rpartition("|")
                bases.add(((key[0], cls_qual), m))
            # `super().meth(...)` (`S|`) is no virtual call: it runs the method the MRO after
            # the calling class gives, never an override in a sibling subclass of that base
            # (gpytorch's `Mean.__call__` calling `super().__call__` does not run
            # `Kernel.__call__`, nor does `Kernel.__call__` call itself that way)
            t = project._target(key[0], c.ref) if c.ref[:2] in ("M|", "O|") else None
            if t is not None and "." in t[0][1] and "<locals>" not in t[0][1]:
                (tp, tq), _ = t
                cls_qual, _, m = tq.rpartition(".")
                bases.add(((tp, cls_qual), m))
            subs = {(sub, m) for b, m in bases if m != "__init__" for sub in subclasses.get(b, ())}
            for (sp, sq), meth in sorted(subs):
                if f"{sq}.{meth}" not in project.files[sp].functions:
                    continue
                ref = f"D|{project.files[sp].module}.{sq}.{meth}"
                if ref in have:
                    continue
                have.add(ref)
                new.append(
                    CallSite(
                        ref,
                        c.args,
                        c.kwargs,
                        c.in_loop,
                        c.line,
                        c.col,
                        star=c.star,
                        kwstar=c.kwstar,
                        guard=VIRTUAL + json.dumps([sp, sq]),
                        conds=c.conds,
                    )
                )
        if new:
            fn.calls.extend(new)
            added = True
    return added


def prune_virtual_calls(project: FollowProject) -> bool:
    """Rapid type analysis: of the overrides a call may run, keep those of classes that the
    traced code instantiates (a call of the class, a registry entry, a method called on an object
    of it), or of their bases. When none of a call's override classes is instantiated there (the
    object comes from outside the traced code), every override stays. Whether any was dropped."""
    if not any(
        c.guard.startswith(VIRTUAL) for key in project.traced for c in project.fn(key).calls
    ):
        return False
    made = instantiated_classes(project)
    dropped = False
    for key in sorted(project.traced):
        fn = project.fn(key)
        groups: dict[tuple[int, int], list[CallSite]] = {}
        for c in fn.calls:
            if c.guard.startswith(VIRTUAL):
                groups.setdefault((c.line, c.col), []).append(c)
        drop: set[int] = set()
        for sites in groups.values():
            alive = [c for c in sites if tuple(json.loads(c.guard[len(VIRTUAL) :])) in made]
            if alive:
                drop.update(id(c) for c in sites if c not in alive)
        if drop:
            fn.calls[:] = [c for c in fn.calls if id(c) not in drop]
            dropped = True
    return dropped


def _resolve_held_arguments(project: FollowProject) -> None:
    """Resolve the classes of objects built as the constructor arguments of what traced
    classes hold in ``self.<attr>`` (``attr_classes["<attr>()"]``), so that an unloaded module
    among them is loaded in the next round."""
    seen: set[tuple[str, str]] = set()
    for key in project.traced:
        fn = project.fn(key)
        if fn.cls is None or (key[0], fn.cls) in seen:
            continue
        seen.add((key[0], fn.cls))
        cf = project.files[key[0]].classes.get(fn.cls)
        if cf is None:
            continue
        for attr, refs in cf.attr_classes.items():
            if attr.endswith("()"):
                for ref in refs:
                    project.resolve(key[0], ref)


def instantiated_classes(project: FollowProject) -> set[tuple[str, str]]:
    """The classes (with their bases) the traced code instantiates: a call of the class, a
    registry entry, a method called on an object of it, an object a traced class holds in
    ``self.<attr>`` (or built as that object's constructor argument); in library mode the
    package's exported classes."""
    made: set[tuple[str, str]] = set()
    seen: set[tuple[str, str]] = set()

    def add(path: str, qual: str) -> None:
        if (path, qual) not in seen:
            seen.add((path, qual))
            made.update(project.mro(path, qual))

    for cls in project.entry_classes:
        add(*cls)
    for key in project.traced:
        fn = project.fn(key)
        if fn.cls is not None and fn.cls in project.files[key[0]].classes:
            # objects its own class holds (``self.aug = ColorJitter(...)`` in ``__init__``)
            for cp, cq in project.mro(key[0], fn.cls):
                for refs in project.files[cp].classes[cq].attr_classes.values():
                    for ref in refs:
                        r = project.resolve(cp, ref.removeprefix("*"))
                        if r is not None and r[2] == "class":
                            add(r[0], r[1])
        for c in fn.calls:
            if id(c) in project._dead_calls or c.guard.startswith(VIRTUAL):
                continue
            ref = c.ref
            if ref.startswith("O|"):
                ref = ref[2:].rpartition("|")[0]
            r = project.resolve(key[0], ref)
            if r is not None and r[2] == "class":
                add(r[0], r[1])
    return made


def library_mode_calls(
    project: FollowProject, datas: Mapping[str, bytes], make: Callable[[], FollowProject]
) -> FollowProject:
    """Library mode: the scanned package's own calls through objects (``solver =
    SOLVERS[method](...)``, then ``solver.integrate(t)``), factories and overridden methods,
    as for a followed library's files. The recomputed project view."""
    for path, f in project.files.items():
        if path in datas and f.error is None and not f.torch_free and path not in project.library:
            add_object_calls(datas[path], f)
    project = make()
    project.compute()
    own = {p for p in project.files if p not in project.library}
    if add_factory_calls(project):
        project = make()
        project.compute()
    if add_virtual_calls(project, own):
        project = make()
        project.compute()
    if prune_registry_calls(project, own):
        project = make()
        project.compute()
    if prune_virtual_calls(project):
        project = make()
        project.compute()
    return project


def _load_all(
    batch: list[tuple[ModuleFile, tuple[str, str]]],
    analyse: Callable[[list[LibSource]], list[FileFacts]],
    cache: LibraryCache,
    to_data: Callable[[FileFacts], object],  # the cache form (the engine's: marshal bytes)
    from_data: Callable[[Any], FileFacts],
    stats: FollowStats,
    light: bool = False,
    early: _Early | None = None,
    idle: Callable[[bool], None] | None = None,
) -> list[FileFacts | None]:
    """The facts of each library file of ``batch`` (None: unreadable or unparsable): from the
    library cache, else analysed, all of them in one call of ``analyse`` (phase 1 with calls
    through objects, in the engine's pool of workers when it pays), but those ``early`` began
    analysing; ``idle`` runs before waiting for those (told whether that would wait)."""
    begun: _Begun = []
    out, todo = _read_all(batch, cache, from_data, stats, light=light, early=early, begun=begun)
    _analyse_all(batch, out, todo, analyse, cache, to_data)
    if begun and idle is not None:
        idle(not _all_in(begun))
    for items, wait in begun:
        _store_all(batch, out, items, wait(), cache, to_data)
    return out


_Todo = list[tuple[int, str, LibSource]]  # (index in the batch, stamp, source) to analyse whole
# files of a batch whose whole analysis runs in the pool, and what waits for their facts
_Begun = list[tuple[_Todo, Callable[[], list[FileFacts]]]]


def _all_in(begun: _Begun) -> bool:
    """Whether waiting for ``begun`` would not wait: all of it is in (a wait that cannot say,
    without a ``ready``, is taken to wait)."""
    for _items, wait in begun:
        ready = getattr(wait, "ready", None)
        if ready is None or not ready():
            return False
    return True


class _Early:
    """Library files read before their round or their analysis (a first run's serial path):
    ``light``, files of modules a computation found missing (next round's), read then: path ->
    (stamp, source, the light facts or None: it cannot be light); ``whole``, files whose whole
    analysis was begun in the pool then (those that cannot be light, and light files a
    computation demanded): path -> (stamp, source, what waits for the facts). A round or an
    upgrade takes a file's entry when its stamp is unchanged and reads it as before otherwise;
    an entry never taken was not needed after all."""

    def __init__(self) -> None:
        self.light: dict[str, tuple[str, LibSource, FileFacts | None]] = {}
        self.whole: dict[str, tuple[str, LibSource, Callable[[], list[FileFacts]]]] = {}


def _source(mf: ModuleFile, path: str | None = None) -> tuple[bytes, str, str, bool] | None:
    """The light read's source of module file ``mf`` (its bytes read from ``path``, by default
    its own), or None when the file cannot be read."""
    try:
        with open(path or mf.path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    return (data, mf.path, mf.module, mf.is_package)


def _read_all(
    batch: list[tuple[ModuleFile, tuple[str, str]]],
    cache: LibraryCache,
    from_data: Callable[[Any], FileFacts],
    stats: FollowStats,
    light: bool = False,
    begin: Callable[[_Todo], None] | None = None,
    early: _Early | None = None,
    begun: _Begun | None = None,
) -> tuple[list[FileFacts | None], _Todo]:
    """The first half of :func:`_load_all`: the facts the library cache has and those read
    only for resolution (``light``), and the files left to analyse whole (in the batch's
    order). With ``begin``, the files are read largest first and each file left to analyse
    whole is handed to ``begin`` as soon as it is known (the caller analyses those, not
    the returned list's). A file ``early`` read or began is taken from it: its light facts,
    or its analysis in the pool, into ``begun`` (neither returned nor handed to ``begin``)."""
    out: list[FileFacts | None] = [None] * len(batch)
    todo: _Todo = []
    stamps = [_stamp(mf.path) for mf, _ in batch]
    order = list(range(len(batch)))
    if begin is not None:
        order.sort(key=lambda i: -int((stamps[i] or "0:").split(":", 1)[0]))
    for i in order:
        mf, dist = batch[i]
        stamp = stamps[i]
        if stamp is None:
            continue
        got = cache.get(dist, mf.path, stamp)
        if got is not None and LR.is_plain(got):  # read only for resolution before
            if light:
                stats.cached += 1
                out[i] = LR.from_plain(mf.path, got)
                continue
            got = None  # wanted whole now
        if got is not None:
            try:
                stats.cached += 1
                out[i] = from_data(got)
                continue
            except (TypeError, KeyError):
                stats.cached -= 1
        ahead = early.light.pop(mf.path, None) if early is not None else None
        if ahead is not None and (ahead[0] != stamp or not light):
            ahead = None
        if light and ahead is None and early is not None and mf.path in early.whole:
            # begun on its bytes alone (``LR.must_be_heavy``) and not read light yet: the
            # light read decides, as for any file of the round (light after all: the analysis
            # begun is left for an upgrade of it)
            guess = early.whole[mf.path]
            if guess[0] == stamp:
                ahead = (stamp, guess[1], LR.light_facts(*guess[1]))
        if early is not None and begun is not None and (ahead is None or ahead[2] is None):
            w = early.whole.pop(mf.path, None)
            if w is not None and w[0] == stamp:
                begun.append(([(i, stamp, w[1])], w[2]))
                continue
        if ahead is not None:  # read while a computation found its module missing
            src, lf = ahead[1], ahead[2]
        else:
            read = _source(mf)
            if read is None:
                continue
            src = read
            # read only for resolution while nothing reads its functions' bodies
            lf = LR.light_facts(*src) if light else None
        if lf is not None:
            out[i] = lf
            if cache.keeps:
                cache.put(dist, mf.path, stamp, LR.to_plain(lf))
            continue
        item = (i, stamp, src)
        todo.append(item)
        if begin is not None:
            begin([item])
    todo.sort(key=lambda t: t[0])
    return out, todo


def _analyse_all(
    batch: list[tuple[ModuleFile, tuple[str, str]]],
    out: list[FileFacts | None],
    todo: _Todo,
    analyse: Callable[[list[LibSource]], list[FileFacts]],
    cache: LibraryCache,
    to_data: Callable[[FileFacts], object],
) -> None:
    """The second half of :func:`_load_all`: ``todo`` analysed whole in one call of
    ``analyse``, into ``out`` and the library cache."""
    _store_all(batch, out, todo, analyse([src for _i, _s, src in todo]), cache, to_data)


def _store_all(
    batch: list[tuple[ModuleFile, tuple[str, str]]],
    out: list[FileFacts | None],
    todo: _Todo,
    results: list[FileFacts],
    cache: LibraryCache,
    to_data: Callable[[FileFacts], object],
) -> None:
    """``todo``'s facts as analysed (``results``, in its order), into ``out`` and the
    library cache."""
    for (i, stamp, _src), f in zip(todo, results):
        if f.error is not None:
            continue
        mf, dist = batch[i]
        if cache.keeps:
            cache.put(dist, mf.path, stamp, to_data(f))
        out[i] = f


# ---------------------------------------------------------------------------- findings
def call_chains(project: FollowProject) -> dict[FKey, list[tuple[FKey, int, int]]]:
    """For each traced library function, the shortest chain of calls that reaches it from a
    scanned file: ``[(caller, line, col), ...]``, outermost (the user's call) first."""
    parent: dict[FKey, tuple[FKey, int, int] | None] = {}
    queue: deque[FKey] = deque()
    for r in sorted(project.roots):
        parent[r] = None
        queue.append(r)
    while queue:
        key = queue.popleft()
        fn = project.fn(key)
        edges: list[tuple[FKey, int, int]] = []
        live = [c for c in fn.calls if id(c) not in project._dead_calls]
        for ref, line, col, site in [(c.ref, c.line, c.col, c) for c in live] + [
            (ref, 0, 0, None) for ref in fn.refs
        ]:
            t = project._target(key[0], ref)
            if t is not None:
                edges.append((t[0], line, col))
                # a function a parameter's default names, run where the call leaves it out
                edges.extend((d, line, col) for d in project.default_edges(t[0], site, t[1]))
        if key in project.roots:
            edges.extend((d, 0, 0) for d in project.default_edges(key))
        # a decorator's wrapper closure, reached at the decorator's line
        edges.extend((w, site.line, site.col) for w, site in project.decorator_wrappers(key))
        for callee, line, col in edges:
            if callee in parent or callee not in project.traced:
                continue
            parent[callee] = (key, line, col)
            queue.append(callee)
    out: dict[FKey, list[tuple[FKey, int, int]]] = {}
    for key in parent:
        if key[0] not in project.library:
            continue
        chain: list[tuple[FKey, int, int]] = []
        cur: FKey | None = key
        while cur is not None and parent.get(cur) is not None:
            p = parent[cur]
            assert p is not None
            chain.append(p)
            cur = p[0]
            if cur[0] not in project.library:
                break
        chain.reverse()
        if chain and chain[0][0][0] not in project.library:
            out[key] = chain
    return out


def user_fix(rule: Rule, dist: str, lib_fix: str) -> str:
    parts = [
        f"`{dist}` is third-party code: change how it is called. Use its compile-friendly option "
        "if it has one",
        f"set `{CONFIG_SWITCH[rule.code]}`" if rule.code in CONFIG_SWITCH else "",
        "wrap this call in `torch.compiler.disable` (one graph break per call; the library then "
        "runs eagerly)",
        "or make the call outside the compiled `forward`",
    ]
    text = "; ".join(p for p in parts if p)
    return f"{text}. In the library: {lib_fix}" if lib_fix else text


def library_findings(
    project: FollowProject,
    make: Callable[[Candidate, str], Finding | None],
    line_text: Callable[[str, int], str],
    rules: dict[str, Rule],
) -> list[Finding]:
    """Findings for candidates kept in library files, anchored at the user's call lines.
    ``make(candidate, lib_path)`` builds the library-side finding (message, severity, fix) or
    None when the rule is off."""
    chains = call_chains(project)
    out: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for path in sorted(project.library):
        f = project.files[path]
        dist, version = project.library[path]
        for c in project.kept(f):
            key = (path, c.func)
            chain = chains.get(key)
            if chain is None:
                continue
            base = make(c, path)
            if base is None:
                continue
            (upath, ufunc), uline, ucol = chain[0]
            dedup = (upath, uline, ucol, c.code, path, c.line)
            if dedup in seen:
                continue
            seen.add(dedup)
            frames = [Frame(upath, uline, ufunc)]
            frames += [Frame(k[0], ln, k[1]) for k, ln, _ in chain[1:]]
            frames.append(Frame(path, c.line, c.func))
            text = line_text(upath, uline)
            where = f"{os.path.basename(path)}:{c.line}"
            out.append(
                Finding(
                    rule=base.rule,
                    name=base.name,
                    path=upath,
                    line=uline or 1,
                    col=ucol or 1,
                    end_line=uline or 1,
                    end_col=max(len(text) + 1, ucol or 1),
                    severity=base.severity,
                    message=f"in {dist} {version} ({where}, `{c.line_text.strip()}`): "
                    f"{base.message}",
                    fix=user_fix(rules[base.rule], dist, base.fix),
                    stage="static",
                    function=ufunc,
                    line_text=text,
                    frames=tuple(frames),
                    package=f"{dist}=={version}",
                    latent=base.latent,
                )
            )
    return out


def site_key(site: list[str]) -> str:
    """Changes when a package is installed or removed on the search path."""
    h = hashlib.blake2b(digest_size=8)
    for sp in site:
        h.update(f"{sp}\0{_stamp(sp)}\n".encode(errors="surrogateescape"))
    return h.hexdigest()
