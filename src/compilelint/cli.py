"""The ``compilelint`` command: a thin click front end over :mod:`compilelint.api`.

Exit codes: 0 clean, 1 findings at or above ``--fail-on``, 2 usage or internal error.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from compilelint import __version__
from compilelint.report import FORMATS

if TYPE_CHECKING:
    from rich.progress import TaskID

    from compilelint.catalog import Catalog
    from compilelint.config import Config
    from compilelint.model import Report
    from compilelint.report.outputs import Output
    from compilelint.vcs import Changes


def _fail(msg: str) -> None:
    click.echo(f"compilelint: error: {msg}", err=True)
    sys.exit(2)


def _load_catalog() -> Catalog:
    from compilelint.catalog import CatalogError, load_catalog

    try:
        return load_catalog()
    except CatalogError as exc:
        _fail(f"rule catalogue: {exc}")
        raise  # unreachable


class _LazyGroup(click.Group):
    """Subcommands whose modules are imported when they are asked for: ``compilelint check``
    (the pre-commit hook, CI) does not import the dynamic stage, ``fix`` or ``bench`` at start-up.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, Callable[[], click.Command | None]] = {}

    def _load(self, name: str) -> None:
        make = self.lazy.pop(name, None)
        cmd = make() if make is not None else None
        if cmd is not None:
            self.add_command(cmd, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for name in list(self.lazy):
            self._load(name)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy:
            self._load(cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="compilelint")
def main() -> None:
    """torch.compile diagnostics: find the lines that break the graph or recompile."""


# Set by a command whose process may end without the interpreter's teardown (see ``run``).
_FAST_EXIT = False


def run() -> None:
    """The ``compilelint`` command (the console script, ``python -m compilelint``): ``main``;
    then, after a ``check`` whose stages were all in this process (no dynamic stage, no
    traces), the process ends at once (``os._exit``) once stdout and stderr are flushed,
    instead of the interpreter freeing the scan's objects one by one (0.1-0.2 s of CPU after a
    200-file scan, all of it after the report is out). ``main`` itself, what tests and click's
    ``CliRunner`` call, exits as before; so does a run under coverage (its data is written at
    exit)."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    if fast_exit_allowed(code):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: Python's own exit reports it
            sys.exit(code)
        os._exit(code if isinstance(code, int) else 0)
    sys.exit(code)


def fast_exit_allowed(code: object) -> bool:
    """May the process end without its teardown: a command allowed it, the exit status is a
    number, and nothing that writes at exit is loaded (coverage)."""
    return (
        _FAST_EXIT
        and (code is None or isinstance(code, int))
        and "coverage" not in sys.modules
        and not os.environ.get("COMPILELINT_CLEAN_EXIT")
    )


class _OptionOrder(click.Command):
    """Records the order of repeated options in ``ctx.meta`` (for --format/--output pairs)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))
            ctx.meta["compilelint.option_order"] = [p.name for p in order]
        except click.UsageError:
            pass  # super() reports it
        return super().parse_args(ctx, args)


@main.command(cls=_OptionOrder)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmts",
    type=click.Choice(list(FORMATS)),
    multiple=True,
    help="Output format [default: text]. Repeatable; each --output belongs to the --format "
    "before it, and a format without one writes to stdout.",
)
@click.option(
    "--output",
    "-o",
    "outputs",
    multiple=True,
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write a report to this file (- for stdout). Repeatable, paired with --format.",
)
@click.option(
    "--diff-base",
    metavar="REF",
    help="Only report findings on lines changed against this git ref (merge-base, like a PR).",
)
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
    help="Worker processes (0: one per CPU this process may run on).",
)
@click.option("--no-color", is_flag=True, help="Plain text output.")
@click.option(
    "--report-untraced",
    is_flag=True,
    help="Also report code that torch.compile does not trace (library mode: code no public entry "
    "point reaches under default arguments, marked latent; JSON/SARIF `latent`).",
)
@click.option(
    "--mode",
    type=click.Choice(["eval", "train"]),
    help="The mode the model is compiled in: findings that break only in the other mode "
    "(training-only code in eval) are not reported [default: both].",
)
@click.option(
    "--dtype",
    type=click.Choice(["float32", "bfloat16", "float16", "float64"]),
    help="The model's floating dtype: findings behind a dtype guard for another dtype "
    "(`x.dtype == torch.float16 and ...` in float32) are not reported [default: any].",
)
@click.option("--no-respect-gitignore", is_flag=True, help="Scan files that .gitignore excludes.")
@click.option(
    "--python",
    "python",
    metavar="PATH",
    help="Interpreter or virtual environment whose installed packages calls are followed into "
    "[default: $VIRTUAL_ENV, ./.venv, else the one compilelint runs in].",
)
@click.option("--no-follow", is_flag=True, help="Do not follow calls into installed packages.")
@click.option(
    "--input-spec",
    type=click.Path(),
    help="Run the dynamic stage with this input spec (needs torch).",
)
@click.option(
    "--static-only",
    is_flag=True,
    help="With --input-spec: predict graphs, breaks and recompiles over the spec's calls from "
    "source, without running the model or importing torch; budgets apply to the prediction.",
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
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply safe fixes, then report the rest.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix, also apply unsafe fixes.")
@click.option(
    "--memory-limit",
    type=click.IntRange(min=0),
    default=None,
    metavar="MIB",
    help="Dynamic stage memory cap in MiB (0: none) [default: the spec's memory_mb, else 3/4 of RAM].",
)
@click.option(
    "--no-coverage",
    is_flag=True,
    help="Dynamic stage: skip the eager line-coverage pass that tells unreached lines from refuted findings.",
)
@click.option(
    "--show-refuted",
    is_flag=True,
    help="With --input-spec: also report static predictions that the run refuted (torch traced "
    "the code that holds them without the break); hidden by default.",
)
@click.option(
    "--trace",
    "traces",
    multiple=True,
    type=click.Path(),
    metavar="DIR_OR_FILE",
    help="Read a real run's torch structured traces (TORCH_TRACE=DIR; one log per rank, .gz "
    "too) and join them with the static findings. Repeatable; works with --input-spec.",
)
@click.option(
    "--trace-root",
    "trace_roots",
    multiple=True,
    metavar="OLD=NEW",
    help="Map trace paths under OLD (the training machine's) to NEW here (repeatable; default: "
    "match the scanned files by the longest common path suffix).",
)
def check(
    paths: tuple[str, ...],
    fmts: tuple[str, ...],
    outputs: tuple[str, ...],
    diff_base: str | None,
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
    mode: str | None,
    dtype: str | None,
    no_respect_gitignore: bool,
    python: str | None,
    no_follow: bool,
    input_spec: str | None,
    static_only: bool,
    timeout: float,
    baseline: str | None,
    max_graph_breaks: int | None,
    max_recompiles: int | None,
    no_default_paths: bool,
    apply_fixes: bool,
    unsafe_fixes: bool,
    memory_limit: int | None,
    no_coverage: bool,
    show_refuted: bool,
    traces: tuple[str, ...],
    trace_roots: tuple[str, ...],
) -> None:
    """Check PATHS (files and folders; default: the current folder)."""
    from compilelint.api import check as run_check
    from compilelint.api import exit_code, finalize
    from compilelint.report.outputs import (
        OutputError,
        events_in_order,
        pair_outputs,
        stdout_format,
    )

    if not paths and no_default_paths:
        return  # pre-commit passed no files: nothing to check, and not the current folder
    path_list = list(paths) or ["."]
    order = click.get_current_context().meta.get("compilelint.option_order")
    names = {"fmts": "format", "outputs": "output"}
    try:
        outs = pair_outputs(
            events_in_order(
                [names[n] for n in order if n in names] if order is not None else None,
                fmts,
                outputs,
            )
        )
    except OutputError as exc:
        _fail(str(exc))
        return
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
        python=python,
        no_follow=no_follow,
        mode=mode,
        dtype=dtype,
    )
    if (max_graph_breaks is not None or max_recompiles is not None) and not (input_spec or traces):
        _fail("--max-graph-breaks and --max-recompiles need --input-spec or --trace (a run)")
    roots: list[tuple[str, str]] = []
    if trace_roots:
        from compilelint.trace.paths import TraceRootError, parse_roots

        try:
            roots = parse_roots(trace_roots)
        except TraceRootError as exc:
            _fail(str(exc))
        if not traces:
            _fail("--trace-root needs --trace")
    if baseline is not None:
        from compilelint.baseline import BaselineError, load_baseline

        try:
            load_baseline(baseline)  # a bad baseline fails before the scan, in one line
        except BaselineError as exc:
            _fail(str(exc))

    changes = None
    if diff_base:
        from compilelint.vcs import VcsError, changed_lines

        try:
            changes = changed_lines(diff_base, path_list)
        except VcsError as exc:
            _fail(f"--diff-base: {exc}")
    if apply_fixes:
        from compilelint.fix.cli import apply_for_check

        apply_for_check(path_list, cfg, catalog, unsafe=unsafe_fixes, no_cache=no_cache)
    progress = None
    machine = stdout_format(outs) not in ("text", None)
    if not machine and sys.stderr.isatty() and not no_color:
        progress = _progress_bar()
    try:
        report = run_check(
            path_list,
            cfg,
            catalog=catalog,
            progress=progress,
            no_cache=no_cache,
            predict_spec=input_spec if input_spec and not traces else None,
        )
    finally:
        if progress is not None:
            progress.close()
    if traces:
        report = _add_traces(
            report,
            list(traces),
            roots,
            path_list,
            cfg,
            catalog,
            input_spec=input_spec,
            timeout=timeout,
            memory_limit=memory_limit,
            show_progress=not machine and sys.stderr.isatty() and not no_color,
        )
    elif input_spec and not static_only:
        try:
            from compilelint.dynamic.cli import add_dynamic_to_report
        except ImportError as exc:  # pragma: no cover - packaging error
            _fail(f"dynamic stage unavailable: {exc}")
            return
        report = add_dynamic_to_report(
            report,
            input_spec,
            catalog=catalog,
            timeout=timeout,
            memory_mb=memory_limit,
            cover=None if no_coverage else path_list,
            show_refuted=show_refuted,
        )
    report = finalize(
        report,
        cfg,
        baseline=baseline,
        max_graph_breaks=max_graph_breaks,
        max_recompiles=max_recompiles,
        spec_path=input_spec or (traces[0] if traces else None),
    )
    for e in report.errors:
        if e.kind == "usage":
            click.echo(f"compilelint: error: {e.message}", err=True)
    if changes is not None:
        from compilelint.vcs import restrict_report

        report = restrict_report(report, changes)
    if apply_fixes or unsafe_fixes or any(o.fmt in ("sarif", "markdown", "html") for o in outs):
        from compilelint.fix.api import attach_edits  # Finding.edits: the reporters' fixes

        report = attach_edits(report, path_list, cfg, catalog=catalog)
    _write_reports(report, catalog, outs, path_list, changes, no_color=no_color)
    if not traces and not (input_spec and not static_only):
        global _FAST_EXIT
        _FAST_EXIT = True  # the static stage only: nothing left to run or write at exit
    sys.exit(exit_code(report, cfg.fail_on))


def _add_traces(
    report: Report,
    traces: list[str],
    roots: list[tuple[str, str]],
    path_list: list[str],
    cfg: Config,
    catalog: Catalog,
    *,
    input_spec: str | None,
    timeout: float,
    memory_limit: int | None,
    show_progress: bool,
) -> Report:
    """``--trace``: read every rank's trace, run the spec too when given, join and merge."""
    from compilelint.static.discovery import discover
    from compilelint.trace.api import (
        add_trace_to_report,
        join_traces,
        read_traces,
        trace_progress_bar,
    )
    from compilelint.trace.reader import TraceError

    bar = trace_progress_bar() if show_progress else None
    try:
        ranks = read_traces(traces, progress=bar)
    except TraceError as exc:
        _fail(str(exc))
        raise  # unreachable
    finally:
        if bar is not None:
            bar.close()
    spec_result = None
    if input_spec:
        from compilelint.dynamic.api import run_dynamic

        spec_result = run_dynamic(
            input_spec,
            cwd=os.getcwd(),
            timeout=timeout,
            progress=show_progress,
            memory_mb=memory_limit,
        )
    disc = discover(
        path_list, exclude=cfg.exclude + cfg.extend_exclude, respect_gitignore=cfg.respect_gitignore
    )
    run = join_traces(
        ranks,
        [str(f) for f in disc.files],
        root=os.getcwd(),
        trace_roots=roots,
        spec_result=spec_result,
    )
    return add_trace_to_report(report, run, catalog=catalog)


def _write_reports(
    report: Report,
    catalog: Catalog,
    outs: list[Output],
    path_list: list[str],
    changes: Changes | None,
    *,
    no_color: bool,
) -> None:
    """Every --format/--output pair (compilelint.report.outputs), GitHub's changed lines."""
    from compilelint.report.outputs import github_changes, source_root, write_outputs

    env = dict(os.environ)
    options: dict[str, object] = {"cwd": os.getcwd(), "env": env, "changes": changes}
    if any(o.fmt in ("sarif", "markdown", "github", "html") for o in outs):
        options["srcroot"] = source_root(os.getcwd())
    if changes is None and any(o.fmt == "github" for o in outs):
        options["changes"], warning = github_changes(path_list, env)
        if warning:
            click.echo(f"compilelint: warning: {warning}", err=True)
    color = not no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    problems = write_outputs(
        report,
        catalog,
        outs,
        options=options,
        env=env,
        echo=lambda text: click.echo(text, nl=False),
        color=color,
    )
    if problems:
        _fail(problems[0])


def resolve_config(path_list: list[str], **flags: Any) -> tuple[Config, Catalog]:
    """:func:`compilelint.config.resolve_config`, ending the command with one line (exit 2)
    on a bad value."""
    from compilelint.config import ConfigError
    from compilelint.config import resolve_config as resolve

    try:
        return resolve(path_list, **flags)
    except ConfigError as exc:
        _fail(str(exc))
        raise  # unreachable


class _ScanProgress:
    """The scan's progress bar (rich), shown from the first call with 50 files or more."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.prog = Progress(
            TextColumn("scanning"), BarColumn(), MofNCompleteColumn(), transient=True
        )
        self.task: TaskID | None = None

    def __call__(self, done: int, total: int) -> None:
        if total < 50:
            return
        if self.task is None:
            self.prog.start()
            self.task = self.prog.add_task("scan", total=total)
        self.prog.update(self.task, completed=done)

    def close(self) -> None:
        if self.task is not None:
            self.prog.stop()


def _progress_bar() -> _ScanProgress:
    return _ScanProgress()


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


def _spec_command() -> click.Command | None:
    try:
        from compilelint.dynamic.cli import spec
    except ImportError:
        return None
    return spec


def _baseline_command() -> click.Command:
    from compilelint.baseline.cli import make_baseline_group

    return make_baseline_group(check)


def _fix_command() -> click.Command:
    from compilelint.fix.cli import fix

    return fix


def _bench_command() -> click.Command:
    from compilelint.bench.cli import bench

    return bench


assert isinstance(main, _LazyGroup)  # click.group(cls=...) is typed as returning a Group
main.lazy.update(
    spec=_spec_command, baseline=_baseline_command, fix=_fix_command, bench=_bench_command
)


@main.command("server")
def server_command() -> None:
    """Run the Language Server (LSP over stdio): diagnostics, quick fixes and rule docs in the
    editor. Static stage only: never imports torch or runs your code. Needs the `lsp` extra."""
    try:
        from compilelint.lsp.server import main as serve
    except ImportError:
        _fail("compilelint server needs pygls: pip install 'compilelint[lsp]'")
        return
    serve()


if __name__ == "__main__":  # pragma: no cover
    main()
