"""The quality report as CSV, Markdown and a plain table of strings for views."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from studio.quality.criteria import CRITERIA, PERCENT_FORMULA
from studio.quality.indicators import INDICATOR_NAMES
from studio.quality.report import (
    ALPHA_METHOD,
    CI_METHOD,
    MEAN,
    UNRELIABLE_MARK,
    Cell,
    QualityReport,
    rho_reliable,
)

HEADINGS = {c.key: c.short for c in CRITERIA} | {MEAN: "Mean"}


def cell_text(cell: Cell | None, separator: str = " ") -> str:
    """"62.5 % (55.0–70.0)"; the interval is left out below two items; "†" marks a cell
    over too few items to trust (see ``MIN_RELIABLE_ITEMS``)."""
    if cell is None or math.isnan(cell.percent):
        return "–"
    mark = "" if cell.reliable else f" {UNRELIABLE_MARK}"
    if cell.low is None or cell.high is None:
        return f"{cell.percent:.1f} %{mark}"
    return f"{cell.percent:.1f} %{separator}({cell.low:.1f}–{cell.high:.1f}){mark}"


def rho_text(value: tuple[float | None, int] | None) -> str:
    """"+0.42 (n=25)"; "†" below ``MIN_RELIABLE_CORRELATION`` items; "–" when undefined."""
    if value is None or value[0] is None:
        return "–" if value is None else f"– (n={value[1]})"
    rho, n = value
    return f"{rho:+.2f} (n={n})" + ("" if rho_reliable(n) else f" {UNRELIABLE_MARK}")


def alpha_text(alpha: float) -> str:
    return "–" if math.isnan(alpha) else f"{alpha:.3f}"


def table_rows(report: QualityReport) -> tuple[list[str], list[list[str]]]:
    """Headings and rows: one row per dataset, then the agreement row."""
    headings = ["Dataset", *(HEADINGS[c] for c in report.columns), "Items", "Ratings"]
    rows = []
    for dataset, row in report.rows.items():
        mean = row[MEAN]
        rows.append([dataset, *(cell_text(row[c]) for c in report.columns),
                     str(mean.items), str(mean.ratings)])
    alphas = [alpha_text(report.agreement[c][0]) if c in report.agreement else ""
              for c in report.columns]
    pairable = max((n for _, n in report.agreement.values()), default=0)
    rows.append(["Agreement α (ordinal)", *alphas, str(pairable), ""])
    return headings, rows


def to_csv(report: QualityReport) -> str:
    """Numbers only, one row per dataset: percent and interval ends per column."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["dataset", "items", "ratings"]
    for column in report.columns:
        name = HEADINGS[column]
        header += [f"{name}_percent", f"{name}_ci_low", f"{name}_ci_high"]
    writer.writerow(header)
    for dataset, row in report.rows.items():
        line: list[object] = [dataset, row[MEAN].items, row[MEAN].ratings]
        for column in report.columns:
            data = row[column].to_json()
            line += [_blank(data["percent"]), _blank(data["ci_low"]), _blank(data["ci_high"])]
        writer.writerow(line)
    return buffer.getvalue()


def _blank(value: object) -> object:
    return "" if value is None else value


def to_markdown(report: QualityReport) -> str:
    headings, rows = table_rows(report)
    lines = [f"# Dataset quality{f' — sample {report.sample}' if report.sample else ''}", ""]
    lines += _md_table(headings, rows)
    lines += ["", f"- Scores: {PERCENT_FORMULA}.", f"- {CI_METHOD}.", f"- {ALPHA_METHOD}."]
    lines += [f"- {c.short} = {c.name}: {c.rubric}" for c in CRITERIA]
    if report.correlations:
        lines += ["", "## Automatic indicators vs. human scores (Spearman's rho)", ""]
        corr_rows = [
            [INDICATOR_NAMES[name], *(rho_text(per.get(c)) for c in report.columns)]
            for name, per in report.correlations.items()
        ]
        lines += _md_table(["Indicator", *(HEADINGS[c] for c in report.columns)], corr_rows)
    if report.notes:
        lines += ["", "## Notes", "", *(f"- {note}" for note in report.notes)]
    return "\n".join(lines) + "\n"


def _md_table(headings: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(headings) + " |", "|" + "|".join(" --- " for _ in headings) + "|"]
    out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return out


def write_text(path: Path, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
