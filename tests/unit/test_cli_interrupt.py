"""Ctrl+C in a terminal: the first press asks a long run to stop after its current step
(so a simulation keeps what it finished), the second quits at once."""

from __future__ import annotations

import os
import signal

import pytest

from studio.cli.interrupt import stop_on_first_interrupt


def test_the_first_ctrl_c_stops_after_the_step_and_the_second_quits(capsys) -> None:
    before = signal.getsignal(signal.SIGINT)
    with stop_on_first_interrupt() as stop:
        assert not stop.cancelled
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.cancelled
        assert "Ctrl+C again to quit now" in capsys.readouterr().err
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before
