"""The ``compilelint`` command: a thin click front end over :mod:`compilelint.api`.

Exit codes: 0 clean, 1 findings at or above ``--fail-on``, 2 usage or internal error.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from compilelint import __version__

if TYPE_CHECKING:
    from compilelint.catalog import Catalog
    from compilelint.config import Config


def _fail(msg: str) -> None:
    click.echo(f"compilelint: error: {msg}", err=True)
    sys.exit(2)


def _load_catalog():  # type: ignore[no-untyped-def]
    from compilelint.catalog import CatalogError, load_catalog

    try:
        return load_catalog()
    except CatalogError as exc:
        _fail(f"rule catalogue: {exc}")
        raise  # unreachable


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="compilelint")
def main() -> None:
    """torch.compile diagnostics: find the lines that break the graph or recompile."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "table"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to a file.")
@click.option(
    "--select", help="Comma-separated rule codes or prefixes to enable (replaces defaults)."
)
@click.option("--extend-select", help="Comma-separated codes or prefixes to enable in addition.")
@click.option("--ignore", help="Comma-separated codes or prefixes to disable.")
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "never"]),
    default=None,
    help="Lowest severity that makes the exit code 1 [default: warning].",
)
@click.option(
    "--target-torch",
    help="Torch version to lint for, e.g. 2.13 (rules outside their version range are skipped).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(),
    help="pyproject.toml to read instead of discovering one.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=None,
    help="Worker processes (0: one per core).",
)
@click.option("--no-color", is_flag=True, help="Plain text output.")
@click.option(
    "--report-untraced", is_flag=True, help="Also report code that torch.compile does not trace."
)
@click.option("--no-respect-gitignore", is_flag=True, help="Scan files that .gitignore excludes.")
@click.option(
    "--input-spec",
    type=click.Path(),
    help="Run the dynamic stage with this input spec (needs torch).",
)
@click.option(
    "--timeout",
    type=float,
    default=600.0,
    show_default=True,
    help="Dynamic stage time limit in seconds.",
)
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="Report and fail only on findings not in this baseline file (`compilelint baseline create`).",
)
@click.option(
    "--max-graph-breaks",
    type=click.IntRange(min=0),
    help="Fail (exit 1) when the dynamic run observes more graph breaks than this.",
)
@click.option(
    "--max-recompiles",
    type=click.IntRange(min=0),
    help="Fail (exit 1) when the dynamic run observes more recompiles than this.",
)
@click.option(
    "--no-default-paths",
    is_flag=True,
    help="With no PATHS, check nothing and exit 0 instead of checking the current folder (pre-commit).",
)
def check(
    paths: tuple[str, ...],
    fmt: str,
    output: str | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    exclude: tuple[str, ...],
    fail_on: str | None,
    target_torch: str | None,
    config_file: str | None,
    no_cache: bool,
    jobs: int | None,
    no_color: bool,
    report_untraced: bool,
    no_respect_gitignore: bool,
    input_spec: str | None,
    timeout: float,
    baseline: str | None,
    max_graph_breaks: int | None,
    max_recompiles: int | None,
    no_default_paths: bool,
) -> None:
    """Check PATHS (files and folders; default: the current folder)."""
    from compilelint.api import check as run_check
    from compilelint.api import exit_code, finalize
    from compilelint.report import get_reporter

    if not paths and no_default_paths:
        return  # pre-commit passed no files: nothing to check, and not the current folder
    path_list = list(paths) or ["."]
    cfg, catalog = resolve_config(
        path_list,
        config_file=config_file,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        exclude=exclude,
        fail_on=fail_on,
        target_torch=target_torch,
        jobs=jobs,
        report_untraced=report_untraced,
        no_respect_gitignore=no_respect_gitignore,
    )
    if (max_graph_breaks is not None or max_recompiles is not None) and not input_spec:
        _fail("--max-graph-breaks and --max-recompiles need --input-spec (a dynamic run)")
    if baseline is not None:
        from compilelint.baseline import BaselineError, load_baseline

        try:
            load_baseline(baseline)  # a bad baseline fails before the scan, in one line
        except BaselineError as exc:
            _fail(str(exc))

    progress = None
    machine = fmt != "text"
    if not machine and sys.stderr.isatty() and not no_color:
        progress = _progress_bar()
    try:
        report = run_check(path_list, cfg, catalog=catalog, progress=progress, no_cache=no_cache)
    finally:
        if progress is not None:
            progress.close()  # type: ignore[attr-defined]
    if input_spec:
        try:
            from compilelint.dynamic.cli import add_dynamic_to_report
        except ImportError as exc:  # pragma: no cover - packaging error
            _fail(f"dynamic stage unavailable: {exc}")
            return
        report = add_dynamic_to_report(report, input_spec, catalog=catalog, timeout=timeout)
    report = finalize(
        report,
        cfg,
        baseline=baseline,
        max_graph_breaks=max_graph_breaks,
        max_recompiles=max_recompiles,
        spec_path=input_spec,
    )
    for e in report.errors:
        if e.kind == "usage":
            click.echo(f"compilelint: error: {e.message}", err=True)
    color = (
        fmt == "text"
        and not no_color
        and output is None
        and sys.stdout.isatty()
        and ("NO_COLOR" not in os.environ)
    )
    text = get_reporter(fmt)(report, catalog, {"color": color})
    if output:
        try:
            Path(output).write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror or exc}")
    else:
        click.echo(text, nl=False)
    sys.exit(exit_code(report, cfg.fail_on))


def resolve_config(
    path_list: list[str],
    *,
    config_file: str | None,
    select: str | None,
    extend_select: str | None,
    ignore: str | None,
    exclude: tuple[str, ...],
    fail_on: str | None,
    target_torch: str | None,
    jobs: int | None,
    report_untraced: bool,
    no_respect_gitignore: bool,
) -> tuple[Config, Catalog]:
    """The config (pyproject, then flags) and the catalogue, shared by ``check`` and
    ``baseline create``; bad values end the command with one line (exit 2)."""
    from compilelint.config import ConfigError, from_table, load_config

    try:
        cfg = load_config(path_list, config_file)
        table: dict[str, object] = {}
        if select is not None:
            table["select"] = _split(select)
        if extend_select is not None:
            table["extend-select"] = _split(extend_select)
        if ignore is not None:
            table["ignore"] = list(cfg.ignore) + _split(ignore)
        if exclude:
            table["extend-exclude"] = list(cfg.extend_exclude) + list(exclude)
        if fail_on is not None:
            table["fail-on"] = fail_on
        if target_torch is not None:
            table["target-torch"] = target_torch
        if jobs is not None:
            table["jobs"] = jobs
        if report_untraced:
            table["report-untraced"] = True
        if no_respect_gitignore:
            table["respect-gitignore"] = False
        if table:
            cfg = from_table(table, "command line", base=cfg)
    except ConfigError as exc:
        _fail(str(exc))
        raise  # unreachable
    catalog = _load_catalog()
    unknown = [
        c
        for c in (cfg.select + cfg.extend_select + cfg.ignore)
        if c != "ALL" and not any(code.startswith(c) for code in catalog.rules)
    ]
    if unknown:
        _fail(f"unknown rule code {unknown[0]!r} (see `compilelint rules`)")
    return cfg, catalog


def _split(v: str) -> list[str]:
    return [x.strip().upper() for x in v.split(",") if x.strip()]


def _progress_bar():  # type: ignore[no-untyped-def]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    prog = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), transient=True)
    state: dict[str, object] = {}

    class _P:
        def __call__(self, done: int, total: int) -> None:
            if total < 50:
                return
            if "task" not in state:
                prog.start()
                state["task"] = prog.add_task("scan", total=total)
            prog.update(state["task"], completed=done)  # type: ignore[arg-type]

        def close(self) -> None:
            if "task" in state:
                prog.stop()

    return _P()


@main.command("rules")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Show rules that are off by default too (default: all shown).",
)
def rules_cmd(fmt: str, show_all: bool) -> None:
    """The rule catalogue."""
    import json

    from compilelint.docs import rules_table

    catalog = _load_catalog()
    if fmt == "json":
        data = [
            {
                k: v
                for k, v in dataclasses.asdict(r).items()
                if k not in ("sections", "examples", "path")
            }
            for r in (catalog.rules[c] for c in catalog.codes())
        ]
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(rules_table(catalog, fmt="github" if fmt == "markdown" else "simple"))


@main.command("rule")
@click.argument("code")
def rule_cmd(code: str) -> None:
    """Show one rule's page: what, why, example, use instead, fix safety, torch ids."""
    from compilelint.docs import rule_page

    catalog = _load_catalog()
    rule = catalog.get(code.upper())
    if rule is None:
        by_name = {r.name: r for r in catalog.rules.values()}
        rule = by_name.get(code)
    if rule is None:
        _fail(f"unknown rule {code!r} (see `compilelint rules`)")
        return
    click.echo(rule_page(rule))


def _mount_dynamic() -> None:
    try:
        from compilelint.dynamic.cli import spec
    except ImportError:
        return
    main.add_command(spec)


_mount_dynamic()


def _mount_baseline() -> None:
    from compilelint.baseline.cli import make_baseline_group

    main.add_command(make_baseline_group(check))


_mount_baseline()


if __name__ == "__main__":  # pragma: no cover
    main()
