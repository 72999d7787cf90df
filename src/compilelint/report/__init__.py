"""One reporter per output format. Each is ``render(report, catalog, options) -> str``."""

from __future__ import annotations

from collections.abc import Callable

from compilelint.catalog import Catalog
from compilelint.model import Report

Renderer = Callable[[Report, Catalog, dict[str, object]], str]


def get_reporter(name: str) -> Renderer:
    if name == "json":
        from compilelint.report.json_reporter import render
    elif name == "text":
        from compilelint.report.text_reporter import render
    elif name == "table":
        from compilelint.report.table_reporter import render
    else:
        raise KeyError(name)
    return render


FORMATS = ("text", "json", "table")
