"""Can a plain text classifier tell simulated people's captions from real ones?

    python bench/bench_simulated_language.py [--fashioniq ../shared/fixtures/fashioniq]
                                             [--images 400] [--json FILE] [--no-write]

Real captions: Fashion IQ val captions of the held-out pairs (one in ten by a stable hash,
never seen by the shipped captioner). Simulated captions: each user style (catalog,
realistic, learned) describes random (target, reference) pairs of one category of the demo
catalog, as ``simulate`` does, with the items drawn so colours, patterns and graphics come
as often as people name them in Fashion IQ (``people_weights``). Equal numbers of real and simulated captions; the classifier
has fixed settings (TF-IDF word 1-2-grams + character 2-4-grams, logistic regression),
5-fold stratified cross-validation, ROC AUC of the out-of-fold scores (0.5: cannot tell;
1.0: always tells). Also the AUC of caption length alone, and length/vocabulary statistics.
The held-out figures of the shipped captioner (BLEU-4, ROUGE-L, CIDEr-D, faithfulness) are
reported beside it. Needs scikit-learn (the ``bench`` extra). Writes the
``simulated_language`` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.report import machine_description, markdown_table, write_section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STYLES = ("catalog", "realistic", "learned")


def real_captions(fashioniq: Path) -> tuple[list[str], list]:
    from studio.training.captioner import split_pairs
    from studio.training.ship_captioner import fashioniq_pairs

    train, held = split_pairs(fashioniq_pairs(fashioniq))
    return [c for pair in held for c in pair.captions], held


def simulated_captions(facets: dict, style: str, n: int, seed: int,
                       meant: list | None = None) -> list[str]:
    """``n`` captions of random same-category pairs; ``meant`` collects, per caption, the
    requests the simulated person meant to say (learned users)."""
    from studio.simulation.users import AttributeDifferenceUser, preset

    settings = preset(style)
    user = AttributeDifferenceUser(seed=seed, style=style, max_facets=3, **settings)
    rng = random.Random(f"pairs:{seed}")
    by_category: dict[str, list[str]] = {}
    for image_id, (category, _) in facets.items():
        by_category.setdefault(category, []).append(image_id)
    categories = sorted(c for c, ids in by_category.items() if len(ids) > 1)
    values: dict[str, set[str]] = {}  # the world's values per facet, as ``simulate`` gives
    for _, found in facets.values():
        for facet, value in found.items():
            values.setdefault(facet, set()).add(value)
    all_values = {facet: sorted(found) for facet, found in values.items()}
    from studio.language.captioner import shipped_captioner

    weights = people_weights(facets, shipped_captioner())
    out: list[str] = []
    while len(out) < n:
        category = rng.choice(categories)
        ids = by_category[category]
        target, reference = _two(ids, [weights[i] for i in ids], rng)
        user.category = category  # learned users choose what to say as its people did
        text = user.describe(facets[target][1], facets[reference][1], all_values, opener=True)
        if text.strip():
            out.append(text)
            if meant is not None:
                meant.append(list(user.last_requests))
    return out


#: The facets whose values the simulated world draws as often as people name them.
PEOPLE_FACETS = ("color", "pattern", "graphic")
#: The value of a facet that says nothing is there (a plain garment): drawn as often as the
#: demo world has it, the others in people's proportions.
UNMARKED = {"pattern": "solid", "graphic": "plain front"}


def people_weights(facets: dict, captioner) -> dict[str, float]:
    """A weight per image that resamples the demo world so its colours, patterns and
    graphics come as often as Fashion IQ's annotators name them (the shipped captioner's
    ``value_counts``, counted by ``studio.training.ship_captioner`` from the Fashion IQ
    caption files): an item's weight is, per facet, people's share of its value over the
    world's share; the unmarked value (solid, plain front) keeps the world's share. The demo catalog itself draws them evenly (changing it would change
    the world every test and the shipped demo model were made on)."""
    counts = captioner.value_counts
    world: dict[str, dict[str, int]] = {}
    for _, found in facets.values():
        for facet in PEOPLE_FACETS:
            if facet in found:
                seen = world.setdefault(facet, {})
                seen[found[facet]] = seen.get(found[facet], 0) + 1
    share: dict[tuple[str, str], float] = {}
    for facet, seen in world.items():
        plain = UNMARKED.get(facet)
        total = sum(seen.values())
        # the unmarked value keeps the world's share: people rarely say "solid" or "plain
        # front" because most garments are, not because few are
        rest = 1.0 - (seen.get(plain, 0) / total if plain is not None else 0.0)
        people = {v: counts.get((facet, v), 0) + 1 for v in seen if v != plain}
        for value, n in seen.items():
            wanted = n / total if value == plain else rest * people[value] / sum(
                people.values())
            share[(facet, value)] = wanted / (n / total)
    weights = {}
    for image_id, (_, found) in facets.items():
        weight = 1.0
        for facet in PEOPLE_FACETS:
            if facet in found:
                weight *= share[(facet, found[facet])]
        weights[image_id] = weight
    return weights


def _two(ids: list[str], weights: list[float], rng: random.Random) -> tuple[str, str]:
    first = rng.choices(range(len(ids)), weights)[0]
    rest = [i for i in range(len(ids)) if i != first]
    second = rng.choices(rest, [weights[i] for i in rest])[0]
    return ids[first], ids[second]


def faithfulness(texts: list[str], meant: list) -> dict[str, float]:
    """Micro precision and recall of the requests the reader finds against those meant.

    Strict on what was not asked: each content word the reader reads as nothing ("with a
    Mexican on it", "has a zipper", "more revealing") counts as one thing said unasked,
    since a careful reader may take it as a request (a depicted figure is a graphic) and
    nobody can check it; only in a caption that asks for nothing are style words ("is
    more formal") free, as the reading schema gives them no request."""
    from studio.language import lexicon
    from studio.language.reader import default_reader

    reader = default_reader()
    free = lexicon.STYLE_WORDS | {"not", "no", "isn't"}
    agreed = said = asked = 0
    for text, wanted in zip(texts, meant, strict=True):
        read, wanted = set(reader.read(text)), set(wanted)
        unread = [w for w in reader.unread_words(text) if wanted or w not in free]
        agreed, asked = agreed + len(read & wanted), asked + len(wanted)
        said += len(read) + len(unread)
    return {"precision": round(agreed / max(1, said), 3), "recall": round(agreed / max(1, asked), 3)}


def auc(real: list[str], fake: list[str], seed: int) -> tuple[float, float]:
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import FeatureUnion, make_pipeline

    texts = real + fake
    labels = np.array([0] * len(real) + [1] * len(fake))
    features = FeatureUnion([
        ("words", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), min_df=1)),
        ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=1)),
    ])
    model = make_pipeline(features, LogisticRegression(max_iter=2000, C=1.0))
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    scores = cross_val_predict(model, texts, labels, cv=folds, method="predict_proba")[:, 1]
    lengths = np.array([[len(t.split())] for t in texts], dtype=float)
    length_scores = cross_val_predict(LogisticRegression(), lengths, labels, cv=folds,
                                      method="predict_proba")[:, 1]
    return float(roc_auc_score(labels, scores)), float(roc_auc_score(labels, length_scores))


def statistics(texts: list[str]) -> dict[str, float]:
    import numpy as np

    lengths = [len(t.split()) for t in texts]
    words = [w.lower() for t in texts for w in t.split()]
    return {
        "mean_words": round(float(np.mean(lengths)), 2),
        "sd_words": round(float(np.std(lengths)), 2),
        "vocabulary": len(set(words)),
        "type_token": round(len(set(words)) / max(1, len(words)), 3),
    }


def demo_facets(images: int, seed: int) -> dict:
    from studio.attributes.extract import extract_from_text
    from studio.attributes.vocabulary import load_vocabulary
    from studio.demo.project import create_demo_project
    from studio.sessions.facets import FacetMap, project_facets
    from studio.store import Project

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "demo"
        create_demo_project(folder, images, seed, attributes=False)
        with Project.open(folder) as project:
            extract_from_text(project, "bench")
            facets = project_facets(project, FacetMap.for_vocabulary(load_vocabulary(project)))
            categories = {image.id: image.category for image in project.iter_images()}
    # the colour each print is drawn in, which learned users may name beside the colour
    from studio.demo.catalog import plan_catalog
    from studio.demo.garments import print_colours
    from studio.simulation.users import PRINT_COLOR

    for item in plan_catalog(images, seed):
        found = facets.get(item.id)
        colours = print_colours(item, seed)
        second = colours.get("pattern") or colours.get("graphic")
        if found and second:
            facets[item.id] = {**found, PRINT_COLOR: second}
    return {i: (categories[i], f) for i, f in facets.items() if f and i in categories}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fashioniq", type=Path,
                        default=ROOT.parent / "shared" / "fixtures" / "fashioniq")
    parser.add_argument("--images", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    from studio.language.captioner import shipped_captioner
    from studio.training.captioner import evaluate

    real, held = real_captions(args.fashioniq)
    if not real:
        parser.error(f"no Fashion IQ caption files under {args.fashioniq / 'captions'}")
    facets = demo_facets(args.images, args.seed)
    results: dict[str, dict] = {"real": {**statistics(real), "captions": len(real)}}
    samples: dict[str, list[str]] = {"real": random.Random(1).sample(real, 4)}
    meant: list = []
    for style in STYLES:
        fake = simulated_captions(facets, style, len(real), args.seed,
                                  meant if style == "learned" else None)
        text_auc, length_auc = auc(real, fake, args.seed)
        results[style] = {"roc_auc": round(text_auc, 3), "length_auc": round(length_auc, 3),
                          "captions": len(fake), **statistics(fake)}
        samples[style] = fake[:4]
        if style == "learned":
            results[style]["faithfulness"] = faithfulness(fake, meant)
        print(style, results[style], flush=True)
    # How they speak, apart from what the demo world holds: the learned captioner says the
    # requests read from one half of the held-out captions; the other half is the real class.
    from studio.language.reader import read_caption

    rng = random.Random(args.seed)
    shuffled = real[:]
    rng.shuffle(shuffled)
    half = len(shuffled) // 2
    asked, kept = shuffled[:half], shuffled[half:2 * half]
    spoken = [shipped_captioner().say(read_caption(text), rng) for text in asked]
    text_auc, length_auc = auc(kept, spoken, args.seed)
    results["learned_real_requests"] = {"roc_auc": round(text_auc, 3),
                                        "length_auc": round(length_auc, 3),
                                        "captions": len(spoken), **statistics(spoken)}
    samples["learned_real_requests"] = spoken[:4]
    results["captioner_held_out"] = evaluate(shipped_captioner(), held)
    if args.json:
        args.json.write_text(json.dumps({"results": results, "samples": samples}, indent=1))
    rows = [
        [name, results[name].get("roc_auc", "-"), results[name].get("length_auc", "-"),
         results[name]["captions"], results[name]["mean_words"], results[name]["sd_words"],
         results[name]["vocabulary"], results[name]["type_token"]]
        for name in ("real", *STYLES, "learned_real_requests")
    ]
    held_out = results["captioner_held_out"]
    body = (
        f"{machine_description()}\n\n"
        "Real: Fashion IQ val captions of the held-out pairs (one pair in ten, never seen by "
        "the shipped captioner). Simulated: each user style describing random same-category "
        f"pairs of a {args.images}-image demo catalog. Equal numbers; TF-IDF word 1-2-grams "
        "+ character 2-4-grams, logistic regression, 5-fold; ROC AUC 0.5 = cannot tell.\n\n"
        + "The last row separates how people speak from what the world holds: the learned "
        "captioner says the requests the reader finds in one half of the real held-out "
        "captions, against the other half.\n\n"
        + markdown_table(["captions", "ROC AUC", "length-only AUC", "n", "mean words",
                          "sd words", "vocabulary", "type/token"], rows)
        + "\n\nSamples:\n\n"
        + "\n".join(f"- {name}: " + "; ".join(f"“{t}”" for t in texts)
                    for name, texts in samples.items())
        + f"\n\nShipped captioner on the {held_out['captions']} held-out captions with "
        f"requests: BLEU-4 {held_out['bleu4']:.3f}, ROUGE-L {held_out['rouge_l']:.3f}, "
        f"CIDEr-D {held_out['cider_d']:.3f}; faithfulness (the reader reads back what was "
        f"asked): precision {held_out['precision']:.3f}, recall {held_out['recall']:.3f}; "
        "learned users on the demo pairs above (the reader against what each meant to say): "
        f"precision {results['learned']['faithfulness']['precision']:.3f}, recall "
        f"{results['learned']['faithfulness']['recall']:.3f}. "
        "Not comparable with Fashion IQ's Table 4: their captioner sees the two images; ours "
        "is asked for the requests the reader finds in one of the two reference captions "
        "itself, which helps it, and the references are two captions per pair as theirs.\n\n"
        f"Run: `.venv/bin/python bench/bench_simulated_language.py --images {args.images}`."
    )
    print(body)
    if not args.no_write:
        write_section("simulated_language", "Simulated people's language against real captions",
                      body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
