"""Run the ``compilelint`` click command in-process from a given folder."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from compilelint.cli import main

ROOT = Path(__file__).resolve().parent.parent


def invoke(
    args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``compilelint ARGS`` run from ``cwd``."""
    old = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    finally:
        os.chdir(old)
    return res.exit_code, res.stdout, res.stderr
