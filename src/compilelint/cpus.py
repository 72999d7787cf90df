"""How many worker processes to start: one per CPU this process may run on."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (``taskset``, cgroup cpusets), not the machine's:
    one worker per CPU, so a run pinned to 2 of 16 cores starts 2 workers, not 16."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1
