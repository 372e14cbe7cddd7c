"""One real desktop studio writing captions for ``bench_server.py``, in its own process.

    QT_QPA_PLATFORM=offscreen CIR_STUDIO_HOME=DIR \\
        python bench/studio_writer.py BASE TOKEN PACE SEED REPORT

Builds the studio as ``cir-studio`` does (``Services``, ``MainWindow``, the qasync event
loop), connects to the team server with ``services.team`` (the connection of File →
Connect to Team Server…) and opens the Captions pane, whose team writer then holds a pair.
It prints ``ready`` and reads the bench's deadline (epoch seconds) from stdin, so the
studio's start-up does not eat the bench's minutes. Until the deadline it writes captions
the way a person does: reads the pair for a moment, types key by key at human pace (QTest
key clicks, each followed by an ``asyncio.sleep`` on the Qt event loop, so the studio's
own threads and timers run meanwhile: autosaved drafts, lease renewals, pictures,
flushes), pauses between words now and then (the 400 ms pause keeps a draft), and submits
with the pane's Ctrl+Enter. Then it lets the connection send everything waiting, closes
the window (the services put anything typed in the outbox) and writes REPORT: every edit
of its outbox with the server's answer, and how many captions it submitted.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("is darker", "has longer sleeves", "is plain", "has a collar", "is shorter",
         "has buttons", "is more formal", "has a v-neck")
FLUSH_WAIT_S = 60.0


async def _until(test, seconds: float) -> bool:
    """Poll ``test`` while the Qt event loop runs (never QTest.qWait, which keeps the GIL
    busy and starves the studio's worker threads)."""
    end = time.monotonic() + seconds
    while not test():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.05)
    return True


async def write(window, deadline: float, pace: float, rng: random.Random) -> dict:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    writer = window.panes[1].team_writer
    editor = writer.editor
    counts = {"submitted": 0, "keys": 0, "shortcut_missed": 0, "waited_for_pair_s": 0.0}
    while time.time() < deadline:
        started = time.monotonic()
        if not await _until(lambda: writer.item is not None and editor.isEnabled(),
                            max(0.0, deadline - time.time())):
            break  # no pair for this person (the queue ran dry, or the time is up)
        counts["waited_for_pair_s"] += time.monotonic() - started
        await asyncio.sleep(rng.uniform(0.8, 2.0) * pace)  # looking at the two pictures
        window.activateWindow()
        editor.setFocus()
        editor.end(False)
        words = [rng.choice(WORDS) for _ in range(rng.randint(2, 3))]
        text = (" " if editor.text() else "") + " and ".join(words)
        for char in text:
            if time.time() >= deadline:
                break
            QTest.keyClick(editor, Qt.Key.Key_Space if char == " " else char)
            counts["keys"] += 1
            pause = rng.uniform(0.08, 0.3)
            if char == " " and rng.random() < 0.2:
                pause += rng.uniform(0.4, 1.2)  # thinking of the next word: a draft is kept
            await asyncio.sleep(pause * pace)
        if time.time() >= deadline:
            break  # what is typed stays a draft, kept like any other edit
        pair = writer.item.pair_id
        QTest.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        # a submission on its way disables the editor until the next pair comes
        if not editor.isEnabled() or writer.item is None or writer.item.pair_id != pair:
            counts["submitted"] += 1
        else:
            counts["shortcut_missed"] += 1  # the shortcut did not fire: say so in the report
            writer.save_and_next()
            counts["submitted"] += 1
    return counts


def main(base: str, token: str, pace: str, seed: str, report: str) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    from studio.server.client import outbox_for
    from studio.settings import Settings
    from studio.store import outbox
    from studio.workspace import Workspace
    from widgets.app import create_application, drain
    from widgets.main_window import MainWindow
    from widgets.services import Services

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    services = Services(Workspace(Settings(device="cpu")))
    services.errors.install_hooks()
    window = MainWindow(services)
    window.show()
    team = services.team
    writer = window.panes[1].team_writer

    seen = {"online": False, "went_offline": 0}

    def heard() -> None:  # the status bar's online/offline: count the drops it showed
        if seen["online"] and not team.online and team.connected:
            seen["went_offline"] += 1
        seen["online"] = team.online

    team.changed.connect(heard)

    async def session() -> dict:
        team.connect_to(base, token, failed=lambda message: print(message, flush=True))
        if not await _until(lambda: team.name != "", 120):
            raise SystemExit(f"the studio did not connect: {team.last_error}")
        window.show_pane(1)
        await _until(lambda: writer.item is not None, 120)
        print("ready", flush=True)
        deadline = float(sys.stdin.readline())  # all studios and people start together
        counts = await write(window, deadline, float(pace), random.Random(int(seed)))
        await asyncio.sleep(1.5)  # the last pause's draft goes into the outbox
        settled = await _until(lambda: team.online and team.waiting == 0, FLUSH_WAIT_S)
        counts["settled"] = settled
        counts["went_offline"] = seen["went_offline"]
        window.close()  # the services flush what is typed into the outbox and close it
        await drain(loop)
        return counts

    with loop:
        counts = loop.run_until_complete(session())
    services.shutdown()
    box = outbox.open_outbox(outbox_for(base, token))
    edits = outbox.entries(box, base)
    box.close()
    kinds = {e["uid"]: e["path"].rsplit("/", 1)[-1] for e in edits}
    submits = [e for e in edits if kinds[e["uid"]] == "submit"]
    Path(report).write_text(json.dumps({
        "role": "studio", "timings": {}, "items": counts["submitted"], "offline": 0,
        "reasons": {}, "waiting": sum(e["status"] is None for e in edits),
        "kinds": kinds, "answers": {e["uid"]: e["status"] for e in edits},
        "submitted": counts["submitted"], "submits_in_outbox": len(submits),
        "acknowledged": sum(e["status"] is not None and e["status"] < 300 for e in submits),
        "refused": sum(e["status"] is not None and e["status"] >= 300 for e in submits),
        "drafts": len(edits) - len(submits), **{k: v for k, v in counts.items()
                                                 if k != "submitted"},
    }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
