"""The query list of a run (or of two runs compared): columns, sort and filter over the
columnar per-query data, Qt-free. A view shows ``rows`` (indices into the columns) and
asks ``text(row, column)`` only for the rows on screen, so 100,000 queries open and sort in
milliseconds (numpy and arrow sorts, no Python object per row)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from studio.experiments.compare import Comparison
from studio.experiments.query_log import QueryTable

HIT_KS = (1, 5, 10, 50)
INF = float("inf")
TEXT_SEPARATOR = " / "


@dataclass(frozen=True)
class Column:
    name: str
    tip: str
    numeric: bool = True


class QueryList:
    """One run's queries (``comparison`` None) or the queries two runs share."""

    def __init__(self, table: QueryTable, comparison: Comparison | None = None) -> None:
        import pyarrow.compute as pc

        self.table = table
        self.comparison = comparison
        rows = comparison.index_a if comparison is not None else np.arange(len(table))
        self._rows_in_a = rows
        joined = pc.binary_join(table.table.column("texts"), TEXT_SEPARATOR).combine_chunks()
        self._joined = joined.take(rows)
        self._query = table.table.column("query").combine_chunks().take(rows)
        self._category = table.table.column("category").combine_chunks().take(rows)
        self._flags = table.flags().take(rows)
        self.categories = sorted(set(self._category.to_pylist()))
        keys: dict[str, np.ndarray] = {}
        columns: list[Column] = []
        if comparison is None:
            rank = table.rank[rows]
            keys["rank"] = rank
            columns.append(Column("rank", "the target's rank (after the last turn for "
                                  "dialogs; – when not found in what the run ranked)"))
            for k in HIT_KS:
                keys[f"@{k}"] = (rank <= k).astype(np.int8)
                columns.append(Column(f"@{k}", f"the target within the top {k}"))
        else:
            keys["A"], keys["B"] = comparison.rank_a, comparison.rank_b
            keys["change"] = comparison.change
            columns += [Column("A", "rank in run A"), Column("B", "rank in run B"),
                        Column("change", "places the target moved up from A to B")]
        keys["length"] = table.text_length()[rows]
        columns += [Column("category", "the query's category", False),
                    Column("length", "characters of its caption(s) or turns"),
                    Column("flags", "automatic flags of its captions (as the Captions pane "
                           "raises them: short, duplicate, contradiction…)", False)]
        if table.is_dialog():
            keys["top-10 at"] = table.first_top(10)[rows].astype(np.float64)
            keys["top-10 at"][keys["top-10 at"] < 0] = np.inf
            columns.append(Column("top-10 at", "the turn the target first reached the top 10"))
        columns += [Column("query", "the pair, dialog or query id", False),
                    Column("text", "caption(s) or turns", False)]
        self.columns = columns
        self._keys = keys
        # Sort keys: the numeric columns themselves, the text columns as dense ranks of
        # their values (an arrow sort each), and each column's order once sorted, so that
        # sorting again, or sorting a filtered list, only takes the kept rows of a cached
        # permutation. ``prepare`` makes them all, off the UI thread, once the list shows.
        self._strings = {"category": self._category, "query": self._query,
                         "text": self._joined, "flags": self._flags}
        self._sort_keys: dict[str, np.ndarray] = dict(keys)
        self._orders: dict[tuple[str, bool], np.ndarray] = {}
        # Each column's values as a Python list (built here, off the UI thread): a cell
        # shown is a list look-up, not an arrow scalar or a numpy scalar.
        self._cells: dict[str, list[Any]] = {name: key.tolist() for name, key in keys.items()}
        self._cells.update((name, values.to_pylist()) for name, values in self._strings.items())
        self._keep: np.ndarray | None = None
        self.rows = np.arange(len(rows))
        self.sort_column, self.descending = self.default_sort()
        self.sort(self.sort_column, self.descending)

    def default_sort(self) -> tuple[int, bool]:
        """Worst first: the highest rank, or the largest loss of B against A."""
        if self.comparison is None:
            return 0, True
        return 2, False

    def __len__(self) -> int:
        return len(self.rows)

    def text(self, row: int, column: int) -> str:
        """What the cell shows; called for each cell on screen at every paint, so it only
        indexes Python lists made when the list was built."""
        name = self.columns[column].name
        value = self._cells[name][int(self.rows[row])]
        if name in ("category", "query", "text", "flags"):
            return value or ""
        if name[0] == "@":
            return "✓" if value else ""
        if name == "change":
            return "found" if value == INF else "lost" if value == -INF else \
                f"{value:+.0f}" if value else "0"
        if name == "length":
            return str(value)
        return "–" if value == INF else str(int(value))

    def sort(self, column: int, descending: bool) -> None:
        """Stable: ties keep the run's order, so worst-first is reproducible."""
        self.sort_column, self.descending = column, descending
        order = self.order(self.columns[column].name, descending)
        self.rows = order if self._keep is None else order[self._keep[order]]

    def order(self, name: str, descending: bool) -> np.ndarray:
        """Every query of the list sorted by one column (computed once per direction)."""
        cached = self._orders.get((name, descending))
        if cached is None:
            key = self._sort_key(name)
            cached = np.argsort(-key if descending else key, kind="stable")
            self._orders[(name, descending)] = cached
        return cached

    def _sort_key(self, name: str) -> np.ndarray:
        key = self._sort_keys.get(name)
        if key is None:
            import pyarrow.compute as pc

            key = pc.rank(self._strings[name], sort_keys="ascending",
                          tiebreaker="dense").to_numpy().astype(np.int64)
            self._sort_keys[name] = key
        return key

    def prepare(self) -> None:
        """Every column's order both ways, so that no sort computes one on the UI thread
        (the browser runs this on the IO lane once the list shows; a sort asked before it
        is done computes its own)."""
        for column in self.columns:
            for descending in (False, True):
                self.order(column.name, descending)

    def set_filter(self, miss_at: int | None = None, category: str | None = None,
                   contains: str = "") -> None:
        """Only misses at K, one category, texts containing a phrase (case ignored)."""
        import pyarrow.compute as pc

        keep = np.ones(len(self._rows_in_a), dtype=bool)
        if miss_at:
            rank = self._keys["B"] if self.comparison is not None else self._keys["rank"]
            keep &= ~(rank <= miss_at)
        if category:
            keep &= pc.equal(self._category, category).to_numpy(zero_copy_only=False)
        if contains.strip():
            found = pc.match_substring(self._joined, contains.strip(), ignore_case=True)
            keep &= pc.fill_null(found, False).to_numpy(zero_copy_only=False)
        self._keep = None if keep.all() else keep
        self.sort(self.sort_column, self.descending)

    def table_row(self, row: int) -> int:
        """The query's row in run A's table."""
        return int(self._rows_in_a[int(self.rows[row])])

    def other_row(self, row: int) -> int | None:
        """With a comparison: the query's row in run B's table."""
        if self.comparison is None:
            return None
        return int(self.comparison.index_b[int(self.rows[row])])

    def header(self) -> str:
        if self.comparison is not None:
            return self.comparison.header()
        rank = self._keys["rank"]
        recalls = " · ".join(f"R@{k} {np.mean(rank <= k):.3f}" for k in HIT_KS) if len(
            rank) else ""
        return f"{len(rank)} queries · {recalls} · showing {len(self.rows)}"


def query_lines(row: dict[str, Any], first_turn: int, kind: str) -> list[str]:
    """The caption(s), or the turns with the target's rank after each, as lines."""
    texts, ranks = row["texts"], row["ranks"]

    def shown(rank: int | None) -> str:
        return "not in what was ranked" if rank is None else f"rank {rank}"

    if kind in ("simulate", "chatir"):
        asked = chat_rounds(row)
        if asked:  # a chat: what the system asked and what the user answered, each round
            texts = [f"Q: {q} A: {a}" if q else a or "(nothing left to ask)"
                     for q, a in asked]
        return [f"turn {n + first_turn}: {text or '(found: stopped)'} → {shown(rank)}"
                for n, (text, rank) in enumerate(zip(texts, ranks, strict=False))]
    lines = [f"“{text}”" for text in texts]
    if row["ground_truths"]:
        lines += [f"ground truth {truth}: {shown(rank)}"
                  for truth, rank in zip(row["ground_truths"], ranks, strict=False)]
    lines.append(f"target {row['target']}: {shown(row['rank'])}")
    return lines


def chat_rounds(row: dict[str, Any]) -> list[tuple[str | None, str]]:
    """A chat dialog's (question, answer) per round (None: round 0, the description); []
    for a composed dialog, a single query, or a chat stored before rounds were kept."""
    questions, answers = row.get("questions") or [], row.get("answers") or []
    if not answers or len(questions) != len(answers):
        return []
    return list(zip(questions, answers, strict=True))
