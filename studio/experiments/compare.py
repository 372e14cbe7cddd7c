"""Two runs, query by query: ranks side by side, wins and losses at K, and the paired
bootstrap 95 % interval of the Recall@K difference (the benches' own function).

Runs over different query sets are compared on the queries they share (matched by query
id, in run A's order); the comparison says how many each run has on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from studio.errors import StudioError
from studio.experiments.query_log import QueryTable
from studio.simulation.metrics import paired_bootstrap

DEFAULT_K = 10


@dataclass
class Comparison:
    k: int
    query: np.ndarray  # shared query ids, in run A's order
    category: np.ndarray
    index_a: np.ndarray  # rows of the shared queries in each run's table
    index_b: np.ndarray
    rank_a: np.ndarray  # float, inf: not found within what the run ranked
    rank_b: np.ndarray
    only_a: int
    only_b: int
    recall_a: float
    recall_b: float
    difference: float  # R@K of B minus A
    low: float
    high: float

    def __len__(self) -> int:
        return len(self.query)

    @property
    def change(self) -> np.ndarray:
        """Places the target moved up from A to B (negative: B ranks it lower); inf where
        only one run found it, 0 where neither did."""
        with np.errstate(invalid="ignore"):
            moved = self.rank_a - self.rank_b
        return np.where(np.isnan(moved), 0.0, moved)

    @property
    def wins(self) -> int:
        """Queries B finds within K and A does not."""
        return int(np.sum((self.rank_b <= self.k) & ~(self.rank_a <= self.k)))

    @property
    def losses(self) -> int:
        return int(np.sum((self.rank_a <= self.k) & ~(self.rank_b <= self.k)))

    @property
    def ties(self) -> int:
        return len(self) - self.wins - self.losses

    def header(self) -> str:
        """"B vs A at R@10: 12 wins, 8 losses, 180 ties; ΔR@10 +0.020 (95 % CI −0.01 to
        +0.05) over 200 shared queries"."""
        alone = ""
        if self.only_a or self.only_b:
            alone = f" ({self.only_a} only in A, {self.only_b} only in B)"
        return (f"B vs A at R@{self.k}: {self.wins} wins, {self.losses} losses, {self.ties} "
                f"ties; R@{self.k} {self.recall_a:.3f} → {self.recall_b:.3f}, "
                f"Δ {self.difference:+.3f} (95 % CI {self.low:+.3f} to {self.high:+.3f}) "
                f"over {len(self)} shared queries{alone}")

    def to_json(self, rows: int | None = None) -> dict[str, Any]:
        order = self.order()[:rows]
        return {
            "k": self.k, "shared": len(self), "only_a": self.only_a, "only_b": self.only_b,
            "wins": self.wins, "losses": self.losses, "ties": self.ties,
            "recall_a": self.recall_a, "recall_b": self.recall_b,
            "difference": self.difference, "interval": [self.low, self.high],
            "queries": [
                {"query": str(self.query[i]), "category": str(self.category[i]),
                 "rank_a": _rank(self.rank_a[i]), "rank_b": _rank(self.rank_b[i]),
                 "change": _change(self.change[i])}
                for i in order
            ],
        }

    def order(self) -> np.ndarray:
        """Largest loss first, then the largest gains last (stable by A's order)."""
        return np.argsort(self.change, kind="stable")


def _rank(value: float) -> int | None:
    return int(value) if np.isfinite(value) else None


def _change(value: float) -> float | str:
    if np.isposinf(value):
        return "found only by B"
    if np.isneginf(value):
        return "found only by A"
    return float(value)


def compare_runs(a: QueryTable, b: QueryTable, k: int = DEFAULT_K) -> Comparison:
    """The queries A and B share, compared at ``k``; raises when they share none."""
    import pyarrow.compute as pc

    if k < 1:
        raise StudioError("Compare at K of at least 1.")
    ids_a = a.table.column("query")
    ids_b = b.table.column("query")
    where = pc.index_in(ids_a, value_set=ids_b.combine_chunks())
    found = where.is_valid().to_numpy(zero_copy_only=False)
    index_a = np.flatnonzero(found)
    index_b = where.to_numpy(zero_copy_only=False)[index_a].astype(np.int64)
    if not len(index_a):
        raise StudioError("The two runs share no query: compare runs over the same queries "
                          "(the same dataset and split, or the same simulation seed).")
    rank_a, rank_b = a.rank[index_a], b.rank[index_b]
    hits_a = (rank_a <= k).astype(float)
    hits_b = (rank_b <= k).astype(float)
    difference, low, high = paired_bootstrap(hits_b, hits_a)
    return Comparison(
        k=k, query=a.query[index_a], category=a.category[index_a],
        index_a=index_a, index_b=index_b, rank_a=rank_a, rank_b=rank_b,
        only_a=len(a) - len(index_a), only_b=len(b) - len(index_b),
        recall_a=float(hits_a.mean()), recall_b=float(hits_b.mean()),
        difference=difference, low=low, high=high,
    )
