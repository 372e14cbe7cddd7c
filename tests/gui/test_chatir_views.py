"""Imported ChatIR dialogs show in Recorded sessions; their protocol runs in Experiments."""

from __future__ import annotations

import json
from pathlib import Path

from studio.cli.main import main
from studio.demo.placeholders import draw_placeholders


def chatir_project(tmp_path: Path) -> Path:
    space = [f"unlabeled2017/{i:012d}.jpg" for i in range(12)]
    root = tmp_path / "chatir"
    (root / "dialogues").mkdir(parents=True)
    (root / "ChatIR_Protocol").mkdir()
    dialogs = [
        {"img": space[n], "dialog": [f"photo {n}"] + [f"q{r}? a{r}" for r in range(10)]}
        for n in range(3)
    ]
    (root / "dialogues/Human_BLIP2.json").write_text(json.dumps(dialogs))
    (root / "ChatIR_Protocol/Search_Space_val_tiny.json").write_text(json.dumps(space))
    draw_placeholders(tmp_path / "img", space)
    project = tmp_path / "p"
    assert (
        main(
            [
                "import",
                "chatir",
                str(root),
                "--project",
                str(project),
                "--images",
                str(tmp_path / "img"),
            ]
        )
        == 0
    )
    assert main(["index", "build", "--project", str(project), "--model", "demo"]) == 0
    assert main(["evaluate", "chatir", "--project", str(project)]) == 0
    return project


def test_chatir_dialogs_and_runs_show_in_the_retrieval_pane(window, qtbot, tmp_path) -> None:
    from widgets.recorded_sessions_dialog import RecordedSessionsDialog

    project = chatir_project(tmp_path)
    assert window.open_project(project)
    window.show_pane(3)
    view = window.stack.currentWidget().experiments
    assert view.runs.count() == 1
    assert "ChatIR Human_BLIP2" in view.runs.item(0).text()
    assert view.canvas is not None and view.note.isHidden()
    dialog = RecordedSessionsDialog(window.workspace.project, "ana", window)
    qtbot.addWidget(dialog)
    assert dialog.sessions.count() == 3
    assert "chat" in dialog.sessions.item(0).text()
    assert "ChatIR Human_BLIP2" in dialog.sessions.item(0).text()
    assert dialog.timeline.count() == 11  # the caption and ten question-answer rounds
    assert "photo" in dialog.timeline.item(0).text()
    assert "Q: q0?  A: a0" in dialog.timeline.item(1).text()
