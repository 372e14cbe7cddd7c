"""Facts about image files on disk: content hash, size in pixels and bytes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from studio.hashing import file_digest
from studio.importers.validation import Problem
from studio.jobs import CancelToken, ProgressCallback

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif")
EXIF_ORIENTATION = 0x0112
TRANSPOSED = (5, 6, 7, 8)  # EXIF orientations that turn the picture a quarter turn


@dataclass(frozen=True)
class FileFacts:
    content_hash: str
    bytes: int
    width: int | None
    height: int | None


def file_facts(path: Path) -> FileFacts | None:
    """Hash and header facts of ``path``; None if it does not exist.

    Pillow reads only the header for the size, so this costs about one read of the file.
    Width and height are as shown: an EXIF orientation of 5-8 swaps them (cameras store
    portrait photos sideways with a rotate tag). An unreadable header leaves width and
    height empty rather than failing the import.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return None
    width = height = None
    try:
        from PIL import Image

        with Image.open(path) as image:
            width, height = image.size
            if image.getexif().get(EXIF_ORIENTATION) in TRANSPOSED:
                width, height = height, width  # shown rotated a quarter turn
    except Exception:  # noqa: BLE001 - a damaged header must not stop an import
        pass
    return FileFacts(file_digest(path), size, width, height)


def screen_files(
    files: dict[str, Path], root: Path, label: Callable[[Path], str]
) -> tuple[dict[str, Path], list[Problem]]:
    """The files an importer may read, and why each other one is skipped.

    Two rules: a name that is not valid UTF-8 cannot be stored (SQLite text is UTF-8)
    and is skipped, to be renamed; a file that resolves outside ``root`` (a symbolic
    link pointing elsewhere) is skipped and never read, so an image folder cannot make
    an import hash or register files outside it.
    """
    root = Path(root).expanduser().resolve()
    kept: dict[str, Path] = {}
    skipped: list[Problem] = []
    folders: dict[Path, Path] = {}  # each folder resolved once (not once per picture)
    for key, path in files.items():
        try:
            str(path).encode("utf-8")
        except UnicodeEncodeError:
            printable = label(path).encode("utf-8", "backslashreplace").decode("utf-8")
            skipped.append(
                Problem(printable, "file name is not valid UTF-8; rename the file to import it")
            )
            continue
        if path.is_symlink() or path.name in ("", ".", ".."):
            target = path.resolve()
        else:
            folder = folders.get(path.parent)
            if folder is None:
                folder = folders[path.parent] = path.parent.resolve()
            target = folder / path.name
        if not target.is_relative_to(root):
            what = "a link to" if path.is_symlink() else "resolves to"
            skipped.append(Problem(label(path), f"{what} {target}, outside {root}; not read"))
            continue
        kept[key] = path
    return kept, skipped


def facts_for(
    paths: dict[str, Path], progress: ProgressCallback, cancel: CancelToken, label: str
) -> dict[str, FileFacts]:
    """Facts of every path that exists, keyed like ``paths``; reports progress per 200."""
    facts: dict[str, FileFacts] = {}
    total = len(paths)
    for number, (key, path) in enumerate(paths.items(), start=1):
        if number % 200 == 0:
            cancel.raise_if_cancelled()
            progress(number, total, label)
        found = file_facts(path)
        if found is not None:
            facts[key] = found
    progress(total, total, label)
    return facts
