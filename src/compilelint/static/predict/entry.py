"""The prediction's entry: :func:`predict` joins reachability (:mod:`.reach`), the graph count
(:mod:`.graphs`) and each recompile kind (:mod:`.recompiles`) for one input spec.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from compilelint.model import Finding
from compilelint.static.analysis.project import Project
from compilelint.static.predict.graphs import graph_count, graphless_lines
from compilelint.static.predict.prediction import (
    _SELF_ATTR,
    RECOMPILE_LIMIT,
    STATE_RULE,
    Prediction,
    spec_calls,
)
from compilelint.static.predict.reach import (
    _candidate_in_loop,
    _read_eagerly,
    break_sites,
    find_entry,
    reachable,
)
from compilelint.static.predict.recompiles.globals import _global_state_recompiles
from compilelint.static.predict.recompiles.inputs import predict_recompiles
from compilelint.static.predict.recompiles.loops import (
    _nested_frame_recompiles,
    _while_resume_recompiles,
)
from compilelint.static.predict.recompiles.numbers import number_breaks, settled_numbers
from compilelint.static.predict.recompiles.sizes import (
    SIZE_RULE,
    _shapes_change,
    _size_recompiles,
    _varying_size_recompiles,
    settled_sizes,
)
from compilelint.static.predict.recompiles.state import (
    _dict_state_recompiles,
    _flag_recompiles,
    _float_state_applies,
    _grown_tensor_recompiles,
    _site_recompiles,
    _submodule_state_recompiles,
    first_read,
    float_state,
)


def predict(
    project: Project,
    findings: Sequence[Finding],
    spec: Any,
    catalog: Any,
    spec_dir: str = "",
    torch_version: str | None = None,
) -> Prediction:
    calls = spec_calls(spec)
    entry = find_entry(project, spec.model, spec_dir or os.path.dirname(spec.source or ""))
    notes: list[str] = []
    if entry is None:
        return Prediction(
            entry=spec.model,
            function="",
            calls=len(calls),
            graph_count=0,
            graph_breaks=0,
            recompiles=0,
            notes=(f"the spec's model {spec.model} was not found in the scanned files",),
        )
    if not spec.inputs_given:
        notes.append("inputs come from the factory: argument values are not known statically")
    if spec.compile.get("dynamic") is True:
        notes.append("compiled with dynamic=True: sizes and numbers start symbolic")
    keys = reachable(project, entry)
    sites = break_sites(project, keys, findings, catalog)
    graphs = graph_count(project, entry, sites)
    state: list[tuple[str, str, int, str]] = []
    keyset = set(keys)
    eager: list[tuple[str, int]] = []  # CL501 findings whose state is read where dynamo skips
    for f in findings:
        if f.rule != STATE_RULE:
            continue
        func, _loop = _candidate_in_loop(project, f.path, f.line, f.rule)
        m = _SELF_ATTR.search(f.message)
        if m is None or (f.path, func) not in keyset:
            continue
        if _read_eagerly(project, (f.path, func), first_read(f.path, m.group(1), f.line)):
            eager.append((f.path, f.line))
            continue
        what = "list" if "list" in f.message or "deque" in f.message else "int"
        if all(s[0] != m.group(1) for s in state):
            # the first read on any path: where torch reports the guard when the first call
            # takes every branch before the change (CL501's `guard_line` is the first read on
            # every path; where the two differ, both lines are candidates)
            line = first_read(f.path, m.group(1), f.line)
            state.append((m.group(1), what, line, func))
    if _float_state_applies(torch_version):
        for attr, line, func in float_state(project, entry, keyset):
            if all(s[0] != attr for s in state):
                state.append((attr, "float", line, func))
    if spec.compile.get("dynamic") is True:
        calls = [
            (
                [("?",) if a[0] in ("T", "I", "F") else a for a in args],
                {k: ("?",) if v[0] in ("T", "I", "F") else v for k, v in kw.items()},
            )
            for args, kw in calls
        ]
    value_breaks = number_breaks(sites)
    cfg = spec.config or {}
    limit = cfg.get("recompile_limit", cfg.get("cache_size_limit", RECOMPILE_LIMIT))
    automatic = spec.compile.get("dynamic") is not False and cfg.get(
        "automatic_dynamic_shapes", True
    )
    marked = {d["input"]: d.get("dims", []) for d in spec.dynamic}
    recs, hit = predict_recompiles(
        project,
        entry,
        calls,
        state,
        value_breaks,
        limit=int(limit) if isinstance(limit, int) else RECOMPILE_LIMIT,
        automatic=bool(automatic),
        marked=marked,
        break_sites_all=sites,
        init=(tuple(spec.init_args), dict(spec.init_kwargs)),
    )
    recs.extend(_site_recompiles(project, keyset, recs))
    if _shapes_change(calls):
        recs.extend(_size_recompiles(project, keyset, recs))
    recs.extend(_varying_size_recompiles(project, keyset, recs))
    recs.extend(_nested_frame_recompiles(project, keyset, recs))
    recs.extend(_while_resume_recompiles(project, keyset, findings, recs))
    recs.extend(
        _grown_tensor_recompiles(
            project,
            entry,
            keyset,
            sites,
            recs,
            len(calls),
            int(limit) if isinstance(limit, int) else RECOMPILE_LIMIT,
        )
    )
    if len(calls) > 1:
        recs.extend(_flag_recompiles(project, entry, keys, recs))
        recs.extend(_global_state_recompiles(project, keyset, recs))
        recs.extend(_submodule_state_recompiles(project, entry, keyset, recs, len(calls)))
        if not _shapes_change(calls):
            # a call that brings another size fails the input's tensor guard first: torch
            # reports that one (at the `def`), not the dict's (checked: a cache keyed by length)
            recs.extend(_dict_state_recompiles(project, [entry], keyset, recs))
    tails = graphless_lines(project, sites)

    def graphless(path: str, line: int) -> bool:
        return any(a <= line <= b for a, b in tails.get(path, ()))

    recs = [r for r in recs if not graphless(r.path, r.line)]
    settled = settled_sizes(project, entry, keyset, findings, calls) if spec.inputs_given else ()
    settled += tuple(eager)
    if spec.inputs_given and spec.compile.get("dynamic") is not True:
        settled += settled_numbers(project, entry, findings, calls, recs, bool(automatic))
    for f in findings:
        if f.rule not in (STATE_RULE, SIZE_RULE) or not graphless(f.path, f.line):
            continue
        m = _SELF_ATTR.search(f.message) if f.rule == STATE_RULE else None
        # module state is guarded at its first read: that read must lie in the tail too
        read = first_read(f.path, m.group(1), f.line) if m is not None else f.line
        if graphless(f.path, read) and graphless(f.path, f.guard_line or f.line):
            settled += ((f.path, f.line),)
    return Prediction(
        entry=spec.model,
        function=f"{entry[0]}:{entry[1]}",
        calls=len(calls),
        graph_count=graphs,
        graph_breaks=len(sites),
        recompiles=sum(r.count for r in recs),
        hit_recompile_limit=hit,
        break_sites=tuple(sites),
        recompile_sites=tuple(recs),
        notes=tuple(notes),
        files=tuple(sorted({k[0] for k in keys})),
        settled=settled,
    )
