"""Pictures over the server: an image's file or a thumbnail, for whoever may see it.

Who may see what: a coordinator any image; a rater the images shown with a turn they
still have to rate (the turn and its history); an annotator or reviewer the images of the item they hold a
lease on (a pair to caption, a caption's pair to review, an image to decide). The file
is found through ``Project.image_path``, which refuses a stored path that leads out of
the project's image folders (``..`` steps, an absolute path, a link pointing elsewhere),
so a project someone else filled cannot make the server read other files. The id in the
URL is checked first: no path separators, ``..`` or control characters.

Answers carry an ETag built from the file's place, size and change time (and the
thumbnail size) and ``Cache-Control: private``, so a client keeps pictures on disk and asks again
with ``If-None-Match`` (a 304 costs no decoding). A thumbnail made once is kept by the
worker (``picture_cache``) for whoever asks for it next.
"""

from __future__ import annotations

import hashlib
import io
import re
import time
from dataclasses import dataclass
from pathlib import Path

from studio.errors import ImagePathError
from studio.server.errors import ApiError
from studio.server.picture_cache import PictureCache
from studio.server.tokens import Identity
from studio.store import Project
from studio.store.records import ImageRecord
from studio.store.repos import server_queues as queues_repo

MIN_SIZE, MAX_SIZE = 16, 2048
MAX_ID = 200
CACHE_CONTROL = "private, max-age=3600"
_BAD_ID = re.compile(r"[\x00-\x1f\x7f/\\]")
_KNOWN = ((b"\xff\xd8\xff", "image/jpeg"), (b"\x89PNG\r\n\x1a\n", "image/png"))


@dataclass(frozen=True)
class Picture:
    """What the server answers: 200 with the bytes, or 304 (``body`` empty)."""

    status: int
    body: bytes
    media_type: str
    etag: str


def check_id(image_id: str) -> None:
    if not image_id or len(image_id) > MAX_ID:
        raise ApiError(422, f"An image id has 1 to {MAX_ID} characters.")
    found = _BAD_ID.search(image_id)
    if found:
        raise ApiError(422, f"The image id holds a path separator or a control character "
                            f"(U+{ord(found.group(0)):04X}); image ids never do.")
    if ".." in image_id or image_id == ".":
        raise ApiError(422, "The image id holds '..'; image ids never do.")


def check_size(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or not MIN_SIZE <= int(raw) <= MAX_SIZE:
        raise ApiError(422, f"'size' must be a whole number of pixels, {MIN_SIZE} to "
                            f"{MAX_SIZE}.")
    return int(raw)


def _may_see(project: Project, who: Identity, image_id: str) -> bool:
    if who.role == "coordinator":
        return True
    if who.role == "rater":
        return queues_repo.rater_sees_image(project, who.name, image_id)
    return queues_repo.holder_sees_image(project, who.name, image_id, time.time())


def _file(project: Project, record: ImageRecord) -> Path:
    image_id = record.id
    refused = ApiError(403, f"Image {image_id!r}: its stored path leads outside the "
                            "project's image folders; it is not served.")
    try:
        path = project.image_path(record)
    except ImagePathError:
        raise refused from None
    if not path.is_file():
        raise ApiError(404, f"Image {image_id!r} has no picture file on the server.")
    return path


def _encode(path: Path, image_id: str, size: int | None) -> tuple[bytes, str]:
    from backends.images import load_image

    if size is None:
        raw = path.read_bytes()
        for magic, media_type in _KNOWN:
            if raw.startswith(magic):
                return raw, media_type
    image, reason = load_image(path, draft_size=size)
    if image is None:
        raise ApiError(422, f"Image {image_id!r} cannot be read: {reason}.")
    out = io.BytesIO()
    if size is None:  # another format: sent as PNG, losing nothing
        image.save(out, "PNG")
        return out.getvalue(), "image/png"
    image.thumbnail((size, size))
    image.save(out, "JPEG", quality=85)
    return out.getvalue(), "image/jpeg"


def serve(project: Project, who: Identity, image_id: str, size: int | None,
          if_none_match: str | None, cache: PictureCache | None = None) -> Picture:
    check_id(image_id)
    record = project.image(image_id)
    if record is None:
        raise ApiError(404, f"There is no image {image_id!r}.")
    if not _may_see(project, who, image_id):
        raise ApiError(403, f"Image {image_id!r} is not part of an item you hold.")
    path = _file(project, record)
    stat = path.stat()
    where = hashlib.sha256(str(path).encode()).hexdigest()[:12]  # another file: another tag
    etag = f'"{where}-{stat.st_mtime_ns:x}-{stat.st_size:x}-{size or 0}"'
    if if_none_match and etag in [tag.strip() for tag in if_none_match.split(",")]:
        return Picture(304, b"", "", etag)
    if size is None or cache is None:  # the file itself: read from disk, not kept
        body, media_type = _encode(path, image_id, size)
        return Picture(200, body, media_type, etag)
    key = (str(path), stat.st_mtime_ns, stat.st_size, size)
    kept = cache.get(key)
    if kept is None:
        kept = _encode(path, image_id, size)
        cache.put(key, *kept)
    return Picture(200, kept[0], kept[1], etag)
