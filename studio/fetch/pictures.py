"""Fetch every picture of URL lists into a folder: bounded pool, retries, resumable.

- A picture is saved as ``OUT/ASIN.jpg`` (the name the Fashion IQ import looks for, even
  for the rare PNG/GIF/WebP answer: Pillow reads a file by its content) only after Pillow
  decoded all of it, written to ``OUT/.partial/`` first and renamed into place,
  so a file under its final name is always whole. A run killed at any moment (even
  ``kill -9``) leaves at most temporary files, which the next run deletes; it skips every
  ASIN already saved, so nothing is downloaded twice.
- A bounded thread pool (``workers``), a timeout per connection and read, a deadline per
  picture, a size limit, and a polite rate limit shared by all threads. Timeouts, network
  errors, cut-off bodies and HTTP 408/425/429/5xx are retried with exponential back-off
  (honouring ``Retry-After``); 404 and other client errors, oversized or non-image bodies
  are not.
- ``fallback``: a folder of pictures the list's maintainers supply for dead links
  (``broken_links/ASIN.jpg``), used when every URL of an ASIN failed.
- The report names every ASIN not saved and why (``write_report``: JSON or CSV).

Cancelling stops starting new downloads, lets running ones stop at their next chunk,
keeps everything saved, and still returns the report (ASINs not tried: "cancelled").
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from studio.fetch.http import FetchFailed, Limits, RateLimit, download
from studio.fetch.url_lists import Wanted
from studio.jobs import CancelToken, JobCancelled, ProgressCallback, no_progress

PARTIAL = ".partial"
FORMATS = ("JPEG", "PNG", "GIF", "WEBP")
SUFFIX = ".jpg"  # Fashion IQ's image files are ``<asin>.jpg``
SAVED = re.compile(r"^(?P<asin>[A-Za-z0-9_-]+)\.(jpg|png|gif|webp)$")


@dataclass(frozen=True)
class FetchOptions:
    workers: int = 8
    retries: int = 3  # tries after the first, per URL
    backoff: float = 1.0  # seconds before the first retry; doubles each time (with jitter)
    rate: float = 5.0  # request starts per second, all threads together
    limits: Limits = field(default_factory=Limits)


@dataclass
class Outcome:
    asin: str
    status: str  # fetched, present, fallback, failed, cancelled
    reason: str = ""
    url: str = ""
    http_status: int | None = None
    attempts: int = 0
    listed_at: str = ""


@dataclass
class FetchReport:
    out: str
    outcomes: list[Outcome]
    cancelled: bool = False

    @property
    def counts(self) -> dict[str, int]:
        return dict(Counter(outcome.status for outcome in self.outcomes))

    @property
    def not_fetched(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("failed", "cancelled")]

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "total": len(self.outcomes),
            "counts": self.counts,
            "cancelled": self.cancelled,
            "not_fetched": [asdict(o) for o in self.not_fetched],
        }


def saved_pictures(out: Path) -> dict[str, Path]:
    """ASIN → file of every picture already saved in ``out`` (complete by construction)."""
    if not out.is_dir():
        return {}
    found = {}
    with os.scandir(out) as entries:
        for entry in entries:
            match = SAVED.match(entry.name)
            if match and entry.is_file():
                found[match.group("asin")] = out / entry.name
    return found


def verified_suffix(data: bytes) -> str:
    """The file suffix for a picture Pillow can decode whole; ``FetchFailed`` otherwise."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = image.format or ""
            image.load()  # decodes every pixel: a cut-off JPEG fails here
    except UnidentifiedImageError:
        start = data[:40].decode("latin-1").replace("\n", " ")
        raise FetchFailed(f"not an image ({len(data):,} bytes starting {start!r})",
                          retry=False) from None
    except (OSError, SyntaxError, ValueError) as error:
        raise FetchFailed(f"damaged image: {error}", retry=True) from None
    if kind not in FORMATS:
        raise FetchFailed(f"unsupported picture format {kind or '?'}", retry=False)
    return SUFFIX


def save_atomically(out: Path, name: str, data: bytes) -> Path:
    """Write to ``out/.partial`` then rename: the final name never holds half a file."""
    partial = out / PARTIAL
    partial.mkdir(parents=True, exist_ok=True)
    temporary = partial / f"{name}.{os.getpid()}.{threading.get_ident()}.tmp"
    with temporary.open("wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    final = out / name
    os.replace(temporary, final)
    return final


def clear_stale_partials(out: Path) -> int:
    """Delete temporary files left by runs that are no longer alive (a kill -9)."""
    removed = 0
    partial = out / PARTIAL
    if not partial.is_dir():
        return 0
    for path in partial.iterdir():
        pid = path.name.split(".")[-3] if path.name.count(".") >= 3 else ""
        if not (pid.isdigit() and _alive(int(pid))):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fetch_pictures(
    wanted: list[Wanted],
    out: Path,
    *,
    fallback: Path | None = None,
    options: FetchOptions | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> FetchReport:
    """Fetch every wanted picture not yet in ``out``; see the module docstring."""
    options = options or FetchOptions()
    cancel = cancel or CancelToken()
    out = Path(out).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    clear_stale_partials(out)
    present = saved_pictures(out)
    outcomes: dict[str, Outcome] = {}
    todo = []
    for item in wanted:
        if item.asin in present:
            outcomes[item.asin] = Outcome(item.asin, "present", listed_at=item.source)
        else:
            todo.append(item)
    total, done = len(wanted), len(outcomes)
    progress(done, total, f"{done} already saved")
    limiter = RateLimit(options.rate)
    with ThreadPoolExecutor(max_workers=max(1, options.workers),
                            thread_name_prefix="fetch") as pool:
        pending: set[Future[Outcome]] = {
            pool.submit(_fetch_one, item, out, fallback, options, limiter, cancel)
            for item in todo
        }
        while pending:
            try:
                finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:  # Ctrl-C in the terminal: stop cleanly, keep the report
                cancel.cancel()
                continue
            for future in finished:
                outcome = future.result()
                outcomes[outcome.asin] = outcome
                done += 1
                progress(done, total, f"{outcome.asin} {outcome.status}")
    ordered = [outcomes[item.asin] for item in wanted]
    return FetchReport(str(out), ordered, cancelled=cancel.cancelled)


def _fetch_one(
    item: Wanted,
    out: Path,
    fallback: Path | None,
    options: FetchOptions,
    limiter: RateLimit,
    cancel: CancelToken,
) -> Outcome:
    outcome = Outcome(item.asin, "failed", listed_at=item.source)
    try:
        for url in item.urls:
            outcome.url = url
            try:
                data, suffix = _with_retries(url, options, limiter, cancel, outcome)
            except FetchFailed as error:
                outcome.reason, outcome.http_status = error.reason, error.status
                continue
            save_atomically(out, item.asin + suffix, data)
            outcome.status, outcome.reason, outcome.http_status = "fetched", "", None
            return outcome
        if fallback is not None and _use_fallback(item.asin, fallback, out, outcome):
            outcome.status = "fallback"
    except JobCancelled:
        outcome.status, outcome.reason = "cancelled", "cancelled before it was saved"
    return outcome


def _with_retries(
    url: str, options: FetchOptions, limiter: RateLimit, cancel: CancelToken, outcome: Outcome
) -> tuple[bytes, str]:
    delay = options.backoff
    for attempt in range(options.retries + 1):
        if cancel.cancelled:
            raise JobCancelled()
        limiter.wait(cancel)
        outcome.attempts += 1
        try:
            data = download(url, options.limits, cancel)
            return data, verified_suffix(data)
        except FetchFailed as error:
            if not error.retry or attempt == options.retries:
                raise
            pause = error.wait if error.wait is not None else delay * (1 + random.random() / 2)
            _sleep(min(pause, 60.0), cancel)
            delay *= 2
    raise AssertionError("unreachable")


def _sleep(seconds: float, cancel: CancelToken) -> None:
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        if cancel.cancelled:
            raise JobCancelled()
        time.sleep(min(left, 0.1))


def _use_fallback(asin: str, folder: Path, out: Path, outcome: Outcome) -> bool:
    """Copy the maintainers' picture for ``asin`` (any picture suffix) if it decodes."""
    for candidate in sorted(folder.glob(f"{asin}.*")):
        try:
            data = candidate.read_bytes()
            suffix = verified_suffix(data)
        except (OSError, FetchFailed):
            continue
        save_atomically(out, asin + suffix, data)
        outcome.reason = f"{outcome.reason}; used {candidate.name} from the fallback folder"
        return True
    outcome.reason += "; no picture in the fallback folder"
    return False


def write_report(report: FetchReport, path: Path) -> None:
    """Every ASIN not saved and why: CSV when ``path`` ends in .csv, else JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.partial")
    if path.suffix.lower() == ".csv":
        columns = ["asin", "status", "reason", "http_status", "attempts", "url", "listed_at"]
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            writer.writerows(asdict(o) for o in report.not_fetched)
    else:
        temporary.write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    os.replace(temporary, path)


def fetch_url_lists(
    lists: list[Path],
    out: Path,
    *,
    fallback: Path | None = None,
    options: FetchOptions | None = None,
    report_path: Path | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> tuple[FetchReport, Path]:
    """Read the lists, fetch, write the report (default ``OUT/fetch_report.json``): the one
    job the command line and the window both run. Returns the report and where it is."""
    from studio.fetch.url_lists import read_url_lists

    wanted = read_url_lists(list(lists))
    report = fetch_pictures(wanted, out, fallback=fallback, options=options, progress=progress,
                            cancel=cancel)
    target = Path(report_path) if report_path else Path(out).expanduser() / "fetch_report.json"
    write_report(report, target)
    return report, target
