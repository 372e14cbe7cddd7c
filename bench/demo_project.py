"""A demo project ready for retrieval benchmarks: catalog, text attributes, demo index."""

from __future__ import annotations

import time
from pathlib import Path


def prepared_demo(folder: Path, images: int, seed: int = 0, device: str = "cpu") -> dict:
    """Create (or reuse) a demo project in ``folder`` with attributes and a demo-model index."""
    from studio.attributes.extract import extract_from_text
    from studio.demo.project import create_demo_project
    from studio.index_service import build_index, load_project_model
    from studio.store import Project, resolve_project_path

    timings: dict[str, float] = {}
    if not resolve_project_path(folder).exists():
        started = time.perf_counter()
        create_demo_project(folder, images, seed, attributes=False)  # extraction timed below
        timings["create_s"] = time.perf_counter() - started
    with Project.open(folder) as project:
        started = time.perf_counter()
        extract_from_text(project, "bench")
        timings["extract_s"] = time.perf_counter() - started
        started = time.perf_counter()
        build_index(project, load_project_model("demo", device))
        timings["index_s"] = time.perf_counter() - started
    return timings
