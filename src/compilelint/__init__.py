"""compilelint: torch.compile diagnostics and graph-break linter.

    import compilelint
    report = compilelint.check(["models/"], spec="spec.json")     # what `compilelint check` sees
    compilelint.assert_compiles(model, x, max_graph_breaks=0)      # in your own tests

Importing the package is cheap and never imports torch: the functions load their modules when
first used (torch only inside ``assert_compiles`` and the dynamic stage's child process).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Report", "__version__", "assert_compiles", "check"]

if TYPE_CHECKING:
    from compilelint.api import analyze as check
    from compilelint.model import Report
    from compilelint.testing import assert_compiles


def __getattr__(name: str) -> Any:
    if name == "check":
        from compilelint.api import analyze

        return analyze
    if name == "assert_compiles":
        from compilelint.testing import assert_compiles

        return assert_compiles
    if name == "Report":
        from compilelint.model import Report

        return Report
    raise AttributeError(f"module 'compilelint' has no attribute {name!r}")
