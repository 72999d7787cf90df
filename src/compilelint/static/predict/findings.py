"""The prediction as the scan reports it: the recompiles predicted without a spec
(:func:`spec_free_recompiles`), the findings a spec decides (:func:`spec_decided`), and the
predicted recompiles as ``CL303`` findings (:func:`recompile_findings`).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Sequence
from typing import Any

from compilelint.model import Finding
from compilelint.static.analysis.project import Project
from compilelint.static.predict.prediction import STATE_RULE, PredictedRecompile, Prediction
from compilelint.static.predict.reach import break_sites
from compilelint.static.predict.recompiles.loops import (
    _nested_frame_recompiles,
    _while_resume_recompiles,
)
from compilelint.static.predict.recompiles.numbers import (
    NUMBER_RULE,
    _number_recompiles,
    number_breaks,
)
from compilelint.static.predict.recompiles.sizes import SIZE_RULE, _varying_size_recompiles
from compilelint.static.predict.recompiles.state import (
    _FLOAT_INIT,
    _float_state_applies,
    _state_recompiles,
    float_state,
)


def spec_free_recompiles(
    project: Project,
    torch_version: str | None = None,
    source: Callable[[str], bytes | None] | None = None,
    findings: Sequence[Finding] = (),
    catalog: Any = None,
    known: Callable[[str], ast.Module | None] | None = None,
) -> list[PredictedRecompile]:
    """The recompiles the static stage predicts without an input spec: those whose evidence is
    all in the source, over everything torch.compile traces from the project's roots (module
    forwards and compiled functions, :attr:`Project.traced`). A frame of its own called in a
    loop with a tensor whose size changes between the iterations, or with one tensor twice on
    the first iteration (:func:`_varying_size_recompiles`), and a float attribute of a root's
    class that traced code changes from its own value (:func:`float_state`: one recompile,
    then symbolic; torch 2.13). Int counters and lists are CL501's own findings, at the line
    of their guard. What depends on the values a caller passes (numbers, strings, sizes that
    differ between calls) needs the spec. Since pred23i also: nested frames run with another
    int (:func:`_nested_frame_recompiles`), and a number a break hands the resume function that
    differs between its runs (:func:`_number_recompiles`): a ``random`` draw (between calls), a
    number read from a tensor in a function that runs twice per call (two call sites). Since
    pred23k also: a ``while`` test on a tensor re-entering its body's resume function with the
    numbers the body carries (:func:`_while_resume_recompiles`). An empty dict of the module
    that traced code fills (:func:`dict_state`) is predicted with a spec only: a metrics dict
    or a cache filled on every call recompiles once, on the second call, which the rules'
    fixed examples (a cache keyed by a size, a stats dict) would all report without one."""
    keyset = set(project.traced)
    out = _varying_size_recompiles(project, keyset, [], source, known)
    out.extend(_nested_frame_recompiles(project, keyset, out, source, known))
    if findings and catalog is not None:
        all_sites = break_sites(project, keyset, findings, catalog, source)
        out.extend(_while_resume_recompiles(project, keyset, findings, out, source, known))
        numbers = number_breaks(all_sites, source, known)
        if numbers:
            taken = {(r.path, r.line) for r in out}
            got = _number_recompiles(
                project, sorted(project.roots), numbers, 2, 1, source, known, all_sites
            )
            out.extend(r for r in got if (r.path, r.line) not in taken)
    if _float_state_applies(torch_version):
        out.extend(
            _state_recompiles(
                project,
                [r for r in sorted(project.roots) if r[1].endswith(".forward")],
                keyset,
                {(r.path, r.line) for r in out},
                float_state,
                _FLOAT_INIT,
                "self.{attr} == <its first value>",
                "`self.{attr}` is a float attribute changed in traced code; torch guards on its "
                "value at its first read, recompiles once, then keeps it symbolic",
                source,
                known,
            )
        )
    return out


PREDICTED_RECOMPILE = "CL303"
_RECOMPILE_RULES = ("CL301", "CL302", "CL304", "CL501", "CL502", PREDICTED_RECOMPILE)


def spec_decided(
    pred: Prediction, findings: Sequence[Finding], cwd: str | None = None
) -> list[Finding]:
    """``findings`` less the scan's own ``CL303`` findings (the recompiles it predicts without a
    spec, "between its calls") in the files the spec's entry reaches at lines the prediction
    has no recompile for: with a spec the prediction knows the calls (one call draws one
    number, runs a frame once), so it decides; elsewhere they stay. Likewise the ``CL304``
    findings whose int the spec's calls cannot change (:func:`settled_sizes`)."""
    base = cwd or os.getcwd()

    def key(path: str, line: int) -> tuple[str, int]:
        return os.path.realpath(os.path.join(base, path)), line

    files = {key(p, 0)[0] for p in pred.files}
    sites = {key(r.path, r.line) for r in pred.recompile_sites}
    settled = {key(p, line) for p, line in pred.settled}
    return [
        f
        for f in findings
        if (
            f.rule != PREDICTED_RECOMPILE
            or key(f.path, f.line)[0] not in files
            or key(f.path, f.line) in sites
        )
        and not (
            f.rule in (SIZE_RULE, STATE_RULE, NUMBER_RULE)
            and key(f.path, f.line) in settled - sites
        )
    ]


def recompile_findings(
    pred: Prediction | Sequence[PredictedRecompile],
    findings: Sequence[Finding],
    rule: Any,
    *,
    cwd: str | None = None,
    over: str = " over the spec's calls",
    source: Callable[[str], bytes | None] | None = None,
) -> list[Finding]:
    """The predicted recompiles as ``CL303`` findings (``rule``: its catalogue entry), at the
    line that installs the guard; none where a recompiles rule already reports that line, or a
    ``# noqa`` there suppresses it. Pure: reads the files' text only: the scan's (``source``,
    by the site's path: the editor's buffer), else the file on disk."""
    from compilelint.suppress import is_suppressed, parse_suppressions

    base = cwd or os.getcwd()

    def key(path: str, line: int) -> tuple[str, int]:
        return os.path.realpath(os.path.join(base, path)), line

    # one guard per changing value: a CL501 finding at a change names the line of its guard
    taken = {
        key(f.path, line)
        for f in findings
        if f.rule in _RECOMPILE_RULES
        for line in {f.line, f.guard_line or f.line}
    }
    out: list[Finding] = []
    texts: dict[str, list[str]] = {}
    noqa: dict[str, dict[int, list[str]]] = {}
    sites = pred.recompile_sites if isinstance(pred, Prediction) else pred
    for site in sites:
        k = key(site.path, site.line)
        if k in taken:
            continue
        taken.add(k)
        if k[0] not in texts:
            data = source(site.path) if source is not None else None
            if data is not None:
                texts[k[0]] = data.decode("utf-8", errors="replace").splitlines()
            else:
                try:
                    with open(k[0], encoding="utf-8", errors="replace") as fh:
                        texts[k[0]] = fh.read().splitlines()
                except OSError:
                    texts[k[0]] = []
            noqa[k[0]] = parse_suppressions("\n".join(texts[k[0]]))
        lines = texts[k[0]]
        text = lines[site.line - 1] if 0 < site.line <= len(lines) else ""
        if is_suppressed(noqa[k[0]], rule.code, site.line, site.line):
            continue
        col = len(text) - len(text.lstrip()) + 1
        out.append(
            Finding(
                rule=rule.code,
                name=rule.name,
                path=site.path,
                line=site.line,
                col=col,
                end_line=site.line,
                end_col=len(text.rstrip()) + 1,
                severity=rule.severity,
                message=rule.message.format(
                    function=site.function,
                    count=site.count,
                    guard=site.guard,
                    reason=site.reason,
                    over=over,
                ),
                fix=site.fix,
                function=site.function,
                line_text=text.strip(),
                count=site.count,
            )
        )
    return out
