"""Every kind of bad or unusual image file is loaded as RGB or skipped with a reason."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from backends.images import TOO_LARGE, load_image


def save(image: Image.Image, path: Path, **options: object) -> Path:
    image.save(path, **options)
    return path


def png_with_header_size(path: Path, width: int, height: int) -> Path:
    """A PNG whose header claims a huge size but whose data is tiny (a decompression bomb)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = zlib.compress(b"\x00" * 16)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )
    return path


def test_plain_jpeg_loads(tmp_path: Path) -> None:
    path = save(Image.new("RGB", (40, 30), (200, 10, 10)), tmp_path / "ok.jpg")
    image, reason = load_image(path)
    assert image is not None and reason == ""
    assert image.mode == "RGB" and image.size == (40, 30)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("empty.jpg", b"", "empty file"),
        ("garbage.jpg", b"this is not an image at all" * 10, "not an image"),
    ],
)
def test_unreadable_bytes_are_skipped(
    tmp_path: Path, name: str, content: bytes, expected: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    image, reason = load_image(path)
    assert image is None and expected in reason


def test_missing_file_is_skipped(tmp_path: Path) -> None:
    image, reason = load_image(tmp_path / "nope.jpg")
    assert image is None and "cannot read" in reason


def test_truncated_jpeg_is_skipped(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    noise = np.random.default_rng(0).integers(0, 255, (200, 200, 3), dtype=np.uint8)
    Image.fromarray(noise).save(buffer, "JPEG")
    path = tmp_path / "truncated.jpg"
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    image, reason = load_image(path)
    assert image is None and "truncated" in reason


def test_huge_dimensions_are_refused_from_the_header(tmp_path: Path) -> None:
    path = png_with_header_size(tmp_path / "bomb.png", 200_000, 200_000)
    image, reason = load_image(path)
    assert image is None and reason.startswith(TOO_LARGE)


def test_pixel_limit_is_respected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save(Image.new("RGB", (100, 100)), tmp_path / "big.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 5000)
    image, reason = load_image(path)
    assert image is None and reason.startswith(TOO_LARGE)


def test_cmyk_becomes_rgb(tmp_path: Path) -> None:
    path = save(Image.new("CMYK", (20, 20), (0, 255, 255, 0)), tmp_path / "cmyk.jpg")
    image, _ = load_image(path)
    assert image is not None and image.mode == "RGB"
    red, green, blue = image.getpixel((10, 10))
    assert red > 200 and green < 60 and blue < 60


def test_sixteen_bit_png_is_scaled_not_clipped(tmp_path: Path) -> None:
    grey = np.full((16, 16), 32768, dtype=np.uint16)  # mid grey in 16 bits
    path = save(Image.fromarray(grey), tmp_path / "deep.png")
    assert Image.open(path).mode.startswith("I")
    image, _ = load_image(path)
    assert image is not None and image.mode == "RGB"
    assert abs(image.getpixel((0, 0))[0] - 128) <= 1


def test_alpha_is_composited_on_white(tmp_path: Path) -> None:
    rgba = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    rgba.putpixel((0, 0), (0, 0, 255, 255))
    image, _ = load_image(save(rgba, tmp_path / "cutout.png"))
    assert image is not None and image.mode == "RGB"
    assert image.getpixel((5, 5)) == (255, 255, 255)
    assert image.getpixel((0, 0)) == (0, 0, 255)


def test_palette_with_transparency(tmp_path: Path) -> None:
    palette = Image.new("P", (8, 8), 0)
    palette.putpalette([10, 200, 10] + [0, 0, 0] * 255)
    path = save(palette, tmp_path / "palette.png", transparency=0)
    image, _ = load_image(path)
    assert image is not None and image.getpixel((0, 0)) == (255, 255, 255)
    plain, _ = load_image(save(palette, tmp_path / "palette-opaque.png"))
    assert plain is not None and plain.getpixel((0, 0)) == (10, 200, 10)


def test_grey_and_bilevel_become_rgb(tmp_path: Path) -> None:
    for mode in ("L", "1", "LA", "I", "F"):
        image, _ = load_image(save(Image.new(mode, (4, 4)), tmp_path / f"{mode}.tiff"))
        assert image is not None and image.mode == "RGB", mode


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise when displayed
    path = save(Image.new("RGB", (40, 20)), tmp_path / "rotated.jpg", exif=exif)
    image, _ = load_image(path)
    assert image is not None and image.size == (20, 40)


def test_draft_decodes_large_jpeg_smaller(tmp_path: Path) -> None:
    path = save(Image.new("RGB", (1600, 1200), (0, 128, 0)), tmp_path / "large.jpg")
    image, _ = load_image(path, draft_size=200)
    assert image is not None and 200 <= min(image.size) < 1200
