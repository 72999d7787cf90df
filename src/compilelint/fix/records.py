"""Plain data of the fix stage (no logic): what a codemod proposes, what happened to each
finding, what verification saw, and what a run wrote."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Union

import libcst as cst

from compilelint.fix.copyspec import CopySpec
from compilelint.model import FixSafety

Replacement = Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel]  # noqa: UP007
Status = Literal["applied", "unsafe", "no-fix", "conflict", "rejected", "proposed"]


@dataclass
class Rewrite:
    """A codemod's proposal for one finding: replace each target node (an original node of the
    parsed file, by identity) with its replacement. ``imports``: modules the new code names."""

    title: str
    changes: Sequence[tuple[cst.CSTNode, Replacement]]
    imports: tuple[str, ...] = ()
    mergeable: bool = False  # adjacent replacements of mergeable rewrites share one guard
    # the lines (first, last; in the text it was planned on) where torch records what this
    # fix removes when they lie beyond the finding: a counter's guard fails at its first read
    reach: tuple[int, int] | None = None


@dataclass
class Proposal:
    """A codemod's patch that is never applied: the fix engine renders it as a diff (the
    record's ``patch``) with ``reason``, why it is not safe to apply by itself (say, an
    equivalence the codemod cannot show). Same shape as :class:`Rewrite`."""

    title: str
    changes: Sequence[tuple[cst.CSTNode, Replacement]]
    reason: str
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class NoFix:
    """A codemod declined: the code cannot be rewritten mechanically. ``reason`` says why."""

    reason: str


@dataclass(frozen=True)
class FixRecord:
    """One fixable finding and what happened to it.

    ``line``/``col`` are in the file as it was read (before any fix); ``key`` identifies the
    finding across edits elsewhere in the file (rule, normalized line, function).
    ``edits`` are text replacements in the same coordinates (filled for applied fixes and for
    fixes that were offered but not applied).
    """

    rule: str
    path: str
    line: int
    col: int
    message: str
    safety: FixSafety
    status: Status
    title: str = ""
    reason: str = ""
    key: str = ""
    end_line: int = 0  # last line of the rewritten code in the file as read
    reach: tuple[int, int] | None = None  # Rewrite.reach, in the file as read
    patch: str = ""  # status "proposed": the unified diff of the proposal on its own


@dataclass(frozen=True)
class FileChange:
    """A file the run changed (or would change). Contents are bytes as on disk."""

    path: str  # display path
    real: str  # absolute real path
    before: bytes
    after: bytes


@dataclass(frozen=True)
class FixCheck:
    """What --verify saw for one fix: torch's counts at the fix's lines before and after."""

    rule: str
    path: str
    line: int
    title: str
    breaks_before: int
    breaks_after: int
    recompiles_before: int
    recompiles_after: int
    new_breaks: tuple[str, ...]  # "path:line gb_type" of breaks the fix introduced
    outputs: str  # "match" | "differ: ..." | "not compared: ..."
    accepted: bool
    reason: str


@dataclass(frozen=True)
class Verification:
    """The --verify part of a run: per fix checks and the totals of each dynamic run."""

    checks: tuple[FixCheck, ...]
    before: dict[str, object]  # dynamic summary of the original
    after: dict[str, object]  # dynamic summary with the accepted fixes (empty: none accepted)
    runs: int  # dynamic runs made
    error: str | None = None  # the original could not be run (nothing is applied)
    outcomes: tuple[BreakOutcome, ...] = ()  # one per break/recompile observed before fixing
    configs: tuple[ConfigResult, ...] = ()
    observed: int = 0  # breaks at the project's lines and recompiles the original run recorded


Outcome = Literal["fixed", "proposed", "no remedy"]


@dataclass(frozen=True)
class BreakOutcome:
    """What ``fix --verify`` did about one break (or recompile) the dynamic stage observed in
    the original: exactly one ``outcome`` per observed break, none silent.

    ``fixed``: gone in the verified fixed run; ``by`` says what removed it (a rewrite at this
    line, a rewrite elsewhere, or a config setting). ``proposed``: a patch (``patch``) is shown
    but not applied; ``reason`` says why. ``no remedy``: ``reason`` says why each candidate
    (codemod, config) did not apply, ``recipe`` what to do by hand."""

    what: Literal["break", "recompile"]
    path: str  # display path, in the file as read
    line: int
    gb_id: str | None
    kind: str  # torch's gb_type, or the failed guard of a recompile
    rule: str  # the rule that describes the line (compilelint.breakkinds.label_break)
    code: str  # the line's text
    count: int
    outcome: Outcome
    by: str = ""
    reason: str = ""
    recipe: str = ""
    patch: str = ""
    config: tuple[str, ...] = ()  # a config remedy's lines to add


@dataclass(frozen=True)
class ConfigResult:
    """A config remedy tried by ``fix --verify``: the settings were applied to a run of the
    fixed copy (spec ``config``/``compile``). ``accepted``: breaks of its GB ids (or the
    recompiles) were removed, none added, the outputs match."""

    name: str
    lines: tuple[str, ...]
    settings: dict[str, object]
    compile: dict[str, object]
    accepted: bool
    reason: str
    breaks_before: int
    breaks_after: int
    recompiles_before: int
    recompiles_after: int
    written: str = ""  # "path:line" where it was written in the user's code ("": report only)


@dataclass
class FixRun:
    """Result of :func:`compilelint.fix.api.fix_paths`: records for every fixable finding,
    the files changed (written unless ``diff``), and the remaining static findings."""

    records: list[FixRecord]
    changes: list[FileChange]
    written: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, why) not written
    verification: Verification | None = None
    iterations: int = 0
    copy_spec: CopySpec | None = None  # fix_copy: the CopySpec that runs the fixed copy
    outcomes: list[BreakOutcome] = field(default_factory=list)  # --verify: per observed break
    configs: list[ConfigResult] = field(default_factory=list)  # --verify: config remedies tried
