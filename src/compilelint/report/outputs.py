"""Several reports from one run: ``--format``/``--output`` pairs, and the GitHub step summary.

Pairing rule: an ``--output`` belongs to the ``--format`` given just before it (or, when it
comes first, the one just after it); a format without an output writes to stdout, and at most
one may (``-o -`` names stdout explicitly). ``--output`` alone writes the text report there.
``compilelint check . --format github --format markdown -o summary.md`` prints annotations to
stdout and writes the markdown table to summary.md; ``--format json -o a.json --format sarif``
writes a.json and prints SARIF.

With ``--format github`` and ``$GITHUB_STEP_SUMMARY`` set, the markdown report is appended to
that file (never truncated); an output that names the step-summary file is appended too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from compilelint.catalog import Catalog
from compilelint.model import Report
from compilelint.report import FORMATS, get_reporter
from compilelint.vcs import Changes, VcsError, changed_lines, repo_root

STDOUT = "-"


class OutputError(Exception):
    """A bad combination of --format and --output (one line)."""


@dataclass(frozen=True)
class Output:
    fmt: str
    path: str | None  # None: stdout


def pair_outputs(events: Sequence[tuple[str, str]]) -> list[Output]:
    """Pair ``("format", F)`` and ``("output", PATH)`` events, in command-line order, by the
    pairing rule (module docstring); raise :class:`OutputError` naming the problem."""
    fmts: list[str] = []
    paths: list[str | None] = []
    pending: str | None = None  # an --output given before its --format
    last_was_format = False
    for kind, value in events:
        if kind == "format":
            if value not in FORMATS:
                raise OutputError(f"unknown format {value!r} (choose from {', '.join(FORMATS)})")
            fmts.append(value)
            paths.append(pending)
            last_was_format = pending is None
            pending = None
        elif last_was_format:
            paths[-1] = value
            last_was_format = False
        elif pending is None and (not fmts or paths[-1] is not None):
            pending = value
        else:
            raise OutputError(
                f"--output {value} has no --format of its own "
                "(give each --output right after its --format)"
            )
    if pending is not None:
        if fmts:
            raise OutputError(f"--output {pending} has no --format after it")
        fmts, paths = ["text"], [pending]
    if not fmts:
        fmts, paths = ["text"], [None]
    resolved = [None if p == STDOUT else p for p in paths]
    if sum(1 for p in resolved if p is None) > 1:
        names = ", ".join(f for f, p in zip(fmts, resolved) if p is None)
        raise OutputError(
            f"only one --format can write to stdout, got {names}; give the others an --output"
        )
    real = [os.path.realpath(p) for p in resolved if p is not None]
    dup = next((p for p in real if real.count(p) > 1), None)
    if dup is not None:
        raise OutputError(f"two formats write to the same file {dup}")
    return [Output(f, p) for f, p in zip(fmts, resolved)]


def events_in_order(
    order: Sequence[str] | None, formats: Sequence[str], outputs: Sequence[str]
) -> list[tuple[str, str]]:
    """Rebuild the command-line sequence of --format/--output from the order the parser saw
    the options in (``"format"``/``"output"`` names); without it, formats then outputs."""
    if order is None:
        return [("format", f) for f in formats] + [("output", o) for o in outputs]
    its = {"format": iter(formats), "output": iter(outputs)}
    events = [(k, next(its[k])) for k in order if k in its]
    events += [("format", f) for f in its["format"]] + [("output", o) for o in its["output"]]
    return events


def stdout_format(outs: Sequence[Output]) -> str | None:
    return next((o.fmt for o in outs if o.path is None), None)


def github_changes(
    paths: Sequence[str], env: Mapping[str, str]
) -> tuple[Changes | None, str | None]:
    """Changed lines against the pull request's base (``GITHUB_BASE_REF``), for annotations.

    Tries ``origin/<base>`` then ``<base>``; returns (None, warning) when neither works (e.g. a
    shallow checkout without the base branch), so annotations are then ranked only.
    """
    base = env.get("GITHUB_BASE_REF")
    if not base:
        return None, None
    last = ""
    for ref in (f"origin/{base}", base):
        try:
            return changed_lines(ref, paths), None
        except VcsError as exc:
            last = str(exc)
    return None, (
        f"cannot find the lines changed against {base} ({last}); "
        "annotations are not narrowed to changed lines"
    )


def source_root(cwd: str) -> str:
    """The git work tree's top folder holding ``cwd``, else ``cwd`` (SARIF ``%SRCROOT%``)."""
    try:
        return repo_root(cwd)
    except VcsError:
        return os.path.realpath(cwd)


def _same_file(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def write_outputs(
    report: Report,
    catalog: Catalog,
    outs: Sequence[Output],
    *,
    options: Mapping[str, object],
    env: Mapping[str, str],
    echo: Callable[[str], None],
    color: bool = False,
) -> list[str]:
    """Render and write every output; return one-line messages for files that failed."""
    problems: list[str] = []
    summary = env.get("GITHUB_STEP_SUMMARY") or None

    def put(path: str, text: str) -> None:
        append = summary is not None and _same_file(path, summary)
        try:
            with open(path, "a" if append else "w", encoding="utf-8") as fh:
                if append and fh.tell() > 0:
                    text = "\n" + text
                fh.write(text)
        except OSError as exc:
            problems.append(f"cannot write {path}: {exc.strerror or exc}")

    for o in outs:
        opts = dict(options)
        opts["color"] = color and o.path is None and o.fmt == "text"
        text = get_reporter(o.fmt)(report, catalog, opts)
        if o.path is None:
            echo(text)
        else:
            put(o.path, text)
    if summary and any(o.fmt == "github" for o in outs):
        named = any(
            o.fmt == "markdown" and o.path is not None and _same_file(o.path, summary) for o in outs
        )
        if not named:
            put(summary, get_reporter("markdown")(report, catalog, dict(options)))
    return problems
