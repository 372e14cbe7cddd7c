"""CIRCO: open-domain composed retrieval with several ground truths per query (#26)."""
