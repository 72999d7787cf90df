"""Re-parsing only what an edit changed, for the editor server.

``IncrementalParser`` is a drop-in for ``libcst.parse_module`` (``engine.scan(parse=...)``): it
remembers the last module of each file with the source text of every top-level statement, and
when a new version of the file comes in it keeps the unchanged statements before and after the
edit, parses only the statements in between and splices them into the module. A splice is used
only when the spliced module's code is exactly the new text; anything else (an edit in the
module's header or footer, a change of encoding, text that does not parse on its own) falls back
to a full parse, so the result is always what ``libcst.parse_module`` returns for the text.

Top-level statements are independent for the parser: blank lines and comments between two
statements belong to the following statement (``leading_lines``), which the splice reproduces.

``IncrementalParser.python_tree`` does the same for CPython's tree (``ast.parse``, which the
engine runs first, as the syntax check, and which places statements and calls): the top-level
statements that end before the first changed line are kept (same objects, same lines), and so
are those that start after the last changed line (moved in place by the lines the edit added
or removed: the previous tree is dropped); the lines in between are parsed on their own, preceded by as many empty lines as come
before them, so that CPython's line numbers are the file's. Anything unusual (a file that is not
plain UTF-8, a coding cookie, ``\r`` line ends, a ``__future__`` import, text that does not
parse on its own, an indented first line) parses the whole text, so the tree and the syntax
errors are always those of ``ast.parse`` on the whole text.
"""

from __future__ import annotations

import ast
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import libcst as cst

from compilelint.static.analysis.loops import LoopMemo
from compilelint.static.analysis.resume import WalkMemo
from compilelint.static.positions import SpanMemo

M = TypeVar("M")


@dataclass
class _Parsed:
    text: str
    module: cst.Module
    chunks: list[str]  # the code of each statement of module.body, in order
    # ``text`` as libcst parses it (``_as_parsed``): with the newline it appends to a text
    # that does not end its last line (``module.has_trailing_newline`` False); the header,
    # the chunks and the footer give this back
    parsed: str = ""
    # the code of the module's header and footer (kept by a splice, which changes the body
    # only): generated once per full parse instead of on every edit
    head: str | None = None
    foot: str | None = None


@dataclass
class ParseStats:
    full: int = 0
    spliced: int = 0
    reused: int = 0  # the text had not changed


@dataclass
class _PyParsed:
    lines: list[str]  # the text's lines, with their ends
    tree: ast.Module
    # by id of a top-level statement of ``tree``: its nodes that have lines, listed when an
    # edit first moved it (the statements after an edit move on every edit that adds or
    # removes lines; the list spares walking their fields again)
    lined: dict[int, list[Any]] = field(default_factory=dict)
    data: bytes = b""  # the bytes parsed (``known_python_tree`` compares with them)


@dataclass
class PyParseStats:
    full: int = 0
    spliced: int = 0
    reparsed_lines: int = 0  # lines parsed again by the splices
    kept_after: int = 0  # splices that kept statements after the edit


class IncrementalParser:
    """``parse(data, inp)`` for ``engine.scan``; keeps the last module of up to ``max_files``
    files (the files open in the editor)."""

    def __init__(self, max_files: int = 32) -> None:
        self.max_files = max_files
        self._last: OrderedDict[str, _Parsed] = OrderedDict()
        self._spans: dict[str, SpanMemo] = {}
        self._walks: dict[str, WalkMemo] = {}
        self._loops: dict[str, LoopMemo] = {}
        self._py: OrderedDict[str, _PyParsed] = OrderedDict()
        self.stats = ParseStats()
        self.py_stats = PyParseStats()

    def python_tree(self, data: bytes, inp: object) -> ast.Module:
        """``ast.parse(data)`` (it raises as that does), re-parsing only the top-level
        statements an edit touched when the file's previous tree is known (see the module's
        docstring)."""
        key = str(getattr(inp, "real", inp))
        prev = self._py.pop(key, None)
        text = _plain_text(data)
        tree: ast.Module | None = None
        lines: list[str] = []
        if text is not None:
            lines = text.splitlines(keepends=True)
            if prev is not None:
                tree = _py_splice(prev, lines, self.py_stats)
        if tree is None:
            tree = ast.parse(data)
            self.py_stats.full += 1
        else:
            self.py_stats.spliced += 1
        if text is not None:
            lined = prev.lined if prev is not None else {}
            kept = {id(s): lined[id(s)] for s in tree.body if id(s) in lined}
            self._py[key] = _PyParsed(lines, tree, kept, data)
            while len(self._py) > self.max_files:
                self._py.popitem(last=False)
        return tree

    def known_python_tree(self, data: bytes) -> ast.Module | None:
        """The CPython tree ``python_tree`` last gave for exactly this text, if it still keeps
        one (read-only: the findings phase asks for it instead of parsing the text again)."""
        for parsed in self._py.values():  # the scan's own bytes object, as a rule
            if parsed.data is data:
                return parsed.tree
        for parsed in self._py.values():
            if parsed.data == data:
                return parsed.tree
        return None

    def __call__(self, data: bytes, inp: object) -> cst.Module:
        key = str(getattr(inp, "real", inp))
        return self.parse(key, data)

    def forget(self, key: str) -> None:
        self._last.pop(key, None)
        self._spans.pop(key, None)
        self._walks.pop(key, None)
        self._loops.pop(key, None)
        self._py.pop(key, None)

    def span_memo(self, inp: object) -> SpanMemo:
        """The spans of the file's previous analysis (``positions.SpanMemo``): unchanged
        statements are the same objects here, so their spans move with them."""
        return _memo(self._spans, inp, SpanMemo)

    def loop_memo(self, inp: object) -> LoopMemo:
        """What the loop shadows found in the file's previous CPython tree
        (``analysis.loops.LoopMemo``): unchanged statements are the same objects here."""
        return _memo(self._loops, inp, LoopMemo)

    def walk_memo(self, inp: object) -> WalkMemo:
        """The walk's state before the statement the file's previous edit changed
        (``analysis.resume.WalkMemo``): unchanged statements are the same objects here."""
        return _memo(self._walks, inp, WalkMemo)

    def parse(self, key: str, data: bytes) -> cst.Module:
        prev = self._last.get(key)
        module: cst.Module | None = None
        text: str | None = None
        parsed: str | None = None
        chunks: list[str] | None = None
        if prev is not None:
            try:
                text = data.decode(prev.module.encoding)
            except (UnicodeDecodeError, LookupError):
                text = None
            if text is not None and text == prev.text:
                self.stats.reused += 1
                self._remember(key, prev)
                return prev.module
            parsed = _as_parsed(text) if text is not None else None
            if parsed is not None and prev.parsed:
                got = _splice(prev, parsed, parsed is text)
                if got is not None:
                    module, chunks = got
                    self.stats.spliced += 1
        if module is None or chunks is None or text is None or parsed is None:
            module = cst.parse_module(data)  # raises as a full parse does
            self.stats.full += 1
            try:
                text = data.decode(module.encoding)
            except (UnicodeDecodeError, LookupError):
                self.forget(key)
                return module
            parsed = _as_parsed(text)
            if parsed is None or module.has_trailing_newline != (parsed is text):
                self.forget(key)  # an empty text, or one that ends in a backslash
                return module
            chunks = [module.code_for_node(s) for s in module.body]
            head, foot = _header(module), _footer(module)
            if head + "".join(chunks) + foot != parsed:
                self.forget(key)  # pragma: no cover - libcst reproduces its input
                return module
        else:  # spliced: the previous module's header and footer
            assert prev is not None
            head = prev.head if prev.head is not None else _header(module)
            foot = prev.foot if prev.foot is not None else _footer(module)
        self._remember(key, _Parsed(text, module, chunks, parsed, head, foot))
        return module

    def _remember(self, key: str, parsed: _Parsed) -> None:
        self._last[key] = parsed
        self._last.move_to_end(key)
        while len(self._last) > self.max_files:
            old, _ = self._last.popitem(last=False)
            self._spans.pop(old, None)
            self._walks.pop(old, None)
            self._loops.pop(old, None)


def _header(module: cst.Module) -> str:
    return "".join(module.code_for_node(line) for line in module.header)


def _footer(module: cst.Module) -> str:
    return "".join(module.code_for_node(line) for line in module.footer)


def _indented_start(text: str) -> bool:
    for line in text.splitlines(keepends=True):
        if line.strip() == "" and line in ("\n", "\r\n", "\r"):
            continue  # an empty line
        return line[:1] in (" ", "\t", "\f") or line.strip() == ""
    return False


_NEWLINE = re.compile(r"\r\n?|\n")


def _as_parsed(text: str) -> str | None:
    """The text libcst's parser reads for ``text``: ``text`` itself when it ends its last line;
    else ``text`` and the module's newline (the first one in it, else a line feed), which
    libcst appends before parsing and leaves out of the module's code again
    (``Module.has_trailing_newline`` False): the same statements, so a splice of that text
    with ``has_trailing_newline`` False is the full parse. None (parsed whole) for an empty
    text, and one without a newline at its end that ends in a backslash or has a ``\\r``
    that ends no ``\\r\\n`` (libcst's parser does not give such a text back)."""
    if text.endswith("\n"):
        return text
    if not text or text.endswith("\\") or text.count("\r") != text.count("\r\n"):
        return None
    m = _NEWLINE.search(text)
    return text + (m.group(0) if m is not None else "\n")


def _splice(prev: _Parsed, text: str, trailing: bool = True) -> tuple[cst.Module, list[str]] | None:
    """The module of ``text`` (libcst's parsed text, ``_as_parsed``) from ``prev``'s unchanged
    statements and a parse of the rest; ``trailing``: whether the file's text ends its last
    line (``Module.has_trailing_newline``)."""
    old = prev.module
    head = prev.head if prev.head is not None else _header(old)
    foot = prev.foot if prev.foot is not None else _footer(old)
    if not text.startswith(head) or not text.endswith(foot) or len(text) < len(head) + len(foot):
        return None
    rest = text[len(head) : len(text) - len(foot)]
    chunks = prev.chunks
    n = len(chunks)
    i, pos = 0, 0
    while i < n and rest.startswith(chunks[i], pos):
        pos += len(chunks[i])
        i += 1
    j, end = n, len(rest)
    while (
        j > i
        and end - len(chunks[j - 1]) >= pos
        and rest.startswith(chunks[j - 1], end - len(chunks[j - 1]))
    ):
        end -= len(chunks[j - 1])
        j -= 1
    middle = rest[pos:end]
    if not middle:
        return None  # only whole statements removed: rare, and the module's end may change
    # An indented comment or whitespace-only line after a compound statement belongs to that
    # statement's block in a full parse: at either edge of the re-parsed text, parse it all.
    if _indented_start(middle) or (j < n and _indented_start(chunks[j])):
        return None
    try:
        part = _parse_unvalidated(
            middle,
            cst.PartialParserConfig(
                default_indent=old.default_indent, default_newline=old.default_newline
            ),
        )
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None
    # Lines after the last statement, or before the first one at the top of the file, may
    # belong to the module's footer or header in a full parse: parse it all then.
    if part.footer or not part.body or (part.header and i == 0):
        return None
    body = list(part.body)
    if part.header:
        body[0] = body[0].with_changes(leading_lines=[*part.header, *body[0].leading_lines])
    new_body = [*old.body[:i], *body, *old.body[j:]]
    module = old.with_changes(body=new_body, has_trailing_newline=trailing)
    if len(body) == 1 and part.has_trailing_newline and _same_layout(part, old):
        # one statement (an edit inside a class or function): its code in the new module is
        # the text, without generating it (about a third of the splice). libcst gives back
        # what it parsed (``part.code == middle``); ``part`` has no footer, its header went
        # into the statement's leading lines, it ends its last line as the text does, and
        # it was parsed with the module's indentation and line end, which its blocks keep
        # only where they differ from them: the statement's code is the same in ``part``
        # and in the new module
        return module, [*chunks[:i], middle, *chunks[j:]]
    # the statements' code in the new module must be the text (a block indented otherwise
    # than the module's default is generated with the default: then parse it all)
    new_chunks = [module.code_for_node(s) for s in body]
    if "".join(new_chunks) != middle:
        return None
    return module, [*chunks[:i], *new_chunks, *chunks[j:]]


def _same_layout(part: cst.Module, old: cst.Module) -> bool:
    return part.default_indent == old.default_indent and (
        part.default_newline == old.default_newline
    )


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # PEP 263


def _plain_text(data: bytes) -> str | None:
    """The text of ``data`` when CPython's parse of it may be spliced: UTF-8 without a
    byte-order mark (a coding cookie, if any, says UTF-8), ``\n`` line ends, no ``__future__``
    import (which must come first and changes the rules), no null byte; else None."""
    if data.startswith(b"\xef\xbb\xbf") or b"\r" in data or b"\0" in data or b"\f" in data:
        return None
    if b"__future__" in data:
        return None
    for line in data.split(b"\n", 2)[:2]:
        m = _COOKIE.match(line)
        if m is not None and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
            return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _last_line(stmt: ast.stmt) -> int:
    return stmt.end_lineno if stmt.end_lineno is not None else stmt.lineno


def _first_line(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return decorators[0].lineno if decorators else stmt.lineno


def _py_splice(prev: _PyParsed, lines: list[str], stats: PyParseStats) -> ast.Module | None:
    old, body = prev.lines, prev.tree.body
    if not body or prev.tree.type_ignores:
        return None
    n = min(len(old), len(lines))
    first = 0  # lines 1..first are the same
    while first < n and old[first] == lines[first]:
        first += 1
    if first == len(old) == len(lines):
        return prev.tree  # the same text
    keep_head = 0
    while keep_head < len(body) and _last_line(body[keep_head]) <= first:
        keep_head += 1
    # a statement that starts on the last kept statement's line (``a = 1; b = (``) takes the
    # line with it
    while 0 < keep_head < len(body) and _first_line(body[keep_head]) <= _last_line(
        body[keep_head - 1]
    ):
        keep_head -= 1
    start = _last_line(body[keep_head - 1]) if keep_head else 0  # re-parse from line start + 1
    end = len(lines)  # through this line (1-based)
    keep_tail = len(body)
    shift = len(lines) - len(old)  # the lines the statements after the edit move by
    same = 0  # the last `same` lines of both texts are the same, after the first `first`
    while same < n - first and old[-1 - same] == lines[-1 - same]:
        same += 1
    last = len(old) - same  # old lines after `last` are the same (moved by `shift`)
    while keep_tail > keep_head and _first_line(body[keep_tail - 1]) > last:
        keep_tail -= 1
    if keep_tail < len(body):
        end = _first_line(body[keep_tail]) + shift - 1
    if start and lines[start - 1].rstrip("\n").endswith("\\"):
        return None  # the kept statement's last line joins the next one
    middle = "".join(lines[start:end])
    # the first line of code of the re-parsed text must start a statement at the top level
    for ln in lines[start:end]:
        s = ln.lstrip(" \t")
        if s.strip() == "" or s.startswith("#"):
            continue
        if len(s) != len(ln):
            return None
        break
    try:
        part = ast.parse("\n" * start + middle)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the whole text's parse gives the error (or what it makes of it)
    if part.type_ignores:
        return None
    if part.body and keep_tail < len(body):
        if _last_line(part.body[-1]) >= _first_line(body[keep_tail]) + shift:
            return None
    if shift:
        # the kept statements after the edit are the previous tree's, which is dropped: move
        # their lines in place
        lined = prev.lined
        for stmt in body[keep_tail:]:
            nodes = lined.get(id(stmt))
            if nodes is None:
                nodes = lined[id(stmt)] = _lined_nodes(stmt)
            _move_lines(nodes, shift)
    stats.reparsed_lines += end - start
    stats.kept_after += keep_tail < len(body)
    return ast.Module(body=[*body[:keep_head], *part.body, *body[keep_tail:]], type_ignores=[])


def _parse_unvalidated(text: str, config: cst.PartialParserConfig) -> cst.Module:
    """``libcst.parse_module(text, config)`` without re-validating the nodes its parser builds
    (``engine.parse_unvalidated``: about a third of the parse of a changed class)."""
    from compilelint.static.engine import _NO_VALIDATION, _install_validation_hook

    if not _install_validation_hook():
        return cst.parse_module(text, config=config)
    _NO_VALIDATION.on = True
    try:
        return cst.parse_module(text, config=config)
    finally:
        _NO_VALIDATION.on = False


def _lined_nodes(node: ast.AST) -> list[Any]:
    """The nodes under ``node`` (itself included) that have lines (no type comments here; the
    shared context and operator nodes have none)."""
    out: list[Any] = []
    stack = [node]
    while stack:
        x: Any = stack.pop()
        if "lineno" in x._attributes:
            out.append(x)
        for name in x._fields:
            v = getattr(x, name, None)
            if type(v) is list:
                stack.extend(c for c in v if isinstance(c, ast.AST))
            elif isinstance(v, ast.AST):
                stack.append(v)
    return out


def _move_lines(nodes: list[Any], shift: int) -> None:
    """``ast.increment_lineno`` of a statement, on its ``_lined_nodes``."""
    for x in nodes:
        x.lineno += shift
        end = x.end_lineno
        if end is not None:
            x.end_lineno = end + shift


def _memo(store: dict[str, M], inp: object, make: Callable[[], M]) -> M:
    """The memo of the file ``inp`` names (its real path when it has one) in ``store``, made
    on first use."""
    key = str(getattr(inp, "real", inp))
    got = store.get(key)
    if got is None:
        got = store[key] = make()
    return got
