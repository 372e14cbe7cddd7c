"""Caption metrics of Fashion IQ's Table 4: BLEU-4, ROUGE-L and CIDEr-D, in plain Python.

They follow the coco-caption implementations the captioning papers use (corpus BLEU with
the brevity penalty over the closest reference length; ROUGE-L's F-measure with beta 1.2,
best over the references; CIDEr-D with document frequencies from the references, clipping
and a Gaussian length penalty, times 10), on lower-cased word tokens. The figures are
close to, not bit-equal with, coco-caption's (its PTB tokenizer splits punctuation a little
differently): fine for comparing our captioners, not for a leaderboard.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9']+")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _ngrams(words: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def bleu4(candidates: Sequence[str], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU-4 (uniform weights, no smoothing), as coco-caption computes it."""
    matched = [0] * 4
    total = [0] * 4
    length = closest = 0
    for candidate, refs in zip(candidates, references, strict=True):
        words = tokens(candidate)
        ref_words = [tokens(r) for r in refs]
        length += len(words)
        closest += min((abs(len(r) - len(words)), len(r)) for r in ref_words)[1]
        for n in range(1, 5):
            counts = _ngrams(words, n)
            best: Counter[tuple[str, ...]] = Counter()
            for r in ref_words:
                best |= _ngrams(r, n)
            matched[n - 1] += sum(min(c, best[g]) for g, c in counts.items())
            total[n - 1] += max(len(words) - n + 1, 0)
    if min(matched) == 0 or length == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matched, total, strict=True)) / 4
    penalty = 1.0 if length > closest else math.exp(1 - closest / length)
    return penalty * math.exp(log_precision)


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[-1]))
        previous = current
    return previous[-1]


def rouge_l(candidates: Sequence[str], references: Sequence[Sequence[str]],
            beta: float = 1.2) -> float:
    """Mean ROUGE-L F-measure; per caption, precision and recall are each the best over refs."""
    scores = []
    for candidate, refs in zip(candidates, references, strict=True):
        words = tokens(candidate)
        precisions, recalls = [], []
        for ref in refs:
            ref_words = tokens(ref)
            common = _lcs(words, ref_words)
            precisions.append(common / len(words) if words else 0.0)
            recalls.append(common / len(ref_words) if ref_words else 0.0)
        p, r = max(precisions, default=0.0), max(recalls, default=0.0)
        scores.append(0.0 if p == 0 or r == 0 else (1 + beta**2) * p * r / (r + beta**2 * p))
    return sum(scores) / len(scores) if scores else 0.0


def cider_d(candidates: Sequence[str], references: Sequence[Sequence[str]],
            sigma: float = 6.0) -> float:
    """CIDEr-D (n = 1..4), document frequencies from the references of this corpus."""
    if not candidates:
        return 0.0
    ref_tokens = [[tokens(r) for r in refs] for refs in references]
    frequency: Counter[tuple[str, ...]] = Counter()
    for refs in ref_tokens:
        frequency.update({g for r in refs for n in range(1, 5) for g in _ngrams(r, n)})
    log_docs = math.log(float(len(candidates)))

    def vectors(words: list[str]) -> list[dict[tuple[str, ...], float]]:
        out = []
        for n in range(1, 5):
            counts = _ngrams(words, n)
            out.append({g: c * (log_docs - math.log(max(1.0, frequency[g])))
                        for g, c in counts.items()})
        return out

    def norm(vector: dict[tuple[str, ...], float]) -> float:
        return math.sqrt(sum(v * v for v in vector.values()))

    total = 0.0
    for candidate, refs in zip(candidates, ref_tokens, strict=True):
        words = tokens(candidate)
        cand = vectors(words)
        score = [0.0] * 4
        for ref in refs:
            ref_vec = vectors(ref)
            delta = len(words) - len(ref)
            for n in range(4):
                dot = sum(min(v, ref_vec[n].get(g, 0.0)) * ref_vec[n].get(g, 0.0)
                          for g, v in cand[n].items())
                denominator = norm(cand[n]) * norm(ref_vec[n])
                if denominator:
                    score[n] += dot / denominator * math.exp(-(delta**2) / (2 * sigma**2))
        total += sum(score) / 4 / max(len(refs), 1) * 10.0
    return total / len(candidates)
