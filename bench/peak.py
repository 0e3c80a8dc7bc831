"""Run a module as __main__, then write its peak resident memory (KiB) to a file (bench only).

    python bench/peak.py OUT_FILE MODULE [ARGS...]

The peak is /proc/self/status's VmHWM, the high-water mark of this process's own memory since
its exec: rusage's ru_maxrss cannot be used for a child of the bench, as Linux carries the forking
parent's peak across exec into it (the bench holds every synthetic thread in memory).
"""

from __future__ import annotations

import atexit
import runpy
import sys
from pathlib import Path


def _report(out: Path) -> None:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            out.write_text(line.split()[1])


if __name__ == "__main__":
    target, module = Path(sys.argv[1]), sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    atexit.register(_report, target)
    runpy.run_module(module, run_name="__main__", alter_sys=True)
