"""Load any image a user may drop into a gallery as a plain RGB picture, or say why not.

Real galleries hold zero-byte downloads, truncated JPEGs, CMYK catalogue scans, 16-bit
PNGs, transparent product cut-outs and the odd decompression bomb. Embedding must skip
those with a reason rather than abort a job of hours, so this never raises for bad input.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

TOO_LARGE = "too large"
_HIGH_BIT_MODES = {"I", "I;16", "I;16B", "I;16L", "I;16N", "F"}


def load_image(path: Path | str, draft_size: int | None = None) -> tuple[Image.Image | None, str]:
    """Return ``(rgb_image, "")`` or ``(None, reason)``; never raises for a bad file.

    ``draft_size`` lets the JPEG decoder downscale while decoding (much faster for large
    photos when the model only needs a few hundred pixels); the result is at least that big.
    Images with more than ``PIL.Image.MAX_IMAGE_PIXELS`` pixels are refused as "too large"
    from their header alone, before any pixel is decoded.
    """
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            return None, "empty file (0 bytes)"
    except OSError as error:
        return None, f"cannot read file: {error.strerror or error}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                limit = Image.MAX_IMAGE_PIXELS
                width, height = image.size
                if limit is not None and width * height > limit:
                    return None, f"{TOO_LARGE} ({width}x{height} pixels, limit {limit})"
                if draft_size and image.format == "JPEG":
                    image.draft("RGB", (draft_size, draft_size))
                image.load()
                return to_rgb(ImageOps.exif_transpose(image)), ""
    except Image.DecompressionBombError as error:
        return None, f"{TOO_LARGE} ({error})"
    except UnidentifiedImageError:
        return None, "not an image or unknown format"
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        message = str(error) or type(error).__name__
        if "truncated" in message.lower():
            return None, f"truncated image ({message})"
        return None, f"corrupt image ({message})"


def to_rgb(image: Image.Image) -> Image.Image:
    """Convert any PIL mode to RGB: alpha is composited on white, 16-bit is scaled to 8-bit."""
    mode = image.mode
    if mode == "RGB":
        return image
    if mode in _HIGH_BIT_MODES:
        return _high_bit_to_rgb(image)
    if mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
        mode = image.mode
    if mode in {"RGBA", "LA", "PA", "RGBa", "La"}:
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image.convert("RGB")


def _high_bit_to_rgb(image: Image.Image) -> Image.Image:
    """Scale 16-bit / 32-bit / float grey images to 8 bits (PIL's own convert clips them)."""
    array = np.asarray(image, dtype=np.float64)
    if image.mode == "F":
        low, high = float(np.nanmin(array)), float(np.nanmax(array))
        scaled = (array - low) / (high - low) * 255.0 if high > low else np.zeros_like(array)
    else:
        high = float(array.max(initial=0))
        # mode "I" holding values <= 255 is a 32-bit container of 8-bit data
        top = 255.0 if image.mode == "I" and high <= 255 else max(65535.0, high)
        scaled = np.clip(array, 0, None) / top * 255.0
    grey = Image.fromarray(np.nan_to_num(scaled).round().astype(np.uint8))
    return grey.convert("RGB")
