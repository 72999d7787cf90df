"""Phase 2: which scanned functions break the graph when traced code calls them.

A call of a function dynamo cannot trace to its end breaks the *caller* at the call: dynamo
compiles the caller up to the call, runs the call, and resumes in a new function after it. A
check that needs "this call breaks" (CL304: a size live across the break) cannot know it in
phase 1, where only the function's own body is seen; it records the call's refs in
``Candidate.args["via"]`` and :meth:`CalleeBreaks.keep` decides here, from the kept break
candidates of the callee (and, transitively, of what it calls).

Only kept candidates count (reachability, tensor inference and parameter conditions already
applied), and not those marked latent (a break only some inputs reach).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from compilelint.static.analysis.facts import Candidate
from compilelint.static.analysis.project import FKey, Project

_MAX_DEPTH = 4  # call depth searched for a break below the called function
RECOMPILE_LIMIT_GB = "Dynamo recompile limit exceeded"


def is_break_rule(rule: Any) -> bool:
    """A catalogue rule that predicts a graph break (not a recompile)."""
    gbs = [g for g in getattr(rule, "gb_types", ()) if g != RECOMPILE_LIMIT_GB]
    return bool(gbs) and getattr(rule, "category", "") != "recompiles"


@cache
def break_codes() -> frozenset[str]:
    """Codes of the catalogue's break rules."""
    from compilelint.catalog import load_catalog

    return frozenset(c for c, r in load_catalog().rules.items() if is_break_rule(r))


class CalleeBreaks:
    """Memoised "does a call of this function break the caller" over one project view."""

    def __init__(self, project: Project, break_codes: frozenset[str]) -> None:
        self.project = project
        self.codes = break_codes
        self._direct: dict[str, set[str]] = {}  # path -> quals with a kept break candidate
        self._memo: dict[FKey, bool] = {}

    def _broken_in(self, path: str) -> set[str]:
        got = self._direct.get(path)
        if got is None:
            f = self.project.files[path]
            got = {
                c.func
                for c in self.project.kept(f)
                if c.code in self.codes and not c.args.get("latent")
            }
            self._direct[path] = got
        return got

    def breaks(self, key: FKey, depth: int = 0, stack: frozenset[FKey] = frozenset()) -> bool:
        if key in self._memo:
            return self._memo[key]
        if depth > _MAX_DEPTH or key in stack:
            return False
        p = self.project
        got = key[1] in self._broken_in(key[0])
        if not got:
            fn = p.fn(key)
            for c in fn.calls:
                t = p._target(key[0], c.ref)
                if t is None or t[0] == key or p.fn(t[0]).disabled:
                    continue
                if self.breaks(t[0], depth + 1, stack | {key}):
                    got = True
                    break
        self._memo[key] = got
        return got

    def keep(self, path: str, c: Candidate) -> bool:
        """A candidate without ``via`` is kept; one with it when a call target breaks."""
        via = c.args.get("via")
        if not via:
            return True
        for ref in via.split("\n"):
            t = self.project._target(path, ref)
            if t is None:
                continue
            callee = self.project.fn(t[0])
            if callee.disabled or callee.name == "__init__":
                continue
            if self.breaks(t[0]):
                return True
        return False
