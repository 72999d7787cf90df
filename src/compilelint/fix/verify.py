"""``fix --verify``: prove each fix with torch before it lands.

The project is copied twice into a temporary folder: the original, and one that receives the
fixed files. The dynamic stage (a child process; torch is never imported here) runs the spec on
each copy with the same seed, saving the initial weights, every call's outputs and (in train
mode) the gradients; the fixed run compares its own with the original's
(``torch.testing.assert_close``). Per fix, torch's graph breaks and recompiles at the fix's
lines are counted before and after. A fix is accepted when its own break (or recompile) is gone,
it adds none, and the outputs match; the others are dropped with the reason, one fix at a time
when a failure cannot be pinned on one fix, so that good fixes still land. The user's files
are not touched here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compilelint.catalog import Catalog
from compilelint.config import Config
from compilelint.dynamic.api import DynamicResult, run_dynamic
from compilelint.dynamic.cli import dynamic_summary
from compilelint.fix.copyspec import OutsideProject, spec_for_copy
from compilelint.fix.engine import EngineResult, Key, decode, run_fixes
from compilelint.fix.library_calls import DISABLED_SKIP, is_library_call
from compilelint.fix.records import (
    BreakOutcome,
    ConfigResult,
    FileChange,
    FixCheck,
    FixRecord,
    Verification,
)
from compilelint.fix.textdiff import LineMap

_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".compilelint_cache",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    "node_modules",
}
MAX_ATTEMPTS = 24  # dynamic runs of one verification, all passes together
MIN_CALLS = 3  # calls of the model per verifying run (a counter's recompiles show from call 2)
MAX_PASSES = 4  # fix, verify, re-analyse the accepted text: at most this many times


def _ignore(folder: str, names: list[str]) -> set[str]:
    out = {n for n in names if n in _SKIP_DIRS}
    for n in names:
        p = os.path.join(folder, n)
        if (
            os.path.isdir(p)
            and not os.path.islink(p)
            and os.path.isfile(os.path.join(p, "pyvenv.cfg"))
        ):
            out.add(n)  # a virtual environment
    return out


def copy_project(root: str, dest: str) -> None:
    shutil.copytree(root, dest, symlinks=True, ignore=_ignore)


def _clear_bytecode(folder: str) -> None:
    for d, subdirs, _ in os.walk(folder):
        if "__pycache__" in subdirs:
            shutil.rmtree(os.path.join(d, "__pycache__"), ignore_errors=True)
            subdirs.remove("__pycache__")


@dataclass
class _Attempt:
    keys: frozenset[Key]
    engine: EngineResult
    result: DynamicResult
    checks: dict[Key, FixCheck]
    failure: str | None  # why the whole attempt failed (not pinned on one fix)


class Verifier:
    def __init__(
        self,
        paths: list[str],
        cfg: Config,
        catalog: Catalog,
        *,
        spec: str,
        root: str,
        unsafe: bool,
        timeout: float | None,
        progress: Callable[[str], None] | None = None,
        pythonpath: tuple[str, ...] = (),
        observe: bool = True,
        max_passes: int = MAX_PASSES,
    ) -> None:
        self.paths = paths
        self.pythonpath = pythonpath  # folders of the project that hold the spec's module
        self.cfg = cfg
        self.catalog = catalog
        self.spec = os.path.abspath(spec)
        self.root = os.path.realpath(root)
        self.unsafe = unsafe
        self.timeout = timeout
        self.progress = progress or (lambda _msg: None)
        self.runs = 0
        self.observe = observe  # offer fixes for the breaks torch observed (later passes)
        self.max_passes = max_passes
        self.base: dict[str, bytes] = {}  # real path -> text every attempt of this pass starts from
        self.passes = 0
        self.extra: list[Any] = []  # observed findings of the current pass
        self.final: _Attempt | None = None
        self._display: dict[str, str] = {}

    # ------------------------------------------------------------------ entry point
    def verify(self, full: EngineResult) -> tuple[EngineResult | None, Verification]:
        """(the accepted fixes: changes from the files on disk, every record with its final
        status; None when nothing could be verified, what verification saw)."""
        applied = [r for r in full.records if r.status == "applied"]
        if not applied and not self.observe:
            return None, Verification(checks=(), before={}, after={}, runs=0)
        outside = [c.path for c in full.changes if not _under(c.real, self.root)]
        if outside:
            return None, Verification(
                checks=(),
                before={},
                after={},
                runs=0,
                error=f"{outside[0]} is outside the project root {self.root}: cannot verify it",
            )
        with tempfile.TemporaryDirectory(prefix="compilelint-verify-") as tmp:
            self.tmp = tmp
            self.before_dir = os.path.join(tmp, "original")
            self.after_dir = os.path.join(tmp, "fixed")
            copy_project(self.root, self.before_dir)
            copy_project(self.root, self.after_dir)
            try:
                self.copy_specs = {
                    d: spec_for_copy(
                        self.spec,
                        self.root,
                        d,
                        os.path.join(tmp, f"spec-{os.path.basename(d)}.json"),
                        self.pythonpath,
                        min_calls=MIN_CALLS,
                    )
                    for d in (self.before_dir, self.after_dir)
                }
            except (OutsideProject, OSError, ValueError) as exc:
                return None, Verification(checks=(), before={}, after={}, runs=0, error=str(exc))
            self.written: dict[str, bytes] = {}
            self.progress("running the original model")
            self.before = self._run(self.before_dir, save=os.path.join(tmp, "original.pt"))
            self.original = self.before
            if not self.before.ok:
                err = self.before.error or {}
                return None, Verification(
                    checks=(),
                    before=dynamic_summary(self.before.block),
                    after={},
                    runs=self.runs,
                    error=f"the original model does not run: {err.get('step')}: "
                    f"{err.get('message')}",
                )
            return self._passes(full)

    # ------------------------------------------------------------------ passes
    def _passes(self, full: EngineResult) -> tuple[EngineResult | None, Verification]:
        """Verify ``full``; then, as long as a pass accepted something (bounded), re-run the
        fix engine on the accepted text, with fixes for the breaks torch still observed, and
        verify what became fixable. The result's changes go from the files on disk to the
        text of the last accepted pass; its records are every pass's."""
        from compilelint.fix.observed import observed_findings
        from compilelint.static.engine import display_path

        originals: dict[str, bytes] = {}
        records: list[FixRecord] = []
        checks: list[FixCheck] = []
        tried: set[Key] = set()
        unseen: set[Key] = set()
        engine: EngineResult | None = full
        last_ok: DynamicResult | None = None
        first = True
        while engine is not None and self.passes < self.max_passes:
            self.passes += 1
            for c in engine.changes:
                originals.setdefault(c.real, c.before)
            keys = {_key(r) for r in engine.records if r.status == "applied"}
            if not first:
                keys -= tried
            tried |= keys
            if keys:
                if not first:
                    self.progress(f"pass {self.passes}: {len(keys)} more fixes")
                    for real, data in self.base.items():  # the copy starts from the accepted text
                        _write(self._in_copy(real), data)
                    self.written = dict(self.base)
                accepted, ver = self._search(engine, frozenset(keys))
            else:
                accepted, ver = None, None
            if ver is not None:
                checks = [
                    c
                    for c in checks
                    if (c.path, c.line, c.rule)
                    not in {(v.path, v.line, v.rule) for v in ver.checks}
                ]
                checks += ver.checks
                # a fix whose line torch did not reach (dynamo gave up on the frame at an
                # earlier break) is tried again once an accepted pass has removed breaks
                unseen |= {
                    _key(r)
                    for r in engine.records
                    if _key(r) in keys
                    and (
                        (
                            chk := {(c.path, c.line, c.rule): c for c in ver.checks}.get(
                                (r.path, r.line, r.rule)
                            )
                        )
                        is not None
                        and chk.reason.startswith(
                            ("no graph break was observed", "no recompile was observed")
                        )
                    )
                }
                got = {(c.path, c.line, c.rule): c for c in ver.checks}
                kept = (
                    {_key(r) for r in accepted.records if r.status == "applied"}
                    if accepted is not None
                    else set()
                )
                for r in engine.records:
                    if first or _key(r) in keys:
                        if r.status == "applied" and _key(r) not in kept:
                            chk = got.get((r.path, r.line, r.rule))
                            why = chk.reason if chk is not None else "not verified"
                            prop = self._gradient_proposal(r, chk) if chk is not None else None
                            if prop is not None:
                                r = dataclasses.replace(
                                    r, status="proposed", reason=prop[0], patch=prop[1]
                                )
                            else:
                                r = dataclasses.replace(r, status="rejected", reason=why)
                        if not first:  # it replaces what an earlier pass said of it
                            old = [x for x in records if _key(x) == _key(r)]
                            records = [x for x in records if _key(x) != _key(r)]
                            gone = {(x.path, x.line, x.rule) for x in old}
                            checks = [
                                c
                                for c in checks
                                if (c.path, c.line, c.rule) not in gone or c in ver.checks
                            ]
                        records.append(r)
            elif first:
                records += engine.records
            first = False
            if accepted is not None and self.final is not None:
                tried -= unseen
                unseen = set()
                for c in accepted.changes:
                    self.base[c.real] = c.after
                last_ok = self.final.result
                self.before = self.final.result  # the next pass starts from the accepted text
            elif not self.observe or self.passes > 1:
                break
            # the next pass: what became fixable, and what torch still observes
            fixable = [c for c, r in self.catalog.rules.items() if r.fix != "none"]
            if not self.unsafe:
                fixable = [c for c in fixable if self.catalog.rules[c].fix == "safe"]
            extra = (
                observed_findings(
                    self.before.block.get("breaks") or [],
                    self.root,
                    self.base,
                    lambda real: display_path(Path(real), Path(os.getcwd())),
                    set(),
                    fixable,
                )
                if self.observe
                else []
            )
            if self.observe:  # caches on `self` in the classes where torch saw a recompile
                from compilelint.fix.codemods.memo import observed_recompile_findings

                extra += observed_recompile_findings(
                    self.before.block.get("recompiles") or [],
                    self.root,
                    self.base,
                    lambda real: display_path(Path(real), Path(os.getcwd())),
                    fixable,
                )
            self.extra = extra
            engine = run_fixes(
                self.paths,
                self.cfg,
                catalog=self.catalog,
                unsafe=self.unsafe,
                sources=dict(self.base),
                extra=extra,
                exclude=tried,
            )
            if not any(r.status == "applied" for r in engine.records):
                if last_ok is None:
                    # nothing was accepted: the lines are the original's, and why the fixes
                    # for what torch observed could not be made is the outcome's reason
                    have = {_key(x) for x in records}
                    records += [r for r in engine.records if _key(r) not in have]
                break
        for c in full.changes:
            self._display.setdefault(c.real, c.path)
        current = last_ok if last_ok is not None else self.original
        configs, config_block = self._configs(current)
        if self.unsafe:
            configs = self._write_configs(configs, originals)
        outcomes = self._outcomes(originals, records, checks, configs, last_ok, config_block)
        changes = [
            FileChange(self._display.get(real, real), real, originals.get(real, data), data)
            for real, data in sorted(self.base.items())
            if originals.get(real) is not None and data != originals[real]
        ]
        changes = [dataclasses.replace(c, path=self._display.get(c.real, c.path)) for c in changes]
        records.sort(key=lambda r: (r.path, r.line, r.col, r.rule))
        checks.sort(key=lambda c: (c.path, c.line, c.rule))
        result = EngineResult(records=records, changes=changes, scan=full.scan, rounds=self.passes)
        return result, Verification(
            checks=tuple(checks),
            before=dynamic_summary(self.original.block),
            after=dynamic_summary(last_ok.block) if last_ok is not None else {},
            runs=self.runs,
            outcomes=tuple(outcomes),
            configs=tuple(configs),
            observed=sum(
                1
                for key in ("breaks", "recompiles")
                for x in self.original.block.get(key) or []
                if x.get("path")
                and x.get("line") is not None
                # a library's break is attributed to the user's line that reaches it; a
                # library's recompile is named by the library's line (fix/outcomes.py)
                and (key == "recompiles" or not os.path.isabs(x["path"]))
            ),
        )

    def _gradient_proposal(self, r: FixRecord, chk: FixCheck) -> tuple[str, str] | None:
        """(reason, patch) when ``r`` was rejected only because the gradients differ: its
        break is gone, it adds none, and the outputs (compiled and uncompiled) match. Such a
        fix is shown as a proposal, never applied: a branch made branchless computes both
        sides, so parameters of the side not taken receive zero gradients where they received
        none (``None``), which an optimizer with weight decay or momentum treats differently;
        or the values differ. The patch is the fix alone on the text this pass started from."""
        why = chk.reason
        if not why.startswith(_GRAD_PARTS) or any(
            w in why for w in ("outputs differ", "weights differ", "eager differ")
        ):
            return None
        if chk.new_breaks or not (
            chk.breaks_after < chk.breaks_before or chk.recompiles_after < chk.recompiles_before
        ):
            return None
        from compilelint.fix.textdiff import unified_diff

        one = run_fixes(
            self.paths,
            self.cfg,
            catalog=self.catalog,
            unsafe=self.unsafe,
            only={_key(r)},
            sources=dict(self.base),
            extra=self.extra,
        )
        patch = "".join(
            unified_diff(c.path, decode(c.before), decode(c.after)) for c in one.changes
        )
        if not patch:
            return None
        zero_vs_none = "other parameters received gradients" in why
        nums = (
            f"breaks {chk.breaks_before} -> {chk.breaks_after}"
            if chk.breaks_after < chk.breaks_before
            else f"recompiles {chk.recompiles_before} -> {chk.recompiles_after}"
        )
        reason = (
            f"verified by torch: the break is gone ({nums}) and the outputs match, but the "
            f"gradients differ ({why}): "
            + (
                "the cache held a value computed from parameters on an earlier call, which "
                "eager's backward did not reach again (its graph was from that call); computed "
                "on every call, those parameters now receive gradients: keep it if the cache "
                "was meant only to save time (the usual intent), else cache a detached value"
                if zero_vs_none and r.title.startswith("cache on `self`")
                else "both sides are now computed, so the parameters of the side not taken receive "
                "zero gradients where they received none; apply it if your optimizer treats a "
                "zero gradient as none (plain SGD and Adam without weight decay do; AdamW's "
                "decay and momentum do not), or keep the branch outside the compiled region"
                if zero_vs_none
                else "check the training step with the patch before keeping it"
            )
        )
        return reason, patch

    # ------------------------------------------------------------------ outcomes
    def _outcomes(
        self,
        originals: dict[str, bytes],
        records: list[FixRecord],
        checks: list[FixCheck],
        configs: list[ConfigResult],
        last_ok: DynamicResult | None,
        config_block: dict[str, Any] | None,
    ) -> list[BreakOutcome]:
        from compilelint.fix.outcomes import build_outcomes
        from compilelint.static.engine import display_path

        maps: dict[str, LineMap] = {}
        texts: dict[str, list[str]] = {}
        for real, data in self.base.items():
            orig = originals.get(real)
            if orig is not None:
                texts[real] = decode(orig).splitlines()
                if orig != data:
                    maps[real] = LineMap(decode(orig), decode(data))

        def display(real: str) -> str:
            return self._display.get(real) or display_path(Path(real), Path(os.getcwd()))

        return build_outcomes(
            self.original.block,
            last_ok.block if last_ok is not None else None,
            records,
            checks,
            configs,
            root=self.root,
            catalog=self.catalog,
            maps=maps,
            texts=texts,
            display=display,
            config_block=config_block,
        )

    def _write_configs(
        self, configs: list[ConfigResult], originals: dict[str, bytes]
    ) -> list[ConfigResult]:
        """Write each accepted config's lines where the user's code already sets dynamo config
        or calls ``torch.compile`` (before the first such line, same indentation); the others
        stay lines to add."""
        from compilelint.fix.outcomes import compile_option_place, config_place
        from compilelint.static.discovery import discover

        out = []
        files = [os.path.realpath(str(f)) for f in discover(self.paths).files]
        # then the rest of the project: a train script that calls `torch.compile` is the
        # place for a setting even when only the model file was given to fix
        files += [
            r for f in discover([self.root]).files if (r := os.path.realpath(str(f))) not in files
        ]
        for c in configs:
            if not c.accepted:
                out.append(c)
                continue
            done = ""
            for real in files:
                data = self.base.get(real)
                if data is None:
                    try:
                        data = Path(real).read_bytes()
                    except OSError:
                        continue
                text = decode(data)
                got = (
                    compile_option_place(text, c.compile)
                    if c.compile
                    else config_place(text, c.lines)
                )
                if got is None:
                    continue
                new_text, line = got
                originals.setdefault(real, data)
                self.base[real] = new_text.encode("utf-8")
                from compilelint.static.engine import display_path

                shown = self._display.setdefault(real, display_path(Path(real), Path(os.getcwd())))
                done = f"{shown}:{line}"
                break
            out.append(dataclasses.replace(c, written=done))
        return out

    # ------------------------------------------------------------------ config remedies
    def _configs(self, current: DynamicResult) -> tuple[list[ConfigResult], dict[str, Any] | None]:
        """Try the config remedies whose breaks (or size recompiles) the accepted text still
        shows, on a run of the accepted text with the settings applied (all together, then
        each alone when together they fail). Returns what each did and the accepted run's
        block (None: none accepted)."""
        from compilelint.remedies import CONFIG_REMEDIES, recompile_configs

        breaks = current.block.get("breaks") or []
        recs = current.block.get("recompiles") or []
        cands = [
            cr
            for cr in CONFIG_REMEDIES
            if (cr.recompiles and any(cr in recompile_configs(r) for r in recs))
            or (
                not cr.recompiles
                and any(b.get("gb_id") in cr.gb_ids and b.get("path") for b in breaks)
            )
        ]
        if not cands or not self.observe:
            return [], None
        for real, before in list(self.written.items()):  # the copy holds the accepted text
            _write(self._in_copy(real), self.base.get(real, before))
        _clear_bytecode(self.after_dir)
        results = self._try_configs(cands, current)
        if len(cands) > 1 and not any(r.accepted for r in results):
            results = [r for cr in cands for r in self._try_configs([cr], current)]
        ok = [r for r in results if r.accepted]
        block = self._config_blocks.get(tuple(r.name for r in ok)) if ok else None
        if ok and block is None:  # accepted one by one: the block of the first
            block = self._config_blocks.get((ok[0].name,))
        return results, block

    def _try_configs(self, cands: list[Any], current: DynamicResult) -> list[ConfigResult]:
        import json

        if not hasattr(self, "_config_blocks"):
            self._config_blocks: dict[tuple[str, ...], dict[str, Any]] = {}
        cs = self.copy_specs[self.after_dir]
        with open(cs.spec, encoding="utf-8") as fh:
            data = json.load(fh)
        settings: dict[str, object] = dict(data.get("config") or {})
        compile_opts: dict[str, object] = dict(data.get("compile") or {})
        for cr in cands:
            settings.update(dict(cr.settings))
            compile_opts.update(dict(cr.compile))
        data["config"] = settings
        if compile_opts:
            data["compile"] = compile_opts
        names = tuple(cr.name for cr in cands)
        path = os.path.join(self.tmp, f"spec-config-{'-'.join(names)}.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
        self.progress(f"running the fixed model with {', '.join(names)}")
        self.runs += 1
        res = run_dynamic(
            path,
            cwd=self.after_dir,
            pythonpath=cs.pythonpath,
            timeout=self.timeout,
            save_outputs=os.path.join(self.tmp, "config.pt"),
            compare_outputs=os.path.join(self.tmp, "original.pt"),
        )
        failure = None
        if not res.ok:
            err = res.error or {}
            failure = f"the model fails with it: {err.get('step')}: {err.get('message')}"
        comparison: dict[str, Any] = res.raw.get("comparison") or {}
        if failure is None and res.ok:
            failure = compile_failure_text(
                res.block, current.block, {}, "the model with this setting"
            )
        if failure is None and not comparison.get("ok"):
            failure = _outputs_text(comparison).removeprefix("differ: ")
        before_b = current.block.get("breaks") or []
        after_b = res.block.get("breaks") or [] if res.ok else []
        new = [
            b
            for b in after_b
            if b.get("path")
            and not any(
                o.get("path") == b.get("path")
                and o.get("gb_type") == b.get("gb_type")
                and abs(int(o.get("line") or 0) - int(b.get("line") or 0)) <= 1
                for o in before_b
            )
        ]
        if failure is None and new:
            failure = f"adds a graph break: {new[0].get('path')}:{new[0].get('line')} " + str(
                new[0].get("gb_type")
            )
        if res.ok:
            self._config_blocks[names] = res.block
        out: list[ConfigResult] = []
        for cr in cands:
            if cr.recompiles:
                # each record counts the recompiles of its frame and guard (`count`)
                rb = _recompile_count(current.block)
                ra = _recompile_count(res.block) if res.ok else rb
                bb = ba = 0
                removed = ra < rb
            else:
                bb = sum(1 for b in before_b if b.get("gb_id") in cr.gb_ids)
                ba = sum(1 for b in after_b if b.get("gb_id") in cr.gb_ids) if res.ok else bb
                rb = ra = 0
                removed = ba < bb
            reason = failure or (
                ""
                if removed
                else "the recompiles are still there"
                if cr.recompiles
                else "torch still breaks with it"
            )
            accepted = not reason
            if accepted:
                reason = (
                    "removes the breaks and the outputs match"
                    if not cr.recompiles
                    else ("fewer recompiles and the outputs match")
                )
            out.append(
                ConfigResult(
                    name=cr.name,
                    lines=cr.lines,
                    settings=dict(cr.settings),
                    compile=dict(cr.compile),
                    accepted=accepted,
                    reason=reason,
                    breaks_before=bb,
                    breaks_after=ba,
                    recompiles_before=rb,
                    recompiles_after=ra,
                )
            )
        return out

    # ------------------------------------------------------------------ search
    def _search(
        self, full: EngineResult, pending: frozenset[Key]
    ) -> tuple[EngineResult | None, Verification]:
        rejected: dict[Key, FixCheck] = {}
        final: _Attempt | None = None
        cache: dict[frozenset[Key], _Attempt] = {}
        full_keys = frozenset(_key(r) for r in full.records if r.status == "applied")
        for k, why in self._idle(full, pending).items():
            rec = next(r for r in full.records if _key(r) == k)
            rejected[k] = _unchecked(rec, why)
            pending = pending - {k}

        def attempt(keys: frozenset[Key]) -> _Attempt | None:
            if keys in cache:
                return cache[keys]
            if self.runs >= MAX_ATTEMPTS:
                return None
            got = self._attempt(keys, full if keys == full_keys else None)
            cache[keys] = got
            return got

        def check(at: _Attempt, k: Key) -> FixCheck:
            # a fix applied with others may not apply in a smaller set (it rewrote code
            # another fix changed, or the codemod now declines): then it has no check
            got = at.checks.get(k)
            if got is not None:
                return got
            rec = next(r for r in full.records if _key(r) == k)
            alone = next(
                (r for r in getattr(at.engine, "records", ()) if _key(r) == k and r.reason), None
            )
            why = "not applied when tried without the other fixes"
            if alone is not None:
                # what the codemod said on the text without them (a value it shares with a
                # fix that failed, say): the reason to show, not only that it did not apply
                why += f" ({alone.status}: {alone.reason})"
            return _unchecked(rec, why)

        while pending:
            at = attempt(pending)
            if at is None:
                break
            if at.failure is None:
                bad = {k for k in pending if not check(at, k).accepted}
                for k in bad:
                    rejected[k] = check(at, k)
                if not bad:
                    final = at
                    break
                pending = pending - bad
                continue
            if len(pending) == 1:
                (k,) = pending
                rejected[k] = _reject(check(at, k), at.failure)
                pending = frozenset()
                break
            # not pinned on one fix: try each alone
            good: set[Key] = set()
            for k in sorted(pending):
                one = attempt(frozenset({k}))
                if one is None:
                    break
                chk = check(one, k)
                if one.failure is None and chk.accepted:
                    good.add(k)
                else:
                    rejected[k] = _reject(chk, one.failure) if one.failure else chk
            if good == set(pending):
                # each is fine alone, not all together: keep adding while the set passes
                kept: set[Key] = set()
                for k in sorted(good):
                    trial = attempt(frozenset(kept | {k}))
                    if trial is None:
                        break
                    if trial.failure is None and all(c.accepted for c in trial.checks.values()):
                        kept.add(k)
                    else:
                        chk = check(trial, k)
                        rejected[k] = _reject(chk, trial.failure) if trial.failure else chk
                good = kept
            pending = frozenset(good)
        for k in pending:
            if final is None or k not in final.keys:
                rec = next(r for r in full.records if _key(r) == k)
                rejected.setdefault(
                    k, _unchecked(rec, "not verified: the limit of dynamic runs was reached")
                )
        self.final = final
        checks = list(final.checks.values()) if final else []
        checks += [c for k, c in rejected.items() if final is None or k not in final.keys]
        checks.sort(key=lambda c: (c.path, c.line, c.rule))
        ver = Verification(
            checks=tuple(checks),
            before=dynamic_summary(self.before.block),
            after=dynamic_summary(final.result.block) if final else {},
            runs=self.runs,
        )
        return (final.engine if final else None), ver

    def _idle(self, full: EngineResult, pending: frozenset[Key]) -> dict[Key, str]:
        """Fixes of skipped-call rules (CL2xx: print, logging, warnings, debugger, stdlib
        calls) at lines torch traced into a graph without a break or recompile there, on the
        first pass: nothing to verify (torch 2.13 traces `inspect.signature`, `struct` on
        constants, NumPy through `torch._numpy`), so they are not tried. A line torch did not
        trace (the spec does not reach it, or dynamo gave up on the frame at an earlier break)
        is still tried: an accepted pass may reach it."""
        if self.passes != 1:
            return {}
        breaks = self.before.block.get("breaks") or []
        recs = self.before.block.get("recompiles") or []
        out: dict[Key, str] = {}
        for r in full.records:
            k = _key(r)
            if k not in pending or not r.rule.startswith("CL2") or is_library_call(r.title):
                continue
            rel = self._rel(os.path.realpath(r.path))
            lo, hi = r.line, max(r.line, r.end_line)
            if _count(breaks, rel, lo - 1, hi + 1) or _count(recs, rel, lo - 1, hi + 1):
                continue
            if not self._traced(rel, lo, hi):
                continue
            out[k] = (
                "not tried: torch traced this line into a graph without a break or recompile "
                "on the spec's inputs, so there is nothing to remove here"
            )
        return out

    # ------------------------------------------------------------------ one attempt
    def _attempt(self, keys: frozenset[Key], engine: EngineResult | None) -> _Attempt:
        if engine is None:
            engine = run_fixes(
                self.paths,
                self.cfg,
                catalog=self.catalog,
                unsafe=self.unsafe,
                only=set(keys),
                sources=dict(self.base),
                extra=self.extra,
            )
        # the fixed copy: these files fixed, every other file as it was
        for real, data in list(self.written.items()):
            if not any(c.real == real for c in engine.changes):
                _write(self._in_copy(real), self.base.get(real, data))
                del self.written[real]
        for c in engine.changes:
            _write(self._in_copy(c.real), c.after)
            self.written[c.real] = c.before
            self._display.setdefault(c.real, c.path)
        _clear_bytecode(self.after_dir)
        n = len(keys)
        self.progress(f"running the model with {n} fix{'es' if n != 1 else ''}")
        res = self._run(
            self.after_dir,
            save=os.path.join(self.tmp, "fixed.pt"),
            compare=os.path.join(self.tmp, "original.pt"),
        )
        return self._judge(keys, engine, res)

    def _run(self, folder: str, *, save: str, compare: str | None = None) -> DynamicResult:
        self.runs += 1
        cs = self.copy_specs[folder]
        return run_dynamic(
            cs.spec,
            cwd=folder,
            pythonpath=cs.pythonpath,
            timeout=self.timeout,
            save_outputs=save,
            compare_outputs=compare,
        )

    def _in_copy(self, real: str) -> str:
        return os.path.join(self.after_dir, os.path.relpath(real, self.root))

    # ------------------------------------------------------------------ judging
    def _judge(self, keys: frozenset[Key], engine: EngineResult, res: DynamicResult) -> _Attempt:
        recs = [r for r in engine.records if r.status == "applied" and _key(r) in keys]
        texts: dict[str, tuple[str, str]] = {
            self._rel(c.real): (decode(c.before), decode(c.after)) for c in engine.changes
        }
        maps = {p: LineMap(a, b) for p, (a, b) in texts.items()}
        before_breaks = self.before.block.get("breaks") or []
        before_recs = self.before.block.get("recompiles") or []
        failure: str | None = None
        if not res.ok:
            err = res.error or {}
            failure = f"the fixed model fails: {err.get('step')}: {err.get('message')}"
        comparison: dict[str, Any] = res.raw.get("comparison") or {}
        outputs = _outputs_text(comparison)
        if failure is None and res.ok:
            failure = compile_failure_text(res.block, self.before.block, maps)
        if failure is None and not comparison.get("ok"):
            failure = outputs.removeprefix("differ: ")

        regions: dict[Key, tuple[str, int, int, int, int]] = {}
        for r in recs:
            rel = self._rel(os.path.realpath(r.path))
            lm = maps.get(rel)
            lo, hi = r.line, max(r.line, r.end_line)
            if r.reach:  # the fix's effect shows beyond its finding's lines
                lo, hi = min(lo, r.reach[0]), max(hi, r.reach[1])
            alo, ahi = (lm.forward(lo)[0], lm.forward(hi)[1]) if lm else (lo, hi)
            regions[_key(r)] = (rel, lo, hi, alo, ahi)

        routed = {_key(r) for r in recs if is_library_call(r.title)}
        routed_breaks: set[int] = set()  # id() of the break records the routed calls cost
        # breaks after the fixes that were not there before, attributed by line
        new_by_key: dict[Key, list[str]] = {k: [] for k in regions}
        stray: list[str] = []
        # a break outside every fix, at a line where the static stage predicts one, was hidden
        # before (dynamo gave up on the frame earlier): the fix unmasked it, the next pass
        # offers its own fix
        predicted = {
            (self._rel(os.path.realpath(f.path)), f.line)
            for f in engine.scan.findings
            if f.stage != "dynamic"
        }
        if res.ok:
            for b in res.block.get("breaks") or []:
                path, line, gb = b.get("path"), b.get("line"), b.get("gb_type")
                if path is None or line is None:
                    continue
                lm = maps.get(path)
                olo, ohi = lm.back(line) if lm else (line, line)
                old = any(
                    ob.get("path") == path
                    and ob.get("gb_type") == gb
                    and ob.get("line") is not None
                    and olo - 1 <= ob["line"] <= ohi + 1
                    for ob in before_breaks
                )
                if old:
                    continue
                if b.get("gb_id") == "GB0088" and self._raises(texts, path, line):
                    # "Observed exception" at a `raise`: the model's own exception leaves a
                    # traced frame (its stop path). A fix that removed a break before it (a
                    # report in the same branch) lets dynamo trace up to the `raise`; the
                    # original raised the same exception there, eagerly, and the call ends
                    # either way: not a break the fix added
                    continue
                desc = f"{path}:{line} {gb}"
                owner = [
                    k
                    for k, (p, _, _, alo, ahi) in regions.items()
                    if p == path and alo <= line <= ahi
                ]
                if owner and str(gb).startswith(DISABLED_SKIP) and any(k in routed for k in owner):
                    routed_breaks.add(id(b))
                    # the one break a library call routed through a disabled helper costs
                    # (torch 2.13 records it at the call): judged below as fewer breaks at
                    # the routed call's line, not charged to a fix whose region touches it
                    continue
                if owner:
                    for k in owner:
                        new_by_key[k].append(desc)
                elif (path, line) not in predicted:
                    stray.append(desc)
        if failure is None and stray:
            failure = f"a new graph break appeared: {stray[0]}"

        checks: dict[Key, FixCheck] = {}
        for r in recs:
            k = _key(r)
            rel, lo, hi, alo, ahi = regions[k]
            bb = _count(before_breaks, rel, lo, hi)
            rb = _count(before_recs, rel, lo, hi)
            after_breaks = res.block.get("breaks") or [] if res.ok else []
            if k not in routed:
                # a routed library call's one break is that call's, not this fix's
                after_breaks = [b for b in after_breaks if id(b) not in routed_breaks]
            ba = _count(after_breaks, rel, alo, ahi) if res.ok else 0
            ra = _count(res.block.get("recompiles") or [], rel, alo, ahi) if res.ok else 0
            new = tuple(new_by_key.get(k, []))
            rule = self.catalog.rules.get(r.rule)
            kind = rule.verify if rule else "none"
            # a fix is judged on what torch saw at its lines: a recompile rule's fix that
            # removes a break there (a list log's `.tolist()`), or the reverse, counts too
            if kind == "recompiles" and rb == 0 and bb > 0:
                kind = "breaks"
            elif kind == "breaks" and bb == 0 and rb > 0:
                kind = "recompiles"
            reason = ""
            if failure is not None:
                reason = failure
            elif new:
                reason = f"adds a graph break: {new[0]}"
            elif kind == "breaks" and bb == 0:
                reason = "no graph break was observed here before" + (
                    " (torch traced the line without one)"
                    if self._traced(rel, lo, hi)
                    else " (the spec's run does not reach this line: torch neither traced nor "
                    "broke there; give an input spec that runs it)"
                )
            elif kind == "breaks" and k in routed and ba >= bb:
                reason = (
                    f"the breaks are not fewer ({bb} before, {ba} after; a disabled helper's "
                    "call is one break on torch 2.13)"
                )
            elif (
                kind == "breaks"
                and ba > 0
                and k not in routed
                and not _others_left(rule, rel, lo, hi, alo, ahi, before_breaks, after_breaks, maps)
            ):
                reason = "the graph break is still there"
            elif kind == "recompiles" and rb == 0:
                reason = "no recompile was observed here before (does the spec reach it?)"
            elif kind == "recompiles" and ra >= rb:
                reason = "the recompiles are still there"
            accepted = not reason
            if accepted:
                reason = {
                    "breaks": (
                        f"{bb} breaks -> {ba} (one at the disabled helper's call) and the "
                        "outputs match"
                        if k in routed
                        else "the break is gone and the outputs match"
                        if ba == 0
                        else f"the break is gone and the outputs match ({ba} break of another "
                        "kind, there before, left at these lines)"
                    ),
                    "recompiles": "fewer recompiles and the outputs match",
                }.get(kind, "nothing for torch to observe here; the outputs match")
            checks[k] = FixCheck(
                rule=r.rule,
                path=r.path,
                line=r.line,
                title=r.title,
                breaks_before=bb,
                breaks_after=ba,
                recompiles_before=rb,
                recompiles_after=ra,
                new_breaks=new,
                outputs=outputs,
                accepted=accepted,
                reason=reason,
            )
        return _Attempt(keys, engine, res, checks, failure)

    def _traced(self, rel: str, lo: int, hi: int) -> bool:
        """Whether the run this pass started from traced a line of ``rel`` in [lo, hi]."""
        for p, ls in self.before.reached.items():
            for d in (self.before_dir, self.after_dir):
                if _under(p, d) and os.path.relpath(p, d).replace(os.sep, "/") == rel:
                    return bool(ls & set(range(lo, hi + 1)))
        return False

    def _raises(self, texts: dict[str, tuple[str, str]], path: str, line: int) -> bool:
        """Whether line ``line`` of ``path`` (the fixed copy's text) is a `raise` statement."""
        if path in texts:
            text = texts[path][1]
        else:
            try:
                with open(os.path.join(self.after_dir, path), encoding="utf-8") as fh:
                    text = fh.read()
            except (OSError, UnicodeDecodeError):
                return False
        lines = text.splitlines()
        # `raise E`, or a one-line `if cond: raise E`
        return 0 < line <= len(lines) and _RAISE_RE.search(lines[line - 1]) is not None

    def _rel(self, real: str) -> str:
        return os.path.relpath(real, self.root).replace(os.sep, "/")


_GRAD_PARTS = ("grads differ", "eager_grads differ")
_RAISE_RE = re.compile(r"^\s*(?:(?:if|elif|else|try|except)\b[^#]*:\s*)?raise\b")


def _key(r: FixRecord) -> Key:
    return (r.path, r.key)


def _under(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)
    with contextlib.suppress(OSError):
        os.utime(path)


def _others_left(
    rule: Any,
    path: str,
    lo: int,
    hi: int,
    alo: int,
    ahi: int,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    maps: dict[str, LineMap],
) -> bool:
    """Are the breaks left at a fix's lines only breaks of other kinds than its rule's, each
    there before at the same place, while those of its rule's kinds are gone? (``ctc_loss``
    breaks on its own at the line whose ``.tolist()`` lengths the fix kept tensors: one line,
    two breaks, one removed.)"""
    own = set(getattr(rule, "gb_ids", ()) or ())
    if not own:
        return False
    mine = [b for b in before if b.get("path") == path and b.get("line") is not None]
    if not any(b.get("gb_id") in own for b in mine if lo <= int(b["line"]) <= hi):
        return False
    left = [
        b
        for b in after
        if b.get("path") == path and b.get("line") is not None and alo <= int(b["line"]) <= ahi
    ]
    lm = maps.get(path)
    for b in left:
        if b.get("gb_id") in own:
            return False
        blo, bhi = lm.back(int(b["line"])) if lm else (int(b["line"]), int(b["line"]))
        if not any(
            o.get("gb_type") == b.get("gb_type") and blo - 1 <= int(o["line"]) <= bhi + 1
            for o in mine
        ):
            return False
    return True


def _count(items: list[dict[str, Any]], path: str, lo: int, hi: int) -> int:
    return sum(
        int(x.get("count") or 1)
        for x in items
        if x.get("path") == path and x.get("line") is not None and lo <= int(x["line"]) <= hi
    )


# torch's errors for a decision on a value it only knows symbolically (an unbacked size or
# number from `.tolist()`, `.item()`, a boolean mask under capture_* config)
_DATA_DEPENDENT = ("GuardOnDataDependentSymNode", "DataDependentOutputException", "data-dependent")


def compile_failure_text(
    block: dict[str, Any],
    before: dict[str, Any],
    maps: dict[str, LineMap],
    what: str = "the fixed model",
) -> str | None:
    """Why the fixed model's compiled calls stopped, when torch.compile itself failed on it
    (the same call ran uncompiled) and not on the model it was made from; None otherwise.
    The run then recorded fewer outputs than the original's: this is the cause to report,
    not the count of calls."""
    cf = block.get("compile_failure")
    if not isinstance(cf, dict) or isinstance(before.get("compile_failure"), dict):
        return None
    frame = cf.get("frame") or {}
    path, line = frame.get("path"), frame.get("line")
    where = ""
    if path and line:
        lm = maps.get(str(path))
        where = f" at {path}:{lm.back(int(line))[0] if lm else line}"
    msg = str(cf.get("message") or cf.get("type") or "an error")
    text = f"torch.compile fails on {what}{where} (the call runs uncompiled): {msg}"
    if any(d in msg for d in _DATA_DEPENDENT):
        text += (
            "; the graph break that was removed ended the graph before this line, so torch "
            "handed the code after it the data-dependent values as Python numbers; without "
            "the break they stay symbolic and this line decides on one (make it decide on "
            "tensors, or keep the break)"
        )
    return text


def _outputs_text(comparison: dict[str, Any]) -> str:
    if not comparison:
        return "not compared"
    if comparison.get("error"):
        return f"not compared: {comparison['error']}"
    parts = []
    for what in ("weights", "outputs", "grads", "eager", "eager_grads"):
        v = str(comparison.get(what, ""))
        if v.startswith("differ"):
            detail = v.removeprefix("differ: ").removeprefix("differ")
            parts.append(f"{what} differ ({detail})" if detail else f"{what} differ")
    if parts:
        return "differ: " + "; ".join(parts)
    return "match"


def _reject(chk: FixCheck, why: str) -> FixCheck:
    from dataclasses import replace

    return replace(chk, accepted=False, reason=why)


def _unchecked(r: FixRecord, why: str) -> FixCheck:
    return FixCheck(
        rule=r.rule,
        path=r.path,
        line=r.line,
        title=r.title,
        breaks_before=0,
        breaks_after=0,
        recompiles_before=0,
        recompiles_after=0,
        new_breaks=(),
        outputs="not compared",
        accepted=False,
        reason=why,
    )


def _recompile_count(block: dict[str, Any]) -> int:
    """The recompiles of a dynamic block: each record's ``count`` (1 when absent)."""
    return sum(int(r.get("count") or 1) for r in block.get("recompiles") or [])
