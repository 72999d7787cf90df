"""The static engine: read, parse once, one batched walk per file (parallel, cached), then the
project-wide phase that decides what is traced and what is a tensor.

It never imports torch and never imports or executes the scanned code. Every problem with an
input is data (a CL000 finding or a :class:`FileError`), never an exception.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import errno
import functools
import gc
import hashlib
import marshal
import os
import queue
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from compilelint import __version__
from compilelint.catalog import Catalog, applies_to, load_catalog
from compilelint.config import Config, selected_codes
from compilelint.cpus import usable_cpus
from compilelint.model import FileError, Finding, Frame, Rule, Severity
from compilelint.serialize import from_data, to_data
from compilelint.static.analysis.breakpoints import (
    CONTEXT,
    FRAME_INPUT,
    FrameInput,
    frame_input_candidate,
    frame_inputs,
    is_break_rule,
    returned_inputs,
    site_inputs,
    wrapper_inputs,
)
from compilelint.static.analysis.dispatch import add_object_calls
from compilelint.static.analysis.facts import (
    BRANCH,
    IN_TRY,
    Candidate,
    FileFacts,
)
from compilelint.static.analysis.loops import LoopMemo, reported_at_with, shadowed_breaks
from compilelint.static.analysis.project import Project
from compilelint.static.analysis.resolve import ResolveError, Resolver, search_path
from compilelint.static.analysis.state import cached_tree, first_read_line, parse_source
from compilelint.static.discovery import discover
from compilelint.static.follow import (
    FollowProject,
    FollowStats,
    LibraryCache,
    SharedResolutions,
    _Early,
    follow,
    library_findings,
    library_mode_calls,
    prefetch,
    site_key,
)
from compilelint.suppress import is_suppressed, parse_suppressions

if TYPE_CHECKING:  # libcst, the walker and the checks load when a file is analysed, not before:
    import libcst as cst  # a warm run (stored results) never imports them

    from compilelint.static.analysis.resume import WalkMemo
    from compilelint.static.checks.base import Check
    from compilelint.static.positions import SpanMemo

PARSE_ERROR = "CL000"
UNUSED_SUPPRESSION = "CL001"
CACHE_FORMAT = 6  # 5: facts as marshal bytes of their plain data; 6: annotation kind "object", in_try (round 13)
POOL_BYTES = 200_000  # analysed source that is worth a pool of workers even in a few files


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
    phases: dict[str, float] = field(default_factory=dict)  # seconds per phase of the scan


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
def _plain_utf8(data: bytes) -> bool:
    """Whether CPython parses ``data`` as it parses its UTF-8 decoding: no byte-order mark,
    no coding declaration in its first two lines, valid UTF-8."""
    if data.startswith(b"\xef\xbb\xbf") or b"coding" in b"\n".join(data.split(b"\n", 2)[:2]):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _scan_source(datas: Mapping[str, bytes], path: str) -> bytes | None:
    """The text of ``path`` as the scan read it (``_Scan.datas``: an unsaved buffer's where
    the editor server gave one); a file the scan did not read (a library's, followed), from
    disk: ``Project.source``."""
    data = datas.get(path)
    if data is not None:
        return data
    try:
        return read_source(path)
    except (OSError, ValueError):
        return None


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
def all_checks() -> dict[str, type[Check]]:
    """Every check class by code (imports libcst and the checks on first use)."""
    from compilelint.static.checks.base import all_checks as registry

    return registry()


def _checks_for(codes: Iterable[str]) -> list[type[Check]]:
    from compilelint.static.checks.base import all_checks

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
CPYTHON_RECURSION = 1000  # CPython's default recursion limit: the nesting its parse check accepts


@contextlib.contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


MAX_LOGICAL_TOKENS = 20_000
_TOO_DEEP = "cannot parse: nesting too deep"
STATE_CHANGE = "CL501"  # module state changed in traced code: guarded where first read
PREDICTED_RECOMPILE = "CL303"  # a recompile the source alone shows (no spec needed)
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def finding_from_data(d: Mapping[str, Any]) -> Finding:
    """A finding stored by ``put_results`` (``dataclasses.asdict``), frames and edits rebuilt."""
    return from_data(Finding, dict(d))


class _DeepThread:
    """A thread with a large C stack that runs one call at a time for this process: a new
    thread per file (an editor server's edit, each file of a worker) paid for its creation and
    for the first touches of its stack's pages every time (about 0.3 ms of CPU per call)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.busy = threading.Lock()
        self.jobs: queue.SimpleQueue[
            tuple[Callable[[], Any], dict[str, object], threading.Event] | None
        ] = queue.SimpleQueue()
        old_size = threading.stack_size(DEEP_STACK)  # raises ValueError/RuntimeError as before
        try:
            self.thread = threading.Thread(
                target=self._serve, name="compilelint-parse", daemon=True
            )
            self.thread.start()  # RuntimeError: no room for the stack
        finally:
            threading.stack_size(old_size)

    def _serve(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:
                return
            fn, box, done = job
            try:
                box["value"] = fn()
            except BaseException as exc:  # re-raised on the calling thread
                box["error"] = exc
            del fn
            done.set()

    def run(self, fn: Callable[[], Any]) -> dict[str, object]:
        box: dict[str, object] = {}
        done = threading.Event()
        self.jobs.put((fn, box, done))
        done.wait()
        return box


_DEEP: list[_DeepThread] = []  # the process's deep-stack thread, once started
_DEEP_START = threading.Lock()


def _deep_thread() -> _DeepThread | None:
    """This process's deep-stack thread (a forked worker starts its own), or None when no
    thread with that stack can be started."""
    with _DEEP_START:
        if _DEEP and _DEEP[0].pid == os.getpid():
            return _DEEP[0]
        try:
            got = _DeepThread()
        except (ValueError, RuntimeError):
            return None
        _DEEP[:] = [got]
        return got


def _stop_deep_thread() -> None:
    """End this process's deep-stack thread (before forking workers: a fork copies only the
    forking thread, and Python 3.12 warns about forking a process that runs others); the next
    call starts it again."""
    with _DEEP_START:
        deep = _DEEP.pop() if _DEEP else None
    if deep is not None and deep.pid == os.getpid() and deep.busy.acquire(blocking=False):
        deep.jobs.put(None)
        deep.thread.join()


def _call_with_deep_stack(fn: Callable[[], FileFacts]) -> FileFacts:
    """``fn()`` on a thread with a large C stack and a raised recursion limit: the process's
    deep-stack thread, or a new one while that is busy (another thread's call)."""
    deep = _deep_thread()
    if deep is None:
        return fn()  # no room for the stack (a tight RLIMIT_AS): parse on this thread
    if not deep.busy.acquire(blocking=False):
        return _call_on_new_thread(fn)
    with _recursion_limit(max(sys.getrecursionlimit(), DEEP_RECURSION)):
        try:
            box = deep.run(fn)
        except BaseException:
            # interrupted while the thread still runs ``fn``: leave that thread to it
            with _DEEP_START:
                if _DEEP and _DEEP[0] is deep:
                    _DEEP.clear()
            raise
        deep.busy.release()
    return _unboxed(box)


def _unboxed(box: dict[str, object]) -> FileFacts:
    """What a deep-stack call returned, or its exception raised again on this thread."""
    error = box.get("error")
    if isinstance(error, BaseException):
        raise error
    return cast(FileFacts, box["value"])


def _call_on_new_thread(fn: Callable[[], FileFacts]) -> FileFacts:
    """``fn()`` on a new thread with a large C stack and a raised recursion limit."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # re-raised on the calling thread
            box["error"] = exc

    try:
        old_size = threading.stack_size(DEEP_STACK)
    except (ValueError, RuntimeError):
        return fn()
    started = True
    # raised before the thread starts: its parse check restores the limit it found
    with _recursion_limit(max(sys.getrecursionlimit(), DEEP_RECURSION)):
        thread = threading.Thread(target=target, name="compilelint-parse", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # no room for the stack (a tight RLIMIT_AS)
            started = False
        finally:
            threading.stack_size(old_size)
        if started:
            thread.join()
    if not started:
        return fn()  # parse on this thread, under its own limit
    return _unboxed(box)


# libcst validates every node it builds (``CSTNode.__post_init__`` calls ``_validate``: about a
# tenth of a parse), including the nodes its own parser builds from text it has just accepted,
# whose checks cannot fail. libcst's own comment there says validation could move out of the
# parse. ``parse_unvalidated`` parses with those checks off on the calling thread only (nodes
# built anywhere else are validated as before); if libcst's hook is not the one expected, it
# parses as ``libcst.parse_module`` does.
_NO_VALIDATION = threading.local()
_VALIDATION_HOOK: list[bool] = []  # [installed?], decided once


def _validate_unless_parsing(self: Any) -> None:
    if not getattr(_NO_VALIDATION, "on", False):
        self._validate()


def _install_validation_hook() -> bool:
    if not _VALIDATION_HOOK:
        from libcst._nodes.base import CSTNode

        hook = CSTNode.__dict__.get("__post_init__")
        code = getattr(hook, "__code__", None)
        ok = code is not None and code.co_names == ("_validate",) and code.co_argcount == 1
        if ok:
            CSTNode.__post_init__ = _validate_unless_parsing  # type: ignore[method-assign]
        _VALIDATION_HOOK.append(ok or CSTNode.__post_init__ is _validate_unless_parsing)
    return _VALIDATION_HOOK[0]


def parse_unvalidated(data: bytes) -> cst.Module:
    """``libcst.parse_module(data)``, without re-validating the nodes its parser builds."""
    import libcst as cst

    if not _install_validation_hook():
        return cst.parse_module(data)
    _NO_VALIDATION.on = True
    try:
        return cst.parse_module(data)
    finally:
        _NO_VALIDATION.on = False


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


Parser = Callable[[bytes, FileInput], "cst.Module"]


def _span_memo(parse: Parser | None, inp: FileInput) -> SpanMemo | None:
    """A parser that keeps the unchanged statements of a file's previous version (the editor
    server's ``IncrementalParser``) also keeps their spans: ``parse.span_memo(inp)``."""
    memo = getattr(parse, "span_memo", None)
    return memo(inp) if memo is not None else None


def _walk_memo(parse: Parser | None, inp: FileInput) -> WalkMemo | None:
    """The state to resume the walk of ``inp`` from (``analysis.resume``), kept by a parser
    that keeps unchanged statements as the same nodes (the server's ``IncrementalParser``)."""
    memo = getattr(parse, "walk_memo", None)
    return memo(inp) if memo is not None else None


def analyze_source(
    data: bytes,
    inp: FileInput,
    checks: list[type[Check]],
    *,
    force: bool = False,
    parse: Parser | None = None,
    object_calls: bool | str = False,
) -> FileFacts:
    """Phase 1 for one file. Never raises, never crashes the interpreter. ``parse`` replaces
    ``libcst.parse_module`` (the editor server reuses the unchanged statements of the previous
    version of a file: ``static/incremental.py``); it must return what a full parse returns.
    ``object_calls``: also record calls through objects of imported classes (for following
    into installed packages), from the same CPython tree as the syntax check; ``"all"``: calls
    through objects of any class (a followed library file's own), only when the file has no
    error."""
    try:
        return _call_with_deep_stack(
            lambda: _analyze_source(data, inp, checks, force, parse, object_calls)
        )
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


def _python_error(
    data: bytes, empty: FileFacts, python_parse: Callable[[bytes], ast.Module] | None = None
) -> bool | ast.Module:
    """Parse with CPython; on failure fill ``empty.error`` and say whether libcst may still try
    (a plain syntax error: the file may use syntax newer than this Python). A file CPython
    accepts gives its tree, which places statements and finds calls through objects."""
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
        # CPython's own bound on nesting decides what is analysed (the deep-stack thread's
        # raised limit is for libcst and the walk): a file only a raised limit parses, such as
        # a 20,000-term ``+`` chain, is "nesting too deep", whatever thread checks it
        with _recursion_limit(min(sys.getrecursionlimit(), CPYTHON_RECURSION)):
            return python_parse(data) if python_parse is not None else ast.parse(data)
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


def _analyze_source(
    data: bytes,
    inp: FileInput,
    checks: list[type[Check]],
    force: bool,
    parse: Parser | None,
    object_calls: bool | str = False,
) -> FileFacts:
    import libcst as cst

    from compilelint.static.analysis.walker import analyze_module
    from compilelint.static.checks.base import build_hooks

    empty = _empty_facts(data, inp)
    lines = empty.lines
    # the editor server's parser re-parses only what an edit changed, CPython's tree too
    py_tree = getattr(parse, "python_tree", None)
    checked = _python_error(data, empty, (lambda d: py_tree(d, inp)) if py_tree else None)
    tree = checked if isinstance(checked, ast.Module) else None
    may_try = checked is not False
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
        module = parse(data, inp) if parse is not None else parse_unvalidated(data)
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
            tree=tree,
            source=data,
            span_memo=_span_memo(parse, inp),
            walk_memo=_walk_memo(parse, inp),
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
    if object_calls == "all":  # a followed library file: calls through any object
        add_object_calls(data, facts, tree=tree)
    elif object_calls and tree is not None:  # self.helper.method(...) on library objects
        add_object_calls(data, facts, imported_only=True, tree=tree)
    if facts.candidates:
        src_lines = text.splitlines()
        for c in facts.candidates:
            c.line_text = src_lines[c.line - 1].rstrip() if 0 < c.line <= len(src_lines) else ""
    return facts


def _weight(item: tuple[bytes, FileInput, bool, bool | str]) -> int:
    """About how much phase 1 of an item costs: its size when it is analysed, little when only
    syntax-checked (no ``torch``/``forward`` in it)."""
    data, _inp, force, _oc = item
    if force or b"torch" in data or b"forward" in data:
        return len(data)
    return len(data) // 10


def _worker(item: tuple[bytes, FileInput, bool, bool | str]) -> tuple[FileFacts, bytes | None]:
    """Phase 1 of one item in a worker, with the facts' cache form when the scan caches them:
    made here, on both cores, instead of one after the other in the parent when it saves."""
    data, inp, force, object_calls = item
    facts = analyze_source(data, inp, _WORKER_CHECKS, force=force, object_calls=object_calls)
    return facts, facts_blob(facts) if _WORKER_BLOBS else None


_WORKER_BLOBS = False


def _init_worker(codes: list[str], blobs: bool = False) -> None:
    global _WORKER_CHECKS, _WORKER_BLOBS
    _WORKER_CHECKS = _checks_for(codes)
    _WORKER_BLOBS = blobs


# ---------------------------------------------------------------------------- cache
def _facts_to_data(f: FileFacts) -> dict[str, object]:
    return to_data(f)


def _facts_from_data(d: dict) -> FileFacts:  # type: ignore[type-arg]
    return from_data(FileFacts, d)


def facts_blob(f: FileFacts) -> bytes:
    """How the caches store a file's facts: marshal bytes of their plain data, decoded only
    when they are used (a run reads the cache whole but needs a few of its files)."""
    return marshal.dumps(_facts_to_data(f))


def facts_from_blob(b: bytes) -> FileFacts:
    got = marshal.loads(b)
    if not isinstance(got, dict):
        raise TypeError("not a facts table")
    return _facts_from_data(got)


def fresh_facts(f: FileFacts) -> FileFacts:
    """A copy of ``f`` that a scan may change: following adds and drops call sites
    (``FunctionFacts.calls``) and the scan sets ``path``; everything else is read only."""
    out = copy.copy(f)
    fns = {}
    for q, fn in f.functions.items():
        c = copy.copy(fn)
        c.calls = list(fn.calls)
        fns[q] = c
    out.functions = fns
    return out


class Cache:
    """Phase-1 facts per file (real path, content digest), one marshal file per cache key,
    each file's facts in it as a blob (``facts_blob``) decoded only when that file is asked
    for. Facts put during a run are kept as objects (copies) and become blobs only when saved
    (or come with the blob a worker made), so a cache that lives across scans (the editor
    server, the fix rounds) never round-trips them."""

    def __init__(self, directory: Path | None, key: str) -> None:
        self.directory = directory
        self.file = directory / f"facts-{key}.marshal" if directory else None
        self._entries: dict[str, tuple[str, bytes]] | None = None
        self._objects: dict[str, tuple[str, FileFacts]] = {}
        self.dirty = False
        self.key = key

    @property
    def entries(self) -> dict[str, tuple[str, bytes]]:
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
        obj = self._objects.get(real)
        if obj is not None:
            return fresh_facts(obj[1]) if obj[0] == digest else None
        got = self.entries.get(real)
        if got is None or got[0] != digest:
            return None
        try:
            facts = facts_from_blob(got[1])
        except (TypeError, KeyError, ValueError, EOFError):
            return None
        self._objects[real] = (digest, facts)  # later gets copy the object
        return fresh_facts(facts)

    def put(self, real: str, digest: str, facts: FileFacts, blob: bytes | None = None) -> None:
        """``blob``: ``facts_blob(facts)`` when made already (by a worker)."""
        self._objects[real] = (digest, fresh_facts(facts))
        if blob is not None:
            self.entries[real] = (digest, blob)
        else:
            self.entries.pop(real, None)
        self.dirty = True

    def save(self) -> None:
        if not (self.dirty and self.file and self.directory):
            return
        entries = self.entries
        for real, (digest, facts) in self._objects.items():
            if real not in entries:
                entries[real] = (digest, facts_blob(facts))
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            gi = self.directory / ".gitignore"
            if not gi.exists():
                gi.write_text("# created by compilelint\n*\n", encoding="utf-8")
            tmp = self.file.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(marshal.dumps(entries))
            os.replace(tmp, self.file)
            self.dirty = False
        except (OSError, ValueError):
            pass  # a cache that cannot be written is not an error


def _cache_key(catalog: Catalog) -> str:
    h = hashlib.sha256(f"{__version__}|{CACHE_FORMAT}|{sys.version_info[:2]}".encode())
    for code in catalog.codes():
        h.update(Path(catalog.rules[code].path).read_bytes())
    # The engine's own sources (the checks' too) are part of the key, so a development change
    # invalidates it.
    here = Path(__file__).resolve().parent
    for p in sorted(here.rglob("*.py")):
        try:
            h.update(p.read_bytes())
        except OSError:
            pass
    return h.hexdigest()[:20]


# ---------------------------------------------------------------------------- scan
class _D(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fmt(template: str, args: dict[str, str]) -> str:
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


LATENT_BEHIND = (
    "latent: behind a loop break every call under the defaults reaches (shown by --report-untraced)"
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


def _outside_context(args: dict[str, str], cfg: Config) -> bool:
    """A candidate that only breaks in a compile context other than the configured one
    (``Config.mode``, ``Config.dtype``): code under ``if self.training:`` in eval mode and
    under ``if not self.training:`` in training (the walker's ``training``/``eval`` marks), or a check's ``when`` conditions (``mode==train``,
    ``dtype==float16``; CL101's guards) of which one is false in this context."""
    conds = [c for c in args.get("when", "").split(";") if c]
    if args.get("training"):
        conds.append("mode==train")
    if args.get("eval"):
        conds.append("mode==eval")
    for cond in conds:
        key, _, want = cond.partition("==")
        have = cfg.mode if key == "mode" else cfg.dtype if key == "dtype" else None
        if have and have != want:
            return True
    return False


def _make_finding(rule: Rule, path: str, c: Candidate, severity: Severity) -> Finding:
    return Finding(
        frames=_context_frames(path, c),
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
        latent=c.args.get("latent") or None,
    )


def _context_frames(path: str, c: Candidate) -> tuple[Frame, ...]:
    """A finding whose values come from a call in another file (``args[CONTEXT]``: a wrapper
    in a shared utility that recompiles for the models calling it in a certain way): that call,
    then the finding's own line."""
    ctx = c.args.get(CONTEXT)
    if not ctx:
        return ()
    cpath, cline, cfunc = ctx.split("\t")
    return (Frame(cpath, int(cline), cfunc), Frame(path, c.line, c.func))


def _shared_state_guards(
    out: list[Finding], path: str, data: bytes | None, breaks: set[tuple[str | None, int]]
) -> list[Finding]:
    """Module state changed on the same calls shares one recompile: a counter (or list) a
    function changes on every call (outside branches and loops) fails its guard on each next
    call, and torch reports the guard it checks first. torch 2.13 checks the guards of the
    frame that runs first (the state read before the function's first break, in the frame
    before the resume function), and within a frame sorts them by the length of their name,
    then the name (``Guard.sort_key``: ``self.seen`` before ``self.correct``, ``self.a`` before
    ``self.b``): the other changes' guards never show. Each of them records the line of the
    reported one as its ``guard_line``, and says so (``breaks``: the function and line of each
    break finding of the file). Two changes of one attribute are one value with one guard:
    the later records the line of the first."""
    from compilelint.static.analysis.trees import surely_runs
    from compilelint.static.predict import _SELF_ATTR

    def source(p: str) -> bytes | None:
        return data if p == path else None

    groups: dict[str, list[int]] = {}
    attrs: dict[int, str] = {}
    for i, fd in enumerate(out):
        m = _SELF_ATTR.search(fd.message) if fd.rule == STATE_CHANGE and fd.function else None
        if m is not None and fd.function:
            groups.setdefault(fd.function, []).append(i)
            attrs[i] = m.group(1)

    def read(i: int) -> int:
        return out[i].guard_line or out[i].line

    def order(i: int) -> tuple[int, int, str]:
        frame = sum(1 for f, ln in breaks if f == out[i].function and ln < read(i))
        return frame, len(attrs[i]), attrs[i]

    for idx in groups.values():
        if len(idx) < 2:
            continue
        every = [i for i in idx if surely_runs(path, out[i].line, source)]
        if not every:
            continue
        first = min(every, key=order)
        line = read(first)
        for i in idx:
            fd = out[i]
            if i == first or order(i) < order(first) or read(i) == line:
                continue
            note = (
                f"; torch guards `self.{attrs[i]}` once, where it is first read: the recompile "
                f"is reported at line {line}"
                if attrs[i] == attrs[first]
                else f"; it changes on the same calls as `self.{attrs[first]}`, whose guard "
                f"torch checks first: the recompile is reported at line {line}"
            )
            out[i] = dataclasses.replace(fd, message=fd.message + note, guard_line=line)
    return out


def _per_file_ignored(cfg: Config, path: str) -> set[str]:
    import fnmatch

    out: set[str] = set()
    for glob, codes in cfg.per_file_ignores:
        if fnmatch.fnmatch(path, glob) or fnmatch.fnmatch(Path(path).name, glob):
            out.update(codes)
    return out


@dataclass
class ScanSettings:
    """One resolved configuration for any number of scans: the enabled rules, the checks, the
    search path for following and the caches. The CLI resolves it once per run; the fix rounds
    and the editor server keep it across their scans (with its caches in memory)."""

    cfg: Config
    catalog: Catalog
    enabled: set[str]
    static_codes: list[str]
    resolver: Resolver | None
    site_source: str
    errors: list[FileError]
    cache: Cache | None
    lib_cache: LibraryCache
    # library facts made from the library cache's blobs (``facts_blob``), by id of the blob
    # (kept alive with them, so an id is never reused): scans that share these settings build
    # them once
    lib_objects: dict[int, tuple[bytes, FileFacts]] = field(default_factory=dict)

    def lib_from_data(self, d: bytes) -> FileFacts:
        got = self.lib_objects.get(id(d))
        if got is None or got[0] is not d:
            if not isinstance(d, bytes):
                raise TypeError("not a facts blob")
            try:
                got = self.lib_objects[id(d)] = (d, facts_from_blob(d))
            except (ValueError, EOFError) as exc:
                raise TypeError(str(exc)) from None
        return fresh_facts(got[1])

    _checks: list[type[Check]] | None = None

    @property
    def checks(self) -> list[type[Check]]:
        """The check classes (imported on first use: a warm run needs none)."""
        if self._checks is None:
            self._checks = _checks_for(self.static_codes)
        return self._checks


def resolve_settings(
    cfg: Config,
    catalog: Catalog | None = None,
    *,
    no_cache: bool = False,
    cache: Cache | None = None,
) -> ScanSettings:
    """Everything about a scan that does not depend on the files scanned. ``cache`` replaces
    the configured facts cache (the editor server's, in memory)."""
    catalog = catalog or load_catalog()
    enabled = selected_codes(cfg, {c: r.default for c, r in catalog.rules.items()})
    enabled = {c for c in enabled if applies_to(catalog.rules[c], cfg.target_torch)}
    static_codes = sorted(c for c in catalog.rules if catalog.rules[c].detector == "static")
    errors: list[FileError] = []
    cdir: Path | None = None
    if cfg.cache and not no_cache:
        cdir = Path(cfg.cache_dir) if cfg.cache_dir else Path(cfg.root) / ".compilelint_cache"
    resolver: Resolver | None = None
    source = ""
    if cfg.follow:
        try:
            site, source = search_path(cfg.python, cfg.root)
        except ResolveError as exc:
            errors.append(FileError(path=cfg.python or "", message=str(exc), kind="usage"))
            site = []
        # the distribution tables are kept with the library facts
        resolver = Resolver(site, cache_dir=cdir / "libs" if cdir is not None else None)
    key = cache.key if cache is not None else _cache_key(catalog) if cdir is not None else ""
    if cache is None and cdir is not None:
        cache = Cache(cdir, key)
    return ScanSettings(
        cfg=cfg,
        catalog=catalog,
        enabled=enabled,
        static_codes=static_codes,
        resolver=resolver,
        site_source=source,
        errors=errors,
        cache=cache,
        lib_cache=LibraryCache(cdir, key),
    )


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
    settings: ScanSettings | None = None,
) -> ScanResult:
    """Scan ``paths``. ``sources`` maps real paths to contents used instead of the files on
    disk (the fix stage checks its edits before writing them); ``want_project`` skips the
    stored-results shortcut so that the result carries the project view. ``cache`` is the facts
    cache to use instead of the configured one, ``settings`` a configuration resolved before
    (``resolve_settings``; then ``cfg``, ``catalog``, ``no_cache`` and ``cache`` are its own),
    ``parse`` replaces libcst's parse in the files analysed in this process.

    The scan runs as named phases (``ScanResult.phases`` times each): discover, read, stored
    results, analyse (phase 1 per file: parse, walk, checks, positions; cached, parallel),
    project (what is traced, what is a tensor; torch-free helpers analysed on demand), follow
    (into installed packages), findings, store."""
    t0 = time.perf_counter()
    if settings is None:
        settings = resolve_settings(cfg, catalog, no_cache=no_cache, cache=cache)
    run = _Scan(settings, progress=progress, sources=sources, parse=parse)
    try:
        with _fewer_collections():
            return _run_phases(run, paths, want_project, t0)
    finally:
        run.close()


# The youngest generation's threshold while scanning: CPython's collector runs when this many
# more container objects were made than freed. A large file's libcst tree and walk hold a few
# hundred thousand at once, and a scan keeps what it makes (each file's facts, the project
# views, the library files' facts: 455,000 objects in this process by the end of a first run
# over 200 transformers files): at 50,000, each worker collected 6 to 8 times and this process
# 13 times in such a run, walking objects that were all still held (a few hundred cycles freed
# in this process, 30,000 in a worker over its 100 files). A larger scan still collects, once
# per this many objects kept.
SCAN_GEN0 = 1_000_000


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """A parse makes hundreds of thousands of small objects that live until the file is
    done, which sets off CPython's cyclic collector thousands of times per scan (about 15% of a
    cold scan's CPU). Collect less often while scanning (``SCAN_GEN0``: in this process and in
    the workers it forks, which inherit the thresholds); memory is freed by reference counting
    as before. At the end, what the scan made and still holds is moved to the oldest
    generation unwalked (``gc.freeze`` then ``gc.unfreeze``, where nothing was frozen before):
    the next young collection, which the restored threshold would set off at once in this
    process's output, would otherwise walk all of it (0.1-0.15 s of CPU after a 200-file
    first run); a full collection still walks it, and frees its cycles when it is dropped."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], SCAN_GEN0), max(old[1], 20), max(old[2], 20))
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.set_threshold(*old)


def _run_phases(run: _Scan, paths: list[str], want_project: bool, t0: float) -> ScanResult:
    run.timed("discover", run.discover, paths)
    run.timed("read", run.read)
    if not want_project:
        prev = run.timed("stored results", run.stored_results)
        if prev is not None:
            prev.seconds = time.perf_counter() - t0
            prev.phases = run.phases
            return prev
    run.timed("analyse", run.analyse_all)
    run.timed("project", run.compute_project)
    run.timed("follow", run.follow_libraries)
    findings = run.timed("findings", run.findings)
    run.timed("store", run.store, findings)
    return ScanResult(
        findings=findings,
        errors=run.errors,
        files=len(run.user_paths),
        lines=run.total_lines,
        seconds=time.perf_counter() - t0,
        cached=run.cached,
        project=run.project,
        follow=run.follow_data,
        phases=run.phases,
    )


@functools.cache
def _quiet_pool() -> type[Any]:
    """``multiprocessing.pool.Pool`` without its worker handler's busy loop. That thread
    (it replaces workers that exit) also waits on the results pipe, so every result wakes it,
    and it spins until the result thread has read the result: about 8,000 wake-ups and 0.2 s
    of this process's CPU for 200 transformers files, taken from the workers on two cores.
    Workers here never exit by themselves (no ``maxtasksperchild``) and the handler still
    wakes on a worker's death (its process sentinel) and on the pool's close and terminate
    (the change notifier). Where the pool has no ``_get_sentinels`` (not CPython's 3.8+
    pool), the pool as it is."""
    from multiprocessing.pool import Pool

    if not hasattr(Pool, "_get_sentinels"):
        return Pool

    class QuietPool(Pool):
        def _get_sentinels(self) -> list[Any]:
            notifier = getattr(self, "_change_notifier", None)
            reader = getattr(notifier, "_reader", None)
            if reader is None:
                return cast("list[Any]", super()._get_sentinels())  # type: ignore[misc]
            return [reader]

    return QuietPool


class _Started:
    """Files begun in a scan's pool (:meth:`_Scan.start_files`): called, it waits for their
    facts (in the items' order); ``ready`` says, without waiting, whether all are in."""

    def __init__(self, scan: _Scan, got: Any, order: list[int]) -> None:
        self._scan, self._got, self._order = scan, got, order

    def ready(self) -> bool:
        return bool(self._got.ready())

    def __call__(self) -> list[FileFacts]:
        slots: list[FileFacts | None] = [None] * len(self._order)
        for i, (f, blob) in zip(self._order, self._got.get()):
            slots[i] = f
            if blob is not None:
                self._scan._blobs[id(f)] = (f, blob)
        return [f for f in slots if f is not None]


def _is_installed(r: Resolver | None, m: str) -> bool:
    return r is not None and r.find(m) is not None


class _Scan:
    """The state of one scan, phase by phase (see ``scan``)."""

    def __init__(
        self,
        settings: ScanSettings,
        *,
        progress: Callable[[int, int], None] | None,
        sources: Mapping[str, bytes] | None,
        parse: Parser | None,
    ) -> None:
        self.s = settings
        self.cfg = settings.cfg
        self.progress = progress
        self.sources = sources
        self.parse = parse
        self.phases: dict[str, float] = {}
        self.errors: list[FileError] = list(settings.errors)
        self.inputs: list[FileInput] = []
        self.by_path: dict[str, FileInput] = {}
        self.facts: dict[str, FileFacts] = {}
        self.datas: dict[str, bytes] = {}
        self.digests: dict[str, str] = {}
        self.cached = 0
        self.stats = FollowStats()
        self.stats.site = settings.resolver.site if settings.resolver is not None else []
        self.stats.source = settings.site_source
        self.entries: tuple[str, ...] | None = self.cfg.entries or None
        self.project: Project | None = None
        self.latent_project: Project | None = None  # library mode with --report-untraced
        self._inputs: dict[str, list[FrameInput]] | None = None  # CL304's, by path
        self.user_paths: set[str] = set()
        self.total_lines = 0
        self.follow_data: dict[str, object] | None = None
        self.tree_key = ""
        # calls through objects feed following; recorded in phase 1 from the syntax check's tree
        self.object_calls = bool(settings.resolver is not None and settings.resolver.site)
        self._pool: Any = None  # multiprocessing.Pool, while the scan needs one
        # the project views' shared resolutions when the scan follows into installed packages
        self._shared = SharedResolutions() if self.object_calls else None
        # the cache form of facts a worker analysed (``facts_blob``), by id of the facts
        self._blobs: dict[int, tuple[FileFacts, bytes]] = {}
        # following's first round read and begun during the project phase (``_prefetch``;
        # None: not tried yet)
        self._prefetched: _Early | None = None
        # CPython's trees of scanned texts parsed while the project phase waited (``_spare``),
        # for the findings phase (``_known_tree``)
        self._spare_trees: dict[str, ast.Module | None] = {}
        self._spare_seen: set[str] = set()  # the files ``_spare_tree`` decided on

    def timed(self, name: str, fn: Callable[..., Any], *args: Any) -> Any:
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - t

    # ------------------------------------------------------------------ discover, read
    def discover(self, paths: list[str]) -> None:
        cfg = self.cfg
        cwd = Path(os.getcwd())
        disc = discover(
            paths,
            exclude=cfg.exclude + cfg.extend_exclude,
            respect_gitignore=cfg.respect_gitignore,
        )
        self.errors[:0] = [
            FileError(path=m, message=f"path not found: {m}", kind="usage") for m in disc.missing
        ]
        for p in disc.files:
            mod, is_pkg = module_name(p)
            self.inputs.append(FileInput(display_path(p, cwd), os.path.realpath(p), mod, is_pkg))
        self.inputs.sort(key=lambda i: i.path)
        self.by_path = {i.path: i for i in self.inputs}

    def read(self) -> None:
        sources = self.sources
        for inp in self.inputs:
            try:
                data = sources[inp.real] if sources and inp.real in sources else None
                if data is None:
                    data = read_source(inp.real)
            except (OSError, ValueError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                self.facts[inp.path] = FileFacts(
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
                continue
            self.datas[inp.path] = data
            self.digests[inp.path] = hashlib.blake2b(data, digest_size=16).hexdigest()
        self.tree_key = self._tree_key()

    # ------------------------------------------------------------------ stored results
    def _tree_key(self) -> str:
        """The key of this tree under this configuration and these rules."""
        s = self.s
        tree = hashlib.blake2b(digest_size=16)
        tree.update(repr((self.cfg, sorted(s.enabled), os.getcwd())).encode())
        if s.resolver is not None:
            tree.update(site_key(s.resolver.site).encode())
        for p in sorted(self.digests):
            d = self.digests[p]
            tree.update(f"{p}\0{self.by_path[p].real}\0{d}\n".encode(errors="surrogateescape"))
        for p in sorted(self.facts):
            tree.update(f"{p}\0unreadable\n".encode())
        return tree.hexdigest()

    def stored_results(self) -> ScanResult | None:
        """An unchanged tree under the same config and rules: the previous results, as they
        were."""
        s = self.s
        if s.cache is None:
            return None
        prev = s.cache.get_results(self.tree_key)
        if prev is None:
            return None
        try:
            return ScanResult(
                findings=[finding_from_data(d) for d in prev["findings"]],
                errors=self.errors,
                files=prev["files"],
                lines=prev["lines"],
                seconds=0.0,
                cached=prev["files"],
                follow=prev.get("follow"),
            )
        except (TypeError, KeyError):
            return None

    # ------------------------------------------------------------------ phase 1
    def _cache_digest(self, path: str, force: bool) -> str:
        # facts made with calls through objects are not those made without
        oc = self.object_calls and not force
        return self.digests[path] + ("+o" if oc else "")

    def analyse_all(self) -> None:
        cache = self.s.cache
        todo: list[tuple[bytes, FileInput, bool, bool | str]] = []
        for inp in self.inputs:
            if inp.path not in self.digests:
                continue
            got = cache.get(inp.real, self._cache_digest(inp.path, False)) if cache else None
            if got is not None:
                got.path = inp.path
                self.facts[inp.path] = got
                self.cached += 1
            else:
                todo.append((self.datas[inp.path], inp, False, self.object_calls))
        self.analyse(todo)

    def analyse(
        self,
        items: list[tuple[bytes, FileInput, bool, bool | str]],
        meanwhile: Callable[[], None] | None = None,
        spare: Callable[[Callable[[], bool]], None] | None = None,
    ) -> None:
        """Phase 1 for ``items`` (data, input, force, object calls), into ``facts`` and the
        facts cache. ``meanwhile`` runs while the running pool analyses them (before, when
        they are analysed here); then ``spare``, told whether they are all in (it stops
        then), only where the pool analyses them."""
        begin = meanwhile is not None or spare is not None
        wait = self.start_files(items) if begin else None
        if meanwhile is not None:
            meanwhile()
        if wait is not None:
            ready = getattr(wait, "ready", None)  # (a wrapped wait may not say: no spare)
            if spare is not None and ready is not None:
                spare(ready)
            results = wait()
            if self.progress:
                for n in range(len(items)):
                    self.progress(n + 1, len(items))
        else:
            results = self.analyse_files(items, self.progress)
        cache = self.s.cache
        for i, f in enumerate(results):
            self.facts[f.path] = f
            if cache:
                force = items[i][2]
                blob = self._blob(f)
                cache.put(self.by_path[f.path].real, self._cache_digest(f.path, force), f, blob)

    def _blob(self, f: FileFacts) -> bytes | None:
        got = self._blobs.pop(id(f), None)
        return got[1] if got is not None and got[0] is f else None

    def _lib_blob(self, f: FileFacts) -> bytes:
        return self._blob(f) or facts_blob(f)

    def analyse_files(
        self,
        items: list[tuple[bytes, FileInput, bool, bool | str]],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[FileFacts]:
        """Phase 1 for ``items``, in order: in the scan's pool of workers when there is enough
        to do (or the pool is already running), in this process otherwise."""
        if not items:
            return []
        results: list[FileFacts] = []
        pool = self._pool_for(items)
        if pool is not None:
            # the largest files first, one per task, so that no worker is left with a large
            # file while the other is idle at the end; results are kept in ``items``' order
            order = sorted(range(len(items)), key=lambda i: -_weight(items[i]))
            slots: list[FileFacts | None] = [None] * len(items)
            work = [items[i] for i in order]
            for n, (i, (got, blob)) in enumerate(zip(order, pool.imap(_worker, work, chunksize=1))):
                slots[i] = got
                if blob is not None:
                    self._blobs[id(got)] = (got, blob)
                if progress:
                    progress(n + 1, len(items))
            results = [f for f in slots if f is not None]
        else:
            for i, (d, inp, force, oc) in enumerate(items):
                results.append(
                    analyze_source(
                        d, inp, self.s.checks, force=force, parse=self.parse, object_calls=oc
                    )
                )
                if progress:
                    progress(i + 1, len(items))
        return results

    def start_files(
        self, items: list[tuple[bytes, FileInput, bool, bool | str]]
    ) -> _Started | None:
        """Phase 1 for ``items`` begun in the scan's pool when it runs (the workers go on
        while this process does other work), and what waits for their facts, in order; None
        when no pool runs (the caller analyses them with others: :meth:`analyse_files`)."""
        pool = self._pool if items else None
        if pool is None:
            return None
        order = sorted(range(len(items)), key=lambda i: -_weight(items[i]))
        return _Started(
            self, pool.map_async(_worker, [items[i] for i in order], chunksize=1), order
        )

    def start_call(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Callable[[], Any] | None:
        """``fn(*args)`` (a module-level function) begun in the scan's pool when it runs, and
        what waits for its result; None when no pool runs (the caller runs it itself)."""
        if self._pool is None:
            return None
        return self._pool.apply_async(fn, args).get  # type: ignore[no-any-return]

    def _pool_for(self, items: list[tuple[bytes, FileInput, bool, bool | str]]) -> Any:
        """The scan's worker pool, started on first need and kept until the scan ends (the
        rounds of following reuse it), or None to analyse in this process."""
        jobs = self.cfg.jobs or usable_cpus()
        if jobs <= 1 or len(items) < 2:
            return None
        if self._pool is None:
            heavy = [
                len(d) for d, _, force, _o in items if force or b"torch" in d or b"forward" in d
            ]
            # a pool pays for itself on many files, or on a few large ones (a commit of
            # model files)
            if not (len(heavy) >= 24 or (len(heavy) >= 2 and sum(heavy) >= POOL_BYTES)):
                return None
            import multiprocessing as mp

            self.s.checks  # noqa: B018  (imported here, before the fork: workers share them)
            ctx = mp.get_context("fork") if sys.platform.startswith("linux") else mp.get_context()
            # the workers make the facts' cache form when something caches them
            blobs = self.s.cache is not None or self.s.lib_cache.directory is not None
            # the workers inherit this process's objects (libcst, the checks): frozen, the
            # collector of a worker leaves them alone instead of touching (and so copying)
            # their memory pages; this process unfreezes them once the workers are forked
            _stop_deep_thread()
            gc.freeze()
            try:
                self._pool = _quiet_pool()(
                    jobs,
                    initializer=_init_worker,
                    initargs=(self.s.static_codes, blobs),
                    context=ctx,
                )
            finally:
                gc.unfreeze()
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    # ------------------------------------------------------------------ phase 2
    @property
    def _installed(self) -> Callable[[str], bool]:
        # not a bound method: the project keeps it, and this scan keeps the project (a
        # reference cycle that only the cyclic collector would free)
        return functools.partial(_is_installed, self.s.resolver)

    def _new_project(self) -> FollowProject:
        # a scan that follows shares its views' resolutions from the first (app mode: library
        # mode's entries change what a resolution answers)
        shared = self._shared if self.entries is None else None
        project = FollowProject(
            self.facts.values(), {}, self._installed, self.entries, shared=shared
        )
        project.set_spec_inputs(self.cfg.spec_inputs)
        project.set_spec_init(self.cfg.spec_init)
        project.mode = self.cfg.mode
        project.source = functools.partial(_scan_source, self.datas)
        return project

    def compute_project(self) -> None:
        """What is traced and what is a tensor, with torch-free helper files parsed on demand
        when traced code reaches them. Library mode: a package with nothing compiled in reach
        is judged from its public functions, methods and forwards (narrowed by ``entries``)."""
        facts = self.facts
        project = self._new_project()
        for _ in range(4):
            project.compute()
            if (
                self.entries is None
                and not project.roots
                and any(f.is_package and not f.error for f in facts.values())
            ):
                self.entries = ("*",)
                project = self._new_project()
                project.compute()
            need = _needed_torch_free(project)
            if not need:
                break
            self.analyse(
                [(self.datas[p], self.by_path[p], True, False) for p in need if p in self.datas],
                meanwhile=self._prefetch(project),
                spare=self._spare(project),
            )
            if self._shared is not None:  # syntax-checked facts replaced by whole ones
                self._shared.changed(set(need), {facts[p].module for p in need if p in facts})
            project = self._new_project()
        if self.s.cache:
            self.s.cache.save()
        if self.entries is not None:
            project = library_mode_calls(project, self.datas, self._new_project)
            self.stats.entries = len(project.entry_points(self.entries))
        self.user_paths = set(facts)
        self.project = project

    def _prefetch(self, project: Project) -> Callable[[], None] | None:
        """Following's first round begun while the project phase waits for its torch-free
        helpers (``follow.prefetch``: read and begun, decided by ``follow`` as before); once,
        and only where following reads ahead (a running pool, app mode)."""
        resolver = self.s.resolver
        if (
            self._prefetched is not None
            or self._shared is None
            or self._pool is None
            or resolver is None
            or not resolver.site
            or self.entries is not None
            or not isinstance(project, FollowProject)
            or not project.unresolved_modules
        ):
            return None

        def run() -> None:
            assert resolver is not None
            self._prefetched = prefetch(
                project, self.facts, resolver, self._start_libs, self.s.lib_cache, self._shared
            )

        return run

    def _spare(self, project: Project) -> Callable[[Callable[[], bool]], None] | None:
        """Work of the later phases done while the project phase waits for its torch-free
        helpers (one worker analyses the largest, ``auto/modeling_auto.py``, while this process
        would idle), a step at a time until they are in (``ready``): the distribution tables
        of the sites that hold the installed modules the project found missing (following
        reads them), and CPython's trees of the files whose loop-shadow check will need one
        (``_loop_shadowed``: two break candidates or more in traced code, by this
        computation's view), kept for the findings phase (``_known_tree``) and its
        predictions. Nothing here changes what a phase finds; a step left undone is done
        where it was. Not in the editor server, whose parser keeps its own trees."""
        if getattr(self.parse, "known_python_tree", None) is not None:
            return None

        def run(ready: Callable[[], bool]) -> None:
            for step in self._spare_steps(project):
                if ready():
                    return
                step()

        return run

    def _spare_steps(self, project: Project) -> Iterator[Callable[[], None]]:
        resolver = self.s.resolver
        if resolver is not None and self._shared is not None:
            sites: set[str] = set()
            for m in sorted(project.unresolved_modules):
                mf = resolver.find(m)
                if mf is not None:
                    sites.add(mf.site)
            for site in sorted(sites):
                yield functools.partial(resolver.read_distributions, site)
        for path in sorted(self.facts):
            f = self.facts[path]
            data = self.datas.get(path)
            if path in self._spare_seen or f.error is not None or data is None:
                continue
            # two such breaks among its candidates in traced functions (a set look-up each):
            # the view's ``kept`` is asked of those files only
            if len(self._shadow_breaks(f.candidates, project, path, 2)) == 2 and _plain_utf8(data):
                yield functools.partial(self._spare_tree, project, path, data)

    def _shadow_breaks(
        self, cands: list[Candidate], project: Project, path: str, most: int
    ) -> list[Candidate]:
        """Up to ``most`` of ``cands`` that ``_loop_shadowed`` reads (enabled breaks, neither
        latent nor reached through a call's context), in functions ``project`` traces where
        they are candidates of traced code."""
        rules, enabled, traced = self.s.catalog.rules, self.s.enabled, project.traced
        out: list[Candidate] = []
        for c in cands:
            if (
                c.code in enabled
                and c.code in rules
                and (c.scope != "traced" or (path, c.func) in traced)
                and is_break_rule(rules[c.code])
                and not c.args.get("latent")
                and not c.args.get(CONTEXT)
            ):
                out.append(c)
                if len(out) == most:
                    break
        return out

    def _spare_tree(self, project: Project, path: str, data: bytes) -> None:
        """The tree of ``path`` parsed where its loop-shadow check will need one: two of its
        candidates that this view keeps are breaks ``_loop_shadowed`` reads."""
        self._spare_seen.add(path)
        if len(self._shadow_breaks(project.kept(self.facts[path]), project, path, 2)) == 2:
            # through the predictions' memo of trees too, as ``_loop_shadowed`` parses it
            self._spare_trees[path] = cached_tree(data)

    def _start_libs(
        self, items: list[tuple[bytes, str, str, bool]]
    ) -> Callable[[], list[FileFacts]] | None:
        # calls through objects recorded from the syntax check's tree
        return self.start_files(
            [(d, FileInput(real, real, mod, pkg), True, "all") for d, real, mod, pkg in items]
        )

    def follow_libraries(self) -> None:
        s = self.s
        resolver = s.resolver
        project = self.project
        assert project is not None
        if resolver is None or not resolver.site or not project.unresolved_modules:
            return

        def lib_items(
            items: list[tuple[bytes, str, str, bool]],
        ) -> list[tuple[bytes, FileInput, bool, bool | str]]:
            # calls through objects recorded from the syntax check's tree
            return [
                (d, FileInput(real, real, mod, pkg), True, "all") for d, real, mod, pkg in items
            ]

        def analyse_libs(items: list[tuple[bytes, str, str, bool]]) -> list[FileFacts]:
            # the scan's pool when it runs or the files are worth one
            return self.analyse_files(lib_items(items))

        self.project = follow(
            project,  # type: ignore[arg-type]
            self.facts,
            resolver,
            analyse_libs,
            start=self._start_libs,
            run=self.start_call,
            shared=self._shared if self.entries is None else None,
            cache=s.lib_cache,
            to_data=self._lib_blob,
            from_data=s.lib_from_data,
            stats=self.stats,
            entries=self.entries,
            prefetched=self._prefetched,
        )

    # ------------------------------------------------------------------ findings
    def findings(self) -> list[Finding]:
        cfg, catalog, enabled = self.cfg, self.s.catalog, self.s.enabled
        project, facts = self.project, self.facts
        assert project is not None
        project.set_spec_inputs(cfg.spec_inputs)
        project.set_spec_init(cfg.spec_init)
        project.mode = cfg.mode
        self.latent_project = None
        self._inputs = None
        if cfg.report_untraced and self.entries is not None and isinstance(project, FollowProject):
            # library mode: what the package's public functions and methods reach under any
            # arguments, beyond its entry points under their defaults (reported as latent)
            self.latent_project = FollowProject(
                facts.values(), project.library, self._installed, self.entries, broad=True
            )
            self.latent_project.source = project.source
            self.latent_project.compute()
        findings: list[Finding] = []
        lib_used: set[tuple[str, int, str]] = set()
        if isinstance(project, FollowProject) and project.library:
            findings.extend(
                _followed_findings(project, cfg, catalog, enabled, facts, self.datas, lib_used)
            )
        for path in sorted(self.user_paths):
            findings.extend(self._file_findings(path, lib_used))
        findings.extend(self._spec_free_recompiles(findings))
        findings.sort(key=lambda x: (x.path, x.line, x.col, x.rule))
        self.total_lines = sum(facts[p].lines for p in self.user_paths)
        self.follow_data = self.stats.as_dict() if self.s.resolver is not None else None
        return findings

    def _spec_free_recompiles(self, findings: list[Finding]) -> list[Finding]:
        """``CL303`` findings for the recompiles the source alone shows (no input spec needed:
        ``predict.spec_free_recompiles``), in the scanned files; none where a recompiles rule
        already reports the line (with a spec, the prediction's own are merged the same way)."""
        rule = self.s.catalog.rules.get(PREDICTED_RECOMPILE)
        project = self.project
        if rule is None or rule.code not in self.s.enabled or project is None:
            return []
        from compilelint.static.predict import recompile_findings, spec_free_recompiles

        sites = [
            r
            for r in spec_free_recompiles(
                project,
                self.cfg.target_torch,
                self.datas.get,
                findings,
                self.s.catalog,
                self._known_tree,
            )
            if r.path in self.user_paths
            and not any(rule.code.startswith(x) for x in _per_file_ignored(self.cfg, r.path))
        ]
        if not sites:
            return []
        return recompile_findings(
            sites, findings, rule, over=" between its calls", source=self.datas.get
        )

    def _known_tree(self, path: str) -> ast.Module | None:
        """CPython's tree of the scanned text of ``path`` where this process already has it
        (the editor server's incremental parser keeps the tree its syntax check made; read
        only), else None (the caller parses)."""
        known = getattr(self.parse, "known_python_tree", None)
        if known is None:
            return self._spare_trees.get(path)  # parsed while the project phase waited
        data = self.datas.get(path)
        return known(data) if data is not None else None

    def _loop_memo(self, path: str, tree: ast.Module | None) -> LoopMemo | None:
        """What the loop shadows of ``path``'s previous text found, where this process keeps
        it (the editor server's parser, with the CPython tree it keeps: ``_known_tree``)."""
        memo = getattr(self.parse, "loop_memo", None)
        inp = self.by_path.get(path)
        return memo(inp) if memo is not None and tree is not None and inp is not None else None

    def _file_findings(self, path: str, lib_used: set[tuple[str, int, str]]) -> list[Finding]:
        cfg, catalog, enabled = self.cfg, self.s.catalog, self.s.enabled
        project = self.project
        assert project is not None
        f = self.facts[path]
        out: list[Finding] = []
        if f.error is not None:
            rule = catalog.rules.get(PARSE_ERROR)
            if rule and PARSE_ERROR in enabled:
                out.append(
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
            return out
        ignored_here = _per_file_ignored(cfg, path)
        sup = f.noqa
        used: set[tuple[int, str]] = {(ln, code) for p, ln, code in lib_used if p == path}
        kept = project.kept(f) + self._frame_inputs(path)
        if cfg.report_untraced:
            kept += _untraced(project, f, kept, self.latent_project)
        if cfg.mode or cfg.dtype:
            kept = [c for c in kept if not _outside_context(c.args, cfg)]
        shadow = self._loop_shadowed(path, kept, enabled)
        trees: dict[str, ast.Module | None] = {}
        seen: set[tuple[str, int, int, str]] = set()
        for c in kept:
            if c.code not in enabled or c.code in ignored_here:
                continue
            if any(c.code.startswith(x) for x in ignored_here):
                continue
            # one finding per context: a shared line reached from two models is two findings
            key = (c.code, c.line, c.col, c.args.get(CONTEXT, ""))
            if key in seen:
                continue
            seen.add(key)
            ln = is_suppressed(sup, c.code, c.line, c.end_line)
            if ln is not None:
                used.add((ln, c.code))
                continue
            rule = catalog.rules[c.code]
            fd = _make_finding(rule, path, c, rule.severity)
            if c.code == STATE_CHANGE and c.args.get("attr"):
                fd = self._state_guard(path, fd, c.args["attr"], trees)
            later = shadow.behind.get(c.line)
            if later and is_break_rule(rule):
                fd = dataclasses.replace(fd, message=fd.message + shadow.note(later))
            first = shadow.hidden.get((c.line, c.code))
            if first is not None:
                fd = dataclasses.replace(fd, message=fd.message + shadow.after(first), behind=first)
                if self.entries is not None:
                    # library mode judges a user's first call under the defaults: torch runs
                    # the rest of the frame eagerly and reports no break here, so the finding
                    # is latent (shown by --report-untraced), like code no entry reaches
                    if not cfg.report_untraced:
                        continue
                    fd = dataclasses.replace(
                        fd, message=f"{fd.message} ({LATENT_BEHIND})", latent=LATENT_BEHIND
                    )
            if is_break_rule(rule) and fd.behind is None:
                fd = self._at_with(path, fd, trees)
            out.append(fd)
        if sum(1 for fd in out if fd.rule == STATE_CHANGE) > 1:
            breaks: set[tuple[str | None, int]] = {
                (fd.function, fd.line)
                for fd in out
                if fd.rule in catalog.rules and is_break_rule(catalog.rules[fd.rule])
            }
            out = _shared_state_guards(out, path, self.datas.get(path), breaks)
        if UNUSED_SUPPRESSION in enabled and sup:
            out.extend(
                _unused_suppressions(catalog, path, sup, used, enabled, self.datas.get(path))
            )
        return out

    def _state_guard(
        self, path: str, fd: Finding, attr: str, trees: dict[str, ast.Module | None]
    ) -> Finding:
        """A change of module state (CL501) read earlier in its function: the finding records
        the line of that first read, where dynamo guards on the state and torch reports the
        recompile (``analysis/state.py``), and says so. Parses the file once, only when it has
        such a change."""
        if path not in trees:
            data = self.datas.get(path)
            trees[path] = parse_source(data) if data is not None else None
        tree = trees[path]
        if tree is None:
            return fd
        line = first_read_line(tree, attr, fd.line)
        if line == fd.line:
            return fd
        note = f"; torch reports it at line {line}, where traced code first reads `self.{attr}`"
        return dataclasses.replace(fd, message=fd.message + note, guard_line=line)

    def _at_with(self, path: str, fd: Finding, trees: dict[str, ast.Module | None]) -> Finding:
        """``fd`` (a break not behind another) placed at the ``with`` line when it lies in the
        body of a ``with`` whose manager torch reports there (``loops.reported_at_with``:
        ``torch.random.fork_rng``, ``torch.backends.cuda.sdp_kernel``; torch 2.13 GB0142, the
        rest of the frame runs eagerly, ``loops.UNRESUMABLE``)."""
        data = self.datas.get(path, b"")
        if b"fork_rng" not in data and b"sdp_kernel" not in data:
            return fd
        if path not in trees:
            trees[path] = parse_source(data)
        tree = trees[path]
        for first, last, line, col in reported_at_with(tree) if tree is not None else ():
            if first <= fd.line <= last:
                note = (
                    f" (inside the `with` at line {line}: its context manager cannot be entered "
                    "again in a resume function, so torch reports the break at the `with` line "
                    f"and runs the rest of the frame eagerly; the break itself is at line {fd.line})"
                )
                return dataclasses.replace(
                    fd, line=line, col=col, end_line=line, end_col=col, message=fd.message + note
                )
        return fd

    def _loop_shadowed(self, path: str, kept: list[Candidate], enabled: set[str]) -> _Shadow:
        """Break candidates of ``path`` after a break every iteration of a loop of the same
        frame reaches: dynamo skips the frame there, so torch does not report them until the
        first is fixed. They stay findings (the construct breaks once the first is gone), marked
        ``behind`` the first and left out of the prediction; the first names them in a note.
        Latent candidates neither hide others nor are hidden."""
        rules = self.s.catalog.rules
        brk = [
            c
            for c in kept
            if c.code in enabled
            and c.code in rules
            and is_break_rule(rules[c.code])
            and not c.args.get("latent")
            and not c.args.get(CONTEXT)
        ]
        if len(brk) < 2:
            return _Shadow()
        data = self.datas.get(path, b"")
        tree = self._known_tree(path)
        if tree is None and _plain_utf8(data):
            # the text's CPython tree, kept for the predictions that read it next
            # (``predict._parsed``): parsed once, not here and again there
            tree = cached_tree(data)
        source = data.decode("utf-8", errors="replace")
        moved = shadowed_breaks(
            source,
            (c.line for c in brk),
            tree,
            self._loop_memo(path, tree),
            self._sure_lines(path, brk),
        )
        if not moved:
            return _Shadow()
        hidden = {(c.line, c.code): moved[c.line] for c in brk if c.line in moved}
        behind: dict[int, list[int]] = {}
        for ln, first in sorted(moved.items()):
            behind.setdefault(first, []).append(ln)
        return _Shadow(hidden, behind)

    def _sure_lines(self, path: str, brk: list[Candidate]) -> Callable[[int], bool] | None:
        """Whether a break candidate at a line has every enclosing test decided to hold by the
        project's values (``Project.surely_holds``: a parameter's or a ``self.<attr>``'s known
        values), for ``shadowed_breaks``: a loop break under ``if self.tol is not None:`` with
        ``tol`` stored from a default ``1e-4`` is reached by every iteration."""
        project = self.project
        if project is None or path not in project.files:
            return None
        functions = project.files[path].functions
        by_line: dict[int, list[Candidate]] = {}
        for c in brk:
            if c.conds and not c.args.get(BRANCH) and not c.args.get(IN_TRY):
                if c.func in functions:
                    by_line.setdefault(c.line, []).append(c)
        if not by_line:
            return None

        def sure(line: int) -> bool:
            return any(project.surely_holds((path, c.func), c.conds) for c in by_line.get(line, ()))

        return sure

    def _frame_inputs(self, path: str) -> list[Candidate]:
        """CL304's per-call ints passed to functions that break (found over the project)."""
        if FRAME_INPUT not in self.s.enabled:
            return []
        if self._inputs is None:
            self._inputs = {}
            project = self.project
            assert project is not None
            breaks = project.callee_breaks()
            for fi in (
                *frame_inputs(project, breaks),
                *wrapper_inputs(project, breaks),
                *returned_inputs(project, breaks),
                *site_inputs(project, breaks),
            ):
                self._inputs.setdefault(fi.path, []).append(fi)
        got = self._inputs.get(path)
        if not got:
            return []
        lines = self.datas.get(path, b"").decode("utf-8", errors="replace").splitlines()
        return [
            frame_input_candidate(
                fi, lines[fi.line - 1] if fi.line <= len(lines) else "", FRAME_INPUT
            )
            for fi in got
        ]

    # ------------------------------------------------------------------ store
    def store(self, findings: list[Finding]) -> None:
        cache = self.s.cache
        if cache is None:
            return
        cache.put_results(
            self.tree_key,
            {
                "findings": [to_data(f) for f in findings],
                "files": len(self.user_paths),
                "lines": self.total_lines,
                "follow": self.follow_data,
            },
        )


@dataclass
class _Shadow:
    """Break candidates behind the first break of a loop or of a ``with`` torch cannot resume in
    (``Engine._loop_shadowed``)."""

    hidden: dict[tuple[int, str], int] = field(default_factory=dict)  # (line, code) -> first
    behind: dict[int, list[int]] = field(default_factory=dict)  # first line -> hidden lines

    @staticmethod
    def after(first: int) -> str:
        return (
            f" (behind the break at line {first}, in a loop or in a `with` torch cannot resume "
            "in: torch runs this frame eagerly from there and reports this break only once that "
            "one is fixed)"
        )

    @staticmethod
    def note(lines: list[int]) -> str:
        where = ", ".join(str(x) for x in lines)
        s = "s" if len(lines) > 1 else ""
        return (
            f" (in a loop or in a `with` torch cannot resume in: torch skips this frame here and "
            f"runs it eagerly, so the break{s} at "
            f"line{s} {where} of the same frame show{'' if s else 's'} only once this one is fixed)"
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
        if (cfg.mode or cfg.dtype) and _outside_context(c.args, cfg):
            return None  # as in the user's files: `if self.training and random() < p:` in eval
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
