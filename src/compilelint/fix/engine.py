"""The fix engine: the static stage's findings in, rewritten sources out.

It runs the static engine (which decides what is traced and what is a tensor), hands each
finding of a fixable rule to that rule's codemod at the finding's position, applies the
non-overlapping rewrites with one libcst transformer per file, and repeats on the result until
nothing more applies (overlapping fixes land in a later round, like ruff). Nothing is written
here: sources stay in memory (the caller writes them with :mod:`compilelint.fix.writer`).
"""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from compilelint.catalog import Catalog, load_catalog
from compilelint.config import Config, load_config
from compilelint.fingerprint import content_hash
from compilelint.fix.codemods import all_codemods
from compilelint.fix.context import FixContext
from compilelint.fix.evidence import observed_lines
from compilelint.fix.foreign import foreign_attrs_added
from compilelint.fix.library_calls import library_call_fix
from compilelint.fix.records import FileChange, FixRecord, NoFix, Proposal, Replacement, Rewrite
from compilelint.fix.textdiff import LineMap, edits_between
from compilelint.model import Edit, Finding
from compilelint.static.analysis.project import Project
from compilelint.static.engine import Cache, ScanResult, module_name, resolve_settings, scan

MAX_ROUNDS = 8

Key = tuple[str, str]  # (display path, content hash of the finding)


def finding_key(f: Finding) -> Key:
    return (f.path, content_hash(f))


@dataclass
class Planned:
    finding: Finding
    safety: str
    result: Rewrite | Proposal | NoFix
    patch: str = ""  # a Proposal's unified diff on the text it was planned on


@dataclass
class FilePlan:
    """The codemods' answers for one file's findings, on one parse of it."""

    path: str
    real: str
    source: bytes
    module: cst.Module
    ctx: FixContext
    planned: list[Planned] = field(default_factory=list)

    @property
    def torch_bound(self) -> bool:
        return self.ctx.torch_bound


def fixable_codes(catalog: Catalog) -> dict[str, str]:
    """Rule code -> fix safety, for rules that declare a fix and have a codemod."""
    mods = all_codemods()
    return {c: r.fix for c, r in catalog.rules.items() if r.fix != "none" and c in mods}


def plan_file(
    path: str,
    real: str,
    source: bytes,
    findings: Iterable[Finding],
    catalog: Catalog,
    project: Project | None,
    module: cst.Module | None = None,
) -> FilePlan | None:
    """Ask each finding's codemod for a rewrite. None when the file does not parse. ``module``
    is ``source`` already parsed (the editor server keeps it)."""
    try:
        module = module if module is not None else cst.parse_module(source)
    except (cst.ParserSyntaxError, UnicodeDecodeError, LookupError, SyntaxError, ValueError):
        return None
    mod_name, is_pkg = module_name(Path(real))
    findings = list(findings)
    ctx = FixContext(
        module,
        path=path,
        module_name=mod_name,
        is_package=is_pkg,
        project=project,
        observed=observed_lines(findings),
    )
    mods = all_codemods()
    plan = FilePlan(path, real, source, module, ctx)
    for f in findings:
        mod = mods.get(f.rule)
        rule = catalog.rules.get(f.rule)
        if mod is None or rule is None or rule.fix == "none":
            continue
        if f.package is not None:
            # the finding describes third-party code reached from this line: a codemod reads
            # the user's line and would rewrite the call as if it were the library's statement;
            # what can move is the user's call, out of the compiled region
            try:
                lib = library_call_fix(ctx, f)
            except Exception as exc:  # a codemod bug must not lose the user's run
                lib = NoFix(f"internal error in the library-call rewrite ({exc})")
            plan.planned.append(Planned(f, "unsafe", lib, ""))
            continue
        try:
            res = mod.fix(ctx, f)
        except Exception as exc:  # a codemod bug must not lose the user's run
            if os.environ.get("COMPILELINT_DEBUG_CODEMODS"):
                raise
            res = NoFix(f"internal error in the {f.rule} codemod ({type(exc).__name__}: {exc})")
        if isinstance(res, (Rewrite, Proposal)):
            stray = foreign_attrs_added(ctx, res)
            if stray is not None:
                res = NoFix(
                    f"internal: the {f.rule} rewrite would read `{stray}`, an attribute of a "
                    "module that the original code does not read: refused"
                )
        patch = ""
        if isinstance(res, Proposal):
            try:
                patch = proposal_diff(path, module, res, ctx.torch_bound)
            except Exception as exc:  # a proposal that does not render is no proposal
                res = NoFix(f"the {f.rule} proposal could not be rendered ({exc})")
        plan.planned.append(Planned(f, rule.fix, res, patch))
    return plan


def proposal_diff(path: str, module: cst.Module, prop: Proposal, torch_bound: bool) -> str:
    """The unified diff of ``prop`` applied on its own to ``module`` (never written)."""
    from compilelint.fix.textdiff import unified_diff

    after = _transform(module, [prop], torch_bound)
    return unified_diff(path, module.code, after.code)


# ---------------------------------------------------------------------------- applying
class _Apply(cst.CSTTransformer):
    def __init__(self, rewrites: Sequence[Rewrite | Proposal]) -> None:
        # id(target) -> its replacement; the targets are nodes of the module transformed,
        # which the caller holds for the whole transform
        self.changes: dict[int, Replacement] = {}
        # id(guard) -> the guard: the guards this round made, and those merged from them.
        # Each entry holds its node: a merged guard that a later merge replaces is freed, and
        # an id kept without it would be taken by a node made later (an unrelated `if` that
        # the transform rebuilds), which would then be merged into an adjacent guard
        self.mergeable: dict[int, cst.If] = {}
        for rw in rewrites:
            merge = isinstance(rw, Rewrite) and rw.mergeable
            for target, new in rw.changes:
                self.changes[id(target)] = new
                if merge and isinstance(new, cst.If):
                    self.mergeable[id(new)] = new

    # a replacement may be a node of another type than the one it replaces (an ``if`` for an
    # expression statement), which libcst's generic signature does not allow
    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> Replacement:  # type: ignore[override]
        got = self.changes.get(id(original))
        if got is not None:
            return got
        if self.mergeable and isinstance(updated, cst.IndentedBlock):
            return self._merge(updated)
        return updated

    def _merge(self, block: cst.IndentedBlock) -> cst.IndentedBlock:
        """Adjacent guards made in this round share one ``if``."""
        out: list[cst.BaseStatement] = []
        changed = False
        for st in block.body:
            prev = out[-1] if out else None
            if (
                prev is not None
                and id(st) in self.mergeable
                and id(prev) in self.mergeable
                and isinstance(st, cst.If)
                and isinstance(prev, cst.If)
            ):
                inner = st.body.body
                first = inner[0].with_changes(leading_lines=[*st.leading_lines])
                body = [*prev.body.body, first, *inner[1:]]
                merged = prev.with_changes(body=prev.body.with_changes(body=body))
                self.mergeable[id(merged)] = merged
                out[-1] = merged
                changed = True
                continue
            out.append(st)
        return block.with_changes(body=out) if changed else block


def apply_rewrites(plan: FilePlan, rewrites: list[Rewrite]) -> bytes:
    """The file's bytes with ``rewrites`` applied (and ``import torch`` added when needed)."""
    if not rewrites:
        return plan.source
    return _transform(plan.module, rewrites, plan.torch_bound).bytes


def _transform(
    module: cst.Module, rewrites: Sequence[Rewrite | Proposal], torch_bound: bool
) -> cst.Module:
    new = module.visit(_Apply(rewrites))
    wanted = {m for rw in rewrites for m in rw.imports}
    if torch_bound:
        wanted.discard("torch")  # the file names torch already (maybe through an alias)
    if wanted:
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext()
        for m in sorted(wanted):
            AddImportsVisitor.add_needed_import(context, m)
        new = AddImportsVisitor(context).transform_module(new)
    return new


def _spans(plan: FilePlan, rw: Rewrite, ctx_spans: dict[int, tuple[int, int, int, int]]) -> list:
    return [ctx_spans[id(t)] for t, _ in rw.changes if id(t) in ctx_spans]


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return (a[0], a[1]) < (b[2], b[3]) and (b[0], b[1]) < (a[2], a[3])


def select(
    plan: FilePlan,
    *,
    unsafe: bool,
    accept: Callable[[Finding], bool] | None = None,
) -> tuple[list[Planned], list[Planned], list[Planned]]:
    """(chosen, deferred because they overlap a chosen one, not allowed) rewrites."""
    spans: dict[int, tuple[int, int, int, int]] = {}
    wanted = [
        p
        for p in plan.planned
        if isinstance(p.result, Rewrite)
        and (p.safety == "safe" or unsafe)
        and (accept is None or accept(p.finding))
    ]
    skipped = [p for p in plan.planned if isinstance(p.result, Rewrite) and p not in wanted]
    for p in wanted:
        for t, _ in p.result.changes:  # type: ignore[union-attr]
            try:
                spans[id(t)] = plan.ctx.span(t)
            except KeyError:
                pass
    chosen: list[Planned] = []
    deferred: list[Planned] = []
    taken: list[tuple[int, int, int, int]] = []
    seen_targets: dict[frozenset[int], Planned] = {}
    for p in sorted(wanted, key=lambda p: (p.finding.line, p.finding.col, p.finding.rule)):
        rw = p.result
        assert isinstance(rw, Rewrite)
        ids = frozenset(id(t) for t, _ in rw.changes)
        if ids in seen_targets:  # the same rewrite for another finding (one counter, 2 steps)
            chosen.append(p)
            continue
        mine = _spans(plan, rw, spans)
        if any(_overlap(a, b) for a in mine for b in taken):
            deferred.append(p)
            continue
        taken.extend(mine)
        seen_targets[ids] = p
        chosen.append(p)
    return chosen, deferred, skipped


def unique_rewrites(chosen: list[Planned]) -> list[Rewrite]:
    out: list[Rewrite] = []
    seen: set[frozenset[int]] = set()
    for p in chosen:
        rw = p.result
        assert isinstance(rw, Rewrite)
        ids = frozenset(id(t) for t, _ in rw.changes)
        if ids not in seen:
            seen.add(ids)
            out.append(rw)
    return out


def decode(data: bytes) -> str:
    """Text of a Python source as libcst reads it (encoding cookie or BOM honoured)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------- the loop
@dataclass
class EngineResult:
    records: list[FixRecord]
    changes: list[FileChange]
    scan: ScanResult  # the static scan of the fixed sources
    rounds: int


def run_fixes(
    paths: list[str],
    cfg: Config | None = None,
    *,
    catalog: Catalog | None = None,
    unsafe: bool = False,
    only: set[Key] | None = None,
    exclude: set[Key] | None = None,
    sources: dict[str, bytes] | None = None,
    no_cache: bool = False,
    max_rounds: int = MAX_ROUNDS,
    extra: Sequence[Finding] = (),
) -> EngineResult:
    """Fix ``paths`` in memory. ``only``/``exclude`` pick fixes by :func:`finding_key` (keys
    of findings in the files as read); ``sources`` overrides file contents by real path;
    ``extra``: findings the static stage did not make (torch observed them, see
    :mod:`compilelint.fix.observed`), offered in the first round."""
    cfg = cfg if cfg is not None else load_config(paths)
    catalog = catalog or load_catalog()
    fixable = fixable_codes(catalog)
    originals: dict[str, bytes] = {}
    current: dict[str, bytes] = dict(sources or {})
    display: dict[str, str] = {}
    applied: list[tuple[Planned, int]] = []  # (planned, round)
    round_text: dict[tuple[str, int], str] = {}  # (real, round) -> text that round read
    last: list[Planned] = []
    res: ScanResult | None = None
    rounds = 0
    # one resolved configuration for every round; the facts of files a round did not change
    # are kept in memory (a cache without a folder when the disk cache is off)
    settings = resolve_settings(cfg, catalog, no_cache=no_cache)
    if settings.cache is None:
        settings.cache = Cache(None, "")
    for rnd in range(max_rounds + 1):
        res = scan(paths, cfg, sources=current, want_project=True, settings=settings)
        by_file: dict[str, list[Finding]] = {}
        for f in res.findings:
            if f.rule in fixable:
                by_file.setdefault(f.path, []).append(f)
        if rnd == 0:
            for f in extra:
                have = by_file.setdefault(f.path, [])
                if f.rule in fixable and not any(
                    (g.rule, g.line, g.col) == (f.rule, f.line, f.col) for g in have
                ):
                    have.append(f)
        if rnd == max_rounds:
            break
        last = []
        changed = False
        for path, fs in sorted(by_file.items()):
            real = os.path.realpath(path)
            data = current.get(real)
            if data is None:
                try:
                    data = Path(real).read_bytes()
                except OSError:
                    continue
            originals.setdefault(real, data)
            display[real] = path
            plan = plan_file(path, real, data, fs, catalog, res.project)
            if plan is None:
                continue

            def accept(f: Finding) -> bool:
                key = finding_key(f)
                if only is not None and key not in only:
                    return False
                return not (exclude and key in exclude)

            chosen, deferred, skipped = select(plan, unsafe=unsafe, accept=accept)
            if chosen:
                new = apply_rewrites(plan, unique_rewrites(chosen))
                if new != data:
                    round_text[(real, rnd)] = decode(data)
                    current[real] = new
                    changed = True
                    applied.extend((p, rnd) for p in chosen)
                    # what was not chosen is re-planned on the new text next round
                    continue
            last.extend(plan.planned)
        rounds = rnd + 1
        if not changed:
            break
    assert res is not None
    changes = [
        FileChange(display[r], r, originals[r], current[r])
        for r in sorted(current)
        if r in originals and current[r] != originals[r]
    ]
    records = _records(applied, last, originals, current, round_text, unsafe, only, exclude)
    return EngineResult(records=records, changes=changes, scan=res, rounds=rounds)


def _records(
    applied: list[tuple[Planned, int]],
    remaining: list[Planned],
    originals: dict[str, bytes],
    current: dict[str, bytes],
    round_text: dict[tuple[str, int], str],
    unsafe: bool,
    only: set[Key] | None,
    exclude: set[Key] | None,
) -> list[FixRecord]:
    out: list[FixRecord] = []
    maps: dict[tuple[str, int], LineMap] = {}
    texts: dict[str, str] = {}

    def orig_text(real: str) -> str:
        if real not in texts:
            texts[real] = decode(originals[real])
        return texts[real]

    def to_orig(real: str, rnd: int, line: int) -> int:
        if rnd == 0 or (real, rnd) not in round_text:
            return line
        key = (real, rnd)
        if key not in maps:
            maps[key] = LineMap(orig_text(real), round_text[key])
        return maps[key].back(line)[0]

    for p, rnd in applied:
        f = p.finding
        rw = p.result
        assert isinstance(rw, Rewrite)
        real = os.path.realpath(f.path)
        line = to_orig(real, rnd, f.line)
        out.append(
            FixRecord(
                rule=f.rule,
                path=f.path,
                line=line,
                col=f.col,
                message=f.message,
                safety=p.safety,  # type: ignore[arg-type]
                status="applied",
                title=rw.title,
                key=content_hash(f),
                end_line=line + (f.end_line - f.line),
                reach=(
                    (to_orig(real, rnd, rw.reach[0]), to_orig(real, rnd, rw.reach[1]))
                    if rw.reach
                    else None
                ),
            )
        )
    final: dict[str, LineMap] = {}
    for p in remaining:
        f = p.finding
        real = os.path.realpath(f.path)
        rnd_line = f.line
        if real in originals and real in current and current[real] != originals[real]:
            if real not in final:
                final[real] = LineMap(orig_text(real), decode(current[real]))
            rnd_line = final[real].back(f.line)[0]
        key = (f.path, content_hash(f))
        if isinstance(p.result, NoFix):
            status, reason, title = "no-fix", p.result.reason, ""
        elif isinstance(p.result, Proposal):
            status, reason, title = "proposed", p.result.reason, p.result.title
        else:
            title = p.result.title
            if (only is not None and key not in only) or (exclude and key in exclude):
                status, reason = "rejected", "not selected"
            elif p.safety == "unsafe" and not unsafe:
                status, reason = "unsafe", "an unsafe fix: apply it with --unsafe-fixes"
            else:
                status, reason = "conflict", "overlaps another fix; run fix again"
        out.append(
            FixRecord(
                rule=f.rule,
                path=f.path,
                line=rnd_line,
                col=f.col,
                message=f.message,
                safety=p.safety,  # type: ignore[arg-type]
                status=status,  # type: ignore[arg-type]
                title=title,
                reason=reason,
                key=content_hash(f),
                end_line=rnd_line + (f.end_line - f.line),
                patch=p.patch,
            )
        )
    out.sort(key=lambda r: (r.path, r.line, r.col, r.rule))
    return out


def rewrite_edits(plan: FilePlan, rw: Rewrite) -> tuple[Edit, ...]:
    """Text edits of one rewrite on its own, in the coordinates of the file as read."""
    before = plan.module.code
    after = decode(apply_rewrites(plan, [rw]))
    return edits_between(plan.path, before, after)
