"""Resolve which project the window should open, then hand over to ``widgets``."""

from __future__ import annotations

import argparse
import importlib
import time
from pathlib import Path

from studio.cli.main import PROCESS_START
from studio.cli.progress import TerminalProgress
from studio.errors import ProjectError
from studio.settings import demo_project_dir
from studio.store import resolve_project_path
from studio.store.engines import is_url


def launch_gui(args: argparse.Namespace, owns_process: bool = False) -> int:
    """Open the window; ``owns_process`` when it is the whole program (``main``): then
    SIGTERM quits like File → Quit and the process ends once the window shut down."""
    project_path: Path | str | None = None
    demo_seconds = 0.0
    if args.project and is_url(args.project):
        project_path = args.project  # a PostgreSQL project: opened (and checked) by the store
    elif args.project:
        project_path = resolve_project_path(Path(args.project))
        if not project_path.is_file():
            raise ProjectError(f"No project at {project_path}: the file does not exist.")
    # The window opens the demo itself, drawing it on first use as a job with progress and
    # Cancel in its status bar: a first run shows the window at once, not 20 s of nothing.
    open_demo = bool(args.demo) and not args.smoke_test
    if args.smoke_test and project_path is None:
        # The smoke test times the window without the drawing, so it draws first.
        from studio.demo.project import ensure_demo_project

        created = time.perf_counter()
        with TerminalProgress("Creating the demo project (first use)") as progress:
            project_path = ensure_demo_project(demo_project_dir(), progress=progress)
        demo_seconds = time.perf_counter() - created
    # The one sanctioned step from the core into the GUI layer (ARCHITECTURE.md: the CLI
    # imports the shell only when a window is wanted); tests/unit/test_layers.py pins it.
    app = importlib.import_module("widgets.app")
    options = app.GuiOptions(
        project=project_path,
        smoke_test=args.smoke_test,
        screenshots=Path(args.screenshots) if args.screenshots else None,
        device=args.device,
        model=args.model,
        # Drawing the demo on first use is not start-up: time the window without it.
        started=PROCESS_START + demo_seconds,
        demo_create_seconds=demo_seconds,
        open_demo=open_demo,
        owns_process=owns_process,
    )
    return app.run_gui(options)
