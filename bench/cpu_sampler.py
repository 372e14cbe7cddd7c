"""Where a bench's CPU time went, by kind of process, read from ``/proc`` (Linux).

A background thread reads every process's user + system time once a second and keeps
the last value seen per process, so a process that ends (or is killed) keeps what it
used up to its last second. Only the time used between ``start`` and ``stop`` counts:
what a process had used before ``start`` (its imports) is subtracted. ``classify`` names
the kind of each process (None: not counted); the answer is CPU-seconds per kind, and
the machine's whole CPU time over the window (``/proc/stat``) for comparison.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_of(pid: str) -> tuple[str, float] | None:
    """``(pid:start time, CPU-seconds used)``: the key tells a reused pid from the first."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return f"{pid}:{fields[19]}", (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


def _machine_busy() -> float:
    """CPU-seconds the whole machine has spent not idle since boot."""
    first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(value) for value in first]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    return (sum(ticks[:8]) - idle) / TICK


class CpuSampler:
    def __init__(self, classify: Callable[[int, str], str | None], every_s: float = 1.0) -> None:
        self.classify = classify
        self.every_s = every_s
        self._before: dict[str, float] = {}
        self._last: dict[str, tuple[str, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)
        self._machine_start = 0.0
        self.machine_s = 0.0

    def available(self) -> bool:
        return Path("/proc/stat").is_file()

    def start(self) -> None:
        if not self.available():
            return
        for pid in self._pids():
            found = _cpu_of(pid)
            if found is not None:
                self._before[found[0]] = found[1]
        self._machine_start = _machine_busy()
        self._thread.start()

    def stop(self) -> dict[str, float]:
        """CPU-seconds per kind over the window, plus ``"machine"``: the whole machine's."""
        if not self.available() or not self._thread.is_alive():
            return {}
        self._sample()
        self.machine_s = _machine_busy() - self._machine_start
        self._stop.set()
        self._thread.join()
        totals: dict[str, float] = {}
        for key, (kind, used) in self._last.items():
            totals[kind] = totals.get(kind, 0.0) + used - self._before.get(key, 0.0)
        totals = {kind: round(value, 1) for kind, value in sorted(totals.items())}
        totals["machine"] = round(self.machine_s, 1)
        return totals

    def _pids(self) -> list[str]:
        return [name for name in os.listdir("/proc") if name.isdigit()]

    def _sample(self) -> None:
        for pid in self._pids():
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            kind = self.classify(int(pid), command.decode(errors="replace"))
            found = _cpu_of(pid) if kind else None
            if kind and found is not None:
                self._last[found[0]] = (kind, found[1])

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._sample()
