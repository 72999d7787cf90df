"""Rule verdicts checked against torch itself, on the installed torch.

For each rule, invalid examples must really break the graph (or recompile, for recompile rules)
under plain ``torch.compile``; valid examples must neither break nor recompile. A rule whose
version range excludes the installed torch is checked the other way round: its invalid examples
must no longer misbehave, so a range that is wrong fails here instead of passing silently.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from compilelint.catalog import applies_to, load_catalog

torch = pytest.importorskip("torch")

from .torch_oracle import observe  # noqa: E402

pytestmark = pytest.mark.torch
CATALOG = load_catalog()
CASES = [
    pytest.param(rule, ex, id=f"{rule.code}-{ex.kind}-{i}")
    for rule in CATALOG.rules.values()
    if rule.detector == "static" and rule.verify != "none"
    for i, ex in enumerate(rule.examples)
]


def _missing_packages(code: str) -> list[str]:
    """The top-level packages ``code`` imports that are not installed (scipy, tqdm: an
    example about them is checked where they are, and skipped elsewhere)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # an example of a parse error: torch says what it says
        return []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return sorted(n for n in names if importlib.util.find_spec(n) is None)


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_torch_agrees(tmp_path: Path, rule, example) -> None:  # type: ignore[no-untyped-def]
    missing = _missing_packages(example.code)
    if missing:
        pytest.skip(f"the example imports {', '.join(missing)}, not installed here")
    obs = observe(example.code, tmp_path)
    if obs is None:
        assert example.kind == "valid", "invalid examples must define a module or fn to compile"
        pytest.skip("nothing compiled in this example (code outside a compiled region)")
    n_breaks = max(len(obs.breaks), 1 if obs.counter_breaks else 0)
    n_recompiles = len(obs.recompiles)
    in_range = applies_to(rule, torch.__version__)
    if example.kind == "valid":
        assert n_breaks == 0, f"valid example breaks on torch {torch.__version__}: {obs.breaks}"
        assert n_recompiles == 0, f"valid example recompiles: {obs.recompiles}"
        return
    observed = n_breaks if rule.verify == "breaks" else n_recompiles
    if in_range:
        assert observed > 0, (
            f"{rule.code} predicts a {rule.verify[:-1]} but torch {torch.__version__} shows none; "
            "give the rule a torch version range"
        )
    else:
        assert observed == 0, (
            f"{rule.code} is out of range for torch {torch.__version__} yet the example still "
            f"misbehaves: {obs.breaks or obs.recompiles}"
        )
