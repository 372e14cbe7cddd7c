"""``--smoke-test``: open the project, visit every pane, report timings as one JSON line.

With ``--screenshots DIR`` every pane is also saved as a PNG at each of
``SCREENSHOT_SIZES`` (the default window and the smallest supported one, 1024×700), named
``NN-pane-WxH.png``; a window that cannot shrink to a size is an error.

Fails (non-zero exit) if the project does not open, a pane raises, an exception escapes
a slot, or a heavy library was imported before the window showed.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
import traceback

from PySide6.QtWidgets import QApplication

from widgets.app import GuiOptions
from widgets.main_window import MainWindow

SCREENSHOT_SIZES = ((1600, 1000), (1024, 700))


async def run_smoke_test(
    window: MainWindow, options: GuiOptions, time_to_window: float, heavy_at_window: list[str]
) -> int:
    errors: list[str] = []
    previous_hook = sys.excepthook

    def record(kind, value, tb) -> None:  # exceptions escaping Qt slots land here
        errors.append("".join(traceback.format_exception(kind, value, tb)).strip())

    sys.excepthook = record
    report: dict[str, object] = {
        "ok": False,
        "version": window.windowTitle() and QApplication.applicationVersion(),
        "time_to_window_s": round(time_to_window, 3),
        "heavy_modules_at_window": heavy_at_window,
        "demo_create_s": round(options.demo_create_seconds, 3),
    }
    try:
        if heavy_at_window:
            errors.append(f"imported before the window showed: {', '.join(heavy_at_window)}")
        started = time.perf_counter()
        if options.project is None or not window.open_project(options.project):
            errors.append(f"could not open the project {options.project}")
        report["project_open_s"] = round(time.perf_counter() - started, 3)
        report["project"] = str(options.project)
        pane_times: dict[str, float] = {}
        shots: list[str] = []
        for index, title in enumerate(window.pane_titles()):
            started = time.perf_counter()
            window.show_pane(index)
            QApplication.processEvents()
            await asyncio.sleep(0)
            if window.stack.currentIndex() != index:
                errors.append(f"pane {title} did not become visible")
            pane_times[title] = round(time.perf_counter() - started, 3)
        if options.screenshots is not None:
            options.screenshots.mkdir(parents=True, exist_ok=True)
            for width, height in SCREENSHOT_SIZES:
                shots += await _screenshots(window, options.screenshots, width, height, errors)
        report["panes"] = pane_times
        if shots:
            report["screenshots"] = shots
    except Exception:
        errors.append(traceback.format_exc())
    finally:
        sys.excepthook = previous_hook
        window.services.shutdown()
    report["errors"] = errors
    report["ok"] = not errors
    print(json.dumps(report, sort_keys=True), flush=True)
    return 0 if not errors else 1


async def _screenshots(
    window: MainWindow, folder, width: int, height: int, errors: list[str]
) -> list[str]:
    """Every pane at ``width`` × ``height``; the window must really take that size."""
    window.resize(width, height)
    QApplication.processEvents()
    await asyncio.sleep(0)
    if (window.width(), window.height()) != (width, height):
        errors.append(
            f"the window cannot shrink to {width}x{height}: it stays "
            f"{window.width()}x{window.height()}"
        )
    shots = []
    for index, title in enumerate(window.pane_titles()):
        window.show_pane(index)
        QApplication.processEvents()
        await asyncio.sleep(0)
        target = folder / f"{index + 1:02d}-{_slug(title)}-{width}x{height}.png"
        if not window.grab().save(str(target)):
            errors.append(f"could not write {target}")
        shots.append(str(target))
    return shots


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
