"""Attribute labels: a vocabulary, labels from product text, from a model and from people.

``vocabulary`` edits the words, ``extract`` reads them from titles and descriptions,
``suggest`` scores them with an embedding model, ``labels`` writes review decisions,
``query`` answers other panes, and ``quality`` measures suggestions against reviews.
"""
