"""speed26: the cyclic collector while scanning.

A scan keeps what it makes (each file's facts, the project views) and a large file's libcst tree
holds a few hundred thousand objects at once: at a young generation's threshold of 50,000 the
collector walked them again and again in this process and in the pool's workers (13 and 6 to 8
collections in a first run over 200 transformers files), freeing almost nothing, and the
thresholds restored after the scan set off one more young collection over all the scan had
made, in the report's output. ``engine._fewer_collections`` now raises the threshold to
``SCAN_GEN0`` (the workers, forked inside, inherit it) and, at the end, moves what the scan
still holds to the oldest generation without walking it.
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest

from compilelint.config import load_config
from compilelint.static import engine as E


class _Node:
    def __init__(self) -> None:
        self.other: Any = None


def _collections() -> tuple[list[int], Any]:
    runs: list[int] = []

    def on(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            runs.append(info["generation"])

    gc.callbacks.append(on)
    return runs, on


def test_a_scan_does_not_walk_what_it_holds_and_leaves_nothing_young() -> None:
    if gc.get_freeze_count():
        pytest.skip("something in this process froze objects")
    before = gc.get_threshold()
    runs, on = _collections()
    try:
        with E._fewer_collections():
            assert gc.get_threshold()[0] >= E.SCAN_GEN0
            held = [[i] for i in range(300_000)]  # more than 50,000, fewer than SCAN_GEN0
            a, b = _Node(), _Node()
            a.other, b.other = b, a  # a cycle made while scanning
            dropped = weakref.ref(a)
            del a, b
            inside = list(runs)
        after = gc.get_count()[0]
    finally:
        gc.callbacks.remove(on)
    assert inside == []  # no collection while the scan made and held 300,000 objects
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    # what the scan holds is old: the next young collection does not walk it again
    assert after < 1_000
    assert all(gc.is_tracked(d) for d in held[:10])
    # nothing is kept for good: a full collection still frees the scan's cycles
    assert dropped() is not None
    gc.collect()
    assert dropped() is None
    del held


def test_objects_frozen_before_a_scan_stay_frozen() -> None:
    if gc.get_freeze_count():
        pytest.skip("something in this process froze objects")
    keep = [{"k": i} for i in range(100)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with E._fewer_collections():
            _more = [{"j": i} for i in range(100)]
        assert gc.get_freeze_count() == frozen  # the caller's frozen objects left alone
    finally:
        gc.unfreeze()
    del keep


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the pool forks on Linux")
def test_the_pools_workers_collect_as_seldom(tmp_path: Path) -> None:
    """The workers are forked inside the scan: their threshold is the scan's, not 50,000."""
    src = b"import torch\n\ndef forward(x):\n    return x.sum()\n"
    cfg = load_config([str(tmp_path)])
    cfg = dataclasses.replace(cfg, jobs=2)
    settings = E.resolve_settings(cfg, no_cache=True)
    run = E._Scan(settings, progress=None, sources=None, parse=None)
    items: list[tuple[bytes, E.FileInput, bool, bool | str]] = [
        (src, E.FileInput(f"m{i}.py", str(tmp_path / f"m{i}.py"), f"m{i}", False), False, False)
        for i in range(30)
    ]
    try:
        with E._fewer_collections():
            assert run._pool_for(items) is not None
            wait = run.start_call(gc.get_threshold, ())
            assert wait is not None
            got = wait()
    finally:
        run.close()
    assert got[0] >= E.SCAN_GEN0
