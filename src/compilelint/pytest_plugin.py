"""pytest plugin (entry point ``pytest11``): the ``compilelint`` fixture.

    def test_model_compiles(compilelint):
        compilelint.assert_compiles(MyModel(), torch.randn(2, 16), max_graph_breaks=0)

Loading the plugin imports neither torch nor the analysis code; ``assert_compiles`` imports
torch when it is called. The fixture's root (which files count as the user's code) is pytest's
rootdir rather than the current folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from compilelint.config import Config
    from compilelint.model import Report


class CompileLint:
    """What the ``compilelint`` fixture gives a test."""

    def __init__(self, root: str) -> None:
        self.root = root

    def assert_compiles(
        self,
        model: Callable[..., Any],
        *args: Any,
        max_graph_breaks: int | None = 0,
        max_recompiles: int | None = 0,
        variants: Iterable[Any] = (),
        **kwargs: Any,
    ) -> Report:
        """:func:`compilelint.assert_compiles`, with pytest's rootdir as the user's code."""
        from compilelint.testing import check_compiles

        return check_compiles(
            model,
            args,
            kwargs,
            max_graph_breaks=max_graph_breaks,
            max_recompiles=max_recompiles,
            variants=variants,
            root=self.root,
        )

    def check(
        self,
        paths: str | os.PathLike[str] | list[str | os.PathLike[str]],
        spec: str | os.PathLike[str] | dict[str, Any] | None = None,
        config: Config | str | os.PathLike[str] | None = None,
    ) -> Report:
        """:func:`compilelint.check`: the static stage (and the dynamic one with a spec)."""
        from compilelint.api import analyze

        return analyze(paths, spec=spec, config=config)


@pytest.fixture
def compilelint(request: pytest.FixtureRequest) -> CompileLint:
    """Assert that models compile without graph breaks or recompiles:
    ``compilelint.assert_compiles(model, *inputs, max_graph_breaks=0, variants=[...])``."""
    return CompileLint(str(request.config.rootpath))
