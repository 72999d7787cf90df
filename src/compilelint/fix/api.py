"""The fix stage's Python API (the CLI calls these; so can other tools).

    from compilelint.fix import fix_paths, fix_copy, attach_edits

``fix_paths`` fixes files in place (or only computes the changes), optionally verified with
torch; ``fix_copy`` does the same on a copy of a project; ``attach_edits`` fills
``Finding.edits`` of a report for reporters (SARIF ``fixes``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

from compilelint.catalog import Catalog, load_catalog
from compilelint.config import Config, load_config
from compilelint.fix.engine import fixable_codes, plan_file, rewrite_edits, run_fixes
from compilelint.fix.records import FixRun, Rewrite
from compilelint.fix.writer import safe_write
from compilelint.model import Edit, Finding, Report
from compilelint.static.engine import scan


def fix_paths(
    paths: list[str],
    config: Config | None = None,
    *,
    catalog: Catalog | None = None,
    unsafe: bool = False,
    write: bool = True,
    spec: str | None = None,
    verify: bool = False,
    root: str | None = None,
    timeout: float | None = 600.0,
    progress: Callable[[str], None] | None = None,
    no_cache: bool = False,
    pythonpath: tuple[str, ...] = (),
) -> FixRun:
    """Apply the fixes of ``paths`` (safe ones; unsafe ones too with ``unsafe``).

    With ``verify`` (needs ``spec``), each fix is checked by the dynamic stage in a temporary
    copy of ``root`` (default: the current folder) and only accepted fixes are kept. With
    ``write`` the changed files are written safely (see :mod:`compilelint.fix.writer`);
    otherwise :attr:`FixRun.changes` holds what would be written.
    """
    cfg = config if config is not None else load_config(paths)
    cat = catalog or load_catalog()
    engine = run_fixes(paths, cfg, catalog=cat, unsafe=unsafe, no_cache=no_cache)
    run = FixRun(records=engine.records, changes=engine.changes, iterations=engine.rounds)
    if verify:
        if not spec:
            raise ValueError("verify needs an input spec")
        from compilelint.fix.verify import Verifier

        v = Verifier(
            paths,
            cfg,
            cat,
            spec=spec,
            root=root or os.getcwd(),
            unsafe=unsafe,
            timeout=timeout,
            progress=progress,
            pythonpath=pythonpath,
        )
        accepted, ver = v.verify(engine)
        run.verification = ver
        run.outcomes = list(ver.outcomes)
        run.configs = list(ver.configs)
        if accepted is not None:
            run.changes = accepted.changes
            run.records = accepted.records
            run.iterations = accepted.rounds
        else:
            run.changes = []
            why = ver.error or "not verified"
            run.records = [
                dataclasses.replace(r, status="rejected", reason=why)
                if r.status == "applied"
                else r
                for r in engine.records
            ]
    if write:
        for c in run.changes:
            res = safe_write(c.real, c.before, c.after)
            if res.ok:
                run.written.append(c.path)
            else:
                run.refused.append((c.path, res.reason))
    return run


def fix_copy(
    source: str,
    dest: str,
    paths: list[str] | None = None,
    *,
    unsafe: bool = True,
    spec: str | None = None,
    verify: bool = False,
    timeout: float | None = 600.0,
) -> FixRun:
    """Copy the project folder ``source`` to ``dest`` (which must not exist) and fix the copy.

    ``paths`` are files or folders relative to ``source`` (default: all of it); ``spec`` is an
    input spec, pointed at the copy (see :mod:`compilelint.fix.copyspec`; the spec that runs
    the copy is :attr:`FixRun.copy_spec`). Returns the :class:`FixRun`: the records say which
    fixes were applied (``status == "applied"``), ``written`` which files of the copy changed.
    ``source`` itself is never modified.
    """
    from compilelint.fix.copyspec import OutsideProject, spec_for_copy
    from compilelint.fix.records import Verification
    from compilelint.fix.verify import copy_project

    src = os.path.realpath(source)
    if os.path.exists(dest):
        raise FileExistsError(f"{dest} exists; fix_copy needs a new folder")
    copy_project(src, dest)
    dst = os.path.realpath(dest)
    rel = [os.path.join(dst, p) for p in (paths or ["."])]
    copy_spec = None
    if spec:
        try:
            copy_spec = spec_for_copy(spec, src, dst, os.path.join(dst, ".compilelint-spec.json"))
        except (OutsideProject, OSError, ValueError) as exc:
            if verify:
                engine = run_fixes(rel, load_config(rel), catalog=load_catalog(), unsafe=unsafe)
                recs = [
                    dataclasses.replace(r, status="rejected", reason=str(exc))
                    if r.status == "applied"
                    else r
                    for r in engine.records
                ]
                return FixRun(
                    records=recs,
                    changes=[],
                    verification=Verification(
                        checks=(), before={}, after={}, runs=0, error=str(exc)
                    ),
                )
    run = fix_paths(
        rel,
        load_config(rel),
        unsafe=unsafe,
        spec=copy_spec.spec if copy_spec else spec,
        verify=verify,
        root=dst,
        timeout=timeout,
        no_cache=True,
        pythonpath=copy_spec.pythonpath if copy_spec else (),
    )
    run.copy_spec = copy_spec
    if copy_spec is not None and any(c.accepted for c in run.configs):
        _config_into_spec(copy_spec.spec, run)
    return run


def _config_into_spec(spec_path: str, run: FixRun) -> None:
    """The accepted config remedies into the copy's spec, so that whoever runs the copy (``bench
    --fix``) runs it as verified, whether or not the lines were written in the user's code."""
    import json

    with open(spec_path, encoding="utf-8") as fh:
        data = json.load(fh)
    for c in run.configs:
        if c.accepted:
            data.setdefault("config", {}).update(c.settings)
            if c.compile:
                data.setdefault("compile", {}).update(c.compile)
    with open(spec_path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2)


def attach_edits(
    report: Report,
    paths: list[str],
    config: Config | None = None,
    *,
    catalog: Catalog | None = None,
    unsafe: bool = True,
) -> Report:
    """``report`` with :attr:`Finding.edits` filled for every finding whose rule's codemod
    can rewrite it (unsafe ones too unless ``unsafe`` is False). Files without fixable
    findings are not read again."""
    cat = catalog or load_catalog()
    fixable = fixable_codes(cat)
    wanted = [
        f
        for f in report.findings
        if f.rule in fixable and (unsafe or fixable[f.rule] == "safe") and f.stage != "dynamic"
    ]
    if not wanted:
        return report
    cfg = config if config is not None else load_config(paths)
    res = scan(paths, cfg, catalog=cat, want_project=True)
    by_file: dict[str, list[Finding]] = {}
    for f in wanted:
        by_file.setdefault(f.path, []).append(f)
    edits: dict[tuple[str, str, int, int], tuple[Edit, ...]] = {}
    for path, fs in by_file.items():
        real = os.path.realpath(path)
        try:
            data = Path(real).read_bytes()
        except OSError:
            continue
        plan = plan_file(path, real, data, fs, cat, res.project)
        if plan is None:
            continue
        for p in plan.planned:
            if isinstance(p.result, Rewrite):
                f = p.finding
                edits[(f.path, f.rule, f.line, f.col)] = rewrite_edits(plan, p.result)
    findings = tuple(
        dataclasses.replace(f, edits=edits[(f.path, f.rule, f.line, f.col)])
        if (f.path, f.rule, f.line, f.col) in edits
        else f
        for f in report.findings
    )
    return dataclasses.replace(report, findings=findings)
