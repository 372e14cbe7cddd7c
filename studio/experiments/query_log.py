"""Every run keeps its queries: one columnar Parquet file per run in the cache folder.

A run of ``evaluate fashioniq|cirr|circo|chatir`` or ``simulate`` writes, per query, its
id (pair, dialog or CIRCO query), category, reference and target, the caption(s) or the
turns' texts, the target's rank (``ranks``: one per turn for dialogs, one per ground
truth for CIRCO, else one), a composed dialog's reference of each turn (``references``:
what *Open in Retrieval* replays; absent from files written before, empty for the rest),
a chat dialog's ``questions`` and ``answers`` round by round (what a chat's *Open in
Retrieval* replays; absent from files written before), the headline ``rank`` (the named
target's; a dialog's after its last turn) and the top K result ids with their scores (K = 50 by default).

A query's ``flags`` are the automatic flags of its captions; the kinds found for each
group of captions are remembered between runs (``studio.experiments.flag_memory``), so a
split evaluated again reads none of its captions a second time.

Why a file and not tables in the store: a 100,000-query run with the top 50 ids is five
million (id, score) values; as rows in ``experiment_runs``' database that is a large,
slow table in every copy and backup of the project, while a Parquet file of it is tens
of megabytes, opens column by column (a query list reads ``rank`` and ``category`` in
milliseconds) and is what researchers load in pandas or polars anyway. The store is also
about to be rewritten (SQLAlchemy/Alembic), so the per-query data stays out of its schema:
the file is keyed by the run id alone, ``<cache>/queries/run-<id>.parquet``, and a run
without one (run before this version) lists as before.

The file is written in row groups as the run goes (``QueryLog.add`` buffers, a
``ParquetWriter`` flushes every ``ROW_GROUP`` queries), under a pending name; when the run
is stored it is renamed after the run id. A cancelled or failed run's writer is closed
by its ``with`` block, so what it finished stays a readable file
(``<cache>/queries/unfinished-*.parquet``). A simulation stopped by hand (Cancel in the
Experiments tab, a first Ctrl+C in a terminal) ends with the dialogs it finished, and an
evaluation (``evaluate fashioniq|cirr|circo|chatir``, a first Ctrl+C) with the queries it
did; either is stored like any run, marked stopped (``studio.stopped_runs``).

pyarrow is imported inside the functions, so the CLI's ``--help`` stays instant.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from studio.captions.flags import FlagReader
    from studio.experiments.flag_memory import FlagMemory
    from studio.store import Project

KEEP_TOP = 50
ROW_GROUP = 4096
FOLDER = "queries"
NO_QUERIES = "no per-query results (run before this version)"
#: rank of a target not found in what the run ranked (beyond its depth): sorts last
MISSING = math.inf


def _schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema([
        ("query", pa.string()),
        ("category", pa.string()),
        ("reference", pa.string()),
        ("target", pa.string()),
        ("texts", pa.list_(pa.string())),
        ("rank", pa.int32()),
        ("ranks", pa.list_(pa.int32())),
        ("ground_truths", pa.list_(pa.string())),
        ("top_ids", pa.list_(pa.string())),
        ("top_scores", pa.list_(pa.float32())),
        ("flags", pa.list_(pa.string())),
        ("references", pa.list_(pa.string())),
        ("questions", pa.list_(pa.string())),
        ("answers", pa.list_(pa.string())),
    ])


DIALOG_KINDS = ("simulate", "chatir")
#: the top K ids and scores (see ``QueryTable``)
WIDE_COLUMNS = ("top_ids", "top_scores")


def caption_flag_kinds(texts: Sequence[str], reader: FlagReader | None = None) -> list[str]:
    """The kinds of the automatic caption flags of a query's captions (each caption
    checked against the others), each once, in the order they first come. ``reader``: one
    shared by a run's queries, so a caption two queries share is read once."""
    from studio.captions.flags import FlagReader

    return (reader or FlagReader()).kinds(texts)


def run_path(project: Project, run_id: int) -> Path:
    return Path(project.cache_dir) / FOLDER / f"run-{int(run_id)}.parquet"


def _rank(value: float | int | None) -> int | None:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return int(value)


class QueryLog:
    """Per-query results of one run, written as it goes (see the module docstring).

    ``first_turn`` names the first entry of ``ranks`` for dialogs: 1 for composed turns,
    0 for chat rounds (round 0 is the caption alone).
    """

    def __init__(self, folder: Path, kind: str, keep_top: int = KEEP_TOP,
                 first_turn: int = 1) -> None:
        if keep_top < 1:
            raise ValueError("keep at least the top 1 result")
        self.keep_top = keep_top
        self.folder = Path(folder) / FOLDER
        self.path = self.folder / f"unfinished-{uuid.uuid4().hex[:12]}.parquet"
        self.metadata = {"kind": kind, "keep_top": str(keep_top),
                         "first_turn": str(first_turn), "version": "1"}
        self.rows = 0
        self._writer: Any = None
        self._flag_memory: FlagMemory | None = None
        self._empty()
        self.closed = False

    def _empty(self) -> None:
        """The buffer of the row group under way: one list per column, the top K ids flat
        with one count per query and the scores as the arrays given (joined at flush)."""
        self._columns: dict[str, list[Any]] = {
            name: [] for name in _schema().names if name not in WIDE_COLUMNS}
        self._top_ids: list[str] = []
        self._top_counts: list[int] = []
        self._top_scores: list[np.ndarray] = []
        self._unflagged: list[int] = []  # rows whose flags are read at flush

    @classmethod
    def for_project(cls, project: Project, kind: str, keep_top: int = KEEP_TOP,
                    first_turn: int = 1) -> QueryLog:
        return cls(Path(project.cache_dir), kind, keep_top, first_turn)

    def add(
        self,
        query: str,
        *,
        category: str = "",
        reference: str | None = None,
        target: str | None = None,
        texts: Sequence[str] = (),
        ranks: Sequence[float | int | None] = (),
        rank: float | int | None = None,
        top_ids: Sequence[str] = (),
        top_scores: Sequence[float] | np.ndarray = (),
        ground_truths: Sequence[str] = (),
        flags: Sequence[str] | None = None,
        references: Sequence[str | None] = (),
        questions: Sequence[str | None] = (),
        answers: Sequence[str] = (),
    ) -> None:
        """One query. ``rank`` defaults to the last of ``ranks``; top lists are cut to K.
        ``references``: a composed dialog's reference image of each turn (None for a turn
        not run: the target was found before it). ``questions`` and ``answers``: a chat
        dialog's rounds, what the system asked (None for round 0, the description) and
        what the user said, so it can be replayed round by round.
        ``flags`` defaults to the automatic flags of its captions (the kinds, as the
        Captions pane raises them: short, duplicate, contradiction…); dialogs' turns are
        not captions and get none."""
        columns = self._columns
        keep = self.keep_top
        columns["query"].append(str(query))
        columns["category"].append(category or "")
        columns["reference"].append(reference)
        columns["target"].append(target)
        columns["texts"].append(list(texts))
        kept = [_rank(r) for r in ranks]
        columns["ranks"].append(kept)
        columns["rank"].append(_rank(rank) if rank is not None or not kept else kept[-1])
        columns["ground_truths"].append(list(ground_truths))
        top = top_ids[:keep]
        self._top_ids.extend(top)
        self._top_counts.append(len(top))
        self._top_scores.append(np.asarray(top_scores[:keep], dtype=np.float32))
        if flags is None and self.metadata["kind"] not in DIALOG_KINDS:
            self._unflagged.append(len(columns["flags"]))  # read at flush, all together
            columns["flags"].append([])
        else:  # dialogs' turns are not captions: no flags
            columns["flags"].append(list(flags or ()))
        columns["references"].append(list(references))
        columns["questions"].append(list(questions))
        columns["answers"].append(list(answers))
        self.rows += 1
        if len(self._top_counts) >= ROW_GROUP:
            self.flush()

    def flush(self) -> None:
        """Write the buffered queries as one row group."""
        if not self._top_counts:
            return
        self._read_flags()
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = _schema().with_metadata(self.metadata)
        def offsets(counts: list[int]) -> Any:
            return pa.array(np.concatenate(([0], np.cumsum(counts))).astype(np.int32))

        arrays = {name: pa.array(values, schema.field(name).type)
                  for name, values in self._columns.items()}
        arrays["top_ids"] = pa.ListArray.from_arrays(
            offsets(self._top_counts), pa.array(self._top_ids, pa.string()))
        # A CIRCO submission ranks ids without scores: its score lists are empty.
        arrays["top_scores"] = pa.ListArray.from_arrays(
            offsets([len(s) for s in self._top_scores]),
            pa.array(np.concatenate(self._top_scores), pa.float32()))
        table = pa.Table.from_arrays([arrays[name] for name in schema.names], schema=schema)
        if self._writer is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(str(self.path), schema)
        self._writer.write_table(table)
        self._empty()

    def _read_flags(self) -> None:
        """The automatic flags of the row group's captions, read in one go: each distinct
        group of captions once, in this run or an earlier. Read here rather than query by
        query, between the evaluation's own steps, the reader's tables stay in the CPU's
        caches: 0.9 instead of 1.4-1.9 CPU-s for Fashion IQ val's 6,016 queries."""
        if not self._unflagged:
            return
        if self._flag_memory is None:
            from studio.experiments.flag_memory import FlagMemory

            self._flag_memory = FlagMemory(self.folder)
        flags, texts = self._columns["flags"], self._columns["texts"]
        for row in self._unflagged:
            flags[row] = self._flag_memory.kinds(texts[row])
        self._unflagged = []

    def close(self) -> None:
        """Flush and close the file (kept as it is: a cancelled run keeps what it did)."""
        if self.closed:
            return
        self.flush()
        if self._writer is not None:
            self._writer.close()
        if self._flag_memory is not None:
            self._flag_memory.save()
        self.closed = True

    def keep_as(self, project: Project, run_id: int) -> Path | None:
        """Close and name the file after the stored run; None when no query was added."""
        self.close()
        if not self.path.exists():
            return None
        target = run_path(project, run_id)
        os.replace(self.path, target)
        self.path = target
        return target

    def __enter__(self) -> QueryLog:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


# The top K ids and scores are most of a run's file (five million values at 100,000
# queries) and only one query's are ever shown at a time: the list reads every other
# column and a query's top results are read from its row group when it is shown.


@dataclass
class QueryTable:
    """A run's queries as columns: ``rank`` a float array (``inf``: not found within what
    the run ranked), the rest arrow columns read row by row when a query is shown. Read
    from ``path``, the wide columns stay in the file until a row or the whole is asked for."""

    table: Any  # pyarrow.Table
    kind: str
    keep_top: int
    first_turn: int
    path: Path | None = None
    _groups: dict[int, Any] = field(default_factory=dict, repr=False)  # row group → top lists

    def __len__(self) -> int:
        return int(self.table.num_rows)

    @property
    def query(self) -> np.ndarray:
        return self.table.column("query").to_numpy(zero_copy_only=False)

    @property
    def category(self) -> np.ndarray:
        return self.table.column("category").to_numpy(zero_copy_only=False)

    @property
    def rank(self) -> np.ndarray:
        column = self.table.column("rank").to_numpy(zero_copy_only=False).astype(np.float64)
        return np.where(np.isnan(column), MISSING, column)

    def hits(self, k: int) -> np.ndarray:
        return self.rank <= k

    def text_length(self) -> np.ndarray:
        """Characters of each query's caption(s) or turns, all together."""
        import pyarrow.compute as pc

        texts = self.table.column("texts").combine_chunks()
        flat = pc.utf8_length(pc.list_flatten(texts)).to_numpy(zero_copy_only=False)
        parents = pc.list_parent_indices(texts).to_numpy(zero_copy_only=False)
        return np.bincount(parents, weights=flat, minlength=len(self)).astype(np.int64)

    def first_top(self, k: int = 10) -> np.ndarray:
        """The turn at which each dialog's target first reached the top ``k`` (numbered from
        ``first_turn``); -1 where it never did."""
        import pyarrow.compute as pc

        ranks = self.table.column("ranks").combine_chunks()
        flat = pc.list_flatten(ranks).to_numpy(zero_copy_only=False).astype(np.float64)
        flat = np.where(np.isnan(flat), np.inf, flat)
        parents = pc.list_parent_indices(ranks).to_numpy(zero_copy_only=False)
        offsets = ranks.offsets.to_numpy()
        result = np.full(len(self), -1, dtype=np.int64)
        hit = np.flatnonzero(flat <= k)
        if len(hit):
            firsts, where = np.unique(parents[hit], return_index=True)
            result[firsts] = hit[where] - offsets[firsts] + self.first_turn
        return result

    def row(self, index: int) -> dict[str, Any]:
        """One query with every column, as Python values."""
        row = {name: self.table.column(name)[index].as_py() for name in self.table.column_names}
        row.update(self._wide_row(index))
        return row

    def _unread(self) -> list[str]:
        """The wide columns left in the file."""
        if self.path is None:
            return []
        return [name for name in WIDE_COLUMNS if name not in self.table.column_names]

    def _wide_row(self, index: int) -> dict[str, Any]:
        """One query's top lists, read from its row group (the last few groups kept)."""
        unread = self._unread()
        if not unread:
            return {}
        import pyarrow.parquet as pq

        assert self.path is not None
        file = pq.ParquetFile(str(self.path))
        start = 0
        for group in range(file.num_row_groups):
            rows = file.metadata.row_group(group).num_rows
            if index < start + rows:
                break
            start += rows
        else:
            raise IndexError(index)
        table = self._groups.get(group)
        if table is None:
            table = file.read_row_group(group, columns=unread)
            if len(self._groups) >= 4:
                self._groups.pop(next(iter(self._groups)))
            self._groups[group] = table
        return {name: table.column(name)[index - start].as_py() for name in unread}

    def whole(self) -> Any:
        """Every column of every query (an export), reading the wide ones now."""
        if not self._unread():
            return self.table
        import pyarrow.parquet as pq

        return pq.read_table(str(self.path))

    def is_dialog(self) -> bool:
        return self.kind in DIALOG_KINDS

    def flags(self) -> Any:
        """Each query's caption flags joined with ", " (arrow strings; all empty for a run
        written before flags were kept)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if "flags" not in self.table.column_names:
            return pa.array([""] * len(self), pa.string())
        return pc.binary_join(self.table.column("flags"), ", ").combine_chunks()


def read_queries(path: Path) -> QueryTable:
    import pyarrow.parquet as pq

    names = pq.ParquetFile(str(path)).schema_arrow.names
    table = pq.read_table(str(path), columns=[n for n in names if n not in WIDE_COLUMNS])
    meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    return QueryTable(table, meta.get("kind", ""), int(meta.get("keep_top", KEEP_TOP)),
                      int(meta.get("first_turn", 1)), Path(path))


def run_queries(project: Project, run_id: int) -> QueryTable | None:
    """The run's queries, or None for a run stored before runs kept them."""
    path = run_path(project, run_id)
    return read_queries(path) if path.exists() else None


def export_queries(table: QueryTable, path: Path) -> Path:
    """A run's queries as CSV (lists joined with " | ") or Parquet (as stored), by suffix."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        from studio.errors import StudioError

        raise StudioError(f"{path}: export queries to a .csv or .parquet file")
    path.parent.mkdir(parents=True, exist_ok=True)
    whole = table.whole()
    if suffix == ".parquet":
        pq.write_table(whole, str(path))
        return path
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {}
    for name in whole.column_names:
        column = whole.column(name)
        if pa.types.is_list(column.type):
            column = column.combine_chunks()
            values = pc.fill_null(pc.cast(pc.list_flatten(column), pa.string()), "")
            column = pc.binary_join(pa.ListArray.from_arrays(column.offsets, values), " | ")
        columns[name] = column
    pcsv.write_csv(pa.table(columns), str(path))
    return path
