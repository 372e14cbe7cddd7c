"""Dashboard chart: how well each annotator's captions find their targets.

One histogram of stored target ranks per annotator on a log-scale rank axis, with the
median rank and the share of captions whose target is in the top 10 in the legend. Stale
ranks (another model or strategy, a changed index, an edited caption) are counted and
named, with how to recompute them. matplotlib is imported on the first draw.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from studio.captions.ranking import rank_settings
from studio.captions.ranks import rank_summary, ranks_by_annotator, stale_count
from studio.store import Project
from studio.wording import count
from widgets.chart_canvas import make_canvas, note_layout

EMPTY = (
    "No caption ranks yet: ranks are kept when captions are submitted with an index built, "
    "or computed for all captions with 'cir-studio captions rank'."
)


class RankDistribution(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note, self._layout = note_layout(self, EMPTY)
        self.canvas = None
        self.ranks: dict[str, list[int | None]] = {}
        self.summaries: dict[str, dict] = {}

    def refresh(self, project: Project | None) -> None:
        self.ranks = ranks_by_annotator(project) if project is not None else {}
        self.summaries = {name: rank_summary(r) for name, r in self.ranks.items()}
        if project is None or not self.ranks:
            self.note.setText(EMPTY)
            if self.canvas is not None:
                self.canvas.hide()
            return
        settings = rank_settings(project)
        stale, total = stale_count(project, settings)
        parts = [
            f"{name}: median rank {s['median_rank']}, top 10 {s['top10']:.0%} "
            f"({count(s['captions'], 'caption')})"
            for name, s in self.summaries.items()
        ]
        note = f"Target rank of each caption ({settings.model} · {settings.strategy}) — " + (
            "; ".join(parts)
        )
        if stale:
            note += (
                f". {stale} of {total} ranks are stale (model, index or text changed): "
                "recompute them with 'cir-studio captions rank' or Recompute in Review."
            )
        self.note.setText(note)
        self._draw()

    def _draw(self) -> None:
        if self.canvas is None:
            self.canvas = make_canvas(self._layout, (7, 2.4), 200)
        self.canvas.show()
        figure = self.canvas.figure
        figure.clear()
        axes = figure.add_subplot(1, 1, 1)
        found = [r for ranks in self.ranks.values() for r in ranks if r is not None]
        top = max(found, default=1)
        edges = [1.0]
        while edges[-1] <= top:
            edges.append(edges[-1] * 10**0.25)
        for name, ranks in self.ranks.items():
            values = [r for r in ranks if r is not None]
            summary = self.summaries[name]
            label = f"{name} (median {summary['median_rank']}, top 10 {summary['top10']:.0%})"
            axes.hist(values, bins=edges, histtype="step", linewidth=1.6, label=label)
        axes.set_xscale("log")
        axes.set_xlabel("target rank (log scale; 1 is best)", fontsize=8)
        axes.set_ylabel("captions", fontsize=8)
        axes.axvline(10.5, color="#15803d", linestyle=":", linewidth=1)
        axes.tick_params(labelsize=8)
        axes.legend(fontsize=8)
        self.canvas.draw_idle()
