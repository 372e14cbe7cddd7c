"""Draw one catalog item as a flat product photo of a garment, with Pillow only.

The picture has to show the item's attributes (colour, pattern, sleeve, neckline, length,
fit, graphic) clearly enough that a person, and a retrieval model, can tell them apart,
while the seed adds the nuisance variation of real catalog photos (scale, offset, tilt,
shade, background, lighting). Shapes live in "unit" coordinates: x is 0 at the garment's
centre line, y is 0 at the top of the canvas, and 1 unit is the canvas side before
scaling. Everything is drawn at twice the size and reduced, which is cheap anti-aliasing.
"""

from __future__ import annotations

import colorsys
import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

if TYPE_CHECKING:
    from studio.demo.catalog import CatalogItem

Point = tuple[float, float]
RGB = tuple[int, int, int]

#: One well-separated RGB per colour name; the catalog's ``color`` values are these keys.
COLOR_RGB: dict[str, RGB] = {
    "black": (30, 30, 33),
    "white": (246, 246, 243),
    "grey": (135, 136, 140),
    "red": (200, 30, 40),
    "pink": (240, 140, 178),
    "orange": (240, 128, 28),
    "yellow": (246, 212, 48),
    "green": (38, 140, 62),
    "blue": (42, 108, 218),
    "navy": (26, 36, 92),
    "purple": (118, 48, 160),
    "beige": (222, 200, 160),
    "brown": (118, 74, 40),
}

_FIT_WIDTH = {"slim": 0.84, "regular": 1.0, "loose": 1.24}
_TOP_HEM = {"cropped": 0.44, "regular": 0.59, "long": 0.73}
_DRESS_HEM = {"mini": 0.57, "knee": 0.69, "midi": 0.80, "maxi": 0.94}
_DRESS_FLARE = {"slim": 0.08, "regular": 0.26, "loose": 0.44}
_NECK = {  # neckline -> (half-width of the neck opening, depth of the front dip)
    "crew": (0.072, 0.035),
    "scoop": (0.095, 0.10),
    "v-neck": (0.078, 0.13),
    "collar": (0.062, 0.075),
}
_WORDS = ("NYC", "LOVE", "COOL", "XOXO", "WILD", "ART", "HELLO", "PARIS", "TOKYO", "FREE", "JOY")


@dataclass
class _Shape:
    """The garment's pieces in unit coordinates, before placement."""

    body: list[Point]
    sleeves: list[list[Point]] = field(default_factory=list)
    inner: list[Point] = field(default_factory=list)
    neck_trim: list[Point] = field(default_factory=list)
    seams: list[list[Point]] = field(default_factory=list)
    collar: list[list[Point]] = field(default_factory=list)
    placket: tuple[float, float] | None = None  # (top y, bottom y) of the button strip
    chest: tuple[float, float, float] | None = None  # (x, y, size) of the graphic area


def _mirror(points: list[Point]) -> list[Point]:
    return [(-x, y) for x, y in reversed(points)]


def _bezier(p0: Point, p1: Point, p2: Point, steps: int = 8) -> list[Point]:
    out = []
    for i in range(steps + 1):
        t = i / steps
        a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t * t
        out.append((a * p0[0] + b * p1[0] + c * p2[0], a * p0[1] + b * p1[1] + c * p2[1]))
    return out


def _neck_dip(neckline: str, ny: float) -> list[Point]:
    """The front neckline from the left neck point to the right one, through the dip."""
    nw, depth = _NECK[neckline]
    if neckline in ("v-neck", "collar"):
        return [(-nw, ny), (0.0, ny + depth), (nw, ny)]
    power = 0.55 if neckline == "scoop" else 1.0
    pts = []
    for i in range(13):
        t = math.pi * (1 - i / 12)
        pts.append((nw * math.cos(t), ny + depth * math.sin(t) ** power))
    return pts


def _sleeve(
    shoulder: Point, armpit: Point, angle: float, length: float, cuff: float
) -> tuple[list[Point], list[Point]]:
    """A tapered sleeve hanging from the armhole; returns (polygon, cuff seam line)."""
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    end = (shoulder[0] + dx * length, shoulder[1] + dy * length)
    inner_end = (end[0] - dy * cuff, end[1] + dx * cuff)
    back = 0.035 if length > 0.2 else 0.012
    seam = [
        (end[0] - dx * back, end[1] - dy * back),
        (inner_end[0] - dx * back, inner_end[1] - dy * back),
    ]
    return [shoulder, end, inner_end, armpit], seam


def _build_shape(item: CatalogItem) -> _Shape:
    """Lay out the garment from its attributes alone; the seed never changes the shape."""
    a = item.attributes
    dress = item.category == "dress"
    f = _FIT_WIDTH[a["fit"]]
    neck_w = _NECK[a["neckline"]][0]
    ny = 0.06 if dress else 0.10
    sy = ny + 0.022
    ay = ny + (0.15 if dress else 0.17)
    sw = (0.165 if dress else 0.185) * (1 + (f - 1) * 0.45)
    cw = (0.145 if dress else 0.165) * f
    neck_r = (neck_w, ny)
    if a["sleeve"] == "sleeveless":
        strap = (neck_w + 0.05, sy + 0.004)
        armpit = (cw, ay + 0.03)
        right_top = [neck_r, *_bezier(strap, (neck_w + 0.065, ay + 0.01), armpit)]
    else:
        armpit = (cw, ay)
        right_top = [neck_r, (sw, sy), armpit]
    seams: list[list[Point]] = []
    if dress:
        wy = ny + 0.25
        ww = 0.118 * f
        hy = _DRESS_HEM[a["length"]]
        hw = min(0.38, ww * 1.1 + (hy - wy) * _DRESS_FLARE[a["fit"]])
        right_side = [(ww, wy), (hw, hy)]
        seams.append([(-ww, wy), (ww, wy)])
        bulge = 0.02
    else:
        hy = _TOP_HEM[a["length"]]
        waist = 0.15 if a["fit"] == "slim" else (0.165 if a["fit"] == "regular" else 0.17)
        hem = 0.158 if a["fit"] == "slim" else (0.168 if a["fit"] == "regular" else 0.172)
        right_side = [(waist * f, min(hy - 0.04, ay + 0.18)), (hem * f, hy)]
        hw = hem * f
        bulge = 0.028 if item.category == "shirt" else 0.006
    hem_curve = [
        (hw * (1 - 2 * i / 10), hy + bulge * (1 - (1 - 2 * i / 10) ** 2)) for i in range(11)
    ]
    right = right_top + right_side
    dip = _neck_dip(a["neckline"], ny)
    body = right + hem_curve[1:-1] + _mirror(right) + dip[1:-1]
    back = [
        (x, ny - 0.018 * (1 - (x / neck_w) ** 2)) for x in (neck_w * (i / 6 - 1) for i in range(13))
    ]
    shape = _Shape(body=body, inner=back + list(reversed(dip)), seams=seams)
    if a["neckline"] != "collar":
        shape.neck_trim = dip
    if a["sleeve"] != "sleeveless":
        fw = 1 + (f - 1) * 0.8
        if a["sleeve"] == "long":
            angle, length, cuff = {"slim": 73, "regular": 69, "loose": 65}[a["fit"]], 0.42, 0.075
            length = 0.37 if dress else length
        else:
            angle, length, cuff = 38, (0.09 if dress else 0.115), 0.11
        poly, seam = _sleeve((sw, sy), armpit, angle, length, cuff * fw)
        shape.sleeves = [poly, _mirror(poly)]
        shape.seams += [
            [(sw, sy), armpit],
            [(-sw, sy), (-armpit[0], armpit[1])],
            seam,
            _mirror(seam),
        ]
    if item.category == "shirt":
        shape.placket = (ny + _NECK[a["neckline"]][1], hy + bulge)
        if a["neckline"] == "collar":
            flap = [
                (0.0, ny + 0.065),
                (neck_w + 0.012, ny - 0.016),
                (neck_w + 0.05, ny + 0.022),
                (0.06, ny + 0.118),
            ]
            shape.collar = [flap, _mirror(flap)]
    if a.get("graphic", "none") != "none":
        if item.category == "shirt":
            shape.chest = (0.08, ay + 0.03, 0.075)
        else:
            shape.chest = (0.0, ay + 0.075, 0.13)
    return shape


def _shade(rgb: RGB, k: float) -> RGB:
    return tuple(max(0, min(255, round(c * k))) for c in rgb)  # type: ignore[return-value]


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _luma(rgb: RGB) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


#: What people call each contrast colour ``_contrast`` draws, by its place in the choice
#: (light base, dark base); "shade": the base darkened, "tint": the base lightened, named
#: per base colour where a person would give it another name ("white with grey stripes");
#: None: no one name (the pale gold is called yellow, gold and beige alike).
_CONTRAST_NAMES = (("shade", "navy", "black", "red"), ("white", "tint", None))
_SHADE_NAMES = {"white": "grey", "beige": "brown", "orange": "brown"}
_TINT_NAMES = {"black": "grey", "red": "pink", "brown": "beige"}


def _contrast_choice(base: RGB, rng: random.Random) -> tuple[RGB, int]:
    """``_contrast``, and the place of its choice in ``_CONTRAST_NAMES``."""
    if _luma(base) > 140:
        options = [_shade(base, 0.42), (28, 36, 80), (35, 35, 38), (170, 30, 40)]
    else:
        options = [(246, 244, 238), _mix(base, (255, 255, 255), 0.7), (238, 214, 120)]
    index = rng.randrange(len(options))  # what rng.choice draws
    return options[index], index


def _contrast(base: RGB, rng: random.Random) -> RGB:
    """A second colour for patterns and prints that reads clearly against the base."""
    return _contrast_choice(base, rng)[0]


def _contrast_name(color: str, base: RGB, index: int) -> str | None:
    name = _CONTRAST_NAMES[0 if _luma(base) > 140 else 1][index]
    if name == "shade":
        return _SHADE_NAMES.get(color)
    if name == "tint":
        return _TINT_NAMES.get(color)
    return name


def _graphic_ink(base: RGB, plain: bool, rng: random.Random) -> tuple[RGB, str]:
    """The chest print's ink and its name: black on a light garment, white on a dark one,
    now and then red or yellow on a plain one."""
    dark = _luma(base) > 140
    ink, name = ((32, 32, 36), "black") if dark else ((244, 242, 236), "white")
    if plain and rng.random() < 0.35:
        ink, name = ((200, 40, 50), "red") if dark else ((246, 210, 70), "yellow")
    return ink, name


def _background(base: RGB, rng: random.Random) -> RGB:
    kind = rng.random()
    if kind < 0.35:
        bg = (240, 237, 229)
    elif kind < 0.6:
        bg = (226, 227, 231)
    else:
        r, g, b = colorsys.hls_to_rgb(rng.random(), 0.89, 0.35)
        bg = (round(r * 255), round(g * 255), round(b * 255))
    bg = _shade(bg, rng.uniform(0.95, 1.03))
    return _shade(bg, 0.88) if _luma(base) > 205 else bg


@lru_cache(maxsize=32)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=px)


class _Canvas:
    """Maps unit coordinates to pixels: scale, shift and tilt about the garment's centre.

    Tilting the coordinates rather than the finished picture keeps edges crisp and is
    several times faster than rotating a supersampled image.
    """

    def __init__(self, side: int, scale: float, dx: float, ylo: float, yhi: float, angle: float):
        self.side, self.scale, self.dx = side, scale, dx
        self.ylo, self.yhi, self.ymid = ylo, yhi, (ylo + yhi) / 2
        self.cos, self.sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        self.angle = angle
        self.offset = (0, 0)  # pixel shift, for drawing into a crop of the canvas

    def pt(self, p: Point) -> Point:
        x, y = p[0], p[1] - self.ymid
        x, y = x * self.cos - y * self.sin, x * self.sin + y * self.cos
        s = self.side
        return (
            s / 2 + (x * self.scale + self.dx) * s + self.offset[0],
            s / 2 + y * self.scale * s + self.offset[1],
        )

    def pts(self, points: list[Point]) -> list[Point]:
        return [self.pt(p) for p in points]

    def len(self, units: float) -> float:
        return units * self.scale * self.side

    def circle(self, d: ImageDraw.ImageDraw, centre: Point, radius: float, fill) -> None:
        x, y = self.pt(centre)
        r = self.len(radius)
        d.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def band(self, d: ImageDraw.ImageDraw, pos: float, width: float, vertical: bool, fill) -> None:
        """A stripe across the whole garment, in unit coordinates."""
        lo, hi = (self.ylo - 0.1, self.yhi + 0.1) if vertical else (-0.6, 0.6)
        corners = [(pos, lo), (pos + width, lo), (pos + width, hi), (pos, hi)]
        d.polygon(self.pts([(b, a) if not vertical else (a, b) for a, b in corners]), fill=fill)


def _grid(lo: float, hi: float, step: float, phase: float) -> list[float]:
    n = int((hi - lo) / step) + 2
    return [lo - step + phase + i * step for i in range(n + 1)]


def _draw_pattern(
    img: Image.Image, pattern: str, base: RGB, cv: _Canvas, rng: random.Random
) -> None:
    """Cover the garment's area with the pattern; the garment mask clips it later."""
    if pattern == "solid":
        return
    d = ImageDraw.Draw(img)
    second = _contrast(base, rng)
    xlo, xhi, ylo, yhi = -0.6, 0.6, cv.ylo - 0.1, cv.yhi + 0.1
    if pattern == "stripes":
        period = rng.uniform(0.045, 0.065)
        width = period * rng.uniform(0.32, 0.42)
        vertical = rng.random() < 0.35
        lo, hi = (xlo, xhi) if vertical else (ylo, yhi)
        for pos in _grid(lo, hi, period, rng.uniform(0, period)):
            cv.band(d, pos, width, vertical, second)
    elif pattern == "dots":
        step = rng.uniform(0.05, 0.065)
        r = step * rng.uniform(0.17, 0.23)
        phase = rng.uniform(0, step)
        for row, y in enumerate(_grid(ylo, yhi, step, phase)):
            for x in _grid(xlo, xhi, step, phase + (step / 2 if row % 2 else 0)):
                cv.circle(d, (x, y), r, second)
    elif pattern == "floral":
        step = rng.uniform(0.08, 0.095)
        r = rng.uniform(0.021, 0.026)
        centre = (246, 214, 80) if _luma(second) < 200 else (200, 60, 70)
        for row, y0 in enumerate(_grid(ylo, yhi, step, 0.0)):
            for x0 in _grid(xlo, xhi, step, step / 2 if row % 2 else 0.0):
                x, y = x0 + rng.uniform(-0.2, 0.2) * step, y0 + rng.uniform(-0.2, 0.2) * step
                turn = rng.uniform(0, 2 * math.pi)
                for k in range(5):
                    a = turn + k * 2 * math.pi / 5
                    cv.circle(
                        d,
                        (x + math.cos(a) * r * 0.62, y + math.sin(a) * r * 0.62),
                        r * 0.48,
                        second,
                    )
                cv.circle(d, (x, y), r * 0.32, centre)
    elif pattern == "plaid":
        overlay = Image.new("RGBA", img.size, (0, 0, 0, 0))
        od = ImageDraw.Draw(overlay)
        period = rng.uniform(0.085, 0.11)
        band, thin = period * 0.3, period * 0.05
        line = _contrast(base, rng)
        phase = rng.uniform(0, period)
        for vertical in (False, True):
            lo, hi = (xlo, xhi) if vertical else (ylo, yhi)
            for pos in _grid(lo, hi, period, phase):
                cv.band(od, pos, band, vertical, (*second, 110))
                cv.band(od, pos + band + (period - band) / 2, thin, vertical, (*line, 180))
        img.paste(Image.alpha_composite(img.convert("RGBA"), overlay).convert("RGB"))


def _draw_motif(d: ImageDraw.ImageDraw, cv: _Canvas, c: Point, r: float, kind: int) -> None:
    """A simple chest graphic in unit coordinates: star, heart, sun, bolt or mountains."""

    def poly(points: list[Point]) -> None:
        d.polygon(cv.pts([(c[0] + x * r, c[1] + y * r) for x, y in points]), fill=255)

    if kind == 0:
        poly(
            [
                (
                    math.cos(-math.pi / 2 + i * math.pi / 5) * (1 if i % 2 == 0 else 0.42),
                    math.sin(-math.pi / 2 + i * math.pi / 5) * (1 if i % 2 == 0 else 0.42),
                )
                for i in range(10)
            ]
        )
    elif kind == 1:
        cv.circle(d, (c[0] - 0.5 * r, c[1] - 0.45 * r), 0.52 * r, 255)
        cv.circle(d, (c[0] + 0.5 * r, c[1] - 0.45 * r), 0.52 * r, 255)
        poly([(-1.0, -0.35), (1.0, -0.35), (0.0, 1.0)])
    elif kind == 2:
        cv.circle(d, c, 0.5 * r, 255)
        for i in range(8):
            a, b = i * math.pi / 4, 0.12
            poly(
                [
                    (math.cos(a - b) * 0.62, math.sin(a - b) * 0.62),
                    (math.cos(a) * 1.0, math.sin(a) * 1.0),
                    (math.cos(a + b) * 0.62, math.sin(a + b) * 0.62),
                ]
            )
    elif kind == 3:
        poly(
            [
                (0.15, -1),
                (-0.5, 0.1),
                (-0.02, 0.1),
                (-0.25, 1),
                (0.5, -0.2),
                (0.05, -0.2),
                (0.35, -1),
            ]
        )
    else:
        poly([(-1, 0.6), (-0.3, -0.7), (0.3, 0.6)])
        poly([(-0.1, 0.6), (0.45, -0.3), (1, 0.6)])


def _draw_graphic(
    img: Image.Image,
    shape: _Shape,
    kind: str,
    base: RGB,
    plain: bool,
    cv: _Canvas,
    rng: random.Random,
) -> None:
    """Print the chest motif or word; on a pattern it gets a base-colour halo so it reads."""
    assert shape.chest is not None
    x, y, size = shape.chest
    ink = _graphic_ink(base, plain, rng)[0]
    cx, cy = cv.pt((x, y))
    half = round(cv.len(size) * 0.9)
    box = (round(cx) - half, round(cy) - half, round(cx) + half, round(cy) + half)
    stamp = Image.new("L", (2 * half, 2 * half), 0)
    local = _Canvas(cv.side, cv.scale, cv.dx, cv.ylo, cv.yhi, cv.angle)
    local.offset = (-box[0], -box[1])
    sd = ImageDraw.Draw(stamp)
    if kind == "graphic":
        _draw_motif(sd, local, (x, y), size / 2, rng.randrange(5))
    else:
        word = rng.choice(_WORDS)
        r = cv.len(size) / 2
        px = max(8, round(r * (1.25 if len(word) <= 3 else 0.95 if len(word) <= 4 else 0.72)))
        text = Image.new("L", (2 * half, 2 * half), 0)
        ImageDraw.Draw(text).text(
            (half, half),
            word,
            fill=255,
            font=_font(px),
            anchor="mm",
            stroke_width=max(1, px // 14),
            stroke_fill=255,
        )
        stamp = text.rotate(-cv.angle, resample=Image.Resampling.BILINEAR, center=(half, half))
    if not plain:
        halo = stamp.filter(ImageFilter.MaxFilter(2 * max(1, round(cv.len(0.006))) + 1))
        img.paste(base, box, halo)
    img.paste(ink, box, stamp)


def _gradient(side: int, rng: random.Random) -> Image.Image:
    """Soft side lighting: bright near a light column, darker towards one edge."""
    light = rng.uniform(-0.25, 0.25)
    values = [
        round(255 * max(0.84, 1 - 0.2 * ((i / 63 - 0.5 - light) * 1.6) ** 2)) for i in range(64)
    ]
    strip = Image.new("L", (64, 1))
    strip.putdata(values)
    return strip.resize((side, side), Image.Resampling.BILINEAR).convert("RGB")


def _place(item: CatalogItem, shape: _Shape, side: int, rng: random.Random) -> _Canvas:
    """Choose scale, offset and tilt so that the whole garment stays inside the frame."""
    every = shape.body + [p for s in shape.sleeves for p in s]
    xs, ys = [abs(p[0]) for p in every], [p[1] for p in every]
    height, width = max(ys) - min(ys) + 0.03, 2 * max(xs)
    base_scale = 1.0 if item.category == "dress" else 1.22
    scale = min(base_scale * rng.uniform(0.9, 1.1), 0.92 / height, 0.9 / width)
    room = max(0.0, (0.94 - width * scale) / 2)
    dx = rng.uniform(-1, 1) * min(0.04, room)
    return _Canvas(side, scale, dx, min(ys), max(ys), rng.uniform(-5, 5))


def _start(
    item: CatalogItem, side: int, seed: int
) -> tuple[random.Random, _Shape, RGB, RGB, _Canvas]:
    """The drawing's random stream, shape, garment colour, background and placement."""
    rng = random.Random(f"garment:{seed}:{item.id}")
    shape = _build_shape(item)
    base = _shade(COLOR_RGB[item.attributes["color"]], rng.uniform(0.9, 1.1))
    bg = _background(base, rng)
    cv = _place(item, shape, side, rng)
    return rng, shape, base, bg, cv


def print_colours(item: CatalogItem, seed: int) -> dict[str, str]:
    """The colours ``draw_garment`` gives the item's print, by what is printed: "pattern"
    (the stripes', dots' or flowers' colour; a plaid has none) and "graphic" (the chest motif's or
    word's ink), each where a person would name it apart from the garment's own colour
    ("navy with white dots", "black with white lettering"). Replays the drawing's random
    choices without drawing, so it is cheap; the pictures are the same as ever."""
    attrs = item.attributes
    rng, _, base, _, _ = _start(item, 2, seed)  # the stream does not depend on the size
    out: dict[str, str] = {}
    plain = attrs["pattern"] == "solid"
    if not plain:
        _, index = _contrast_choice(base, rng)  # the first draw of ``_draw_pattern``
        name = _contrast_name(attrs["color"], base, index)
        # a plaid's checks are its colour half-mixed with the garment's: no one colour
        if attrs["pattern"] != "plaid" and name is not None and name != attrs["color"]:
            out["pattern"] = name
    if attrs.get("graphic", "none") != "none":
        # on a pattern the ink draws nothing from the stream, so the pattern's use of it
        # does not matter; on a solid garment it is the next draw
        name = _graphic_ink(base, plain, rng)[1]
        if name != attrs["color"]:
            out["graphic"] = name
    return out


def draw_garment(item: CatalogItem, size: int, seed: int) -> Image.Image:
    """Render ``item`` as an RGB ``size`` x ``size`` picture; the same (item, seed), same pixels."""
    ss = 2
    side = size * ss
    rng, shape, base, bg, cv = _start(item, side, seed)
    pieces = [shape.body, *shape.sleeves]

    # The garment is drawn on an RGB picture plus an alpha mask, then pasted once.
    garment = Image.new("RGB", (side, side), base)
    alpha = Image.new("L", (side, side), 0)
    gd, ad = ImageDraw.Draw(garment), ImageDraw.Draw(alpha)
    fill = Image.new("RGB", (side, side), base)
    _draw_pattern(fill, item.attributes["pattern"], base, cv, rng)
    body_mask = Image.new("L", (side, side), 0)
    bd = ImageDraw.Draw(body_mask)
    for poly in pieces:
        bd.polygon(cv.pts(poly), fill=255)
    dark_base = _luma(base) <= 60
    inner = (62, 62, 66) if dark_base else _shade(base, 0.6)
    gd.polygon(cv.pts(shape.inner), fill=inner)
    ad.polygon(cv.pts(shape.inner), fill=255)
    garment.paste(fill, (0, 0), body_mask)
    alpha.paste(255, (0, 0), body_mask)

    line = (78, 78, 84) if dark_base else _shade(base, 0.62)
    lw = max(2, round(cv.len(0.0055)))
    if shape.neck_trim:
        trim = line if dark_base else _shade(base, 0.82)
        gd.line(cv.pts(shape.neck_trim), fill=trim, width=lw * 2, joint="curve")
    for seam in shape.seams:
        gd.line(cv.pts(seam), fill=line, width=lw)
    if shape.placket is not None:
        top, bottom = shape.placket
        for x in (-0.017, 0.017):
            gd.line(cv.pts([(x, top), (x, bottom)]), fill=line, width=lw)
        button = (236, 232, 222) if _luma(base) < 140 else _shade(base, 0.5)
        y = top + 0.03
        while y < bottom - 0.02:
            cv.circle(gd, (0.0, y), 0.0095, button)
            y += 0.065
    if shape.chest is not None:
        plain = item.attributes["pattern"] == "solid"
        _draw_graphic(garment, shape, item.attributes["graphic"], base, plain, cv, rng)
    if shape.collar:
        collar_mask = Image.new("L", (side, side), 0)
        cd = ImageDraw.Draw(collar_mask)
        for flap in shape.collar:
            cd.polygon(cv.pts(flap), fill=255)
        garment.paste(fill, (0, 0), collar_mask)
        alpha.paste(255, (0, 0), collar_mask)
        for flap in shape.collar:
            gd.polygon(cv.pts(flap), outline=line, width=lw)
    outline = (55, 55, 60) if dark_base else _shade(base, 0.7)
    for poly in pieces:
        gd.polygon(cv.pts(poly), outline=outline, width=lw)
        ad.polygon(cv.pts(poly), outline=255, width=lw)
    garment = ImageChops.multiply(garment, _gradient(side, rng))

    canvas = Image.new("RGB", (side, side), bg)
    blur = alpha.reduce(4).filter(ImageFilter.GaussianBlur(3)).point(lambda v: v * 45 // 100)
    shadow = Image.new("L", (side, side), 0)
    shadow.paste(
        blur.resize((side, side), Image.Resampling.BILINEAR),
        (round(side * 0.012), round(side * 0.018)),
    )
    canvas.paste(_shade(bg, 0.6), (0, 0), shadow)
    canvas.paste(garment, (0, 0), alpha)
    return canvas.reduce(ss)
