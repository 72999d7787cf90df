"""Line/column positions for a handful of nodes, without libcst's full metadata pass.

libcst's ``PositionProvider`` records a range for every node of the module, which costs more
than parsing. Findings are rare, so we run one code generation pass that only records the
nodes we ask for, counting lines lazily from the emitted tokens, and stop as soon as the last
requested node has been generated.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

Span = tuple[int, int, int, int]  # line, col, end_line, end_col (1-based, end col exclusive+1)

_NULL = nullcontext()


class _Done(Exception):
    pass


class _PosState(CodegenState):
    def __init__(self, module: cst.Module, targets: dict[int, cst.CSTNode]) -> None:
        super().__init__(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        self.targets = targets
        self.remaining = len(targets)
        self.out: dict[int, Span] = {}
        self._counted = 0
        self._line = 1
        self._col = 0

    def _pos(self) -> tuple[int, int]:
        toks = self.tokens
        for i in range(self._counted, len(toks)):
            t = toks[i]
            n = t.count("\n") + t.count("\r") - t.count("\r\n")  # \n, \r\n and old-Mac \r
            if n:
                self._line += n
                self._col = len(t) - max(t.rfind("\n"), t.rfind("\r")) - 1
            else:
                self._col += len(t)
        self._counted = len(toks)
        return self._line, self._col

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Any:
        if id(node) in self.targets:
            return self._record(node)
        return _NULL

    @contextmanager
    def _record(self, node: cst.CSTNode) -> Iterator[None]:
        line, col = self._pos()
        yield
        eline, ecol = self._pos()
        if id(node) not in self.out:
            self.out[id(node)] = (line, col + 1, eline, ecol + 1)
            self.remaining -= 1
            if self.remaining <= 0:
                raise _Done


def spans(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Span]:
    """Map ``id(node)`` to its 1-based (line, col, end_line, end_col) span."""
    targets = {id(n): n for n in nodes}
    if not targets:
        return {}
    state = _PosState(module, targets)
    try:
        module._codegen(state)
    except _Done:
        pass
    return state.out
