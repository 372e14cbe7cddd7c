"""Write one benchmark's section of BENCHMARKS.md, leaving every other section untouched.

Each benchmark owns the text between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``;
a missing section is appended. Every section starts with the machine and the date, since
figures without them cannot be compared.
"""

from __future__ import annotations

import os
import platform
import re
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"
HEADER = (
    "# Benchmarks\n\n"
    "Figures measured by the scripts in `bench/`; each section is rewritten by its script.\n"
)


def machine_description() -> str:
    """CPU model, core count, memory, GPU (if any) and library versions, on one line."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{cpu}, {os.cpu_count()} logical cores"]
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        parts.append(f"{pages / 2**30:.0f} GiB RAM")
    except (ValueError, OSError, AttributeError):
        pass
    try:
        import torch

        if torch.cuda.is_available():
            parts.append(f"GPU {torch.cuda.get_device_name(0)}")
        else:
            parts.append("no GPU")
        parts.append(f"torch {torch.__version__}")
    except ImportError:
        pass
    try:
        import faiss

        parts.append(f"faiss {faiss.__version__}")
    except ImportError:
        pass
    import numpy

    parts.append(f"numpy {numpy.__version__}, Python {platform.python_version()}")
    try:
        load = os.getloadavg()[0]
        parts.append(f"load average {load:.1f} when it finished (shared machine)")
    except OSError:
        pass
    return "; ".join(parts)


def write_section(name: str, title: str, body: str, path: Path = BENCHMARKS) -> None:
    """Replace (or append) section ``name`` with a heading, the machine, the date and ``body``."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} on: {machine_description()}."
    section = f"{start}\n## {title}\n\n{stamp}\n\n{body.strip()}\n{end}"
    text = path.read_text() if path.exists() else HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)


def markdown_table(headers: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
