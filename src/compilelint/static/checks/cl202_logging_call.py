"""CL202: calls of ``logging`` / ``logging.Logger`` methods inside compiled code."""

from __future__ import annotations

import libcst as cst

from compilelint.static.analysis.walker import FileWalker, self_attr
from compilelint.static.checks.base import Check

_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "fatal",
        "log",
        "isEnabledFor",
        # transformers' loggers: functools.lru_cache-wrapped logging methods
        "warning_once",
        "info_once",
    }
)
_MODULE_FUNCS = frozenset(
    f"logging.{m}"
    for m in ("debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log")
)


class LoggingCall(Check):
    CODE = "CL202"

    def __init__(self, walker: FileWalker) -> None:
        super().__init__(walker)
        self._loggers: set[str] = set()  # module-level names bound to loggers
        self._attrs: set[tuple[str, str]] = set()  # (class qual, attr) bound to loggers

    def _is_get_logger(self, e: cst.BaseExpression) -> bool:
        if not isinstance(e, cst.Call):
            return False
        q = self.qualify(e.func) or ""
        return q in ("logging.getLogger", "logging.get_logger") or q.endswith(
            (".logging.getLogger", ".logging.get_logger")
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        if not self._is_get_logger(node.value):
            return
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name) and not self.w.in_function:
                self._loggers.add(tgt.value)
            elif (attr := self_attr(tgt)) is not None and self.w.cls is not None:
                self._attrs.add((self.w.cls.qual, attr))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _METHODS:
            return
        recv = func.value
        q = self.qualify(func)
        if q in _MODULE_FUNCS:
            self.report(node, call=f"{q}()", **self.diagnostic_branch())
            return
        if self._is_logger(recv):
            self.report(
                node, call=f"{self.code(recv, 30)}.{func.attr.value}()", **self.diagnostic_branch()
            )

    def _is_logger(self, recv: cst.BaseExpression) -> bool:
        if isinstance(recv, cst.Name):
            if recv.value not in self._loggers:
                return False
            # a local variable of the same name shadows the module-level logger
            s = self.w.scope
            while s is not None and s.facts is not None:
                if recv.value in s.env:
                    return False
                s = s.parent
            return True
        if isinstance(recv, cst.Attribute):
            cls = self.w.cls
            attr = self_attr(recv)
            return cls is not None and attr is not None and (cls.qual, attr) in self._attrs
        return self._is_get_logger(recv)
