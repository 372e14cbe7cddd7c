"""The report as a grouped bar chart: criteria on the x axis, one bar per dataset, with the
95 % interval as error bars. Built on ``matplotlib.figure.Figure`` (no pyplot, no global
state), so the CLI renders it with Agg and the pane embeds it with backend_qtagg.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from studio.quality.report import MIN_RELIABLE_ITEMS, QualityReport
from studio.quality.report_export import HEADINGS

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def draw(report: QualityReport, figure: Figure) -> None:
    """Draw onto an existing figure (the pane keeps one and redraws it)."""
    import numpy as np

    figure.clear()
    axes = figure.add_subplot(1, 1, 1)
    columns = report.columns
    datasets = list(report.rows)
    x = np.arange(len(columns))
    width = 0.8 / max(1, len(datasets))
    for n, dataset in enumerate(datasets):
        cells = [report.rows[dataset][c] for c in columns]
        heights = [c.percent for c in cells]
        # The cells' intervals are clipped to 0–100 %, so the error bars stay on the chart.
        errors = np.array([
            [c.percent - c.low if c.low is not None else 0.0 for c in cells],
            [c.high - c.percent if c.high is not None else 0.0 for c in cells],
        ])
        bars = axes.bar(x + (n - (len(datasets) - 1) / 2) * width, heights, width, yerr=errors,
                        capsize=3, label=dataset)
        for bar, cell in zip(bars, cells, strict=True):
            if not cell.reliable:  # too few items: hatched and pale
                bar.set_hatch("//")
                bar.set_alpha(0.45)
    axes.set_xticks(x, [HEADINGS[c] for c in columns])
    axes.set_ylim(0, 100)
    axes.set_ylabel("score (%)")
    unreliable = any(not report.rows[d][c].reliable for d in datasets for c in columns)
    title = "Dataset quality (bars: 95 % t interval over items"
    title += f"; hatched: under {MIN_RELIABLE_ITEMS} items)" if unreliable else ")"
    axes.set_title(title, fontsize=10)
    if datasets:  # beside the axes, never over a bar
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        axes.text(0.5, 0.5, "No finished ratings yet", ha="center", va="center",
                  transform=axes.transAxes)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()


def save_png(report: QualityReport, path: Path, dpi: int = 120) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.0))
    FigureCanvasAgg(figure)
    draw(report, figure)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(str(path), dpi=dpi)
