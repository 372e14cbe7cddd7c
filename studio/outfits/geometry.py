"""Region geometry in image pixels: polygon area and bounds, COCO run-length masks, and
which garment contains a part.

COCO's RLE counts alternate background and foreground runs over the mask in column-major
order; the compressed form is pycocotools' string (5 bits per character, offset 48, each
count after the second stored as a difference to the one two before). Decoding here is
plain Python: the masks are only read for checks, areas and bounds, never per paint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Box = tuple[float, float, float, float]
SAMPLED_POINTS = 24  # vertices of a part tested against a garment's outline, at most


class RleError(ValueError):
    """A run-length mask that is not one."""


def ring_area(ring: Sequence[float]) -> float:
    xs, ys = ring[0::2], ring[1::2]
    n = len(xs)
    twice = sum(xs[i] * ys[(i + 1) % n] - xs[(i + 1) % n] * ys[i] for i in range(n))
    return abs(twice) / 2.0


def polygon_area(rings: Sequence[Sequence[float]]) -> float:
    return sum(ring_area(ring) for ring in rings)


def polygon_bounds(rings: Sequence[Sequence[float]]) -> Box | None:
    xs = [v for ring in rings for v in ring[0::2]]
    ys = [v for ring in rings for v in ring[1::2]]
    if not xs:
        return None
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def decode_counts(counts: Any) -> list[int]:
    """The run lengths of an RLE's ``counts`` (a list of ints, or a compressed string)."""
    if isinstance(counts, list):
        if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts):
            raise RleError("uncompressed counts must be non-negative integers")
        return list(counts)
    if not isinstance(counts, str):
        raise RleError(f"counts must be a list of integers or a string, not {type(counts).__name__}")
    out: list[int] = []
    position = 0
    text = counts.encode("ascii", errors="replace")
    while position < len(text):
        value = 0
        shift = 0
        more = True
        while more:
            if position >= len(text):
                raise RleError("compressed counts end in the middle of a number")
            char = text[position] - 48
            if char < 0 or char > 63:
                raise RleError(f"character {chr(text[position])!r} is not in an RLE string")
            value |= (char & 0x1F) << (5 * shift)
            more = bool(char & 0x20)
            position += 1
            shift += 1
            if not more and (char & 0x10):
                value |= -1 << (5 * shift)
        if len(out) > 2:
            value += out[-2]
        out.append(value)
    if any(c < 0 for c in out):
        raise RleError("compressed counts decode to a negative run")
    return out


def check_rle(rle: Any, width: int | None, height: int | None) -> list[int]:
    """The decoded counts of a ``{"counts", "size"}`` mask, or ``RleError`` saying why not."""
    if not isinstance(rle, dict) or set(rle) != {"counts", "size"}:
        raise RleError('an RLE mask is an object with exactly "counts" and "size"')
    size = rle["size"]
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise RleError('"size" must be [height, width] in pixels')
    if height is not None and width is not None and size != [height, width]:
        raise RleError(f"size {size} is not the picture's [height, width] {[height, width]}")
    counts = decode_counts(rle["counts"])
    if sum(counts) != size[0] * size[1]:
        raise RleError(
            f"the runs cover {sum(counts)} pixels, the mask has {size[0] * size[1]}"
        )
    return counts


def rle_area(counts: Sequence[int]) -> int:
    return sum(counts[1::2])


def rle_bounds(counts: Sequence[int], height: int) -> Box | None:
    """The bounding box of the foreground (column-major runs)."""
    x0 = y0 = None
    x1 = y1 = -1
    position = 0
    for index, run in enumerate(counts):
        if index % 2 and run:
            first, last = position, position + run - 1
            cx0, cx1 = first // height, last // height
            if cx0 == cx1:
                ry0, ry1 = first % height, last % height
            else:
                ry0, ry1 = 0, height - 1
            x0 = cx0 if x0 is None else min(x0, cx0)
            y0 = ry0 if y0 is None else min(y0, ry0)
            x1, y1 = max(x1, cx1), max(y1, ry1)
        position += run
    if x0 is None or y0 is None:
        return None
    return (float(x0), float(y0), float(x1 - x0 + 1), float(y1 - y0 + 1))


def point_in_rings(x: float, y: float, rings: Sequence[Sequence[float]]) -> bool:
    """Even-odd rule over every ring (a hole or a second piece both count)."""
    inside = False
    for ring in rings:
        xs, ys = ring[0::2], ring[1::2]
        n = len(xs)
        j = n - 1
        for i in range(n):
            if (ys[i] > y) != (ys[j] > y):
                cross = xs[j] + (y - ys[j]) * (xs[i] - xs[j]) / (ys[i] - ys[j])
                if x < cross:
                    inside = not inside
            j = i
    return inside


def box_overlap(inner: Box, outer: Box) -> float:
    """Share of ``inner``'s box area that lies inside ``outer``."""
    ix0, iy0, iw, ih = inner
    ox0, oy0, ow, oh = outer
    w = min(ix0 + iw, ox0 + ow) - max(ix0, ox0)
    h = min(iy0 + ih, oy0 + oh) - max(iy0, oy0)
    if w <= 0 or h <= 0:
        return 0.0
    return (w * h) / max(iw * ih, 1e-9)


def containment(part_box: Box, part_rings: Sequence[Sequence[float]] | None,
                garment_box: Box, garment_rings: Sequence[Sequence[float]] | None) -> float:
    """How much of a part lies in a garment, 0..1: the share of the part's polygon
    vertices inside the garment's polygon when both have one, else the box overlap."""
    overlap = box_overlap(part_box, garment_box)
    if overlap == 0.0:
        return 0.0  # boxes apart: no vertex can be inside
    if part_rings and garment_rings:
        points = [(ring[i], ring[i + 1]) for ring in part_rings for i in range(0, len(ring), 2)]
        points = points[:: max(1, len(points) // SAMPLED_POINTS)]
        if points:
            inside = sum(point_in_rings(x, y, garment_rings) for x, y in points)
            # Parts sit on a garment's edge (a sleeve, a collar): blend in the box overlap
            # so a part whose outline traces the garment's border still finds it.
            return 0.5 * inside / len(points) + 0.5 * overlap
    return overlap


def encode_counts(counts: Sequence[int]) -> str:
    """pycocotools' compressed string of run lengths (the inverse of ``decode_counts``)."""
    out = []
    for index, count in enumerate(counts):
        value = count - counts[index - 2] if index > 2 else count
        more = True
        while more:
            char = value & 0x1F
            value >>= 5
            more = value != -1 if char & 0x10 else value != 0
            if more:
                char |= 0x20
            out.append(chr(char + 48))
    return "".join(out)
