"""Learned simulated users say what they were asked, and nothing else.

A learned user's caption is a real person's caption edited at its value words. Whatever
else that person wrote ("with a Mexican on it", "has a zipper", "is more revealing") is
something the simulated person was never asked to say: a careful reader reads a depicted
figure as a graphic, and a checker of faithfulness cannot tell a detail that happens to be
true from one that is made up. So every word of a learned caption must be part of a phrase
the caption reader reads as one of the requests given, or a word that carries no content
(articles, "is", "and", "color", the garment's name).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from studio.demo.catalog import read_catalog
from studio.demo.garments import print_colours
from studio.language.reader import Request, default_reader
from studio.simulation.users import PRINT_COLOR, AttributeDifferenceUser, preset

# Words that say nothing about the wanted item on their own: what "every word is a request"
# allows around the phrases the reader reads (chosen here, independently of the studio's
# own list, so the test judges the captions by its own reading).
NO_CONTENT = frozenset(["a", "an", "the", "and", "or", "but", "with", "is", "are", "it", "its", "it's", "i", "want", "one", "that", "this", "be", "to", "of", "in", "on", "than", "also", "has", "have", "very", "bit", "little", "much", "more", "less", "same", "color", "colour", "colored", "coloured", "dress", "dresses", "shirt", "shirts", "top", "tee", "t", "tshirt", "blouse", "as", "so", "too", "just", "slightly", "somewhat", "quite", "front"])


def unrequested_words(text: str, asked: list[Request]) -> list[str]:
    """The words of ``text`` that are neither read as one of ``asked`` nor content-free."""
    reader = default_reader()
    read = set(reader.read(text))
    extra = [f"<{r.describe()}>" for r in read - set(asked)]
    extra += [word for word, is_read in reader.words(text)
              if not is_read and word not in NO_CONTENT]
    return extra


@pytest.fixture(scope="module")
def demo_world(tmp_path_factory: pytest.TempPathFactory, demo_template: Path
               ) -> dict[str, tuple[str, dict[str, str]]]:
    """image id -> (category, facets) of the small demo project, as simulations see it."""
    import shutil

    from studio.attributes.extract import extract_from_text
    from studio.attributes.vocabulary import load_vocabulary
    from studio.sessions.facets import FacetMap, project_facets
    from studio.store import Project

    folder = tmp_path_factory.mktemp("faithful") / "demo"
    shutil.copytree(demo_template, folder)
    with Project.open(folder) as project:
        extract_from_text(project, "test")
        facets = project_facets(project, FacetMap.for_vocabulary(load_vocabulary(project)))
        categories = {image.id: image.category for image in project.iter_images()}
        seed = int(project.get_meta("demo_seed") or 0)
    # the colour each print is drawn in, which learned users may name beside the colour
    for item in read_catalog(folder):
        colours = print_colours(item, seed)
        second = colours.get("pattern") or colours.get("graphic")
        if facets.get(item.id) and second:
            facets[item.id] = {**facets[item.id], PRINT_COLOR: second}
    return {i: (categories[i], f) for i, f in facets.items() if f and i in categories}


def learned_captions(world: dict, n: int, seed: int) -> list[tuple[str, list[Request]]]:
    """``n`` captions of learned users describing random same-category pairs."""
    user = AttributeDifferenceUser(seed=seed, style="learned", max_facets=3,
                                   **preset("learned"))
    rng = random.Random(seed)
    by_category: dict[str, list[str]] = {}
    for image_id, (category, _) in sorted(world.items()):
        by_category.setdefault(category, []).append(image_id)
    out = []
    while len(out) < n:
        category = rng.choice(sorted(by_category))
        target, reference = rng.sample(by_category[category], 2)
        user.category = category
        text = user.describe(world[target][1], world[reference][1], {})
        if user.last_requests:
            out.append((text, list(user.last_requests)))
    return out


def test_every_word_of_a_learned_users_caption_is_a_request_it_was_given(demo_world) -> None:
    said = learned_captions(demo_world, 600, seed=0)
    unfaithful = [(text, [r.describe() for r in asked], extra)
                  for text, asked in said
                  if (extra := unrequested_words(text, asked))]
    assert not unfaithful, "\n".join(map(str, unfaithful[:15])) + f"\n({len(unfaithful)} of 600)"


def test_learned_users_name_both_colours_of_a_two_coloured_target_and_only_then(
        demo_world) -> None:
    # people write "is black with white lettering" or "is black and white" for a garment
    # with a print in a second colour; a simulated person does too, now and then, and says
    # exactly those requests; one whose target shows one colour never names two
    user = AttributeDifferenceUser(seed=0, style="learned", max_facets=3, **preset("learned"))
    user.category = "shirt"
    target = {"color": "black", "graphic": "text print", PRINT_COLOR: "white"}
    current = {"color": "red", "graphic": "plain front"}
    both = Request("color", "is", "white")
    pair = Request("color", "is", "black and white")
    named = 0
    for _ in range(300):
        text = user.describe(target, current, {})
        asked = list(user.last_requests)
        extra = [w for w in unrequested_words(text, asked) if asked or w not in STYLE]
        assert not extra, (text, asked)  # with nothing asked, how it feels ("is more chic")
        assert set(default_reader().read(text)) == set(asked), (text, asked)
        named += both in asked or pair in asked
    assert 10 <= named <= 120
    one = {k: v for k, v in target.items() if k != PRINT_COLOR}
    for _ in range(300):
        user.describe(one, current, {})
        assert both not in user.last_requests and pair not in user.last_requests
    # and in the demo world, whose prints have their colours recorded
    said = learned_captions(demo_world, 600, seed=1)
    two = [text for text, asked in said
           if sum(r.facet == "color" and r.op == "is" for r in asked) >= 2
           or Request("color", "is", "black and white") in asked]
    assert len(two) >= 10, len(two)


@pytest.mark.parametrize(("text", "asked"), [
    ("is black with white lettering", [("color", "black"), ("color", "white"),
                                       ("graphic", "text print")]),
    ("is black and white", [("color", "black and white")]),
    ("is white with a black graphic", [("color", "white"), ("color", "black"),
                                       ("graphic", "graphic print")]),
    ("is navy with white polka dots", [("color", "navy"), ("color", "white"),
                                       ("pattern", "polka dot")]),
    ("is red and white striped", [("color", "red"), ("color", "white"),
                                  ("pattern", "striped")]),
    ("is grey with black writing", [("color", "grey"), ("color", "black"),
                                    ("graphic", "text print")]),
])
def test_two_colour_phrasings_read_as_each_colour_asked(text, asked) -> None:
    wanted = [Request(facet, "is", value) for facet, value in asked]
    assert set(default_reader().read(text)) == set(wanted)
    assert not unrequested_words(text, wanted)


# How an item feels, which CAPTION_READING.md reads as no request ("sexier", "more
# elegant", "more revealing"), and the words that turn such a word round ("not as shiny").
STYLE = frozenset(["revealing", "formal", "casual", "sexy", "sexier", "feminine", "shiny", "shinier", "whimsical", "simple", "simpler", "sporty", "sportier", "humorous", "modest", "masculine", "elegant", "conservative", "chic", "fashionable", "fancy", "fancier", "girly", "sleek", "bold", "bolder", "modern", "cute", "trendy", "classy", "dressy", "professional", "youthful", "playful", "flirty", "edgy", "classic", "different", "similar", "identical", "exactly", "like", "looks", "looking", "style", "stylish", "not", "no", "isn't"])


def test_learned_users_with_nothing_to_ask_say_only_how_it_feels() -> None:
    # people write "is more formal" now and then; a simulated person with nothing to ask
    # may too, but never "has different prints of roses" (floral) or "less of a V-neck"
    from studio.language.captioner import shipped_captioner

    model, rng = shipped_captioner(), random.Random(0)
    said = {model.say([], rng) for _ in range(300)}
    wrong = [text for text in sorted(said)
             if default_reader().read(text)
             or any(word not in NO_CONTENT | STYLE for word, _ in default_reader().words(text))]
    assert len(said) > 20 and not wrong, wrong[:20]


def test_the_walks_examples_count_as_unrequested_content() -> None:
    # "a Mexican on it" is a figure on the shirt, a graphic print (CAPTION_READING.md, 6),
    # whether or not the reader knows the word; "a zipper" is a detail nobody asked for
    assert unrequested_words("is a brown t shirt with a Mexican on it",
                             [Request("color", "is", "brown")])
    assert unrequested_words("has a zipper and floral", [Request("pattern", "is", "floral")])
    assert not unrequested_words("is a brown t shirt", [Request("color", "is", "brown")])


def test_learned_users_never_ask_for_what_no_reader_could_read() -> None:
    # the demo world's tops have a "regular length", which no caption of Fashion IQ names
    # and the reader cannot read: said in plain words ("is regular length") it would be
    # two words the reader takes for nothing, so a learned user asks for something else
    user = AttributeDifferenceUser(seed=0, style="learned", max_facets=3, **preset("learned"))
    user.category = "shirt"
    target = {"length": "regular length", "color": "red"}
    current = {"length": "cropped", "color": "red"}
    for _ in range(200):
        text = user.describe(target, current, {})
        asked = list(user.last_requests)  # none: how it feels ("is more formal") only
        extra = [w for w in unrequested_words(text, asked) if asked or w not in STYLE]
        assert not extra, (text, asked)


def test_learned_users_call_a_chest_print_a_logo_now_and_then_and_only_a_print() -> None:
    # Fashion IQ's annotators call the word or emblem on a shirt's chest "a logo" (about one
    # caption in forty); a learned user may too, for a target whose chest shows a word or a
    # motif and a reference whose front is plain, and then it asks for exactly that
    user = AttributeDifferenceUser(seed=0, style="learned", max_facets=3, **preset("learned"))
    user.category = "shirt"
    logo = Request("graphic", "is", "logo")
    for drawn in ("text print", "graphic print"):
        target = {"graphic": drawn, "color": "red"}
        current = {"graphic": "plain front", "color": "red"}
        said = []
        for _ in range(300):
            text = user.describe(target, current, {})
            asked = list(user.last_requests)
            assert set(default_reader().read(text)) == set(asked), (text, asked)
            said.append(logo in asked)
        assert 10 <= sum(said) <= 150, (drawn, sum(said))
    # never for a plain front, nor between two prints (both are "a logo")
    for target, current in (({"graphic": "plain front"}, {"graphic": "text print"}),
                            ({"graphic": "text print"}, {"graphic": "graphic print"})):
        for _ in range(200):
            user.describe(target, current, {})
            assert logo not in user.last_requests
