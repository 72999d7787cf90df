"""Tests generated from the catalogue: every rule's examples are checked by the static stage.

Invalid examples must give exactly the findings their `# error: CLnnn` markers name (of every
rule, so an example cannot trip another rule by accident); valid examples must give none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compilelint.api import check
from compilelint.catalog import load_catalog
from compilelint.config import Config
from compilelint.static.checks.base import all_checks

from .conftest import expected_markers
from .torch_oracle import context_of

CATALOG = load_catalog()
CASES = [
    pytest.param(rule.code, i, ex, id=f"{rule.code}-{ex.kind}-{i}")
    for rule in CATALOG.rules.values()
    for i, ex in enumerate(rule.examples)
]


def run_static(
    tmp_path: Path, source: str, *, select: tuple[str, ...] = ("ALL",)
) -> list[tuple[int, str]]:
    f = tmp_path / "example.py"
    f.write_text(source, encoding="utf-8")
    # an example for one compile context carries it as `# context: mode=eval dtype=float32`
    # (the static stage is told it as `--mode`/`--dtype`; the torch oracle runs in it)
    ctx = context_of(source)
    cfg = Config(
        select=select,
        cache=False,
        root=str(tmp_path),
        mode=ctx.get("mode"),
        dtype=ctx.get("dtype"),
    )
    # an example that needs the spec's calls (CL303) carries it as a `# spec: {...}` line
    spec = next(
        (ln[len("# spec: ") :] for ln in source.splitlines() if ln.startswith("# spec: ")), None
    )
    predict_spec = None
    if spec is not None:
        (tmp_path / "spec.json").write_text(spec, encoding="utf-8")
        predict_spec = str(tmp_path / "spec.json")
    report = check([str(f)], cfg, predict_spec=predict_spec)
    return sorted((x.line, x.rule) for x in report.findings)


@pytest.mark.parametrize(("code", "index", "example"), CASES)
def test_example(tmp_path: Path, code: str, index: int, example) -> None:  # type: ignore[no-untyped-def]
    got = run_static(tmp_path, example.code)
    want = expected_markers(example.code)
    if CATALOG.rules[code].detector == "dynamic":
        # Observed-only rules: the static stage must stay silent on their examples.
        assert [w for w in want if w[1] != code] == got
        return
    if example.kind == "invalid":
        assert any(c == code for _, c in want), f"{code} invalid example {index} has no marker"
    else:
        assert want == [], "valid examples carry no markers"
    assert got == want


def test_every_rule_has_examples() -> None:
    for rule in CATALOG.rules.values():
        kinds = {e.kind for e in rule.examples}
        assert kinds == {"valid", "invalid"}, f"{rule.code} needs valid and invalid examples"


def test_every_static_rule_has_one_check() -> None:
    checks = all_checks()
    static = {c for c, r in CATALOG.rules.items() if r.detector == "static"}
    assert static == set(checks), (
        f"rules without a check: {sorted(static - set(checks))}; "
        f"checks without a rule: {sorted(set(checks) - static)}"
    )


def test_codes_follow_the_range_policy() -> None:
    for code, rule in CATALOG.rules.items():
        assert rule.category, code
        assert rule.path.endswith(f"{code}.md")
