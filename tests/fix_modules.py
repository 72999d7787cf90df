"""Shared helpers of the fix tests: fix a model text as ``compilelint fix --unsafe-fixes``
does (:func:`fix_text`, :func:`fix_result`, with the findings torch observed where a rewrite
is offered only for those; :func:`fix_masks`, :func:`fix_reasons`), count the graph breaks
dynamo reports for a model (:func:`dynamo_breaks`), and load a fixed (or original) model file
as a fresh module for the tests that run torch (:func:`load_module`, :func:`load_pair`).

The two torch tests a table of fixed cases gets (:func:`fix_case_tests`): each original
model breaks under dynamo, and each fixed text is changed, has no break (or only the kind
the table says is left) and gives the original's outputs and gradients."""

from __future__ import annotations

import copy
import importlib.util
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from compilelint.config import Config
from compilelint.fix.engine import EngineResult, run_fixes
from compilelint.fix.observed import observed_findings
from compilelint.model import Finding

from .torch_checks import assert_same_as_original


def line_of(code: str, text: str) -> int:
    """The 1-based number of the first line of ``code`` holding ``text``."""
    return next(i for i, ln in enumerate(code.splitlines(), 1) if text in ln)


def fix_result(
    tmp_path: Path,
    code: str,
    select: Sequence[str],
    *,
    observed: Sequence[tuple[str, str]] = (),
    name: str | None = None,
) -> EngineResult:
    """Run the unsafe fixes of the rules in ``select`` (no cache) on ``code``, written to a
    new file in ``tmp_path`` (``name``, or a fresh ``m_<hex>.py``). ``observed``: (text of the
    line, torch's graph-break id) of breaks torch observed there, each made into the finding
    ``fix --verify`` offers (as the dynamic stage would report it); each must make one."""
    path = tmp_path / (name or f"m_{uuid.uuid4().hex[:8]}.py")
    path.write_text(code, encoding="utf-8")
    extra: list[Finding] = []
    if observed:
        extra = observed_findings(
            [{"path": path.name, "line": line_of(code, t), "gb_id": gb} for t, gb in observed],
            str(tmp_path),
            {},
            lambda real: str(path),
            set(),
            list(select),
        )
        assert extra, "the observed finding was not made"
    return run_fixes(
        [str(path)], Config(select=tuple(select), cache=False), unsafe=True, extra=extra
    )


def fixed_text(res: EngineResult, code: str) -> str:
    """The text of the first file ``res`` changed, or ``code`` where it changed none."""
    return next((c.after.decode() for c in res.changes), code)


def fix_text(
    tmp_path: Path,
    code: str,
    select: Sequence[str],
    *,
    observed: Sequence[tuple[str, str]] = (),
    name: str | None = None,
) -> tuple[str, list[str]]:
    """:func:`fix_result`'s fixed text (``code`` where nothing changed) and the reasons its
    records give (the non-empty ones)."""
    res = fix_result(tmp_path, code, select, observed=observed, name=name)
    return fixed_text(res, code), [r.reason for r in res.records if r.reason]


def fix_masks(
    tmp_path: Path,
    code: str,
    observed: Sequence[str] = (),
    select: Sequence[str] = ("CL110", "CL111"),
) -> str:
    """:func:`fix_text`'s fixed text for the boolean-mask rules (``select``), torch's
    data-dependent output shape break (``GB0036``) observed at the first line holding each
    text of ``observed``."""
    return fix_text(tmp_path, code, select, observed=[(t, "GB0036") for t in observed])[0]


def fix_reasons(tmp_path: Path, code: str, select: Sequence[str]) -> str:
    """The reasons the records of :func:`fix_result` give (no ``observed``), joined by
    ``" | "``."""
    return " | ".join(r.reason for r in fix_result(tmp_path, code, select).records)


def dynamo_breaks(
    model: Any, inputs: tuple[Any, ...], counted: Sequence[str] = ("graph_break",)
) -> list[str]:
    """The graph breaks dynamo counts compiling a copy of ``model`` (not ``fullgraph``,
    ``eager`` backend) on ``inputs``: the keys of its ``counters`` under each of ``counted``
    (``explain`` misses a break at the top of a frame, where the graph before it is empty;
    ``fullgraph=True`` on torch 2.13 traces a ``.tolist()`` without breaking). A break inside a
    loop makes dynamo skip the whole frame ("graph break in loop"), which it counts under
    ``unimplemented``, not ``graph_break``: ``counted=("graph_break", "unimplemented")``."""
    import torch
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    torch.compile(copy.deepcopy(model), backend="eager")(*inputs)
    got = [key for name in counted for key in counters[name]]
    torch._dynamo.reset()
    counters.clear()
    return got


def load_module(path: Path, prefix: str = "fixed") -> ModuleType:
    """Import ``path`` under a unique module name (the original and fixed copies coexist)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_pair(
    tmp_path: Path, original: str, fixed: str, prefix: str = "fixed"
) -> tuple[ModuleType, ModuleType]:
    """The original and the fixed text, written to ``a.py`` and ``b.py`` in ``tmp_path``,
    each imported as a fresh module (:func:`load_module`)."""
    (tmp_path / "a.py").write_text(original, encoding="utf-8")
    (tmp_path / "b.py").write_text(fixed, encoding="utf-8")
    return load_module(tmp_path / "a.py", prefix), load_module(tmp_path / "b.py", prefix)


# (torch, case name, seed) -> the model's inputs; (tmp_path, case name, source) -> fixed text
CaseInputs = Callable[[Any, str, int], tuple[Any, ...]]
CaseFix = Callable[[Path, str, str], str]


def explain_breaks(model: Any, inputs: tuple[Any, ...]) -> list[str]:
    """The break reasons ``torch._dynamo.explain`` gives for ``model`` on ``inputs`` (one
    ``"graph break"`` per counted break it gives no reason for; with neither, the count of
    graphs where it is not one: a break inside a loop makes dynamo skip the frame, no graph)."""
    import torch

    torch._dynamo.reset()
    got = torch._dynamo.explain(model)(*inputs)
    torch._dynamo.reset()
    reasons = [str(getattr(b, "reason", b)) for b in got.break_reasons]
    reasons = reasons or ["graph break"] * got.graph_break_count
    return reasons or ([] if got.graph_count == 1 else [f"{got.graph_count} graphs"])


def _breaks(mod: ModuleType, inputs: tuple[Any, ...], counted: Sequence[str] | None) -> list[str]:
    """The breaks of a fresh ``mod.Model()`` on ``inputs``: :func:`explain_breaks` (``counted``
    None), else the counters :func:`dynamo_breaks` reads (``counted``)."""
    import torch

    torch.manual_seed(0)
    if counted is None:
        return explain_breaks(mod.Model(), inputs)
    return dynamo_breaks(mod.Model(), inputs, counted)


def originals_break_test(
    cases: Mapping[str, str],
    inputs: CaseInputs,
    *,
    prefix: str,
    counted: Sequence[str] | None = None,
    reason: str = "",
) -> Callable[[Path], None]:
    """The test that each original model of ``cases`` (name -> source of a module with a
    ``Model``) breaks under dynamo on ``inputs(torch, name, 0)`` (what the fix removes is
    real): :func:`explain_breaks`, or with ``counted`` the counters :func:`dynamo_breaks`
    reads (a break in a loop counts under ``unimplemented``); ``reason``: text one of the
    breaks holds."""

    @pytest.mark.torch
    def test_the_originals_break(tmp_path: Path) -> None:
        torch = pytest.importorskip("torch")
        for case, code in cases.items():
            path = tmp_path / f"{case}.py"
            path.write_text(code, encoding="utf-8")
            got = _breaks(load_module(path, prefix), inputs(torch, case, 0), counted)
            assert any(reason in r for r in got), (case, got)

    return test_the_originals_break


def fix_case_tests(
    cases: Mapping[str, str],
    fix: CaseFix,
    inputs: CaseInputs,
    *,
    prefix: str,
    seeds: Sequence[int] = (0, 1, 2),
    counted: Sequence[str] | None = None,
    reason: str = "",
    left: Mapping[str, str] | None = None,
) -> tuple[Callable[[Path], None], Callable[[Path, str], None]]:
    """The two torch tests of a table of cases the fix applies to (name -> source of a module
    with a ``Model``; ``fix(tmp_path, name, source)`` its fixed text): the originals break
    (:func:`originals_break_test`: ``counted``, ``reason``), and, one test per case, the fix
    changes the text, the fixed model has no break (``counted``: none in those counters
    either) and, uncompiled and compiled, gives the original's outputs and gradients on
    ``inputs(torch, name, seed)`` for each of ``seeds`` (:func:`assert_same_as_original`).
    ``left``: name -> text each break the fixed model keeps holds (a break the fix does not
    remove; compared compiled with breaks allowed). A test module binds them to its own ``test_`` names (``test_the_originals_break,
    test_fixed_model_compiles_whole_and_computes_the_same = fix_case_tests(CASES, ...)``)."""

    @pytest.mark.torch
    @pytest.mark.parametrize("case", sorted(cases))
    def test_fixed_model_compiles_whole_and_computes_the_same(tmp_path: Path, case: str) -> None:
        torch = pytest.importorskip("torch")
        code = cases[case]
        fixed = fix(tmp_path, case, code)
        assert fixed != code, "the fix was not applied"
        a, b = load_pair(tmp_path, code, fixed, prefix)
        kept = (left or {}).get(case)
        if counted is not None or kept is not None:
            after = _breaks(b, inputs(torch, case, seeds[0]), counted or ("graph_break",))
            if kept is None:
                assert after == [], after
            else:
                assert after and all(kept in r for r in after), after
        for seed in seeds:
            assert_same_as_original(a, b, inputs(torch, case, seed), whole=kept is None)
        torch._dynamo.reset()

    return (
        originals_break_test(cases, inputs, prefix=prefix, counted=counted, reason=reason),
        test_fixed_model_compiles_whole_and_computes_the_same,
    )
