"""``compilelint bench``: a thin click front end over :func:`compilelint.bench.api.run_bench`.

Mounted by ``cli.py`` with ``main.add_command(bench)``. Nothing here imports torch.

Exit codes: 0 every configuration was measured, 1 some mode (or a compared model) failed,
2 usage errors, bad specs, or the baseline's eager run failed (nothing to compare with).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from compilelint.bench.api import (
    DTYPES,
    BenchError,
    BenchOptions,
    Target,
    annotate_rules,
    exit_code,
    parse_modes,
    run_bench,
)


def _fail(msg: str) -> None:
    click.echo(f"compilelint: error: {msg}", err=True)
    sys.exit(2)


@click.command("bench")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--input-spec", "input_spec", type=click.Path(), help="The spec of the model to bench."
)
@click.option(
    "--modes",
    help="Comma-separated compile modes [default: default, plus reduce-overhead on a GPU].",
)
@click.option("--steps", type=int, default=50, show_default=True, help="Timed steps per mode.")
@click.option(
    "--warmup",
    type=int,
    default=10,
    show_default=True,
    help="Untimed steps after the first (on a GPU, and for at least 2 s).",
)
@click.option(
    "--attribution-steps",
    type=int,
    default=20,
    show_default=True,
    help="Extra steps with timers around each compiled graph (0: skip).",
)
@click.option(
    "--eager-runs",
    type=int,
    default=1,
    show_default=True,
    help="Eager runs per model (the first before the compiled modes, the others after them); "
    "their spread is shown and disagreement beyond noise is reported.",
)
@click.option("--train", is_flag=True, help="Time forward + backward (default: the spec's mode).")
@click.option("--dtype", help=f"Cast the model and floating inputs to one of {', '.join(DTYPES)}.")
@click.option("--device", help="cpu, cuda or auto (default: the spec's device).")
@click.option("--backend", default="inductor", show_default=True, help="torch.compile backend.")
@click.option(
    "--compare",
    "compare_specs",
    multiple=True,
    type=click.Path(),
    help="Also bench this spec (e.g. a fixed copy of the model) and compare (repeatable).",
)
@click.option(
    "--fix",
    "fix",
    is_flag=True,
    help="Also bench a temporary copy with compilelint's fixes for PATHS applied, each verified "
    "with torch (the files themselves are not changed).",
)
@click.option(
    "--warm-cache",
    is_flag=True,
    help="Use the usual inductor cache (default: a fresh one per mode, so compile times are cold).",
)
@click.option(
    "--timeout",
    type=float,
    default=1200.0,
    show_default=True,
    help="Time limit per configuration in seconds.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "html"]),
    default="text",
    show_default=True,
    help="html: the HTML report of PATHS (static findings) with the benchmark as a section.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the result here.")
@click.option("--no-color", is_flag=True, help="Plain text output.")
def bench(
    paths: tuple[str, ...],
    input_spec: str | None,
    modes: str | None,
    steps: int,
    warmup: int,
    attribution_steps: int,
    eager_runs: int,
    train: bool,
    dtype: str | None,
    device: str | None,
    backend: str,
    compare_specs: tuple[str, ...],
    fix: bool,
    warm_cache: bool,
    timeout: float,
    fmt: str,
    output: str | None,
    no_color: bool,
) -> None:
    """Time eager vs. each torch.compile mode for the model in --input-spec, and say what each
    graph break costs per step. PATHS (default: the spec's model file) are scanned statically
    to name the rule behind each measured break."""
    if not input_spec:
        _fail("--input-spec is required: the spec names the model and its inputs")
        return
    for p in (input_spec, *compare_specs):
        if not os.path.isfile(p):
            _fail(f"no such spec file: {p}")
    for p in paths:
        if not os.path.exists(p):
            _fail(f"no such file or folder: {p}")
    if timeout <= 0:
        _fail(f"--timeout: expected a positive number of seconds, got {timeout:g}")
    try:
        mode_list = parse_modes(modes) if modes is not None else None
        opts = BenchOptions(
            modes=mode_list,
            steps=steps,
            warmup=warmup,
            attribution_steps=attribution_steps,
            eager_runs=eager_runs,
            train=train,
            dtype=dtype,
            backend=backend,
            device=device,
            timeout=timeout,
            fresh_cache=not warm_cache,
            progress=sys.stderr.isatty() or bool(os.environ.get("COMPILELINT_PROGRESS")),
        )
        targets = [Target("model", input_spec)]
        targets += [
            Target("compare" if len(compare_specs) == 1 else f"compare {i + 1}", spec)
            for i, spec in enumerate(compare_specs)
        ]
        command = _command_line(click.get_current_context())
        fix_paths = (list(paths) or _model_files([input_spec])) if fix else None
        if fix and not fix_paths:
            raise BenchError("--fix: name the files to fix (PATHS); the spec's model is a module")
        result = run_bench(targets, opts, command=command, fix=fix_paths)
    except BenchError as exc:
        _fail(str(exc))
        return
    _annotate(result, list(paths))
    for run in result["runs"]:
        problems = [("eager", run["eager"].get("error"))] + [
            (m["mode"], m.get("error")) for m in run["modes"]
        ]
        for what, err in problems:
            if err:
                where = (
                    f" ({err['frame']['path']}:{err['frame']['line']})" if err.get("frame") else ""
                )
                click.echo(
                    f"compilelint: error: {run['label']} {what} failed at {err.get('step')}: "
                    f"{err.get('message')}{where}",
                    err=True,
                )
    if fmt == "json":
        text = json.dumps(result, indent=2) + "\n"
    elif fmt == "html":
        text = _html_page(result, list(paths))
    else:
        from compilelint.report.bench_text import render

        color = (
            not no_color and output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        )
        # click 8.1 removed click.get_terminal_size (AttributeError); the standard library's
        width = shutil.get_terminal_size().columns if color else 120
        text = render(result, {"color": color, "width": max(width, 80)})
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror or exc}")
    else:
        click.echo(text, nl=False)
    sys.exit(exit_code(result))


def _html_page(result: dict[str, Any], paths: list[str]) -> str:
    """The HTML report of the static findings for PATHS, with the benchmark as a section."""
    import dataclasses

    from compilelint.api import check
    from compilelint.catalog import load_catalog
    from compilelint.report import get_reporter

    report = check(paths or ["."])
    report = dataclasses.replace(report, extra={**report.extra, "bench": result})
    return get_reporter("html")(report, load_catalog(), {})


def _command_line(ctx: click.Context) -> str:
    """The command as the user could retype it (options left at their defaults omitted)."""
    words = ["compilelint", "bench", *ctx.params.get("paths", ())]
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name in ("paths", "no_color", "output"):
            continue
        value = ctx.params.get(param.name or "")
        source = ctx.get_parameter_source(param.name or "")
        if source is not click.core.ParameterSource.COMMANDLINE:
            continue
        flag = max(param.opts, key=len)
        if param.is_flag:
            words.append(flag)
        elif param.multiple:
            for v in value or ():
                words += [flag, str(v)]
        else:
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def _model_files(specs: list[str]) -> list[str]:
    """The model files the specs name (``file.py:Name``), relative to the current folder."""
    from compilelint.dynamic.spec import SpecError, load_spec

    out: list[str] = []
    for sp in specs:
        try:
            target = load_spec(sp).model.rsplit(":", 1)[0]
        except SpecError:
            continue
        for base in (os.getcwd(), os.path.dirname(os.path.abspath(sp))):
            cand = os.path.join(base, target)
            if target.endswith(".py") and os.path.isfile(cand):
                out.append(os.path.relpath(cand))
                break
    return out


def _annotate(result: dict[str, Any], paths: list[str]) -> None:
    """Name the static rules behind each measured break (scans PATHS or the spec's model file)."""
    if not paths:
        for run in result.get("runs", []):
            target = str(run.get("model", "")).rsplit(":", 1)[0]
            if target.endswith(".py") and os.path.isfile(target):
                paths.append(target)
    if not paths:
        return
    from compilelint.api import check

    try:
        report = check(sorted(set(paths)))
    except Exception:  # the static scan is a courtesy here; the measurements stand without it
        return
    annotate_rules(result, report.findings)
