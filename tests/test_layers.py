"""Structure: the CLI modules form no cycle through config resolution, and merge/rank depend on
the report's data types (model.py), not on the dynamic runner's modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from compilelint.config import ConfigError, resolve_config

SRC = Path(__file__).resolve().parents[1] / "src" / "compilelint"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.update(f"{node.module}.{a.name}" for a in node.names)
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("sub", ["fix/cli.py", "baseline/cli.py", "bench/cli.py"])
def test_subcommand_clis_do_not_import_the_main_cli(sub: str) -> None:
    assert not any(
        m == "compilelint.cli" or m.startswith("compilelint.cli.") for m in _imports(SRC / sub)
    )


@pytest.mark.parametrize("mod", ["merge.py", "rank.py"])
def test_merge_and_rank_take_observations_from_model(mod: str) -> None:
    imps = _imports(SRC / mod)
    assert "compilelint.dynamic.capture.ObservedBreak" not in imps
    assert "compilelint.dynamic.capture.ObservedRecompile" not in imps


def test_resolve_config_reports_bad_codes_as_data(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown rule code 'CL9'"):
        resolve_config(
            [str(tmp_path)],
            config_file=None,
            select="CL9",
            extend_select=None,
            ignore=None,
            exclude=(),
            fail_on=None,
            target_torch=None,
            jobs=None,
            report_untraced=False,
            no_respect_gitignore=False,
        )
