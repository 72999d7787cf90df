"""``compilelint spec init|validate`` and the hook ``check --input-spec`` calls.

The lead's ``cli.py`` mounts :data:`spec` (``main.add_command(spec)``) and, for
``check --input-spec``, calls :func:`add_dynamic_to_report`. Nothing here imports torch.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from typing import Any

import click

from compilelint.catalog import Catalog, load_catalog
from compilelint.dynamic.api import DEFAULT_TIMEOUT, DynamicResult, run_dynamic
from compilelint.dynamic.spec import SpecError, init_spec, load_spec
from compilelint.merge import compile_failure_finding, merge_findings, refuted
from compilelint.model import FileError, Finding, Report
from compilelint.rank import rank_findings
from compilelint.static.predict import PREDICTED_RECOMPILE


def add_dynamic_to_report(
    report: Report,
    spec_path: str,
    *,
    cwd: str | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    progress: bool | None = None,
    catalog: Catalog | None = None,
    result: DynamicResult | None = None,
    memory_mb: int | None = None,
    cover: Sequence[str] | None = None,
    show_refuted: bool = False,
) -> Report:
    """Run the dynamic stage (unless ``result`` is given) and merge it into ``report``.

    Findings are merged and ranked; ``report.extra["dynamic"]`` carries the JSON block and
    ``report.extra["ranking"]`` the impact parts per rank. ``cover``: the scanned paths, whose
    executed lines an extra eager pass records (each finding's ``reached``; ``None``: no
    coverage, as ``check --no-coverage``). A failed run keeps the static
    findings, sets ``extra["dynamic"]["error"]`` and adds a ``FileError`` of kind ``"dynamic"``.
    Static predictions the run refuted (torch traced the code that holds them without the
    break) are left out unless ``show_refuted``; ``extra["dynamic"]["refuted"]`` counts them.
    """
    root = os.path.realpath(cwd or os.getcwd())
    if progress is None:
        progress = sys.stderr.isatty()
    cat = catalog or load_catalog()
    res = result or run_dynamic(
        spec_path,
        cwd=root,
        timeout=timeout,
        progress=progress,
        memory_mb=memory_mb,
        cover=list(cover or ()),
    )
    failure = res.block.get("compile_failure")
    # A run that stopped at a compile failure did not execute the model: no "not observed".
    ran = res.ok and bool(res.raw) and not failure
    merged = merge_findings(
        report.findings,
        res.breaks,
        res.recompiles,
        cat,
        root=root,
        reached=res.reached,
        ran=ran,
        covered=res.covered,
    )
    if isinstance(failure, dict):
        cf = compile_failure_finding(failure, cat, root=root)
        if cf is not None:
            merged.append(cf)

    # Only predicted breaks are refuted by a run that traced them without one: a recompile needs
    # calls the spec may not make (a counter recompiles on the second call).
    # A recompile predicted for the spec's calls (CL303) is replaced by what the run of those
    # same calls observed: kept only where torch confirmed it.
    def hide(f: Finding) -> bool:
        if f.rule == PREDICTED_RECOMPILE and f.stage == "static" and not res.error:
            return True
        rule = cat.get(f.rule)
        return refuted(f) and rule is not None and rule.verify == "breaks"

    hidden = 0 if show_refuted else sum(1 for f in merged if hide(f))
    if hidden:
        merged = [f for f in merged if not hide(f)]
    ranked, why = rank_findings(merged, res.breaks, root=root)
    errors = list(report.errors)
    err = res.error
    if err:
        where = ""
        frame = err.get("frame")
        if isinstance(frame, dict) and frame.get("path"):
            where = f" ({frame['path']}:{frame.get('line')})"
        errors.append(
            FileError(
                path=spec_path,
                message=f"dynamic stage failed at {err.get('step')}: {err.get('message')}{where}",
                kind="dynamic",
            )
        )
    by_rule = dict(sorted(Counter(f.rule for f in ranked).items()))
    summary = dataclasses.replace(report.summary, findings=len(ranked), by_rule=by_rule)
    extra = dict(report.extra)
    block = dict(res.block)
    block["summary"] = dynamic_summary(block)
    block["refuted"] = hidden
    extra["dynamic"] = block
    extra["ranking"] = why
    return dataclasses.replace(
        report,
        torch=report.torch or block.get("torch"),
        findings=tuple(ranked),
        errors=tuple(errors),
        summary=summary,
        extra=extra,
    )


def dynamic_summary(block: dict[str, Any]) -> dict[str, Any]:
    """Graphs, breaks, recompiles and the share of ops outside the largest graph."""
    ops = [int(x) for x in block.get("ops_per_graph") or []]
    total = sum(ops)
    outside = (total - max(ops)) / total if total else 0.0
    return {
        "graphs": block.get("graph_count", 0),
        "breaks": block.get("graph_break_count", 0),
        "recompiles": block.get("recompile_count", 0),
        "hit_recompile_limit": bool(block.get("hit_recompile_limit")),
        "ops_outside_largest_graph": round(outside, 3),
    }


@click.group("spec")
def spec() -> None:
    """Create and check input specs for `check --input-spec`."""


@spec.command("init")
@click.argument("target")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write here (default: stdout)."
)
@click.option(
    "--run",
    is_flag=True,
    help="For a factory: call it (in a child process, needs torch) and write the inputs it "
    "returns (small tensors as literal data).",
)
def spec_init(target: str, output: str | None, run: bool) -> None:
    """Print a starter spec for TARGET (file.py:Name or pkg.module:Name); never imports it
    unless --run is given."""
    try:
        data = init_spec(target)
    except SpecError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if run:
        data = _with_factory_inputs(data, target)
    text = json.dumps(data, indent=2) + "\n"
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


def _with_factory_inputs(data: dict[str, Any], target: str) -> dict[str, Any]:
    """``spec init --run``: the factory's own inputs, described by a child process."""
    import subprocess
    import tempfile

    from compilelint.dynamic.api import _child_env
    from compilelint.dynamic.spec import validate

    with tempfile.TemporaryDirectory(prefix="compilelint-init-") as tmp:
        out = os.path.join(tmp, "inputs.json")
        cmd = [sys.executable, "-m", "compilelint.dynamic.runner", "--factory-inputs", target]
        cmd += ["--out", out, "--root", os.getcwd()]
        try:
            subprocess.run(
                cmd,
                env=_child_env(False),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=600,
                check=False,
            )
            with open(out, encoding="utf-8") as fh:
                got = json.load(fh)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            got = {"error": f"the factory did not run: {exc}"}
    if got.get("error"):
        click.echo(f"error: spec init --run: {got['error']}", err=True)
        sys.exit(2)
    data = dict(data)
    data["inputs"] = got.get("inputs") or []
    if got.get("kwargs"):
        data["kwargs"] = got["kwargs"]
    data.pop("description", None)
    validate(data)  # what we write must load
    return data


@spec.command("validate")
@click.argument("spec_file", type=click.Path(dir_okay=False))
def spec_validate(spec_file: str) -> None:
    """Check SPEC_FILE; print one line naming the JSON path of the first problem."""
    try:
        s = load_spec(spec_file)
    except SpecError as exc:
        click.echo(f"{spec_file}: {exc}", err=True)
        sys.exit(2)
    n = len(s.variants)
    click.echo(f"{spec_file}: ok ({s.model}, {len(s.inputs)} inputs, {n} variant{'s' * (n != 1)})")
