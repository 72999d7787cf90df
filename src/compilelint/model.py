"""Plain data types shared by every layer. No logic lives here.

The JSON contract (``version``, ``torch``, ``findings``, ``errors``, ``summary``) is built from
these types by :mod:`compilelint.report.json_reporter`; later stages add fields, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "info"]
FixSafety = Literal["none", "safe", "unsafe"]
Stage = Literal["static", "dynamic", "both"]

SEVERITY_ORDER: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Example:
    """One fenced example of a rule: ``valid`` or ``invalid`` source."""

    kind: Literal["valid", "invalid"]
    code: str
    title: str = ""


@dataclass(frozen=True)
class Rule:
    """A catalogue entry, loaded from ``rules/CLnnn.md``."""

    code: str
    name: str
    category: str
    severity: Severity
    default: bool
    gb_types: tuple[str, ...]
    gb_ids: tuple[str, ...]
    torch_min: str | None
    torch_max: str | None
    fix: FixSafety
    summary: str
    message: str
    fix_title: str
    sections: tuple[tuple[str, str], ...]
    examples: tuple[Example, ...]
    path: str
    observes: tuple[str, ...] = ()
    detector: str = "static"  # static: a check module; engine: the engine itself; dynamic
    verify: str = "breaks"  # what torch must show for invalid examples: breaks|recompiles|none
    verify_reason: str = ""
    fix_reason: str = ""  # why the fix is safe, unsafe, or why there is none


@dataclass(frozen=True)
class Finding:
    """One diagnostic. ``stage`` says whether it was predicted, observed, or both."""

    rule: str
    name: str
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    severity: Severity
    message: str
    fix: str
    stage: Stage = "static"
    function: str = ""
    line_text: str = ""
    # Filled by the dynamic stage and by merge/rank (issue: dynamic stage).
    gb_type: str | None = None
    gb_id: str | None = None
    hints: tuple[str, ...] = ()
    count: int = 1
    frames: tuple[Frame, ...] = ()
    rank: int = 0
    impact: float = 0.0
    observed: bool | None = None  # None: no dynamic run; else whether torch reported it
    # Whether the dynamic run's line-coverage pass executed this finding's line (None: no run,
    # or the run recorded no coverage).
    reached: bool | None = None
    # Filled by the fix stage when the rule has an autofix for this finding (SARIF ``fixes``).
    edits: tuple[Edit, ...] = ()
    # "name==version" of the installed distribution whose code the finding is in (third-party
    # code reached from the user's call at path:line; ``frames`` leads there). None: user code.
    package: str | None = None
    # Why the break is not certain to happen (None: compiled code reaches it and it breaks):
    # the static note, e.g. "latent: no public entry point of the package reaches it under
    # default arguments" (library mode, ``--report-untraced``) or a break that only some inputs
    # reach. JSON ``latent``, SARIF ``properties.latent``.
    latent: str | None = None
    # The line of the break, earlier in the same frame and reached on every iteration of a loop,
    # at which torch 2.13 gives up on the frame ("graph break in loop": it runs eagerly), so
    # torch does not report this break until that one is fixed (``static/analysis/loops.py``).
    # JSON ``behind``, SARIF ``properties.behind``. None: not behind another break.
    behind: int | None = None
    # Module state changed in traced code (CL501): the line where traced code first reads it,
    # which is where dynamo installs the guard and torch reports the recompile, when it is not
    # the finding's own line (``static/analysis/state.py``). JSON ``guard_line``, SARIF
    # ``properties.guard_line``. None: the guard is at the finding's line.
    guard_line: int | None = None


@dataclass(frozen=True)
class Edit:
    """One text replacement of an autofix, in the same coordinates as :class:`Finding`
    (1-based lines and columns, ``end_col`` exclusive)."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    content: str


@dataclass(frozen=True)
class Frame:
    """One frame of a user stack (innermost last in a stack)."""

    path: str
    line: int
    function: str


@dataclass(frozen=True)
class FileError:
    """A problem with one input that is not a finding (kept as data, never raised)."""

    path: str
    message: str
    kind: str = "error"


@dataclass(frozen=True)
class Summary:
    files: int
    lines: int
    findings: int
    by_rule: dict[str, int]
    seconds: float
    cached: int = 0


@dataclass(frozen=True)
class Report:
    version: str
    torch: str | None
    findings: tuple[Finding, ...]
    errors: tuple[FileError, ...]
    summary: Summary
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ObservedBreak:
    """One deduplicated graph break: key (gb_type, torch's file, torch's line)."""

    gb_type: str
    gb_id: str | None
    reason: str
    explanation: str
    hints: tuple[str, ...]
    context: str
    loc_path: str  # torch's "Graph break in user code at" location (dedup key)
    loc_line: int
    path: str | None  # the user's file and line the break is attributed to
    line: int | None
    function: str
    frames: tuple[Frame, ...]
    package: str | None
    count: int
    in_loop: bool = False  # torch gave up on the frame because of a break in a loop (GB7000)
    frame_skipped: bool = False  # the whole enclosing frame runs eagerly

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.gb_type, self.loc_path, self.loc_line)


@dataclass(frozen=True)
class ObservedRecompile:
    function: str
    path: str | None  # user line that installed the failing guard
    line: int | None
    guard: str
    reason: str
    hint: str | None
    count: int
    hit_limit: bool
    code_path: str | None = None  # the recompiled function's file and first line
    code_line: int | None = None
    frames: tuple[Frame, ...] = ()
    code_name: str = ""  # torch's name for the recompiled code (a resume function's, say)
    # Filled by guards.describe (dynamic.api): the guard in the user's names, and why.
    readable: str = ""
    explanation: str = ""
    every_call: bool = False
    invalidated: bool = False  # "Cache line invalidated ...": not a failed guard
