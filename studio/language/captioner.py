"""A relative captioner learned from people's captions: requests in, a caption in their words.

Why retrieval-and-edit, not a neural decoder: the studio must train it on 2 CPU cores in
seconds from a few thousand captions, and it must be *faithful* (say exactly what it was
asked to say, nothing the reader would read otherwise). A small decoder trained on ~12k
Fashion IQ captions writes fluent but unfaithful text and needs a GPU to train well; real
captions edited at their value words keep the annotators' own phrasing, length, typos and
punctuation, and every template is checked by the caption reader before it is kept.

Training reads each caption with the caption reader (``studio.language.reader``). Each
value phrase the reader maps to a request ("silver", "v-neck", "sleeveless") becomes a
slot; the rest of the text stays as written ("is shiny and {color} with shorter
sleeves"). A template is kept only when it reads back as its own requests, both filled
with its own values and with other values of the same facet. Templates are indexed by
their signature: the sorted (facet, op) pairs, with "*" for a slot and the literal value
where a value is part of the wording.

Saying a list of requests picks a template with the same signature (weighted by how often
it was seen), fills the slots with surface words people used for those values, and reads
the result back; a request list no template covers is said in parts joined as people join
them. An edit must also read like people at its seams: the word pairs where a filled value
meets the template's own words must occur in the training captions ("is beige", "has long
sleeves"), so a template written about one value is not edited into words nobody writes
("has sleeveless", "is stripes"); only when no template passes is a seam left unchecked.
Nothing here knows about projects: it takes caption strings and requests.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from studio.errors import StudioError
from studio.language import lexicon
from studio.language.lexicon import fold
from studio.language.reader import _TOKEN, CaptionReader, Request, default_reader
from studio.language.salience import SalienceModel

FORMAT = "cir-studio-captioner/1"
SLOT = "*"
MAX_TRIES = 12
MIN_CATEGORY_CAPTIONS = 500  # fewer: a category's own counts are too noisy; use all
_SLOT_MARK = re.compile(r"\{(\d+)\}")
_WORD = re.compile(r"[a-z0-9]+")

Key = tuple[tuple[str, str, str], ...]


def request_key(requests: Iterable[Request], slotted: Iterable[Request] = ()) -> Key:
    """The signature of a request list: slotted requests lose their value."""
    slots = set(slotted)
    parts = []
    for r in requests:
        if r in slots:
            parts.append((r.facet, r.op, SLOT))
        else:
            parts.append((r.facet, r.op, r.value or ""))
    return tuple(sorted(parts))


def _star_key(requests: Iterable[Request]) -> Key:
    return request_key(requests, [r for r in requests if r.value is not None])


@dataclass
class Template:
    text: str  # the caption with "{0}", "{1}" … where value words were
    slots: list[tuple[str, str]]  # (facet, op) of each slot, in order
    count: int = 1
    extra: int = 0  # content words the reader does not read ("reveals more chest")
    seen: set[tuple[str, ...]] = field(default_factory=set)  # slot values it was written with

    def fill(self, words: Sequence[str]) -> str:
        return _SLOT_MARK.sub(lambda m: words[int(m.group(1))], self.text)


@dataclass
class PhraseCaptioner:
    """Templates by signature, value surfaces by (facet, value), and how parts are joined."""

    templates: dict[Key, list[Template]] = field(default_factory=dict)
    surfaces: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    connectors: Counter[str] = field(default_factory=Counter)
    vague: list[str] = field(default_factory=list)  # captions that ask for nothing readable
    trained_on: int = 0
    # How people choose what to say, counted on the training captions: requests per
    # caption (0-4, 4 = four or more) and (facet, op) of each request.
    request_counts: Counter[int] = field(default_factory=Counter)
    request_ops: Counter[tuple[str, str]] = field(default_factory=Counter)
    # How often people asked for each value ("black" far more than "beige"): ``is``
    # requests by (facet, value).
    value_counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    # The same per category ("dress", "shirt" …): people describing dresses name lengths,
    # people describing shirts name graphics. Used when asked for a category with at least
    # MIN_CATEGORY_CAPTIONS captions, the counts above otherwise.
    category_counts: dict[str, Counter[int]] = field(default_factory=dict)
    category_ops: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)
    # Content words a caption may hold beyond what it was asked (words the reader reads as
    # nothing and that are not ``lexicon.FUNCTION_WORDS``): 0, a simulated person says
    # what it was asked and nothing else, never "is brown with a Mexican on it" for a
    # colour or "has a zipper and floral" for a pattern, whose extra words a careful
    # reader takes as requests or a checker cannot check. Templates with more are not
    # used (a request list none covers is said in parts or in plain words). None: any
    # template, as people write.
    max_extra: int | None = 0
    # Adjacent word pairs of the training captions ("is beige"): where an edit joins a
    # value word to the template, the pair must be one people wrote. Empty: no check.
    bigrams: set[str] = field(default_factory=set)
    # How often to prefer a template first written about the same values (before the
    # templates are drawn by how often people wrote them). 0: never; a value is said in
    # people's phrasings as often as they used them, the seams of each edit being word
    # pairs people wrote (``bigrams``). Preferring them (0.5 before) made learned users
    # repeat the few phrasings of the commonest values, and easier to tell from people
    # (bench/bench_simulated_language.py: AUC 0.672 -> 0.663 on real requests, seed 0).
    exact_share: float = 0.0
    # Which differences people name, by how visible they are in the project's image
    # features (``studio.language.salience``). None: no index to learn from (the shipped
    # captioner); users then choose facets by the counts alone.
    salience: SalienceModel | None = None
    reader: CaptionReader = field(default_factory=default_reader, repr=False)
    _vague_ok: list[str] | None = field(default=None, init=False, repr=False)

    # -- training ----------------------------------------------------------------------

    @classmethod
    def train(
        cls,
        captions: Iterable[str],
        reader: CaptionReader | None = None,
        progress: Any = None,
        categories: Sequence[str] | None = None,
    ) -> PhraseCaptioner:
        """``categories``: the category of each caption ("" or None: unknown)."""
        model = cls(reader=reader or default_reader())
        given = list(captions)
        kinds = list(categories) if categories is not None else [""] * len(given)
        if len(kinds) != len(given):
            raise ValueError("one category per caption")
        kept = [(c.strip(), k or "") for c, k in zip(given, kinds, strict=True)
                if c and c.strip()]
        texts = [c for c, _ in kept]
        model.trained_on = len(texts)
        for text in texts:
            model.bigrams.update(_bigrams(_words(text)))
        alternatives = _alternatives()
        for number, text in enumerate(texts, start=1):
            if progress is not None and number % 500 == 0:
                progress(number, len(texts), "Learning phrases")
            model._learn(text, alternatives, kept[number - 1][1])
        for key, found in model.templates.items():
            found.sort(key=lambda t: (-t.count, t.text))
            model.templates[key] = found
        return model

    def _learn(self, text: str, alternatives: dict[str, list[str]], category: str = "") -> None:
        requests = self.reader.read(text)
        self.request_counts[min(len(requests), 4)] += 1
        self.request_ops.update((r.facet, r.op) for r in requests)
        self.value_counts.update((r.facet, r.value) for r in requests
                                 if r.op == "is" and r.value is not None)
        if category:
            self.category_counts.setdefault(category, Counter())[min(len(requests), 4)] += 1
            self.category_ops.setdefault(category, Counter()).update(
                (r.facet, r.op) for r in requests)
        if not requests:
            if len(text.split()) <= 12:
                self.vague.append(text)
            return
        self._learn_connector(text)
        template = self._delexicalise(text, requests)
        if template is None:
            return
        item, slotted, values, said = template
        if not _reads_back(self.reader, item.fill(values), requests):
            return
        swapped = [_other(alternatives, facet, v) for (facet, _), v in zip(item.slots, values,
                                                                            strict=True)]
        expected = _replace_values(requests, slotted, swapped)
        if not _reads_back(self.reader, item.fill([self._surface(f, v) for (f, _), v in zip(
                item.slots, swapped, strict=True)]), expected):
            return
        key = request_key(requests, slotted)
        bucket = self.templates.setdefault(key, [])
        for known in bucket:
            if known.text == item.text:
                known.count += 1
                known.seen.add(tuple(values))
                break
        else:
            item.seen.add(tuple(values))
            bucket.append(item)
        for (facet, _), value, word in zip(item.slots, values, said, strict=True):
            self.surfaces.setdefault((facet, value), Counter())[word] += 1

    def _delexicalise(
        self, text: str, requests: list[Request]
    ) -> tuple[Template, list[Request], list[str], list[str]] | None:
        spans = _token_spans(text)
        if spans is None:
            return None
        tokens = [self.reader._correct(text[s:e].lower()) for s, e in spans]
        wanted = {(r.facet, r.value): r for r in requests if r.value is not None}
        pieces: list[str] = []
        slots: list[tuple[str, str]] = []
        slotted: list[Request] = []
        values: list[str] = []
        words: list[str] = []
        cursor = 0
        for match in self.reader._matches(tokens):
            request = wanted.get((match.facet, match.value or ""))
            if match.kind != "is" or request is None or request in slotted:
                continue
            start, end = spans[match.start][0], spans[match.end - 1][1]
            pieces.append(_escape(text[cursor:start]) + "{" + str(len(slots)) + "}")
            slots.append((request.facet, request.op))
            slotted.append(request)
            values.append(request.value or "")
            words.append(text[start:end])
            cursor = end
        if not slots and any(r.value is not None for r in requests):
            return None
        pieces.append(_escape(text[cursor:]))
        covered = self.reader.read_positions(tokens)
        extra = sum(
            1 for i, t in enumerate(tokens) if i not in covered and t not in lexicon.FUNCTION_WORDS
        )
        return Template("".join(pieces), slots, extra=extra), slotted, values, words

    def _learn_connector(self, text: str) -> None:
        for connector in (" and ", ", ", " with ", " but ", " and is ", " and has "):
            if connector in text:
                self.connectors[connector] += 1

    # -- saying ------------------------------------------------------------------------

    def say(self, requests: Sequence[Request], rng: random.Random) -> str:
        """A caption asking for ``requests`` (an empty list gives a vague caption)."""
        requests = list(dict.fromkeys(requests))
        if not requests:
            vague = self._vague_choices()
            return rng.choice(vague) if vague else "is a little different"
        text = self._say_whole(requests, rng)
        if text is not None:
            return text
        parts = self._split(requests, rng)
        if parts is None:
            return _plain(requests)
        text = parts[0].rstrip(" .")
        for part in parts[1:]:
            part = part[:1].lower() + part[1:]
            # "is black with long sleeves": people join a "has" part with "with" as often
            # as with "and has"; the caption is read back before it is kept
            plain = part.removeprefix("has ")
            if plain != part and rng.random() < 0.5 and _reads_back(
                    self.reader, f"{text} with {plain}",
                    [*self.reader.read(text), *self.reader.read(part)]):
                part = plain
            # "is black and shorter": people say "is" once (14 of 1,147 held-out Fashion
            # IQ captions repeat it); a part's "is" goes where the caption reads the same
            joiner = None
            rest = part.removeprefix("is ")
            if rest != part and "is" in _words(text):
                joiner = self._connector(rng)
                if _reads_back(self.reader, f"{text}{joiner}{rest}",
                               [*self.reader.read(text), *self.reader.read(part)]):
                    part = rest
                else:
                    joiner = None
            if joiner is None:
                verb = part.split(" ", 1)[0] in _VERBS
                first = _words(part)[:1]
                # "with long sleeves" as people write it, but not "with sleeveless"
                with_ok = not self.bigrams or (bool(first) and f"with {first[0]}" in self.bigrams)
                joiner = " with " if not verb and with_ok else self._connector(rng)
            text += joiner + part.rstrip(" .")
        return text

    def _say_whole(self, requests: Sequence[Request], rng: random.Random) -> str | None:
        candidates = list(self.templates.get(_star_key(requests), ()))
        candidates += self.templates.get(request_key(requests), [])
        if self.max_extra is not None:
            candidates = [t for t in candidates if t.extra <= self.max_extra]
        if not candidates:
            return None
        # Templates first written about these very values read most like people ("is
        # black", not "has sleeveless"); others are edited at their value words.
        values = _slot_values(requests)
        exact = [t for t in candidates if _values_for(t, values) in t.seen]
        if exact and rng.random() < self.exact_share:
            candidates = exact
        weights = [t.count for t in candidates]
        unchecked = None  # reads back, but a seam is a word pair nobody wrote
        tries = min(MAX_TRIES, len(candidates) * 2)
        while tries > 0 and candidates:
            tries -= 1
            pick = rng.choices(range(len(candidates)), weights)[0]
            template = candidates[pick]
            words = self._words_for(template, requests, rng)
            if words is None:
                continue
            text = template.fill(words)
            if not _reads_back(self.reader, text, requests) or not self._says_only(text):
                continue
            if self._fluent(template, words):
                return text
            unchecked = unchecked or text
            # a template whose seams people never wrote is not drawn again (and does not
            # use up a try: the candidates that remain get their chance)
            del candidates[pick], weights[pick]
            tries += 1
        return unchecked

    def can_say(self, request: Request) -> bool:
        """Whether ``request`` can be said so the reader reads it back: people wrote it
        (a learned value word) or its plain words read as it ("regular length" does not)."""
        if request.value is not None and (request.facet, request.value) in self.surfaces:
            return True
        return _reads_back(self.reader, _plain([request]), [request])

    def _says_only(self, text: str) -> bool:
        """Whether ``text`` holds no more unread content words than ``max_extra`` (checked
        on the filled text too: a file saved before the count was strict may hold more)."""
        return self.max_extra is None or len(self.reader.unread_words(text)) <= self.max_extra

    def _vague_choices(self) -> list[str]:
        """People's captions that ask for nothing, said with style words only ("is more
        formal", "is sexier and less revealing"): none names a value or a detail that a
        reader could take as a request ("has different prints of roses", "less of a
        V-neck"). With ``max_extra`` None: all of them."""
        if self.max_extra is None:
            return self.vague
        if self._vague_ok is None:
            allowed = lexicon.FUNCTION_WORDS | lexicon.STYLE_WORDS | _MARKER_WORDS
            self._vague_ok = [
                text for text in self.vague
                if not self.reader.read(text)
                and all(word in allowed for word, _ in self.reader.words(text))]
        return self._vague_ok

    def _fluent(self, template: Template, words: Sequence[str]) -> bool:
        """Whether each seam of the edit (the template's word next to a filled value word)
        is a word pair of the training captions."""
        if not self.bigrams:
            return True
        tokens: list[str] = []
        seams: list[int] = []  # i: the pair (tokens[i], tokens[i + 1]) crosses a slot edge
        for number, part in enumerate(_SLOT_MARK.split(template.text)):
            if number % 2 == 0:
                tokens += _words(part)
                continue
            said = _words(words[int(part)])
            if not said:
                continue
            if tokens:
                seams.append(len(tokens) - 1)
            tokens += said
            seams.append(len(tokens) - 1)
        return all(f"{tokens[i]} {tokens[i + 1]}" in self.bigrams
                   for i in seams if i + 1 < len(tokens))

    def _words_for(
        self, template: Template, requests: Sequence[Request], rng: random.Random
    ) -> list[str] | None:
        queues: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in requests:
            if r.value is not None:
                queues[(r.facet, r.op)].append(r.value)
        words = []
        for slot in template.slots:
            if not queues.get(slot):
                return None
            words.append(self._surface(slot[0], queues[slot].pop(0), rng))
        return words

    def _surface(self, facet: str, value: str, rng: random.Random | None = None) -> str:
        seen = self.surfaces.get((facet, value))
        if seen:
            if rng is None:
                return seen.most_common(1)[0][0]
            words, counts = zip(*seen.items(), strict=True)
            return rng.choices(words, counts)[0]
        return _canonical(facet, value)

    def _split(self, requests: list[Request], rng: random.Random) -> list[str] | None:
        """Say the requests in the fewest parts that templates cover."""
        for size in range(len(requests) - 1, 0, -1):
            for group in combinations(requests, size):
                said = self._say_whole(list(group), rng)
                if said is None:
                    continue
                rest = [r for r in requests if r not in group]
                others = self._split(rest, rng) if len(rest) > 1 else None
                if len(rest) == 1:
                    single = self._say_whole(rest, rng)
                    others = [single] if single is not None else [_plain(rest)]
                if others is None:
                    others = [_plain(rest)]
                return [said, *(o.removeprefix("the one i want ") for o in others)]
        return None

    def _connector(self, rng: random.Random) -> str:
        """" and " or ", " as often as people join two clauses with them."""
        ands, commas = self.connectors.get(" and ", 0), self.connectors.get(", ", 0)
        if ands + commas == 0:
            return " and "
        return " and " if rng.random() < ands / (ands + commas) else ", "

    # -- files -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        data = self._to_json()
        if self.salience is not None:  # optional: older readers and files go without
            data["salience"] = self.salience.to_json()
        return data

    def _to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "trained_on": self.trained_on,
            "templates": [
                {"key": [list(k) for k in key], "text": t.text,
                 "slots": [list(s) for s in t.slots], "count": t.count, "extra": t.extra,
                 "seen": sorted(list(v) for v in t.seen)}
                for key, found in sorted(self.templates.items())
                for t in found
            ],
            "surfaces": [
                {"facet": f, "value": v, "words": dict(words)}
                for (f, v), words in sorted(self.surfaces.items())
            ],
            "connectors": dict(self.connectors),
            "vague": self.vague,
            "request_counts": {str(k): v for k, v in sorted(self.request_counts.items())},
            "request_ops": [[f, o, n] for (f, o), n in sorted(self.request_ops.items())],
            "value_counts": [[f, v, n] for (f, v), n in sorted(self.value_counts.items())],
            "bigrams": sorted(self.bigrams),
            "category_counts": {c: {str(k): v for k, v in sorted(n.items())}
                                for c, n in sorted(self.category_counts.items())},
            "category_ops": {c: [[f, o, n] for (f, o), n in sorted(ops.items())]
                             for c, ops in sorted(self.category_ops.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], reader: CaptionReader | None = None
                  ) -> PhraseCaptioner:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a CIR Studio captioner (format {data.get('format')!r})")
        model = cls(reader=reader or default_reader(), trained_on=int(data["trained_on"]))
        for item in data["templates"]:
            key = tuple(tuple(part) for part in item["key"])
            slots = [(str(f), str(o)) for f, o in item["slots"]]
            model.templates.setdefault(key, []).append(
                Template(item["text"], slots, int(item["count"]), int(item.get("extra", 0)),
                         {tuple(v) for v in item.get("seen", ())}))
        for item in data["surfaces"]:
            model.surfaces[(item["facet"], item["value"])] = Counter(item["words"])
        model.connectors = Counter(data["connectors"])
        model.vague = list(data["vague"])
        model.request_counts = Counter({int(k): int(v) for k, v in data["request_counts"].items()})
        model.request_ops = Counter({(str(f), str(o)): int(n) for f, o, n in data["request_ops"]})
        model.value_counts = Counter({(str(f), str(v)): int(n)  # older files: none
                                      for f, v, n in data.get("value_counts", ())})
        model.bigrams = {str(b) for b in data.get("bigrams", ())}  # older files: no check
        model.category_counts = {
            str(c): Counter({int(k): int(v) for k, v in n.items()})
            for c, n in data.get("category_counts", {}).items()}
        model.category_ops = {
            str(c): Counter({(str(f), str(o)): int(n) for f, o, n in ops})
            for c, ops in data.get("category_ops", {}).items()}
        if data.get("salience"):  # older files: none
            model.salience = SalienceModel.from_json(data["salience"])
        return model

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), ensure_ascii=False), encoding="utf-8")
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path) -> PhraseCaptioner:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def how_many(self, rng: random.Random, category: str | None = None) -> int:
        """How many requests a person puts in one caption, drawn as people do (0-4), as
        people did for ``category`` where enough of its captions were seen."""
        seen = self._counts(category)
        if not seen:
            return rng.choice((1, 1, 2, 2, 3))
        counts, weights = zip(*sorted(seen.items()), strict=True)
        return int(rng.choices(counts, weights)[0])

    def op_weight(self, facet: str, op: str, category: str | None = None) -> int:
        """How often people asked for ``facet``/``op`` (for ``category`` where known)."""
        ops = self.request_ops
        if self._counts(category) is not self.request_counts:
            ops = self.category_ops.get(category or "", ops)
        return ops.get((facet, op), 0)

    def _counts(self, category: str | None) -> Counter[int]:
        found = self.category_counts.get(category or "")
        if found is not None and sum(found.values()) >= MIN_CATEGORY_CAPTIONS:
            return found
        return self.request_counts

    @property
    def template_count(self) -> int:
        return sum(len(found) for found in self.templates.values())


# -- helpers -----------------------------------------------------------------------------


def _slot_values(requests: Sequence[Request]) -> dict[tuple[str, str], list[str]]:
    values: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in requests:
        if r.value is not None:
            values[(r.facet, r.op)].append(r.value)
    return values


def _values_for(template: Template, values: dict[tuple[str, str], list[str]]
                ) -> tuple[str, ...]:
    """The requested values in the template's slot order ("" where a slot has none)."""
    used: dict[tuple[str, str], int] = defaultdict(int)
    out = []
    for slot in template.slots:
        found = values.get(slot, [])
        out.append(found[used[slot]] if used[slot] < len(found) else "")
        used[slot] += 1
    return tuple(out)


def _words(text: str) -> list[str]:
    return _WORD.findall(fold(text).lower())


def _bigrams(words: Sequence[str]) -> set[str]:
    return {f"{a} {b}" for a, b in zip(words, words[1:], strict=False)}


def _reads_back(reader: CaptionReader, text: str, requests: Sequence[Request]) -> bool:
    return set(reader.read(text)) == set(requests)


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """Character spans of the reader's tokens in ``text`` (None where folding moves them)."""
    folded = fold(text).replace("\u2019", "'")
    if len(folded) != len(text) or "&" in text:
        return None
    folded = re.sub(r"[-_\u2010-\u2015]", " ", folded)
    spans = []
    for match in _TOKEN.finditer(folded):
        word = match.group()
        stripped = word.strip("'")
        if not stripped:
            continue
        lead = len(word) - len(word.lstrip("'"))
        spans.append((match.start() + lead, match.start() + lead + len(stripped)))
    return spans


def _alternatives() -> dict[str, list[str]]:
    values: dict[str, set[str]] = defaultdict(set)
    for kind, facet, value in lexicon.phrase_table().values():
        if kind == "is" and facet and value:
            values[facet].add(value)
    return {facet: sorted(found) for facet, found in values.items()}


def _other(alternatives: dict[str, list[str]], facet: str, value: str) -> str:
    """A different value of the same facet, chosen deterministically."""
    choices = [v for v in alternatives.get(facet, ()) if v != value and " and " not in v]
    if not choices:
        return value
    return choices[sum(map(ord, value)) % len(choices)]


def _replace_values(
    requests: Sequence[Request], slotted: Sequence[Request], values: Sequence[str]
) -> list[Request]:
    swap = {r: Request(r.facet, r.op, v) for r, v in zip(slotted, values, strict=True)}
    return [swap.get(r, r) for r in requests]


# A negation of nothing the reader reads ("is not as shiny"): the lexicon's one-word ones.
_MARKER_WORDS = frozenset(n for n in lexicon.NEGATIONS if " " not in n)
_VERBS = frozenset(
    ["is", "are", "has", "have", "had", "does", "doesn't", "not", "no", "isn't", "without", "it's", "its"]
)
_CANONICAL: dict[tuple[str, str], str] = {}


def _canonical(facet: str, value: str) -> str:
    """The shortest phrase the reader reads as ``facet = value`` (the value itself if none)."""
    if not _CANONICAL:
        for phrase, (kind, f, v) in lexicon.phrase_table().items():
            if kind == "is" and f and v:
                known = _CANONICAL.get((f, v))
                if known is None or (len(phrase), phrase) < (len(known), known):
                    _CANONICAL[(f, v)] = phrase
    return _CANONICAL.get((facet, value), value)


_PLAIN_COMPARE = {
    ("length", "more"): "is longer", ("length", "less"): "is shorter",
    ("sleeve", "more"): "has longer sleeves", ("sleeve", "less"): "has shorter sleeves",
    ("fit", "more"): "is tighter", ("fit", "less"): "is looser",
    ("lightness", "more"): "is lighter", ("lightness", "less"): "is darker",
    ("colorful", "more"): "is more colorful", ("colorful", "less"): "is less colorful",
}


def _plain(requests: Sequence[Request]) -> str:
    """The last resort when no learned template covers a request: plain catalog words."""
    parts = []
    for r in requests:
        if r.op in ("more", "less"):
            parts.append(_PLAIN_COMPARE.get((r.facet, r.op), f"{r.op} {r.facet}"))
        elif r.op == "not":
            parts.append(f"no {_canonical(r.facet, r.value or '')}")
        else:
            parts.append(f"is {_canonical(r.facet, r.value or '')}")
    return " and ".join(parts)


SHIPPED = Path(__file__).resolve().parents[2] / "resources" / "captioner" / "fashioniq.json"
_SHIPPED_MODEL: PhraseCaptioner | None = None


def shipped_captioner() -> PhraseCaptioner:
    """The captioner trained on Fashion IQ's val captions (CDLA), loaded once."""
    global _SHIPPED_MODEL
    if _SHIPPED_MODEL is None:
        if not SHIPPED.is_file():
            raise StudioError(f"The shipped captioner is missing ({SHIPPED}); reinstall.")
        _SHIPPED_MODEL = PhraseCaptioner.load(SHIPPED)
    return _SHIPPED_MODEL
