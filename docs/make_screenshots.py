"""Draw the manual's screenshots: every pane at 1600×1000 and at 1024×700, on the demo.

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/make_screenshots.py [--out docs/screenshots]

The manual's pages (docs/panes/*.md, docs/index.md) show what this writes into
docs/screenshots/; never edit those pictures by hand.

Creates a fresh demo project (2,000 images, 500 mined pairs, attributes from the text and
40 outfit pictures for the Outfits tab) in
a temporary folder, fills it with a little of everything (``studio.demo.showcase``:
captions by two annotators, decided labels, transactions, ratings), builds the demo
model's index, then opens the real window and saves each pane in a state worth seeing
(a retrieval session of two turns, a rating item with earlier turns, the report). Takes
about two minutes on 2 cores, most of it the index.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = ((1600, 1000), (1024, 700))
OUTFITS = 40  # outfit pictures of the demo, for the Attributes pane's Outfits tab


def prepare(folder: Path) -> Path:
    from studio.demo.project import create_demo_project
    from studio.demo.showcase import fill_showcase
    from studio.index_service import build_index, load_project_model
    from studio.store import Project

    summary = create_demo_project(folder, pairs=500, outfits=OUTFITS)
    with Project.open(folder) as project:
        fill_showcase(project)
        build_index(project, load_project_model("demo", "cpu"))
    # A stored simulation with its queries, for the Experiments tab's query browser.
    from studio.cli.main import main as cli

    cli(["simulate", "--project", str(summary["project"]), "--n", "40", "--turns", "3",
         "--device", "cpu"])
    return Path(str(summary["project"]))


async def settle(seconds: float = 0.6) -> None:
    for _ in range(int(seconds / 0.05)):
        await asyncio.sleep(0.05)


async def until(condition, timeout: float = 120.0) -> None:
    waited = 0.0
    while not condition() and waited < timeout:
        await asyncio.sleep(0.1)
        waited += 0.1


async def shoot(window, out: Path) -> list[Path]:
    titles = window.pane_titles()
    saved: list[Path] = []

    def save(name: str, width: int, height: int) -> None:
        if (window.width(), window.height()) != (width, height):
            print(
                f"warning: {name}: the window is {window.width()}x{window.height()}, "
                f"not {width}x{height} (a pane cannot shrink that far)",
                file=sys.stderr,
            )
        path = out / f"{name}-{width}x{height}.png"
        window.grab().save(str(path))
        saved.append(path)

    quality = window.panes[titles.index("Quality")]
    for width, height in SIZES:
        window.resize(width, height)
        for index, title in enumerate(titles):
            if title == "Retrieval":
                continue  # below, once a session has run
            window.show_pane(index)
            pane = window.stack.currentWidget()
            if title == "Quality":
                pane.tabs.setCurrentWidget(quality.rating)
                view = quality.rating
                view.rater.setCurrentText("Ana")
                view.load_next()
                while view.item is not None and len(view.item.history) < 2:
                    view.finish("skipped")
                await settle()
                save("quality-rate", width, height)
                pane.tabs.setCurrentWidget(quality.report)
                await until(lambda: quality.report.report is not None)
                await settle()
                save("quality-report", width, height)
                continue
            await settle()
            save(title.lower(), width, height)
            if title == "Attributes":
                await shoot_outfits(pane, lambda w=width, h=height: save("outfits", w, h))
    retrieval = window.panes[titles.index("Retrieval")]
    window.show_pane(titles.index("Retrieval"))
    try:  # a two-turn session, as a shopper would run one
        retrieval.load_context()
        await until(lambda: getattr(retrieval, "session", None) is not None)
        for text in ("is red with longer sleeves", "is shorter and has a v-neck"):
            retrieval.text.setText(text)
            await retrieval.run_turn()
            await settle()
    except Exception as error:  # the pane's API moved on: shoot it as it is
        print(f"retrieval session skipped: {error}", file=sys.stderr)
    for width, height in SIZES:
        window.resize(width, height)
        await settle()
        save("retrieval", width, height)
    saved += await shoot_queries(retrieval, out)
    return saved


async def shoot_outfits(attributes, save) -> None:
    """Attributes → Outfits: a demo outfit with a region selected (drawn filled, its
    attribute chips and the outfit's values beside it), then back to the tab it had."""
    before = attributes.tabs.currentWidget()
    view = attributes.outfits
    attributes.tabs.setCurrentWidget(view)
    await settle()
    view.step_region(1)  # the next region (a part of the first garment) filled, its labels beside
    await settle(1.5)  # the picture arrives from the IO lane
    save()
    attributes.tabs.setCurrentWidget(before)
    await settle()


async def shoot_queries(retrieval, out: Path) -> list[Path]:
    """Retrieval → Experiments → a run → Queries…: its worst query, turn by turn."""
    experiments = retrieval.experiments
    retrieval.tabs.setCurrentWidget(experiments)
    await until(lambda: experiments.runs.count() > 0)
    experiments.runs.setCurrentRow(0)
    browser = experiments.open_queries()
    if browser is None:
        print("queries skipped: no stored run", file=sys.stderr)
        return []
    await until(lambda: browser.model is not None)
    browser.view.selectRow(0)
    await settle(1.5)  # the query's pictures arrive from the IO lane
    path = out / f"queries-{browser.width()}x{browser.height()}.png"
    browser.grab().save(str(path))
    browser.close()
    return [path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        import os

        os.environ["CIR_STUDIO_HOME"] = str(Path(tmp) / "home")
        project = prepare(Path(tmp) / "demo")
        import qasync

        from studio.workspace import Workspace
        from widgets.app import create_application
        from widgets.main_window import MainWindow

        app = create_application()
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        workspace = Workspace()
        workspace.settings.user_name = "Ana"
        window = MainWindow(workspace)
        window.show()
        args.out.mkdir(parents=True, exist_ok=True)

        async def run() -> list[Path]:
            window.open_project(project)
            return await shoot(window, args.out)

        with loop:
            saved = loop.run_until_complete(run())
        window.services.shutdown()
        workspace.close_project()
    print("\n".join(str(path) for path in saved))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
