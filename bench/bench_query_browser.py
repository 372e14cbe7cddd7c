"""Query list of a 100,000-query run: open time, worst UI stall while scrolling and
sorting, and the comparison of two such runs; offscreen. Prints its figures (it does not
write BENCHMARKS.md yet).

Writes two synthetic 100,000-query runs (ranks drawn over a 100,000-image gallery, the
top 50 ids and scores per query, three categories, two captions each) with the studio's
own ``QueryLog``, then times: reading a run and showing it in the real ``QueryBrowser``
table (the model over the columns), page-down scrolling and scroll-bar jumps, sorting by
every column both ways, a text filter, and ``compare_runs`` (shared queries, wins/losses,
the paired bootstrap interval). Each UI step is timed from the input to the end of its
event processing, waiting with a ``QEventLoop`` (never ``QTest.qWait``).

Then what storing the queries costs an evaluation (the goal: under 10 %): Fashion IQ val
(the shared fixture's 6,016 queries and their real captions, placeholder pictures drawn
under the real ids, the demo model's index) evaluated through ``evaluate_fashioniq``
without the run's ``QueryLog``, with it on the split's first run (no caption flags
remembered) and with it again (top 50 kept, written and renamed as a stored run's),
alternating, the median of ``--repeat`` each.

    .venv/bin/python bench/bench_query_browser.py [--queries 100000] [--steps 200]
        [--fixtures DIR] [--project DIR] [--repeat 3] [--overhead-only | --no-overhead]

``--project``: an indexed Fashion IQ project to reuse (built there on first use).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from studio.experiments.compare import compare_runs  # noqa: E402
from studio.experiments.query_list import QueryList  # noqa: E402
from studio.experiments.query_log import QueryLog, read_queries  # noqa: E402

GALLERY = 100_000
CATEGORIES = ("dress", "shirt", "toptee")


def synthetic_run(folder: Path, queries: int, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    # Log-uniform ranks over the gallery: about a third within the top 10.
    ranks = np.minimum(GALLERY, np.exp(rng.uniform(0, np.log(GALLERY), queries)).astype(int))
    scores = np.sort(rng.random(50).astype(np.float32))[::-1]
    with QueryLog(folder, "evaluate-fashioniq") as log:
        for n in range(queries):
            top = [f"img{(n * 7 + j) % GALLERY:06d}" for j in range(50)]
            rank = int(ranks[n])
            log.add(f"pair{n}", category=CATEGORIES[n % 3], reference=f"img{n % GALLERY:06d}",
                    target=top[rank - 1] if rank <= 50 else f"img{(n + 99) % GALLERY:06d}",
                    texts=["is darker with longer sleeves", f"has a print number {n % 97}"],
                    ranks=[rank if rank <= 50 else None], top_ids=top, top_scores=scores)
    return log.path


def resident_mb() -> float:
    """This process's resident memory (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def settle() -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(0, loop.quit)
    loop.exec()


def timed(step) -> float:
    started = time.perf_counter()
    step()
    settle()
    return (time.perf_counter() - started) * 1000


def fashioniq_project(fixtures: Path, folder: Path) -> Path:
    """Fashion IQ val imported with placeholder pictures and indexed (demo model), in
    ``folder`` (kept: a second run reuses it)."""
    import contextlib
    import io
    import json

    from studio.cli.main import main as cli
    from studio.demo.placeholders import draw_placeholders

    project = folder / "project"
    if (folder / "indexed").exists():
        return project
    fiq = fixtures / "fashioniq"
    category_of: dict[str, str] = {}
    for category in CATEGORIES:
        for image_id in json.loads((fiq / f"image_splits/split.{category}.val.json").read_text()):
            category_of.setdefault(image_id, category)
    draw_placeholders(folder / "images", sorted(category_of), category_of=category_of)
    with contextlib.redirect_stdout(io.StringIO()):
        for args in (["import", "fashioniq", str(fiq), "--project", str(project), "--images",
                      str(folder / "images")],
                     ["index", "build", "--project", str(project), "--model", "demo"]):
            if cli(args):
                raise SystemExit(f"cir-studio {' '.join(args)} failed")
    (folder / "indexed").touch()
    return project


class TimedLog(QueryLog):
    """The run's real query log, adding up the time its own calls take (a loaded machine
    blurs the difference of two whole runs; this part is the log's alone)."""

    spent = 0.0

    def add(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        started = time.process_time()
        super().add(*args, **kwargs)
        self.spent += time.process_time() - started

    def close(self) -> None:
        started = time.process_time()
        super().close()
        self.spent += time.process_time() - started


def evaluation_overhead(project_dir: Path, repeat: int) -> None:
    """One Fashion IQ val evaluation timed without its query log, with it on a split seen
    for the first time (no caption flags remembered) and with it again (the flags taken
    from the first): CPU time of this process, less sensitive to other programs than the
    wall clock."""
    from studio.experiments.flag_memory import FILE_NAME
    from studio.sessions.setup import load_session_context
    from studio.simulation.fashioniq_protocol import evaluate_fashioniq
    from studio.simulation.outputs import store_run
    from studio.store import Project

    with Project.open(project_dir) as project:
        memory = Path(project.cache_dir) / "queries" / FILE_NAME
        context = load_session_context(project, "demo", "cpu")
        evaluate_fashioniq(context, "val")  # warm: vectors cached, galleries read
        plain: list[float] = []
        logged: dict[str, list[float]] = {"first": [], "again": []}
        own: dict[str, list[float]] = {"first": [], "again": []}
        queries = 0
        for _ in range(repeat):
            started = time.process_time()
            evaluate_fashioniq(context, "val")
            plain.append(time.process_time() - started)
            memory.unlink(missing_ok=True)
            for case in ("first", "again"):
                started = time.process_time()
                with TimedLog(Path(project.cache_dir), "evaluate-fashioniq") as log:
                    report = evaluate_fashioniq(context, "val", log=log)
                store_run(project, "evaluate-fashioniq", report, [], "bench", log)
                logged[case].append(time.process_time() - started)
                own[case].append(log.spent)
                queries = log.rows
    without = float(np.median(plain))
    print(f"evaluate fashioniq val, {queries:,} queries (CPU s, median of {repeat}): "
          f"{without:.2f} s without the query log (goal: storing adds < 10 %)")
    for case, words in (("first", "the split's first run (flags read)"),
                        ("again", "run again (flags remembered)")):
        with_log, spent = float(np.median(logged[case])), float(np.median(own[case]))
        print(f"  {words}: {with_log:.2f} s with it (stored run, top 50 kept): "
              f"+{100 * (with_log - without) / without:.1f} %; the log's own calls "
              f"{spent:.2f} s = {100 * spent / without:.1f} % of the evaluation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--fixtures", type=Path, default=Path(
        os.environ.get("CIR_STUDIO_FIXTURES")
        or Path(__file__).resolve().parents[2] / "shared" / "fixtures"))
    parser.add_argument("--project", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--overhead-only", action="store_true")
    which.add_argument("--no-overhead", action="store_true")
    args = parser.parse_args()
    if not args.overhead_only:
        query_list_figures(args)
    if not args.no_overhead:
        if not (args.fixtures / "fashioniq").is_dir():
            print(f"no Fashion IQ fixture at {args.fixtures}: the evaluation overhead is not "
                  "measured")
            return
        folder = args.project or Path(tempfile.mkdtemp(prefix="bench-fiq-"))
        folder.mkdir(parents=True, exist_ok=True)
        evaluation_overhead(fashioniq_project(args.fixtures, folder), args.repeat)


def query_list_figures(args: argparse.Namespace) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from widgets.query_browser import query_table_view
    from widgets.query_table_model import QueryTableModel

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp(prefix="bench-queries-"))
    started = time.perf_counter()
    path_a = synthetic_run(folder / "a", args.queries, 0)
    path_b = synthetic_run(folder / "b", args.queries, 1)
    written = time.perf_counter() - started
    size = path_a.stat().st_size / 1e6
    view = query_table_view()  # the browser's own table
    view.resize(900, 700)
    view.show()
    settle()
    rss_before = resident_mb()
    opened = time.perf_counter()
    table = read_queries(path_a)
    model = QueryTableModel(QueryList(table))
    view.setModel(model)
    view.setSortingEnabled(True)
    settle()
    open_s = time.perf_counter() - opened
    memory = resident_mb() - rss_before
    model.queries.prepare()  # the browser does this on the IO lane once the list shows
    bar = view.verticalScrollBar()
    rng = random.Random(0)
    scroll = [timed(lambda: bar.setValue(min(bar.maximum(), bar.value() + bar.pageStep())))
              for _ in range(args.steps // 2)]
    scroll += [timed(lambda: bar.setValue(rng.randint(0, bar.maximum())))
               for _ in range(args.steps // 2)]
    sort = [timed(lambda c=c, o=o: view.sortByColumn(c, o))
            for c in range(model.columnCount())
            for o in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder)]
    filtering = [timed(lambda: model.set_filter(None, None, "print number 4")),
                 timed(lambda: model.set_filter(10, "dress", "")),
                 timed(lambda: model.set_filter(None, None, ""))]
    compared = time.perf_counter()
    comparison = compare_runs(table, read_queries(path_b), 10)
    compare_s = time.perf_counter() - compared
    shown = time.perf_counter()
    view.setModel(QueryTableModel(QueryList(table, comparison)))
    settle()
    compare_list_s = time.perf_counter() - shown
    print(f"{args.queries:,} queries · top 50 kept · file {size:.1f} MB · two runs written "
          f"in {written:.1f} s")
    print(f"open the list (read + model + first paint): {open_s * 1000:.0f} ms, "
          f"{memory:+.0f} MB resident (arrow buffers and Python objects)")
    print(f"scrolling, {len(scroll)} steps: median {np.median(scroll):.1f} ms, worst "
          f"{max(scroll):.1f} ms")
    print(f"sorting, {len(sort)} sorts (every column, both ways): median "
          f"{np.median(sort):.1f} ms, worst {max(sort):.1f} ms")
    print("filters (text contains, misses at 10 + category, none): "
          + ", ".join(f"{t:.0f} ms" for t in filtering))
    print(f"compare two runs (shared queries, wins/losses, paired bootstrap of 2,000): "
          f"{compare_s:.2f} s; its list shown in {compare_list_s * 1000:.0f} ms")
    print(comparison.header())
    view.close()
    app.processEvents()


if __name__ == "__main__":
    main()
