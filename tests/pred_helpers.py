"""Helpers of the prediction tests (issue 23): the line of a marker, the break lines the
static stage predicts for a model and a spec, and the break lines torch reports for them.

The recompile lines of both sides too, for the recompile tests (pred23g-i, the lead's), and
the pair of tests a table of break or recompile cases gets (``case_tests``), and a model
whose loop hides its later breaks (``EVERY_ITERATION``)."""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from compilelint.config import load_config

if TYPE_CHECKING:
    from compilelint.static.predict import Prediction


# VALID: the first break is on every iteration; the later ones of the frame (in the loop and
# after it) run eagerly once dynamo skips the frame (``behind`` the first)
EVERY_ITERATION = "import torch\nfrom torch import nn\n" + textwrap.dedent("""
    class M(nn.Module):
        def forward(self, x):
            out = []
            for row in x:
                keep = row > 0
                out.append(row[keep].sum())
                out.append(int(row.argmax()))
            n = x.sum().item()
            return out, n
    """)


def line_of(src: str, text: str) -> int:
    """The first line of ``src`` that holds ``text`` (1-based)."""
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


def predicted_break_lines(
    tmp_path: Path, src: str, spec: dict[str, Any] | None, rule: str | None = None
) -> set[int]:
    """The lines of ``m.py`` (``src``) where ``compilelint check --static-only`` predicts a
    break, with ``spec`` (model ``m.py:M``) as its ``--input-spec`` (None: no spec): findings
    of a break rule not behind another break (what ``fix_corpus_predict`` counts), only of
    ``rule`` when given."""
    from compilelint.api import check
    from compilelint.catalog import load_catalog
    from compilelint.static.analysis.breakpoints import is_break_rule

    (tmp_path / "m.py").write_text(src)
    spec_path = None
    if spec is not None:
        (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
        spec_path = str(tmp_path / "spec.json")
    cat = load_catalog()
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        report = check(["m.py"], load_config(["m.py"]), no_cache=True, predict_spec=spec_path)
    finally:
        os.chdir(old)
    out: set[int] = set()
    for f in report.findings:
        if not f.path.endswith("m.py") or (rule is not None and f.rule != rule):
            continue
        r = cat.get(f.rule)
        if r is not None and is_break_rule(r) and not getattr(f, "behind", None):
            out.add(f.line)
    return out


def torch_break_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    """The lines of ``m.py`` where torch (the dynamic stage, ``run_dynamic``) reports a graph
    break for ``spec`` (model ``m.py:M``)."""
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None, block["error"]
    return {b["line"] for b in block["breaks"] if b["path"].endswith("m.py")}


def prediction(tmp_path: Path, src: str, spec: dict[str, Any]) -> Prediction:
    """The static prediction for ``spec`` (a whole spec, its model in ``m.py``) of the
    project made of ``m.py`` (``src``) in ``tmp_path``."""
    from compilelint.catalog import load_catalog
    from compilelint.dynamic.spec import validate
    from compilelint.static.engine import scan
    from compilelint.static.predict import predict

    (tmp_path / "m.py").write_text(src)
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = scan(["m.py"], load_config(["m.py"]), want_project=True, no_cache=True)
        assert res.project is not None
        s = validate(spec, source=str(tmp_path / "spec.json"))
        return predict(res.project, res.findings, s, load_catalog(), str(tmp_path))
    finally:
        os.chdir(old)


def predicted_recompile_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    """The lines of ``m.py`` (``src``) where the static prediction for ``spec`` (model
    ``m.py:M``) puts a recompile (``Prediction.recompile_sites``)."""
    got = prediction(tmp_path, src, {"model": "m.py:M", **spec})
    return {r.line for r in got.recompile_sites if r.path.endswith("m.py")}


def torch_recompile_lines(tmp_path: Path, src: str, spec: dict[str, Any]) -> set[int]:
    """The lines of ``m.py`` where torch (the dynamic stage, ``run_dynamic``) reports a
    recompile for ``spec`` (model ``m.py:M``), invalidated cache entries left out."""
    from compilelint.dynamic.api import run_dynamic

    (tmp_path / "m.py").write_text(src)
    (tmp_path / "spec.json").write_text(json.dumps({"model": "m.py:M", **spec}))
    block = run_dynamic(str(tmp_path / "spec.json"), cwd=str(tmp_path), cover=()).block
    assert block["error"] is None, block["error"]
    return {r["line"] for r in block["recompiles"] if not r.get("invalidated")}


def marked_lines(src: str, texts: Collection[str]) -> set[int]:
    """The lines of ``src`` the markers ``texts`` name: each marker's first line, ``"def"`` the
    ``def forward`` line (a recompile torch reports without a user stack)."""
    return {line_of(src, "def forward") if t == "def" else line_of(src, t) for t in texts}


Cases = Mapping[str, tuple[str, dict[str, Any], Collection[str]]]
LineFinder = Callable[[Path, str, dict[str, Any]], set[int]]


def case_tests(
    cases: Cases,
    predicted: LineFinder,
    observed: LineFinder,
    *,
    observed_spec: Mapping[str, Any] | None = None,
    needs: Mapping[str, str] | None = None,
) -> tuple[Callable[[Path, str], None], Callable[[Path, str], None]]:
    """The two tests of a table of cases (name -> model source, spec without its ``model``,
    markers of the expected lines, as ``marked_lines`` reads them): ``predicted`` (the static
    stage's lines: ``predicted_break_lines``, ``predicted_recompile_lines``) gives exactly the
    marked lines, and so does ``observed`` (torch's: ``torch_break_lines``,
    ``torch_recompile_lines``; ``torch`` mark), run with the spec updated by ``observed_spec``
    (``{"calls": 1}``: one call is enough for a break). ``needs``: case -> a package beyond
    torch the torch run imports (skipped where it is not installed; the prediction reads the
    source only). A test module binds them to its own ``test_`` names (``test_the_prediction,
    test_the_prediction_matches_torch = case_tests(CASES, predicted_recompile_lines,
    torch_recompile_lines)``); pytest collects them there, one test per case."""

    @pytest.mark.parametrize("name", sorted(cases))
    def test_the_prediction(tmp_path: Path, name: str) -> None:
        src, spec, texts = cases[name]
        assert predicted(tmp_path, src, spec) == marked_lines(src, texts)

    @pytest.mark.torch
    @pytest.mark.parametrize("name", sorted(cases))
    def test_the_prediction_matches_torch(tmp_path: Path, name: str) -> None:
        pytest.importorskip("torch")
        if needs and name in needs:
            pytest.importorskip(needs[name])
        src, spec, texts = cases[name]
        want = marked_lines(src, texts)
        assert observed(tmp_path, src, {**spec, **(observed_spec or {})}) == want

    return test_the_prediction, test_the_prediction_matches_torch
