"""What the recompile finders of :mod:`.loops`, :mod:`.sizes` and :mod:`.state` share: the
recompiles one finder adds to those predicted before it (:class:`Added`: one per line, none on a
line already predicted, each file's tree read once), and the recompile of a frame's input
(:func:`traced_frame`, :func:`frame_input_recompile`)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from compilelint.static.analysis.trees import parsed_tree
from compilelint.static.predict.prediction import FKey, PredictedRecompile

if TYPE_CHECKING:
    from compilelint.static.analysis.breakpoints import FrameInput


class Added:
    """The recompiles a finder adds (:attr:`out`) to ``recs``, those found before it: one per
    ``(path, line)``, none on a line ``recs`` holds. :meth:`tree` is CPython's tree of a file
    (:func:`~compilelint.static.analysis.trees.parsed_tree` with ``source`` and ``known``),
    read once per finder."""

    def __init__(
        self,
        recs: Iterable[PredictedRecompile],
        source: Callable[[str], bytes | None] | None = None,
        known: Callable[[str], ast.Module | None] | None = None,
    ) -> None:
        self.out: list[PredictedRecompile] = []
        self._taken = {(r.path, r.line) for r in recs}
        self._trees: dict[str, ast.Module | None] = {}
        self._source = source
        self._known = known

    def taken(self, path: str, line: int) -> bool:
        """A recompile is predicted at ``line`` of ``path`` already."""
        return (path, line) in self._taken

    def add(self, rec: PredictedRecompile) -> None:
        """``rec``, unless its line has a recompile already."""
        if (rec.path, rec.line) in self._taken:
            return
        self._taken.add((rec.path, rec.line))
        self.out.append(rec)

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            self._trees[path] = parsed_tree(path, self._source, self._known)
        return self._trees[path]


def traced_frame(fi: FrameInput, keyset: set[FKey]) -> bool:
    """The frame ``fi`` is an input of is traced: its function, or the function that breaks
    (``fi.frame``, where the parameter is first read in a callee), is in ``keyset``."""
    frame = fi.frame or fi.function
    return (fi.path, fi.function) in keyset or any(k[1] == frame for k in keyset)


def frame_input_recompile(fi: FrameInput, guard: str, reason: str, fix: str) -> PredictedRecompile:
    """The one recompile of the frame ``fi`` is an input of, at the parameter's first use."""
    return PredictedRecompile(
        fi.path, fi.line, fi.function.rsplit(".", 1)[-1], fi.param, guard, 1, reason, fix
    )
