"""``compilelint baseline create``: write the current findings to a baseline file.

It takes the same selection and configuration options as ``check`` (the option objects are
taken from the ``check`` command itself, so the two cannot drift apart).
"""

from __future__ import annotations

import copy
import os
import sys
from typing import Any

import click

from compilelint.baseline import DEFAULT_BASELINE, build_baseline, write_baseline


def _fail(msg: str) -> None:
    click.echo(f"compilelint: error: {msg}", err=True)
    sys.exit(2)


# ``check`` options that decide which findings exist; output and budget options do not apply.
SHARED_OPTIONS = (
    "select",
    "extend_select",
    "ignore",
    "exclude",
    "target_torch",
    "config_file",
    "no_cache",
    "jobs",
    "report_untraced",
    "no_respect_gitignore",
    "input_spec",
    "timeout",
)


def make_baseline_group(check_cmd: click.Command) -> click.Group:
    """The ``baseline`` group, with ``create`` sharing ``check_cmd``'s selection options."""
    shared = [copy.copy(p) for p in check_cmd.params if p.name in SHARED_OPTIONS]
    params: list[click.Parameter] = [
        click.Argument(["paths"], nargs=-1, type=click.Path()),
        click.Option(
            ["--output", "-o"],
            type=click.Path(dir_okay=False),
            default=DEFAULT_BASELINE,
            show_default=True,
            help="Baseline file to write (replaced if it exists).",
        ),
        *shared,
    ]
    create = click.Command(
        "create",
        params=params,
        callback=_create,
        help=(
            "Write the current findings of PATHS (default: the current folder) to a baseline "
            "file; `compilelint check --baseline FILE` then reports only new findings."
        ),
    )
    group = click.Group(
        "baseline", help="Adopt compilelint in an existing codebase: record known findings."
    )
    group.add_command(create)
    return group


def _create(paths: tuple[str, ...], output: str, **opts: Any) -> None:
    from compilelint.api import check as run_check
    from compilelint.config import ConfigError, resolve_config

    path_list = list(paths) or ["."]
    try:
        cfg, catalog = resolve_config(
            path_list,
            config_file=opts["config_file"],
            select=opts["select"],
            extend_select=opts["extend_select"],
            ignore=opts["ignore"],
            exclude=opts["exclude"],
            fail_on=None,
            target_torch=opts["target_torch"],
            jobs=opts["jobs"],
            report_untraced=bool(opts["report_untraced"]),
            no_respect_gitignore=bool(opts["no_respect_gitignore"]),
        )
    except ConfigError as exc:
        _fail(str(exc))
        raise  # unreachable
    report = run_check(path_list, cfg, catalog=catalog, no_cache=bool(opts["no_cache"]))
    spec = opts.get("input_spec")
    if spec:
        from compilelint.dynamic.cli import add_dynamic_to_report

        report = add_dynamic_to_report(
            report,
            str(spec),
            catalog=catalog,
            timeout=opts["timeout"],
        )
    problems = [e for e in report.errors if e.kind in ("usage", "internal", "dynamic")]
    if problems:
        # A baseline of an incomplete run would silently accept whatever it missed.
        _fail(f"{problems[0].message}; baseline not written")
    out_dir = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(out_dir):
        _fail(f"cannot write {output}: folder {out_dir} does not exist")
    baseline = build_baseline(report.findings, out_dir)
    try:
        write_baseline(baseline, output)
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}")
    n = len(report.findings)
    click.echo(
        f"Wrote {n} finding{'s' * (n != 1)} ({len(baseline.entries)} "
        f"entr{'ies' if len(baseline.entries) != 1 else 'y'}) to {output}."
    )
