"""Start a bench's processes at one moment, once every one of them is ready.

Each process creates its ready file when its imports and set-up are done, then reads the
start time from stdin (``wait_for_start``); the bench waits for every ready file and
sends the time (``start_when_ready``). Processes importing the studio at once on a loaded
machine take longer than any fixed head start, and an import inside the timed window
would count as the work's CPU and take the cores of those already working.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

READY_WITHIN_S = 600.0


def wait_for_start(ready: Path) -> float:
    """In a bench's process: say it is ready, and return the start time once it came."""
    ready.touch()
    start_at = float(sys.stdin.readline())
    while time.time() < start_at:
        time.sleep(0.005)
    return start_at


def start_when_ready(processes: list[subprocess.Popen], flags: list[Path],
                     errors: Callable[[int], str], lead_s: float = 0.5) -> float:
    """Wait for every process's ready file, then send them all one start time ``lead_s``
    from now and return it. A process that ends first (``errors(i)`` says why) or a set not
    ready within ten minutes ends the bench, and every process with it."""
    until = time.time() + READY_WITHIN_S
    try:
        while not all(flag.exists() for flag in flags):
            for index, process in enumerate(processes):
                if process.poll() is not None:
                    raise SystemExit(f"process {index} ended before it was ready:\n"
                                     + errors(index))
            if time.time() > until:
                raise SystemExit(f"the processes were not ready within {READY_WITHIN_S:g} s")
            time.sleep(0.05)
    except SystemExit:
        for process in processes:
            process.kill()
        raise
    start_at = time.time() + lead_s
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(f"{start_at}\n")
        process.stdin.close()
    return start_at
