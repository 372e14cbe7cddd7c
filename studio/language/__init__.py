"""The language floor: how the studio reads and writes people's text about garments.

- ``lexicon``: the words (one list of colours, negations and stop words; one plural and
  singular; text folding). Every other module asks it.
- ``reader``: reads a relative caption into requests (CAPTION_READING.md).
- ``turns``: the turn grammar (rollback, keep), written and read in one place.
- ``phrasing`` and ``voices``: how simulated users and drafted turns word a difference.
- ``salience`` and ``captioner``: what people mention, and the learned captioner (with the
  shipped one and its loading).

This package imports no feature package (captions, sessions, simulation, quality …): they
import it. ``tests/unit/test_layers.py`` holds the rank map that checks it.
"""
