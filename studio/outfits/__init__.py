"""Head-to-toe outfit annotation (issue #25): pictures hold garments, garments hold parts.

Each region has a box and/or a polygon (or RLE mask) in image pixels, a category from the
outfit ontology and attribute labels; a picture has outfit attributes (style, occasion,
season, scene) and two descriptions. Fashionpedia and FashionX files go in and out; the
OmniFashion export turns the annotations into dialogue samples.
"""
