"""``compilelint fix`` and the ``check --fix`` hook: a thin click front end over
:mod:`compilelint.fix.api`.

Exit codes of ``fix``: 0 done (or nothing to fix), 1 with ``--diff`` when there are changes or
when ``--verify`` rejected a fix, 2 on usage errors, a failed verification or a file that could
not be written.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections import Counter
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from collections.abc import Sequence

    from compilelint.catalog import Catalog
    from compilelint.config import Config
    from compilelint.fix.records import (
        BreakOutcome,
        ConfigResult,
        FixRecord,
        FixRun,
        Verification,
    )

_STATUS = {
    "applied": "fixed",
    "unsafe": "fix available with --unsafe-fixes",
    "no-fix": "no automatic fix",
    "conflict": "not fixed",
    "rejected": "not applied",
    "proposed": "proposed (not applied)",
}


def _fail(msg: str) -> None:
    click.echo(f"compilelint: error: {msg}", err=True)
    sys.exit(2)


def _record_line(r: FixRecord, diff: bool) -> str:
    status = _STATUS[r.status]
    if r.status == "applied" and diff:
        status = "would fix"
    what = r.title if r.status in ("applied", "unsafe", "conflict", "proposed") else ""
    why = r.reason if r.status not in ("applied", "unsafe") else ""
    tail = ": ".join(x for x in (what, why) if x)
    unsafe = " (unsafe)" if r.safety == "unsafe" and r.status == "applied" else ""
    return f"{r.path}:{r.line}:{r.col}: {r.rule} {status}{unsafe}" + (f": {tail}" if tail else "")


def summary_line(run: FixRun, diff: bool = False) -> str:
    counts = Counter(r.status for r in run.records)
    files = len({c.path for c in run.changes})
    n = counts["applied"]
    verb = "Would fix" if diff else "Fixed"
    parts = [f"{verb} {n} finding{'s' * (n != 1)} in {files} file{'s' * (files != 1)}."]
    if counts["unsafe"]:
        k = counts["unsafe"]
        parts.append(f"{k} more fix{'es' * (k != 1)} available with --unsafe-fixes.")
    if counts["rejected"]:
        k = counts["rejected"]
        parts.append(f"{k} fix{'es' * (k != 1)} rejected by verification.")
    if counts["no-fix"]:
        k = counts["no-fix"]
        parts.append(f"{k} finding{'s' * (k != 1)} without an automatic fix.")
    if counts["conflict"]:
        parts.append(f"{counts['conflict']} overlapping; run fix again.")
    written = [c for c in run.configs if c.written]
    if written:
        parts.append(f"{len(written)} config setting{'s' * (len(written) != 1)} written.")
    if counts["proposed"]:
        k = counts["proposed"]
        parts.append(f"{k} patch{'es' * (k != 1)} proposed, not applied.")
    return " ".join(parts)


def verification_text(v: Verification) -> str:
    from tabulate import tabulate

    lines = []
    if v.error:
        lines.append(f"verification failed: {v.error}")
    if v.checks:
        rows = [
            (
                f"{c.path}:{c.line}",
                c.rule,
                f"{c.breaks_before} -> {c.breaks_after}",
                f"{c.recompiles_before} -> {c.recompiles_after}",
                c.outputs.split(":", 1)[0],
                "applied" if c.accepted else "rejected",
                c.reason if len(c.reason) <= 90 else c.reason[:87] + "...",
            )
            for c in v.checks
        ]
        lines.append(
            tabulate(
                rows,
                headers=["fix", "rule", "breaks", "recompiles", "outputs", "result", "why"],
                tablefmt="simple",
            )
        )
    if v.before:
        after = _counts(v.after) + " after" if v.after else "no fix accepted"
        lines.append(
            f"model: {_counts(v.before)} before -> {after} "
            f"({v.runs} dynamic run{'s' * (v.runs != 1)})"
        )
    return "\n".join(lines)


def outcomes_text(outcomes: Sequence[BreakOutcome]) -> str:
    """Every break and recompile observed before fixing, each with its one outcome."""
    if not outcomes:
        return ""
    lines = [f"observed before fixing ({len(outcomes)}), one outcome each:"]
    for o in outcomes:
        what = (
            f"recompile on `{_short(o.kind, 50)}`" if o.what == "recompile" else o.gb_id or o.kind
        )
        head = f"{o.path}:{o.line}: {what} {o.rule} `{_short(o.code, 60)}`: {o.outcome}"
        if o.outcome == "fixed":
            lines.append(f"{head} by {o.by}")
        elif o.outcome == "proposed":
            lines.append(f"{head}: {o.by} (not applied: {o.reason})")
            if o.patch:
                lines.extend("    " + ln for ln in o.patch.rstrip("\n").splitlines())
        else:
            lines.append(f"{head}: {o.reason}")
        if o.outcome != "fixed" and o.recipe:
            lines.append(f"    recipe: {o.recipe}")
    c = Counter(o.outcome for o in outcomes)
    lines.append(f"{c['fixed']} fixed, {c['proposed']} proposed, {c['no remedy']} without a remedy")
    return "\n".join(lines)


def configs_text(configs: Sequence[ConfigResult]) -> str:
    out = []
    for c in configs:
        verdict = "removes" if c.accepted else "rejected"
        nums = (
            f"recompiles {c.recompiles_before} -> {c.recompiles_after}"
            if c.recompiles_before or c.recompiles_after
            else f"breaks {c.breaks_before} -> {c.breaks_after}"
        )
        where = f"written at {c.written}" if c.written else "add: " + "; ".join(c.lines)
        out.append(f"config {c.name}: {verdict} ({nums}): {c.reason}; {where}")
    return "\n".join(out)


def run_text(run: FixRun, diff: bool = False) -> list[str]:
    """The text report of a fix run, one entry per block: each record (and its proposed
    patch), the verification, the config remedies, every observed break's outcome, and the
    summary line last."""
    lines: list[str] = []
    for r in run.records:
        lines.append(_record_line(r, diff))
        if r.patch:
            lines.append(r.patch.rstrip("\n"))
    if run.verification is not None:
        lines.append(verification_text(run.verification))
        if run.configs:
            lines.append(configs_text(run.configs))
        if run.outcomes:
            lines.append(outcomes_text(run.outcomes))
    lines.append(summary_line(run, diff))
    return lines


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."


def _counts(d: dict[str, object]) -> str:
    def n(key: str, word: str) -> str:
        k = d.get(key, 0)
        return f"{k} {word}{'s' * (k != 1)}"

    return f"{n('graphs', 'graph')}, {n('breaks', 'break')}, {n('recompiles', 'recompile')}"


def run_json(run: FixRun) -> str:
    data: dict[str, object] = {
        "fixes": [dataclasses.asdict(r) for r in run.records],
        "changed": [c.path for c in run.changes],
        "written": run.written,
        "refused": [{"path": p, "reason": why} for p, why in run.refused],
        "outcomes": [dataclasses.asdict(o) for o in run.outcomes],
        "configs": [dataclasses.asdict(c) for c in run.configs],
        "verification": dataclasses.asdict(run.verification) if run.verification else None,
        "rounds": run.iterations,
    }
    return json.dumps(data, indent=2) + "\n"


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour.")
@click.option("--input-spec", type=click.Path(), help="Input spec for --verify (needs torch).")
@click.option(
    "--verify",
    is_flag=True,
    help="Run the model before and after each fix (needs --input-spec); apply only fixes "
    "that remove their break without changing the outputs.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--select", help="Comma-separated rule codes or prefixes to fix.")
@click.option("--extend-select", help="Comma-separated codes or prefixes to enable in addition.")
@click.option("--ignore", help="Comma-separated codes or prefixes not to fix.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option("--config", "config_file", type=click.Path(), help="pyproject.toml to read instead.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option(
    "--timeout",
    type=float,
    default=600.0,
    show_default=True,
    help="Time limit of each dynamic run in seconds.",
)
def fix(
    paths: tuple[str, ...],
    diff: bool,
    unsafe_fixes: bool,
    input_spec: str | None,
    verify: bool,
    fmt: str,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    exclude: tuple[str, ...],
    config_file: str | None,
    no_cache: bool,
    timeout: float,
) -> None:
    """Fix PATHS (files and folders; default: the current folder): safe fixes, unsafe ones
    too with --unsafe-fixes; with --verify, only fixes torch confirms."""
    from compilelint.config import ConfigError, resolve_config
    from compilelint.fix.api import fix_paths
    from compilelint.fix.textdiff import unified_diff

    path_list = list(paths) or ["."]
    missing = [p for p in path_list if not os.path.exists(p)]
    if missing:
        _fail(f"path not found: {missing[0]}")
    if verify and not input_spec:
        _fail("--verify needs --input-spec")
    if input_spec and not verify:
        _fail("--input-spec is only used with --verify")
    if input_spec:
        from compilelint.dynamic.spec import SpecError, load_spec

        try:
            load_spec(input_spec)
        except SpecError as exc:
            _fail(f"{input_spec}: {exc}")
        from compilelint.dynamic.api import INSTALL_HINT, torch_available

        if not torch_available():
            _fail(f"--verify: {INSTALL_HINT}")
    try:
        cfg, catalog = resolve_config(
            path_list,
            config_file=config_file,
            select=select,
            extend_select=extend_select,
            ignore=ignore,
            exclude=exclude,
            fail_on=None,
            target_torch=None,
            jobs=None,
            report_untraced=False,
            no_respect_gitignore=False,
        )
    except ConfigError as exc:
        _fail(str(exc))
        raise  # unreachable
    show = sys.stderr.isatty() and fmt == "text"

    def progress(msg: str) -> None:
        if show:
            click.echo(f"compilelint: {msg}", err=True)

    run = fix_paths(
        path_list,
        cfg,
        catalog=catalog,
        unsafe=unsafe_fixes,
        write=not diff,
        spec=input_spec,
        verify=verify,
        timeout=timeout,
        progress=progress,
        no_cache=no_cache,
    )
    if fmt == "json":
        click.echo(run_json(run), nl=False)
    else:
        if diff:
            for c in run.changes:
                from compilelint.fix.engine import decode

                click.echo(unified_diff(c.path, decode(c.before), decode(c.after)), nl=False)
        out = click.echo if not diff else (lambda s: click.echo(s, err=True))
        *body, last = run_text(run, diff)
        for line in body:
            out(line)
        for p, why in run.refused:
            click.echo(f"compilelint: error: {p} was not written: {why}", err=True)
        out(last)
    if run.refused or (run.verification is not None and run.verification.error):
        sys.exit(2)
    if diff and run.changes:
        sys.exit(1)
    if any(r.status == "rejected" for r in run.records):
        sys.exit(1)
    sys.exit(0)


def apply_for_check(
    paths: list[str], cfg: Config, catalog: Catalog, *, unsafe: bool, no_cache: bool
) -> None:
    """``check --fix``: apply the fixes, say what was fixed on stderr (ruff prints it with the
    remaining findings); files that cannot be written are reported, the check goes on."""
    from compilelint.fix.api import fix_paths

    run = fix_paths(paths, cfg, catalog=catalog, unsafe=unsafe, no_cache=no_cache)
    for p, why in run.refused:
        click.echo(f"compilelint: error: {p} was not written: {why}", err=True)
    if any(r.status == "applied" for r in run.records):
        click.echo(summary_line(run), err=True)
