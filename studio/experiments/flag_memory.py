"""The caption flags of a project's runs, remembered between runs.

A benchmark's captions do not change between evaluations, while a researcher evaluates
the same split again for every model and checkpoint: reading each query's captions for
its automatic flags was most of what storing the queries cost (2.3 s of a 14 s Fashion IQ
val evaluation with the demo model). The kinds found for each group of captions are kept
beside the runs' files (``<cache>/queries/caption-flags.parquet``) and read back by the
next run, so only captions never seen before are read.

The file carries the fingerprint of the flag rules (the sources of the flag checks and
the caption reader); a file written under other rules is not used, and is replaced at
the next save. It is a cache: a damaged or unreadable file is ignored, two runs saving at
once keep the last one's (each save merges what was on disk), and nothing is lost that
cannot be worked out again.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.captions.flags import FlagReader

FILE_NAME = "caption-flags.parquet"
#: groups of captions kept at most (the oldest go first): a bound on the file and memory
KEPT = 400_000
_SEPARATOR = "\x1f"  # unit separator: never typed in a caption


@lru_cache(maxsize=1)
def rules_fingerprint() -> str:
    """A hash of the modules whose code decides a caption's flags (the studio's version
    where their sources are not on disk, as in a packaged app)."""
    import studio
    from studio.captions import flags
    from studio.language import lexicon, reader

    digest = hashlib.sha256(studio.__version__.encode())
    for module in (flags, reader, lexicon):
        source = Path(getattr(module, "__file__", "") or "")
        if source.suffix == ".py" and source.exists():
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


class FlagMemory:
    """Flag kinds per group of captions: remembered ones from the file, the rest read."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / FILE_NAME
        self._known: dict[str, list[str]] | None = None
        self._new: dict[str, list[str]] = {}
        self._reader: FlagReader | None = None

    def kinds(self, texts: Sequence[str]) -> list[str]:
        key = _SEPARATOR.join(texts)
        if self._known is None:
            self._known = _load(self.path)
        found = self._known.get(key)
        if found is None:
            found = self._new.get(key)
        if found is None:
            if self._reader is None:
                from studio.captions.flags import FlagReader

                self._reader = FlagReader()
            found = self._new[key] = self._reader.kinds(texts)
        return list(found)

    @property
    def learned(self) -> int:
        """Groups read this time (not found in the file)."""
        return len(self._new)

    def save(self) -> None:
        """Merge what this run read into the file (nothing to do if it read nothing)."""
        if not self._new:
            return
        merged = {**_load(self.path), **self._new}
        if len(merged) > KEPT:
            merged = dict(list(merged.items())[-KEPT:])
        _write(self.path, merged)
        self._known = merged
        self._new = {}


def _load(path: Path) -> dict[str, list[str]]:
    if not path.exists():
        return {}
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(str(path))
        meta = table.schema.metadata or {}
        if meta.get(b"rules") != rules_fingerprint().encode():
            return {}
        keys = table.column("texts").to_pylist()
        kinds = table.column("kinds").to_pylist()
    except Exception:  # noqa: BLE001 (a cache: anything unreadable is read again)
        return {}
    return dict(zip(keys, kinds, strict=False))


def _write(path: Path, groups: dict[str, list[str]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("texts", pa.string()), ("kinds", pa.list_(pa.string()))],
                       metadata={"rules": rules_fingerprint()})
    table = pa.Table.from_arrays(
        [pa.array(list(groups), pa.string()), pa.array(list(groups.values()),
                                                       pa.list_(pa.string()))],
        schema=schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pending = path.with_name(f"{path.stem}-{uuid.uuid4().hex[:8]}.tmp")
    try:
        pq.write_table(table, str(pending))
        os.replace(pending, path)
    except OSError:
        pending.unlink(missing_ok=True)  # a full or read-only disk: the run is not failed
