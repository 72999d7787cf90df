"""One reporter per output format. Each is ``render(report, catalog, options) -> str``.

The options every reporter understands are listed in :mod:`compilelint.report.common`;
:mod:`compilelint.report.outputs` writes several formats from one run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from compilelint.catalog import Catalog
from compilelint.model import Report

Renderer = Callable[[Report, Catalog, dict[str, object]], str]

FORMATS = ("text", "json", "table", "sarif", "github", "markdown", "html")


def get_reporter(name: str) -> Renderer:
    if name not in FORMATS:
        raise KeyError(name)
    module = importlib.import_module(f"compilelint.report.{name}_reporter")
    render: Renderer = module.render
    return render
