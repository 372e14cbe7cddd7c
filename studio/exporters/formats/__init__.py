"""One module per format the studio writes, each declaring ``FORMAT`` (see ``registry``).

Modules whose name starts with ``_`` are helpers shared by several declarations.
"""
