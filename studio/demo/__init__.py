"""A procedural fashion catalog for demos and tests, so the studio works without downloads.

``catalog`` samples controlled attributes and writes product text and splits; ``garments``
draws each item with Pillow so that the attributes are visible in the picture.
"""
