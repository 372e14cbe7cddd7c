"""TF-IDF over product titles, for Fashion IQ's way of choosing reference images.

Fashion IQ paired each target with the image whose product title shares the most
informative words: the one maximising the summed TF-IDF weights of the shared words.
A word's weight in a title is its count there times ``ln(N / df)`` (N titles, df of them
containing the word), so a word every title has ("dress") weighs nothing and a rare one
("sequin") weighs much. The score of (target, reference) sums, over the words both
titles contain, the word's weight in the target plus its weight in the reference.

Postings (word -> titles and weights) are numpy arrays, so scoring one target against
every title costs one vector addition per word of the target's title.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from studio.language.lexicon import STOP_WORDS


def title_words(title: str) -> list[str]:
    """Lower-case words of two or more letters or digits, without filler words."""
    return [w for w in re.findall(r"[a-z0-9]+", title.lower()) if len(w) > 1 and w not in STOP_WORDS]


class TitleTfidf:
    """TF-IDF weights of a list of titles and best-reference search among them."""

    def __init__(self, titles: list[str]) -> None:
        self.size = len(titles)
        counts = [Counter(title_words(title)) for title in titles]
        df: Counter[str] = Counter()
        for words in counts:
            df.update(words.keys())
        self.idf = {word: math.log(self.size / n) for word, n in df.items()}
        self.weights: list[dict[str, float]] = [
            {word: tf * self.idf[word] for word, tf in words.items()} for words in counts
        ]
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for index, weights in enumerate(self.weights):
            for word, weight in weights.items():
                docs, values = postings.setdefault(word, ([], []))
                docs.append(index)
                values.append(weight)
        self.postings = {
            word: (np.asarray(docs, dtype=np.int64), np.asarray(values, dtype=np.float64))
            for word, (docs, values) in postings.items()
        }

    def scores(self, target: int) -> np.ndarray:
        """Score of every title as the reference of ``target`` (the target itself: -inf)."""
        total = np.zeros(self.size, dtype=np.float64)
        for word, weight in self.weights[target].items():
            if weight <= 0.0:
                continue
            docs, values = self.postings[word]
            total[docs] += values + weight
        total[target] = -np.inf
        return total

    def best_reference(
        self, target: int, excluded: np.ndarray | None = None
    ) -> tuple[int, float] | None:
        """The best reference for ``target`` and its score; None if no informative overlap."""
        scores = self.scores(target)
        if excluded is not None:
            scores[excluded] = -np.inf
        best = int(np.argmax(scores))
        return (best, float(scores[best])) if scores[best] > 0 else None
