"""The Python API. The CLI calls these; so can users' own tests.

from compilelint.api import check
report = check(["models/"])
assert not [f for f in report.findings if f.severity == "error"]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from compilelint import __version__
from compilelint.catalog import Catalog, load_catalog
from compilelint.config import Config, load_config
from compilelint.model import SEVERITY_ORDER, Report, Summary
from compilelint.static.engine import ScanResult, scan


def check(
    paths: list[str],
    config: Config | None = None,
    *,
    catalog: Catalog | None = None,
    progress: Callable[[int, int], None] | None = None,
    no_cache: bool = False,
) -> Report:
    """Run the static stage over files and folders. Problems with inputs come back as data."""
    cfg = config if config is not None else load_config(paths)
    cat = catalog or load_catalog()
    return report_from_scan(scan(paths, cfg, catalog=cat, progress=progress, no_cache=no_cache))


def report_from_scan(res: ScanResult) -> Report:
    """The :class:`Report` of one static scan."""
    by_rule = dict(sorted(Counter(f.rule for f in res.findings).items()))
    return Report(
        version=__version__,
        torch=None,
        findings=tuple(res.findings),
        errors=tuple(res.errors),
        summary=Summary(
            files=res.files,
            lines=res.lines,
            findings=len(res.findings),
            by_rule=by_rule,
            seconds=round(res.seconds, 3),
            cached=res.cached,
        ),
    )


def exit_code(report: Report, fail_on: str) -> int:
    """0 clean, 1 findings at or above ``fail_on``, 2 usage or internal errors."""
    if any(e.kind in ("usage", "internal") for e in report.errors):
        return 2
    dyn = report.extra.get("dynamic")
    if isinstance(dyn, dict) and dyn.get("error"):
        return 2
    if fail_on == "never":
        return 0
    threshold = SEVERITY_ORDER[fail_on]
    if any(SEVERITY_ORDER[f.severity] >= threshold for f in report.findings):
        return 1
    return 0
