"""Dashboard charts: captions per day per annotator, labels decided per type (with the
undecided count in the title), ratings done against assigned.

One matplotlib figure with three panels, drawn from ``studio.dashboard_data`` (the numbers
are read there, Qt-free). matplotlib is imported on the first draw, not with the window.
A panel with nothing to show says what would fill it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from studio.dashboard_data import DashboardData, dashboard_data
from studio.store import Project
from studio.wording import count
from widgets.chart_canvas import make_canvas

LAST_DAYS = 14  # captions per day: the last two weeks with work
STATUS_COLOURS = {"accepted": "#059669", "rejected": "#dc2626"}
STATUS_NAMES = {"accepted": "accepted", "rejected": "rejected"}
EMPTY = {
    "captions": "No captions submitted yet",
    "labels": "No attribute labels yet",
    "ratings": "No ratings assigned yet",
}


class DashboardCharts(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data: DashboardData | None = None
        self.canvas = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    def refresh(self, project: Project | None) -> None:
        """Re-read the project and redraw (cheap: a few grouped queries)."""
        self.data = None if project is None else dashboard_data(project)
        self._draw()

    def panel_texts(self) -> dict[str, str]:
        """What each panel says in words (titles and empty notes), for tests and tooltips."""
        if self.canvas is None:
            return {}
        return {
            name: " ".join([axes.get_title(), *(text.get_text() for text in axes.texts)]).strip()
            for name, axes in zip(
                ("captions", "labels", "ratings"), self.canvas.figure.axes, strict=False
            )
        }

    def _draw(self) -> None:
        if self.canvas is None:
            self.canvas = make_canvas(self._layout, (10, 2.7), 230)
        figure = self.canvas.figure
        figure.clear()
        captions, labels, ratings = figure.subplots(1, 3)
        data = self.data or DashboardData()
        _captions_per_day(captions, data)
        _labels_per_type(labels, data)
        _ratings(ratings, data)
        self.canvas.draw()


def _empty(axes, text: str) -> None:
    axes.text(
        0.5,
        0.5,
        text,
        ha="center",
        va="center",
        transform=axes.transAxes,
        color="#6b7280",
        fontsize=9,
    )
    axes.set_xticks([])
    axes.set_yticks([])


def _captions_per_day(axes, data: DashboardData) -> None:
    axes.set_title("Captions per day per annotator", fontsize=10)
    days = data.days[-LAST_DAYS:]
    if not days:
        total = data.totals.get("captions", 0)
        # Imported captions are captions: they have no day here, but they are not "none".
        _empty(axes, f"{count(total, 'caption')}, all imported;\nnew ones show here by day"
               if total else EMPTY["captions"])
        return
    people = list(data.captions_per_day)
    width = 0.8 / len(people)
    for n, person in enumerate(people):
        counts = [data.captions_per_day[person].get(day, 0) for day in days]
        xs = [i + (n - (len(people) - 1) / 2) * width for i in range(len(days))]
        axes.bar(xs, counts, width, label=person)
    axes.set_xticks(range(len(days)), [day[5:] for day in days], fontsize=8)  # MM-DD
    axes.tick_params(axis="y", labelsize=8)
    tallest = max(max(per.get(day, 0) for day in days) for per in data.captions_per_day.values())
    _legend_inside(axes, tallest)


def _labels_per_type(axes, data: DashboardData) -> None:
    undecided = sum(per.get("suggested", 0) for per in data.labels_per_type.values())
    axes.set_title(f"Labels decided per type\n({undecided:,} undecided)", fontsize=10)
    types = [
        t
        for t, per in data.labels_per_type.items()
        if per.get("accepted", 0) or per.get("rejected", 0)
    ]
    if not types:
        _empty(axes, "No labels decided yet" if data.labels_per_type else EMPTY["labels"])
        return
    bottom = [0] * len(types)
    for status in ("accepted", "rejected"):
        counts = [data.labels_per_type[t].get(status, 0) for t in types]
        axes.bar(
            range(len(types)),
            counts,
            0.7,
            bottom=bottom,
            color=STATUS_COLOURS[status],
            label=STATUS_NAMES[status],
        )
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    axes.set_xticks(range(len(types)), types, fontsize=7, rotation=30)
    axes.tick_params(axis="y", labelsize=8)
    _legend_inside(axes, max(bottom))


def _legend_inside(axes, tallest: float) -> None:
    """The legend in its own chart's top corner, above the bars (never between charts)."""
    axes.set_ylim(0, max(tallest, 1) * 1.45)
    axes.legend(fontsize=7, loc="upper right", framealpha=0.9)


def _ratings(axes, data: DashboardData) -> None:
    axes.set_title("Ratings done of assigned", fontsize=10)
    if not data.ratings:
        _empty(axes, EMPTY["ratings"])
        return
    raters = list(data.ratings)
    assigned = [data.ratings[r][1] for r in raters]
    done = [data.ratings[r][0] for r in raters]
    axes.barh(range(len(raters)), assigned, 0.6, color="#e5e7eb", label="assigned")
    axes.barh(range(len(raters)), done, 0.6, color="#2f6fed", label="done")
    for y, (d, a) in enumerate(zip(done, assigned, strict=True)):
        axes.text(a, y, f" {d} / {a}", va="center", fontsize=8)
    axes.set_yticks(range(len(raters)), raters, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlim(0, max(assigned) * 1.3)
    axes.tick_params(axis="x", labelsize=8)
