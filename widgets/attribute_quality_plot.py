"""Dashboard chart: how precise and complete each model's attribute suggestions are.

Precision and recall per attribute type against the project's review decisions
(``studio.attributes.quality``), one bar per model. matplotlib is imported on the first
draw, not with the window, so start-up stays fast.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from studio.attributes.quality import QualityReport, suggestion_quality
from studio.attributes.query import label_models
from studio.attributes.records import ATTRIBUTE_TYPES
from studio.store import Project
from widgets.chart_canvas import make_canvas, note_layout

EMPTY = ("No reviewed model suggestions yet: run “Suggest with model” in Attributes and "
         "accept or reject some labels to see their precision and recall here.")


class AttributeQualityPlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note, self._layout = note_layout(self, EMPTY)
        self.canvas = None
        self.reports: dict[str, QualityReport] = {}
        self._project: Project | None = None

    def refresh(self, project: Project | None) -> None:
        self._project = project
        self.reports = {}
        if project is not None:
            for model in label_models(project):
                report = suggestion_quality(project, "model", model)
                if report.images:
                    self.reports[model] = report
        if not self.reports:
            self.note.setText(EMPTY)
            if self.canvas is not None:
                self.canvas.hide()
            return
        counts = ", ".join(f"{model}: {r.images:,}" for model, r in sorted(self.reports.items()))
        self.note.setText("Model suggestions per attribute type against the review decisions "
                          f"(reviewed images per model — {counts}).")
        self._draw()

    def _draw(self) -> None:
        if self.canvas is None:
            self.canvas = make_canvas(self._layout, (7, 2.6), 220)
        figure = self.canvas.figure
        figure.clear()
        types = [t for t in ATTRIBUTE_TYPES
                 if any(t in r.per_type for r in self.reports.values())]
        width = 0.8 / max(1, len(self.reports))
        for column, metric in enumerate(("precision", "recall")):
            axes = figure.add_subplot(1, 2, column + 1)
            for index, (model, report) in enumerate(sorted(self.reports.items())):
                values = [getattr(report.per_type.get(t), metric, None) for t in types]
                xs = [i + (index - (len(self.reports) - 1) / 2) * width for i in range(len(types))]
                axes.bar(xs, [v or 0.0 for v in values], width=width, label=model)
            axes.set_xticks(range(len(types)), types, fontsize=8)
            axes.set_ylim(0, 1)
            axes.set_title(metric.capitalize(), fontsize=10)
            axes.tick_params(axis="y", labelsize=8)
        figure.axes[0].legend(fontsize=8, loc="lower left")
        self.canvas.show()
        self.canvas.draw()
