"""Jobs run off the UI thread, report progress, and stop when cancelled."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QTimer

from studio.jobs import CancelToken, JobCancelled


def counting_job(n: int, *, progress, cancel: CancelToken) -> int:
    for i in range(n):
        cancel.raise_if_cancelled()
        time.sleep(0.01)
        progress(i + 1, n, f"step {i + 1}")
    return n


def test_a_job_returns_its_result_and_reports_progress(qtbot, event_loop_qt, services) -> None:
    runner = services.runner
    seen: list[tuple[int, int]] = []
    runner.progressed.connect(lambda _id, done, total, _msg: seen.append((done, total)))
    outcomes: list[str] = []
    runner.finished.connect(lambda _id, outcome: outcomes.append(outcome))
    result = event_loop_qt.run_until_complete(runner.run("count", counting_job, 5))
    qtbot.waitUntil(lambda: len(seen) == 5)
    assert result == 5
    assert seen[-1] == (5, 5)
    assert outcomes == ["done"]


def test_the_ui_thread_keeps_running_while_a_job_works(qtbot, event_loop_qt, services) -> None:
    """The job waits for a signal only the UI thread's timer can give; a blocked UI hangs it."""
    runner = services.runner
    ui_ticked = threading.Event()
    ui_thread = threading.get_ident()
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: ui_ticked.set() if threading.get_ident() == ui_thread else None)
    timer.start()

    def job(*, progress, cancel) -> str:
        assert threading.get_ident() != ui_thread
        return "ok" if ui_ticked.wait(timeout=10) else "ui was blocked"

    assert event_loop_qt.run_until_complete(runner.run("wait for ui", job)) == "ok"
    timer.stop()


def test_cancel_stops_a_job_between_batches(qtbot, event_loop_qt, services) -> None:
    runner = services.runner
    steps: list[int] = []
    outcomes: list[str] = []
    runner.finished.connect(lambda _id, outcome: outcomes.append(outcome))

    def endless(*, progress, cancel: CancelToken) -> None:
        i = 0
        while True:
            cancel.raise_if_cancelled()
            i += 1
            steps.append(i)
            progress(i, 0, "")
            time.sleep(0.005)

    runner.progressed.connect(lambda job_id, done, *_: runner.cancel(job_id) if done >= 3 else None)
    with pytest.raises(JobCancelled):
        event_loop_qt.run_until_complete(runner.run("endless", endless))
    assert outcomes == ["cancelled"]
    assert 3 <= len(steps) < 200  # it stopped soon after the request, not at some limit


def test_a_failing_job_is_reported(qtbot, event_loop_qt, services) -> None:
    runner = services.runner
    errors: list[str] = []
    runner.failed.connect(lambda _id, text: errors.append(text))

    def broken(*, progress, cancel) -> None:
        raise ValueError("bad row 7 in x.json")

    with pytest.raises(ValueError):
        event_loop_qt.run_until_complete(runner.run("broken", broken))
    assert errors == ["bad row 7 in x.json"]
