"""Per-query results of evaluation and simulation runs, and two runs compared."""
