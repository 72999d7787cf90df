"""The static engine: read, parse once, one batched walk per file (parallel, cached), then the
project-wide phase that decides what is traced and what is a tensor.

It never imports torch and never imports or executes the scanned code. Every problem with an
input is data (a CL000 finding or a :class:`FileError`), never an exception.
"""

from __future__ import annotations

import ast
import dataclasses
import errno
import hashlib
import marshal
import os
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from compilelint import __version__
from compilelint.catalog import Catalog, applies_to, load_catalog
from compilelint.config import Config, selected_codes
from compilelint.model import FileError, Finding, Rule, Severity
from compilelint.serialize import from_data, to_data
from compilelint.static.analysis.dispatch import add_object_calls
from compilelint.static.analysis.facts import (
    Candidate,
    FileFacts,
)
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.resolve import ResolveError, Resolver, search_path
from compilelint.static.analysis.walker import analyze_module
from compilelint.static.checks.base import Check, all_checks, build_hooks
from compilelint.static.discovery import discover
from compilelint.static.follow import (
    FollowProject,
    FollowStats,
    LibraryCache,
    follow,
    library_findings,
    library_mode_calls,
    site_key,
)
from compilelint.suppress import is_suppressed, parse_suppressions

PARSE_ERROR = "CL000"
UNUSED_SUPPRESSION = "CL001"
CACHE_FORMAT = 4


@dataclass
class FileInput:
    path: str  # display path (relative to cwd when under it, POSIX)
    real: str
    module: str
    is_package: bool


@dataclass
class ScanResult:
    findings: list[Finding]
    errors: list[FileError]
    files: int
    lines: int
    seconds: float
    cached: int
    project: Project | None = None
    follow: dict[str, object] | None = None  # what following into installed packages did


# ---------------------------------------------------------------------------- paths & modules
def display_path(p: Path, cwd: Path) -> str:
    try:
        ap = Path(os.path.abspath(p))
        out = ap.relative_to(cwd).as_posix()
    except ValueError:
        out = Path(os.path.abspath(p)).as_posix()
    return printable_path(out)


def printable_path(path: str) -> str:
    """A file name that is not valid UTF-8 (``bad\xff.py``) keeps its bytes as ``\xff`` escapes,
    so every report format can encode it; the real name is kept for reading."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", errors="backslashreplace")
    return path


_PKG_CACHE: dict[str, bool] = {}


def _is_pkg_dir(d: str) -> bool:
    got = _PKG_CACHE.get(d)
    if got is None:
        got = os.path.isfile(os.path.join(d, "__init__.py"))
        _PKG_CACHE[d] = got
    return got


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted module name from the package folders above ``path``; is it a package."""
    ap = os.path.abspath(path)
    d, fname = os.path.split(ap)
    stem = fname.rsplit(".", 1)[0]
    is_pkg = stem == "__init__"
    parts = [] if is_pkg else [stem]
    while _is_pkg_dir(d):
        d, name = os.path.split(d)
        parts.append(name)
        if not name:
            break
    return ".".join(reversed(parts)), is_pkg


# ---------------------------------------------------------------------------- reading
def read_source(path: str) -> bytes:
    """The bytes of a regular file. Never blocks: a fifo, a socket or a device (a ``.py`` name
    pointing at ``/dev/zero``) is refused with an ``OSError`` instead of being read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = (
                "a fifo"
                if stat.S_ISFIFO(st.st_mode)
                else "a socket"
                if stat.S_ISSOCK(st.st_mode)
                else "a device"
                if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a directory"
                if stat.S_ISDIR(st.st_mode)
                else "not a regular file"
            )
            raise OSError(errno.EINVAL, f"not a regular file ({kind})")
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            return fh.read()
    finally:
        if fd >= 0:
            os.close(fd)


# ---------------------------------------------------------------------------- phase 1
def _checks_for(codes: Iterable[str]) -> list[type[Check]]:
    registry = all_checks()
    return [registry[c] for c in sorted(codes) if c in registry]


_WORKER_CHECKS: list[type[Check]] = []


# libcst's native parser recurses on the C stack and can overflow it (a segfault, not an
# exception) on deeply nested code. Parsing and analysis therefore run on a thread with a large
# stack, after CPython's own parser (about 10x faster) has accepted the file: CPython bounds the
# nesting it accepts, and its messages and positions are the ones users know. Chains CPython keeps
# flat (``a and b and ...``) but libcst nests are bounded by a token count per logical line.
DEEP_STACK = 1 << 30  # virtual; only the pages used are committed
DEEP_RECURSION = 20_000
MAX_LOGICAL_TOKENS = 20_000
_TOO_DEEP = "cannot parse: nesting too deep"
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def finding_from_data(d: Mapping[str, Any]) -> Finding:
    """A finding stored by ``put_results`` (``dataclasses.asdict``), frames and edits rebuilt."""
    return from_data(Finding, dict(d))


def _call_with_deep_stack(fn: Callable[[], FileFacts]) -> FileFacts:
    """``fn()`` on a thread with a large C stack and a raised recursion limit."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised on the calling thread
            box["error"] = exc

    old_limit = sys.getrecursionlimit()
    try:
        old_size = threading.stack_size(DEEP_STACK)
    except (ValueError, RuntimeError):
        return fn()
    try:
        thread = threading.Thread(target=target, name="compilelint-parse", daemon=True)
        thread.start()
    except RuntimeError:  # no room for the stack (a tight RLIMIT_AS): parse on this thread
        threading.stack_size(old_size)
        return fn()
    threading.stack_size(old_size)
    sys.setrecursionlimit(max(old_limit, DEEP_RECURSION))
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _longest_logical_line(data: bytes) -> int | None:
    """Tokens in the longest logical line, or None when the tokenizer gives up."""
    import io
    import tokenize

    longest = current = 0
    try:
        for tok in tokenize.tokenize(io.BytesIO(data).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                longest = max(longest, current)
                current = 0
            elif tok.type not in (tokenize.NL, tokenize.COMMENT):
                current += 1
    except (tokenize.TokenError, SyntaxError, ValueError, LookupError, RecursionError):
        return None
    return max(longest, current)


def _flat_chain_risk(data: bytes) -> bool:
    """Cheap test for files that may hold a chain CPython keeps flat but libcst nests."""
    return data.count(b" and ") + data.count(b" or ") + data.count(b'" "') > MAX_LOGICAL_TOKENS // 4


Parser = Callable[[bytes, FileInput], cst.Module]


def analyze_source(
    data: bytes,
    inp: FileInput,
    checks: list[type[Check]],
    *,
    force: bool = False,
    parse: Parser | None = None,
) -> FileFacts:
    """Phase 1 for one file. Never raises, never crashes the interpreter. ``parse`` replaces
    ``libcst.parse_module`` (the editor server reuses the unchanged statements of the previous
    version of a file: ``static/incremental.py``); it must return what a full parse returns."""
    try:
        return _call_with_deep_stack(lambda: _analyze_source(data, inp, checks, force, parse))
    except RecursionError:
        return _empty_facts(data, inp, _TOO_DEEP)
    except MemoryError:
        return _empty_facts(data, inp, "cannot parse: out of memory")
    except Exception as exc:
        return _empty_facts(
            data, inp, f"internal error while analysing this file ({type(exc).__name__}: {exc})"
        )


def count_lines(data: bytes) -> int:
    nl = b"\n" if b"\n" in data or b"\r" not in data else b"\r"  # old-Mac files end lines in \r
    return data.count(nl) + (1 if data and not data.endswith(nl) else 0)


def _empty_facts(data: bytes, inp: FileInput, error: str | None = None) -> FileFacts:
    lines = count_lines(data)
    return FileFacts(
        path=inp.path,
        module=inp.module,
        is_package=inp.is_package,
        lines=lines,
        imports={},
        functions={},
        classes={},
        compiled_refs=[],
        candidates=[],
        error=error,
    )


def _python_error(data: bytes, empty: FileFacts) -> bool:
    """Parse with CPython; on failure fill ``empty.error`` and say whether libcst may still try
    (a plain syntax error: the file may use syntax newer than this Python)."""
    bom = next((name for b, name in _WIDE_BOMS if data.startswith(b)), None)
    if bom:
        empty.error = (
            f"cannot decode: the file is {bom} (it starts with a {bom} byte-order mark); "
            "Python source must be UTF-8 or use an encoding declared in a coding comment"
        )
        return False
    if b"\0" in data:
        before = data[: data.index(b"\0")]
        empty.error = "cannot parse: source code cannot contain null bytes"
        empty.error_line = count_lines(before + b"x")
        empty.error_col = len(before) - max(before.rfind(b"\n"), before.rfind(b"\r"))
        return False
    try:
        ast.parse(data)
    except SyntaxError as exc:
        msg = exc.msg or "invalid syntax"
        if msg.startswith("(unicode error)") or "encoding" in msg or "decode" in msg:
            empty.error = f"cannot decode: {msg.removeprefix('(unicode error) ')}"
        else:
            empty.error = f"cannot parse: {msg}"
        empty.error_line, empty.error_col = max(exc.lineno or 1, 1), max(exc.offset or 1, 1)
        return "too many nested" not in msg and "too complex" not in msg
    except (RecursionError, MemoryError):
        empty.error = _TOO_DEEP
        return False
    except UnicodeDecodeError as exc:
        empty.error = f"cannot decode: {exc}"
        return False
    except ValueError as exc:
        empty.error = f"cannot parse: {exc}"
        return False
    return True


def _analyze_source(
    data: bytes, inp: FileInput, checks: list[type[Check]], force: bool, parse: Parser | None
) -> FileFacts:
    empty = _empty_facts(data, inp)
    lines = empty.lines
    may_try = _python_error(data, empty)
    if not force and b"torch" not in data and b"forward" not in data:
        # Not analysed unless traced code turns out to call into it; the syntax check above
        # keeps unparsable files visible (CL000).
        empty.torch_free = True
        return empty
    if empty.error is not None:
        longest = _longest_logical_line(data) if may_try else None
        if longest is None or longest > MAX_LOGICAL_TOKENS:
            return empty
    elif _flat_chain_risk(data):
        longest = _longest_logical_line(data)
        if longest is None or longest > MAX_LOGICAL_TOKENS:
            empty.error = _TOO_DEEP
            return empty
    python_error = empty.error
    try:
        module = parse(data, inp) if parse is not None else cst.parse_module(data)
    except cst.ParserSyntaxError as exc:
        if python_error is None:  # CPython accepted it; libcst did not
            msg = " ".join(exc.message.split())
            empty.error = f"cannot parse with libcst (Python accepts this file): {msg}"
            empty.error_line, empty.error_col = exc.raw_line or 1, (exc.raw_column or 0) + 1
        return empty
    except (UnicodeDecodeError, LookupError, SyntaxError, ValueError) as exc:
        empty.error = python_error or f"cannot decode: {exc}"
        return empty
    except RecursionError:
        empty.error = python_error or _TOO_DEEP
        return empty
    # libcst accepted what CPython did not: syntax newer than this Python. Analyse it.
    empty.error = None
    empty.error_line = empty.error_col = 1
    try:
        facts = analyze_module(
            module,
            path=inp.path,
            module_name=inp.module,
            is_package=inp.is_package,
            lines=lines,
            make_checks=lambda w: build_hooks(w, checks),
        )
    except RecursionError:
        empty.error = "cannot analyse: nesting too deep"
        return empty
    except Exception as exc:
        empty.error = f"internal error while analysing this file ({type(exc).__name__}: {exc})"
        return empty
    try:
        text = data.decode(module.encoding, errors="replace")
    except LookupError:
        text = data.decode("utf-8", errors="replace")
    facts.noqa = parse_suppressions(text)
    if facts.candidates:
        src_lines = text.splitlines()
        for c in facts.candidates:
            c.line_text = src_lines[c.line - 1].rstrip() if 0 < c.line <= len(src_lines) else ""
    return facts


def _worker(item: tuple[bytes, FileInput, bool]) -> FileFacts:
    data, inp, force = item
    return analyze_source(data, inp, _WORKER_CHECKS, force=force)


def _init_worker(codes: list[str]) -> None:
    global _WORKER_CHECKS
    _WORKER_CHECKS = _checks_for(codes)


# ---------------------------------------------------------------------------- cache
def _facts_to_data(f: FileFacts) -> dict[str, object]:
    return to_data(f)


def _facts_from_data(d: dict) -> FileFacts:  # type: ignore[type-arg]
    return from_data(FileFacts, d)


class Cache:
    def __init__(self, directory: Path | None, key: str) -> None:
        self.directory = directory
        self.file = directory / f"facts-{key}.marshal" if directory else None
        self._entries: dict[str, tuple[str, dict]] | None = None  # type: ignore[type-arg]
        self.dirty = False
        self.key = key

    @property
    def entries(self) -> dict[str, tuple[str, dict]]:  # type: ignore[type-arg]
        if self._entries is None:
            self._entries = {}
            if self.file and self.file.is_file():
                try:
                    loaded = marshal.loads(self.file.read_bytes())
                    if isinstance(loaded, dict):
                        self._entries = loaded
                except (OSError, ValueError, EOFError, TypeError):
                    self._entries = {}
        return self._entries

    def get_results(self, tree_key: str) -> dict | None:  # type: ignore[type-arg]
        """Final results of a previous identical run (same files, config and rules)."""
        f = self._results_file()
        if f is None or not f.is_file():
            return None
        try:
            got = marshal.loads(f.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return got if isinstance(got, dict) and got.get("key") == tree_key else None

    def put_results(self, tree_key: str, data: dict) -> None:  # type: ignore[type-arg]
        f = self._results_file()
        if f is None or self.directory is None:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp = f.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(marshal.dumps({**data, "key": tree_key}))
            os.replace(tmp, f)
        except (OSError, ValueError):
            pass

    def _results_file(self) -> Path | None:
        return self.directory / f"results-{self.key}.marshal" if self.directory else None

    def get(self, real: str, digest: str) -> FileFacts | None:
        got = self.entries.get(real)
        if got is None or got[0] != digest:
            return None
        try:
            return _facts_from_data(got[1])
        except (TypeError, KeyError):
            return None

    def put(self, real: str, digest: str, facts: FileFacts) -> None:
        self.entries[real] = (digest, _facts_to_data(facts))
        self.dirty = True

    def save(self) -> None:
        if not (self.dirty and self.file and self.directory):
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gi = self.directory / ".gitignore"
            if not gi.exists():
                gi.write_text("# created by compilelint\n*\n", encoding="utf-8")
            tmp = self.file.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(marshal.dumps(self.entries))
            os.replace(tmp, self.file)
        except (OSError, ValueError):
            pass  # a cache that cannot be written is not an error


def _cache_key(catalog: Catalog) -> str:
    h = hashlib.sha256(f"{__version__}|{CACHE_FORMAT}|{sys.version_info[:2]}".encode())
    for code in catalog.codes():
        h.update(Path(catalog.rules[code].path).read_bytes())
    for name in sorted(all_checks()):
        h.update(name.encode())
    # The engine's own sources are part of the key, so a development change invalidates it.
    here = Path(__file__).resolve().parent
    for p in sorted(here.rglob("*.py")):
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:20]


# ---------------------------------------------------------------------------- scan
def _fmt(template: str, args: dict[str, str]) -> str:
    class _D(dict):  # type: ignore[type-arg]
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    try:
        return template.format_map(_D(args))
    except (ValueError, IndexError):
        return template


def _message(rule: Rule, args: dict[str, str]) -> str:
    """The rule's message; a check's ``latent`` note (a break that only some inputs reach, e.g.
    behind a dtype guard) is appended, so a user whose run refuted it sees why."""
    msg = _fmt(rule.message, args)
    note = args.get("latent")
    return f"{msg} ({note})" if note else msg


LATENT_ENTRY = (
    "latent: no public entry point of the package reaches it under default arguments "
    "(shown by --report-untraced)"
)


def _untraced(
    project: Project, f: FileFacts, kept: list[Candidate], latent: Project | None
) -> list[Candidate]:
    """``--report-untraced``: the candidates of code torch.compile does not trace; in library
    mode those the package's public functions and methods reach under any arguments, marked
    latent."""
    have = {id(c) for c in kept}
    if latent is None:
        return [
            c
            for c in f.candidates
            if id(c) not in have and (not c.requires or project.resolves(f.path, c.requires))
        ]
    return [
        dataclasses.replace(c, args={**c.args, "latent": c.args.get("latent") or LATENT_ENTRY})
        for c in latent.kept(f)
        if id(c) not in have
    ]


def _make_finding(rule: Rule, path: str, c: Candidate, severity: Severity) -> Finding:
    return Finding(
        rule=rule.code,
        name=rule.name,
        path=path,
        line=c.line,
        col=c.col,
        end_line=c.end_line,
        end_col=c.end_col,
        severity=severity,
        message=_message(rule, c.args),
        fix=_fmt(rule.fix_title, c.args),
        stage="static",
        function=c.func,
        line_text=c.line_text,
    )


def _per_file_ignored(cfg: Config, path: str) -> set[str]:
    import fnmatch

    out: set[str] = set()
    for glob, codes in cfg.per_file_ignores:
        if fnmatch.fnmatch(path, glob) or fnmatch.fnmatch(Path(path).name, glob):
            out.update(codes)
    return out


def scan(
    paths: list[str],
    cfg: Config,
    *,
    catalog: Catalog | None = None,
    progress: Callable[[int, int], None] | None = None,
    no_cache: bool = False,
    sources: Mapping[str, bytes] | None = None,
    want_project: bool = False,
    cache: Cache | None = None,
    parse: Parser | None = None,
) -> ScanResult:
    """Scan ``paths``. ``sources`` maps real paths to contents used instead of the files on
    disk (the fix stage checks its edits before writing them); ``want_project`` skips the
    stored-results shortcut so that the result carries the project view. ``cache`` is the facts
    cache to use instead of the configured one (the editor server keeps one in memory across
    edits), ``parse`` replaces libcst's parse in the files analysed in this process."""
    t0 = time.perf_counter()
    catalog = catalog or load_catalog()
    cwd = Path(os.getcwd())
    disc = discover(
        paths,
        exclude=cfg.exclude + cfg.extend_exclude,
        respect_gitignore=cfg.respect_gitignore,
    )
    errors = [FileError(path=m, message=f"path not found: {m}", kind="usage") for m in disc.missing]
    enabled = selected_codes(cfg, {c: r.default for c, r in catalog.rules.items()})
    enabled = {c for c in enabled if applies_to(catalog.rules[c], cfg.target_torch)}
    static_codes = sorted(c for c in catalog.rules if catalog.rules[c].detector == "static")
    checks = _checks_for(static_codes)

    inputs: list[FileInput] = []
    for p in disc.files:
        mod, is_pkg = module_name(p)
        inputs.append(FileInput(display_path(p, cwd), os.path.realpath(p), mod, is_pkg))
    inputs.sort(key=lambda i: i.path)

    if cache is None and cfg.cache and not no_cache:
        cdir = Path(cfg.cache_dir) if cfg.cache_dir else Path(cfg.root) / ".compilelint_cache"
        cache = Cache(cdir, _cache_key(catalog))

    facts: dict[str, FileFacts] = {}
    datas: dict[str, bytes] = {}
    todo: list[tuple[bytes, FileInput, bool]] = []
    cached = 0
    digests: dict[str, str] = {}
    for inp in inputs:
        try:
            data = sources[inp.real] if sources and inp.real in sources else None
            if data is None:
                data = read_source(inp.real)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            f = FileFacts(
                inp.path,
                inp.module,
                inp.is_package,
                0,
                {},
                {},
                {},
                [],
                [],
                error=f"cannot read: {reason}",
            )
            facts[inp.path] = f
            continue
        datas[inp.path] = data
        digests[inp.path] = hashlib.blake2b(data, digest_size=16).hexdigest()
    by_path = {i.path: i for i in inputs}

    # An unchanged tree under the same config and rules: the previous results, as they were.
    resolver: Resolver | None = None
    stats = FollowStats()
    if cfg.follow:
        try:
            site, stats.source = search_path(cfg.python, cfg.root)
        except ResolveError as exc:
            errors.append(FileError(path=cfg.python or "", message=str(exc), kind="usage"))
            site = []
        stats.site = site
        resolver = Resolver(site)
    tree = hashlib.blake2b(digest_size=16)
    tree.update(repr((cfg, sorted(enabled), os.getcwd())).encode())
    if resolver is not None:
        tree.update(site_key(resolver.site).encode())
    for p in sorted(digests):
        tree.update(f"{p}\0{by_path[p].real}\0{digests[p]}\n".encode(errors="surrogateescape"))
    for p in sorted(facts):
        tree.update(f"{p}\0unreadable\n".encode())
    tree_key = tree.hexdigest()
    if cache is not None and not want_project:
        prev = cache.get_results(tree_key)
        if prev is not None:
            try:
                return ScanResult(
                    findings=[finding_from_data(d) for d in prev["findings"]],
                    errors=errors,
                    files=prev["files"],
                    lines=prev["lines"],
                    seconds=time.perf_counter() - t0,
                    cached=prev["files"],
                    follow=prev.get("follow"),
                )
            except (TypeError, KeyError):
                pass

    for inp in inputs:
        if inp.path not in digests:
            continue
        got = cache.get(inp.real, digests[inp.path]) if cache else None
        if got is not None:
            got.path = inp.path
            facts[inp.path] = got
            cached += 1
        else:
            todo.append((datas[inp.path], inp, False))

    def run(items: list[tuple[bytes, FileInput, bool]]) -> None:
        if not items:
            return
        jobs = cfg.jobs or os.cpu_count() or 1
        results: Iterable[FileFacts]
        heavy = sum(1 for d, _, force in items if force or b"torch" in d or b"forward" in d)
        if jobs > 1 and heavy >= 24:
            import multiprocessing as mp

            ctx = mp.get_context("fork") if sys.platform.startswith("linux") else mp.get_context()
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(static_codes,)) as pool:
                results = []
                for i, got in enumerate(pool.imap(_worker, items, chunksize=4)):
                    results.append(got)
                    if progress:
                        progress(i + 1, len(items))
        else:
            results = []
            for i, (d, inp, force) in enumerate(items):
                results.append(analyze_source(d, inp, checks, force=force, parse=parse))
                if progress:
                    progress(i + 1, len(items))
        for i, f in enumerate(results):
            facts[f.path] = f
            if cache:
                d = items[i][0]
                cache.put(by_path[f.path].real, hashlib.blake2b(d, digest_size=16).hexdigest(), f)

    run(todo)

    # Phase 2, with torch-free helper files parsed on demand when traced code reaches them.
    # Library mode: a package with nothing compiled in reach is judged from its public
    # functions, methods and forwards (narrowed by ``entries``).
    entries: tuple[str, ...] | None = cfg.entries or None

    def installed(m: str) -> bool:
        return resolver is not None and resolver.find(m) is not None

    def new_project() -> FollowProject:
        return FollowProject(facts.values(), {}, installed, entries)

    if resolver is not None and resolver.site:
        for path, f in facts.items():  # self.helper.method(...) on library objects
            if path in datas and f.error is None and not f.torch_free:
                add_object_calls(datas[path], f, imported_only=True)
    project = new_project()
    for _ in range(4):
        project.compute()
        if (
            entries is None
            and not project.roots
            and any(f.is_package and not f.error for f in facts.values())
        ):
            entries = ("*",)
            project = new_project()
            project.compute()
        need = _needed_torch_free(project)
        if not need:
            break
        run([(datas[p], by_path[p], True) for p in need if p in datas])
        project = new_project()
    if cache:
        cache.save()
    if entries is not None:
        project = library_mode_calls(project, datas, new_project)
        stats.entries = len(project.entry_points(entries))
    user_paths = set(facts)
    if resolver is not None and resolver.site and project.unresolved_modules:
        cdir = None
        if cfg.cache and not no_cache:
            cdir = Path(cfg.cache_dir) if cfg.cache_dir else Path(cfg.root) / ".compilelint_cache"

        def analyse_lib(data: bytes, real: str, module: str, is_pkg: bool) -> FileFacts:
            return analyze_source(data, FileInput(real, real, module, is_pkg), checks, force=True)

        project = follow(
            project,
            facts,
            resolver,
            analyse_lib,
            cache=LibraryCache(cdir, cache.key if cache else ""),
            to_data=_facts_to_data,
            from_data=_facts_from_data,
            stats=stats,
            entries=entries,
        )

    latent_project = None
    if cfg.report_untraced and entries is not None and isinstance(project, FollowProject):
        # library mode: what the package's public functions and methods reach under any
        # arguments, beyond its entry points under their defaults (reported as latent)
        latent_project = FollowProject(
            facts.values(), project.library, installed, entries, broad=True
        )
        latent_project.compute()
    findings: list[Finding] = []
    lib_used: set[tuple[str, int, str]] = set()
    if isinstance(project, FollowProject) and project.library:
        findings.extend(_followed_findings(project, cfg, catalog, enabled, facts, datas, lib_used))
    for path in sorted(user_paths):
        f = facts[path]
        if f.error is not None:
            rule = catalog.rules.get(PARSE_ERROR)
            if rule and PARSE_ERROR in enabled:
                findings.append(
                    Finding(
                        rule=PARSE_ERROR,
                        name=rule.name,
                        path=path,
                        line=f.error_line,
                        col=f.error_col,
                        end_line=f.error_line,
                        end_col=f.error_col,
                        severity=rule.severity,
                        message=f.error,
                        fix=rule.fix_title,
                    )
                )
            continue
        ignored_here = _per_file_ignored(cfg, path)
        sup = f.noqa
        used: set[tuple[int, str]] = {(ln, code) for p, ln, code in lib_used if p == path}
        kept = project.kept(f)
        if cfg.report_untraced:
            kept += _untraced(project, f, kept, latent_project)
        seen: set[tuple[str, int, int]] = set()
        for c in kept:
            if c.code not in enabled or c.code in ignored_here:
                continue
            if any(c.code.startswith(x) for x in ignored_here):
                continue
            key = (c.code, c.line, c.col)
            if key in seen:
                continue
            seen.add(key)
            ln = is_suppressed(sup, c.code, c.line, c.end_line)
            if ln is not None:
                used.add((ln, c.code))
                continue
            rule = catalog.rules[c.code]
            findings.append(_make_finding(rule, path, c, rule.severity))
        if UNUSED_SUPPRESSION in enabled and sup:
            findings.extend(
                _unused_suppressions(catalog, path, sup, used, enabled, datas.get(path))
            )

    findings.sort(key=lambda x: (x.path, x.line, x.col, x.rule))
    total_lines = sum(facts[p].lines for p in user_paths)
    follow_data = stats.as_dict() if resolver is not None else None
    if cache is not None:
        cache.put_results(
            tree_key,
            {
                "findings": [to_data(f) for f in findings],
                "files": len(user_paths),
                "lines": total_lines,
                "follow": follow_data,
            },
        )
    return ScanResult(
        findings=findings,
        errors=errors,
        files=len(user_paths),
        lines=total_lines,
        seconds=time.perf_counter() - t0,
        cached=cached,
        project=project,
        follow=follow_data,
    )


def _followed_findings(
    project: FollowProject,
    cfg: Config,
    catalog: Catalog,
    enabled: set[str],
    facts: dict[str, FileFacts],
    datas: dict[str, bytes],
    used: set[tuple[str, int, str]],
) -> list[Finding]:
    """Findings in followed library code, anchored at the user's calls, suppressible there."""
    texts: dict[str, list[str]] = {}

    def line_text(path: str, line: int) -> str:
        if path not in texts:
            texts[path] = datas.get(path, b"").decode("utf-8", errors="replace").splitlines()
        lines = texts[path]
        return lines[line - 1].rstrip() if 0 < line <= len(lines) else ""

    def make(c: Candidate, path: str) -> Finding | None:
        if c.code not in enabled or c.code == PARSE_ERROR:
            return None
        if is_suppressed(facts[path].noqa, c.code, c.line, c.end_line) is not None:
            return None  # the library's own noqa
        rule = catalog.rules[c.code]
        return _make_finding(rule, path, c, rule.severity)

    out: list[Finding] = []
    for fd in library_findings(project, make, line_text, catalog.rules):
        ignored = _per_file_ignored(cfg, fd.path)
        if fd.rule in ignored or any(fd.rule.startswith(x) for x in ignored):
            continue
        ln = is_suppressed(facts[fd.path].noqa, fd.rule, fd.line, fd.end_line)
        if ln is not None:
            used.add((fd.path, ln, fd.rule))
            continue
        out.append(fd)
    return out


def _needed_torch_free(project: Project) -> list[str]:
    """Torch-free files whose functions traced code calls: analyse them after all."""
    need: set[str] = set()
    for path, f in project.files.items():
        if not f.torch_free:
            continue
        if f.module and any(
            m == f.module or m.startswith(f.module + ".") or f.module.endswith("." + m)
            for m in project.unresolved_modules
        ):
            need.add(path)
    return sorted(need)


def _unused_suppressions(
    catalog: Catalog,
    path: str,
    sup: dict[int, list[str]],
    used: set[tuple[int, str]],
    enabled: set[str],
    data: bytes | None,
) -> list[Finding]:
    rule = catalog.rules[UNUSED_SUPPRESSION]
    out: list[Finding] = []
    text_lines = data.decode("utf-8", errors="replace").splitlines() if data else []
    for ln in sorted(sup):
        codes = sup[ln]
        if codes == ["*"]:
            continue  # a blanket noqa may serve other linters
        unused = [
            c
            for c in codes
            if c.startswith("CL")
            and c in enabled
            and (ln, c) not in used
            and c != UNUSED_SUPPRESSION
        ]
        if not unused:
            continue
        line_text = text_lines[ln - 1] if 0 < ln <= len(text_lines) else ""
        col = line_text.find("#") + 1 if "#" in line_text else 1
        args = {"codes": ", ".join(unused)}
        out.append(
            Finding(
                rule=UNUSED_SUPPRESSION,
                name=rule.name,
                path=path,
                line=ln,
                col=col,
                end_line=ln,
                end_col=len(line_text) + 1,
                severity=rule.severity,
                message=_fmt(rule.message, args),
                fix=_fmt(rule.fix_title, args),
                line_text=line_text.rstrip(),
            )
        )
    return out
